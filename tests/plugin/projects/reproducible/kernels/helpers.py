import triton


@triton.jit
def scaled(x, factor):
    return x * factor
