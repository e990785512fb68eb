"""A Hopper matmul over host tensor descriptors, in the style of Triton's persistent matmul
tutorial's TMA kernel: A is [M, K], B is [N, K] (K-major), C is [M, N], each passed as a host
TensorDescriptor (signature type tensordesc<fp16[BLOCK, BLOCK]>), so the launcher encodes
their TMA maps."""
import triton
import triton.language as tl


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_am, k * BLOCK_K])
        b = b_desc.load([offs_bn, k * BLOCK_K])
        accumulator = tl.dot(a, b.T, accumulator)
    c_desc.store([offs_am, offs_bn], accumulator.to(tl.float16))


def set_block_shapes(nargs):
    """As the persistent matmul tutorial and Liger-Kernel's TMA kernels do: the caller makes the
    descriptors with a dummy block, each config gives them its tiles (C in halves if SPLIT_C)."""
    BLOCK_M, BLOCK_N, BLOCK_K = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]
    nargs["b_desc"].block_shape = [BLOCK_N, BLOCK_K]
    if nargs.get("SPLIT_C", False):
        nargs["c_desc"].block_shape = [BLOCK_M, BLOCK_N // 2]
    else:
        nargs["c_desc"].block_shape = [BLOCK_M, BLOCK_N]


@triton.autotune(configs=[triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8,
                                        pre_hook=set_block_shapes),
                          triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4,
                                        pre_hook=set_block_shapes)],
                 key=["M", "N", "K"])
@triton.jit
def matmul_tma_tuned_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr, SPLIT_C: tl.constexpr = False):
    offs_am = tl.program_id(axis=0) * BLOCK_M
    offs_bn = tl.program_id(axis=1) * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_am, k * BLOCK_K])
        b = b_desc.load([offs_bn, k * BLOCK_K])
        accumulator = tl.dot(a, b.T, accumulator)
    if SPLIT_C:
        halves = tl.permute(tl.reshape(accumulator, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
        left, right = tl.split(halves)
        c_desc.store([offs_am, offs_bn], left.to(tl.float16))
        c_desc.store([offs_am, offs_bn + BLOCK_N // 2], right.to(tl.float16))
    else:
        c_desc.store([offs_am, offs_bn], accumulator.to(tl.float16))
