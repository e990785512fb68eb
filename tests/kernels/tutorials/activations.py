"""Activation helpers shared by the package's kernels, imported relatively (`from .activations
import leaky_relu`), as the matmul tutorial fuses its activation into the epilogue."""
import triton
import triton.language as tl

# Slope of the negative half; a module-level constexpr the @jit helper reads.
NEGATIVE_SLOPE = tl.constexpr(0.01)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, NEGATIVE_SLOPE * x)
