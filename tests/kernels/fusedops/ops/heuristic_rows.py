"""Row-wise scale-and-bias in the style of FlagGems and vLLM: stacked @triton.heuristics over
@triton.jit, a block size computed from a runtime argument by a named function, a divisibility
flag and an optional bias pointer tested against None."""
import triton
import triton.language as tl

MAX_BLOCK_N = 4096


def block_n_for(args):
    """One row per program: the smallest power of two that holds a row, capped."""
    return min(triton.next_power_of_2(args["n_cols"]), MAX_BLOCK_N)


@triton.heuristics({"BLOCK_N": block_n_for})
@triton.heuristics({
    "EVEN_N": lambda args: args["n_cols"] % args["BLOCK_N"] == 0, "HAS_BIAS": lambda args: args["bias_ptr"] is not None,
})
@triton.jit
def scale_rows_kernel(x_ptr, bias_ptr, y_ptr, n_rows, n_cols, scale,
                      BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr, HAS_BIAS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if row >= n_rows:
        return
    cols = tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(x_ptr + row * n_cols + cols)
    else:
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    y = x * scale
    if HAS_BIAS:
        if EVEN_N:
            y += tl.load(bias_ptr + cols)
        else:
            y += tl.load(bias_ptr + cols, mask=cols < n_cols, other=0.0)
    if EVEN_N:
        tl.store(y_ptr + row * n_cols + cols, y)
    else:
        tl.store(y_ptr + row * n_cols + cols, y, mask=cols < n_cols)
