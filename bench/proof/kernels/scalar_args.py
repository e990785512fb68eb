"""Scalar arguments of four widths: out = x * alpha + beta (when use_beta).

The annotations fix each scalar's type for Triton's JIT as the signature does for the library
(alpha fp32, beta fp16, n_elements i64, use_beta i1): without them the JIT would type a Python
float as fp32 and an int below 2**31 as i32, and compile another image.
"""
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, alpha: tl.float32, beta: tl.float16, n_elements: tl.int64,
                       use_beta: tl.int1, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0).to(tl.int64)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x * alpha
    if use_beta:
        y = y + beta.to(tl.float32)
    tl.store(out_ptr + offsets, y, mask=mask)
