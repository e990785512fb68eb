"""Tutorial 04: dropout, first with a keep-mask tensor, then seeded: the mask is regenerated
from (seed, offset) with tl.rand, so no mask is stored."""
import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _dropout(x_ptr, x_keep_ptr, output_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.load(x_keep_ptr + offsets, mask=mask)
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, out, mask=mask)


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # Philox keyed by the seed: the same (seed, offset) always draws the same number.
    draw = tl.rand(seed, offsets)
    out = tl.where(draw > p, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, out, mask=mask)


def dropout(x: torch.Tensor, x_keep: torch.Tensor, p: float):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    _dropout[grid](x, x_keep, output, n_elements, p, BLOCK_SIZE=1024)
    return output


def seeded_dropout(x: torch.Tensor, p: float, seed: int):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output
