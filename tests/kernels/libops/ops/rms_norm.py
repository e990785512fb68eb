"""Row-wise RMS norm as FlagGems writes its kernels: the library's entry outermost, over Triton's
heuristics (a block that holds a row, and whether the rows fill it) over the @triton.jit function."""
import triton
import triton.language as tl

from ..utils import libentry


@libentry()
@triton.heuristics({
    "BLOCK_N": lambda args: triton.next_power_of_2(args["n_cols"]),
    "EVEN_N": lambda args: args["n_cols"] == args["BLOCK_N"],
})
@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(x_ptr + row * n_cols + cols).to(tl.float32)
        w = tl.load(w_ptr + cols).to(tl.float32)
    else:
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    y = (x * rstd * w).to(y_ptr.dtype.element_ty)
    if EVEN_N:
        tl.store(y_ptr + row * n_cols + cols, y)
    else:
        tl.store(y_ptr + row * n_cols + cols, y, mask=cols < n_cols)
