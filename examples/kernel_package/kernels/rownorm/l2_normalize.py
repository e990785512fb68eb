"""y = x / max(||x||_2, MIN_NORM), row by row, BLOCK_R rows per program: autotuned over
how many rows a program takes and its warps (declared in CMake without CONFIG, so these are
the library's configs)."""
import triton
import triton.language as tl

from .common import MIN_NORM, sum_of_squares


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_R": 1}, num_warps=4),
        triton.Config({"BLOCK_R": 4}, num_warps=4),
        triton.Config({"BLOCK_R": 8}, num_warps=8),
    ],
    key=["n_rows", "n_cols"],
)
@triton.jit
def l2_normalize_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK_N: tl.constexpr,
                        BLOCK_R: tl.constexpr, scale=1.0):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None].to(tl.int64) * stride + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    norm = tl.maximum(tl.sqrt(sum_of_squares(x)), MIN_NORM)
    y = x / norm[:, None] * scale
    tl.store(y_ptr + offsets, y, mask=mask)
