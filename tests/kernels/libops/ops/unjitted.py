"""The library's entry over a function someone forgot to decorate with @triton.jit."""
import triton.language as tl

from ..utils import libentry


@libentry()
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets))
