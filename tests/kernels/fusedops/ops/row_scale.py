"""A persistent row-wise kernel whose launch facts come from the device at import: one program
per SM striding over the rows, a block width by backend (as the fused softmax tutorial sizes
its launch from driver.active.utils.get_device_properties)."""
import triton
import triton.language as tl

from .device_info import PROGRAMS, ROW_BLOCK, is_cuda


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, scale,
                     BLOCK: tl.constexpr = ROW_BLOCK, NUM_PROGRAMS: tl.constexpr = PROGRAMS):
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, NUM_PROGRAMS):
        offsets = row.to(tl.int64) * stride + cols
        mask = cols < n_cols
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


# Chosen at import for the backend being compiled.
NUM_WARPS = 8 if is_cuda() else 4
