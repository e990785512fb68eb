"""Kernels whose @triton.heuristics set launch options, as FlagGems' nonzero_kernel does
("num_warps": lambda args: 8): a constant, one computed from a runtime argument, and one over a
constexpr (with num_stages) under an autotune config that sets num_warps too (the heuristic's
value wins, as in Triton's launch)."""
import triton
import triton.language as tl

from .launch_rules import COUNT_HEURISTICS, SCALE_HEURISTICS, STAGED_HEURISTICS


@triton.heuristics(COUNT_HEURISTICS)
@triton.jit
def count_positive_kernel(x_ptr, count_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(count_ptr, tl.sum((x > 0).to(tl.int32), axis=0))


@triton.heuristics(SCALE_HEURISTICS)
@triton.jit
def scale_kernel(x_ptr, y_ptr, n_elements, scale, BLOCK_SIZE: tl.constexpr = 1024):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 1024}, num_warps=2),
                          triton.Config({"BLOCK_SIZE": 4096}, num_warps=2)], key=["n_elements"])
@triton.heuristics(STAGED_HEURISTICS)
@triton.jit
def staged_copy_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.heuristics({"num_warps": lambda args: 3})
@triton.jit
def odd_warps_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr = 256):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 0.0, mask=offsets < n_elements)
