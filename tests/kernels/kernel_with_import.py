"""A kernel that calls a @triton.jit helper from a project-local module."""
import triton
import triton.language as tl

from kernel_helpers import scaled


@triton.jit
def scale_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, scaled(x), mask=mask)
