"""Helpers the kernels of the package share: @triton.jit functions and module-level constants."""
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def silu(x):
    return x / (1.0 + tl.math.exp2(-x * LOG2E))
