"""The kernel of the dlopen benchmark's libraries: one small function whose constexpr OFFSET
takes a different value in each config, so N configs give N distinct images."""
import triton
import triton.language as tl


@triton.jit
def offset_kernel(x_ptr, out_ptr, n_elements, OFFSET: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + OFFSET, mask=mask)
