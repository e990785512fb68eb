"""Layer norm forward over the rows of a row-major matrix (as in Triton's tutorial 05):
y = (x - mean) / sqrt(var + eps) * w + b, one program per row, fp32 statistics; the row's
mean and 1/std are stored for the backward pass. Rows longer than BLOCK are walked in chunks.
"""
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_rows, N,
                          eps, BLOCK: tl.constexpr):
    # n_rows sizes the grid (one program per row); the kernel itself does not need it.
    row = tl.program_id(0)
    x_ptr += row * row_stride
    y_ptr += row * row_stride
    sum_x = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        sum_x += tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(sum_x, axis=0) / N
    sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        sum_sq += x * x
    rstd = 1 / tl.sqrt(tl.sum(sum_sq, axis=0) / N + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
