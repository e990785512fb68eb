"""A heuristic outside the subset triton-aot translates: it reads a tensor's attribute."""
import triton
import triton.language as tl


@triton.heuristics({"USE_WIDE": lambda args: args["x_ptr"].dtype.itemsize >= 4})
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, USE_WIDE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if USE_WIDE:
        x = x.to(tl.float32)
    tl.store(y_ptr + offsets, x, mask=mask)


def wide_rows(args):
    """A function of several statements: flattened, until the line that reads a dtype."""
    n = args["n"]
    if n <= 1024:
        return False
    wide = args["x_ptr"].dtype.itemsize >= 4
    return wide


@triton.heuristics({"USE_WIDE": wide_rows})
@triton.jit
def rows_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, USE_WIDE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if USE_WIDE:
        x = x.to(tl.float32)
    tl.store(y_ptr + offsets, x, mask=mask)
