"""Project-local @triton.jit helpers, imported by kernel_with_import.py (depfile tests)."""
import triton
import triton.language as tl

# A constexpr global: kernels may read it (plain globals are rejected by Triton).
SCALE = tl.constexpr(2.0)


@triton.jit
def scaled(x):
    return x * SCALE
