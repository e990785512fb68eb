"""A 2-D tile copy with scaling through device-side tensor descriptors: out = x * scale.

tl.make_tensor_descriptor builds the TMA descriptors inside the kernel, in global memory that
the launcher provides per program (Triton 3.6 on cuda:90a records global_scratch_size 256, two
128-byte descriptors), so this kernel checks that the runtime allocates and passes the global
scratch buffer. x and out are row-major M x N fp32 with row stride `stride` elements; TMA needs
16-byte aligned bases and row strides that are multiples of 16 bytes.
"""
import triton
import triton.language as tl


@triton.jit
def tma_scale_kernel(x_ptr, out_ptr, M, N, stride, scale,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[stride, 1],
                                         block_shape=[BLOCK_M, BLOCK_N])
    m = tl.program_id(axis=0) * BLOCK_M
    n = tl.program_id(axis=1) * BLOCK_N
    tile = x_desc.load([m, n])
    out_desc.store([m, n], tile * scale)
