"""Row-wise RMS normalisation, one program per row, as Liger-Kernel's kernels are written: the
launch grid is (n_rows,), a size that is none of the kernel's arguments, so it is compiled
without a grid and the caller passes it."""
import triton
import triton.language as tl


@triton.jit
def rms_norm_rows_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, n_cols, eps,
                         BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * X_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)
    tl.store(Y_ptr + row * Y_row_stride + cols, x * rstd * w, mask=mask)
