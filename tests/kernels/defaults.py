"""Parameters with defaults, as real kernels write them (Liger-Kernel's `COMPUTE_DW:
tl.constexpr = True`, a runtime `scale` with a default): a declaration may leave them off the end
of its signature or give them by name."""
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, n_cols, scale=2.0, BLOCK: tl.constexpr = 256,
                      ADD_ONE: tl.constexpr = False):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)
    y = x * scale
    if ADD_ONE:
        y = y + 1.0
    tl.store(out_ptr + row * n_cols + cols, y, mask=cols < n_cols)
