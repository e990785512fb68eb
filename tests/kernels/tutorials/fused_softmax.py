"""Tutorial 02: row-wise softmax, one read and one write of each row.  Programs are persistent:
a fixed number of them, sized from the GPU's properties at import, strides over the rows, and
the loop's software pipelining depth is the `num_stages` constexpr the launch also passes to the
compiler."""
import torch

import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    first_row = tl.program_id(0)
    row_step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_SIZE)
    for row in tl.range(first_row, n_rows, row_step, num_stages=num_stages):
        in_row = input_ptr + row * input_row_stride
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        # Subtract the maximum for stability; exp(-inf) is 0 for the padding.
        shifted = x - tl.max(x, axis=0)
        numerator = tl.exp(shifted)
        result = numerator / tl.sum(numerator, axis=0)
        out_row = output_ptr + row * output_row_stride
        tl.store(out_row + cols, result, mask=cols < n_cols)


def softmax(x: torch.Tensor):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 2048 else 4
    # Deeper pipelining where shared memory is plentiful (the tutorial's rule of thumb).
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    # A few programs per SM, never more than there are rows.
    num_programs = min(NUM_SM * (2 if is_hip() else 4), n_rows)
    softmax_kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                         BLOCK_SIZE, num_stages=num_stages, num_warps=num_warps)
    return y
