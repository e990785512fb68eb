"""A kernel that builds a tensor descriptor on the device (tl.make_tensor_descriptor): on
sm_90a Triton keeps the descriptor in global scratch memory, so the metadata asks the launcher
for a global scratch buffer per program."""
import triton
import triton.language as tl


@triton.jit
def tma_scale_kernel(in_ptr, out_ptr, M, N, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    in_desc = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1],
                                        block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                         block_shape=[BLOCK_M, BLOCK_N])
    tile = in_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    out_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], tile * scale)
