"""RMS norm, y = x / sqrt(mean(x^2) + eps) * w, one row per program (launched with the number
of rows as its grid).  EVEN_N, whether a row fills the block exactly, is a @triton.heuristics
value: rows that do are loaded and stored without masks."""
import triton
import triton.language as tl

from . import common


@triton.heuristics({"EVEN_N": lambda args: args["n_cols"] % args["BLOCK_N"] == 0})
@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, stride, n_cols, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr,
                    eps=1e-6, HAS_WEIGHT: tl.constexpr = True):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(x_ptr + row * stride + cols)
    else:
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    y = x * common.inverse_rms(common.sum_of_squares(x), n_cols, eps)
    if HAS_WEIGHT:
        if EVEN_N:
            y = y * tl.load(w_ptr + cols)
        else:
            y = y * tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0)
    if EVEN_N:
        tl.store(y_ptr + row * stride + cols, y)
    else:
        tl.store(y_ptr + row * stride + cols, y, mask=cols < n_cols)
