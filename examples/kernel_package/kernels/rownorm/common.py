"""What the package's kernels share: module-level tl.constexpr globals and @triton.jit helpers."""
import triton
import triton.language as tl

# Rows are reduced in fp32 whatever their element type.
ACC_DTYPE = tl.constexpr(tl.float32)
# The smallest norm an L2 normalization divides by (a zero row stays zero).
MIN_NORM = tl.constexpr(1e-12)


@triton.jit
def sum_of_squares(x):
    """The sum of squares of x along its last axis, accumulated in ACC_DTYPE."""
    xf = x.to(ACC_DTYPE)
    return tl.sum(xf * xf, axis=-1)


@triton.jit
def inverse_rms(sum_sq, n, eps):
    return 1.0 / tl.sqrt(sum_sq / n + eps)
