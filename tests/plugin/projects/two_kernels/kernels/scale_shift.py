"""Scalar arguments of several widths: out = x * alpha + beta (if use_beta).

Compiled with alpha: fp32, beta: fp16, n_elements: i64, use_beta: i1, so the launcher must
pack each scalar at its exact width. The multiplication comes from a project-local module.
"""
import triton
import triton.language as tl

from arith import scaled


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, alpha, beta, n_elements, use_beta, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0).to(tl.int64)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = scaled(x, alpha)
    if use_beta:
        y = y + beta.to(tl.float32)
    tl.store(out_ptr + offsets, y, mask=mask)
