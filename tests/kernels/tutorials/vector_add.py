"""Tutorial 01: element-wise addition of two vectors."""
import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Each program handles one contiguous block of BLOCK_SIZE elements.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    a = tl.load(x_ptr + offsets, mask=in_bounds)
    b = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, a + b, mask=in_bounds)


def add(x: torch.Tensor, y: torch.Tensor, block_size: int = 1024):
    assert x.shape == y.shape and x.device == y.device
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=block_size)
    return out
