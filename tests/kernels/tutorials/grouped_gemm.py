"""Tutorial 08 (simplified): a group of independent fp16 GEMMs C_i = A_i @ B_i of different
sizes in one launch.  A fixed number of programs (one per SM, the count read from the GPU's
properties at import) walks the tiles of every problem in turn; the problems' pointers, sizes
and leading dimensions are device arrays built by the wrapper."""
import torch

import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
NUM_SM = driver.active.utils.get_device_properties(DEVICE.index)["multiprocessor_count"]


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def _configs():
    if is_cuda():
        return [triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4),
                triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=8)]
    return [triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4)]


@triton.autotune(configs=_configs(), key=["group_size"])
@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr):
    tile_idx = tl.program_id(0)
    first_tile = 0  # the first global tile index of the current problem
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        # Every tile of this problem that falls to this program, NUM_SM apart.
        while tile_idx >= first_tile and tile_idx < first_tile + num_tiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            local = tile_idx - first_tile
            tile_m = local // num_n_tiles
            tile_n = local % num_n_tiles
            offs_am = tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BLOCK_SIZE_K)):
                k_ok = offs_k + kk * BLOCK_SIZE_K < gk
                a = tl.load(a_ptr + offs_am[:, None] * lda + (kk * BLOCK_SIZE_K + offs_k)[None, :],
                            mask=(offs_am[:, None] < gm) & k_ok[None, :], other=0.0)
                b = tl.load(b_ptr + (kk * BLOCK_SIZE_K + offs_k)[:, None] * ldb + offs_bn[None, :],
                            mask=k_ok[:, None] & (offs_bn[None, :] < gn), other=0.0)
                acc += tl.dot(a, b)
            c = acc.to(tl.float16)
            tl.store(c_ptr + offs_am[:, None] * ldc + offs_bn[None, :], c,
                     mask=(offs_am[:, None] < gm) & (offs_bn[None, :] < gn))
            tile_idx += NUM_SM
        first_tile = first_tile + num_tiles


def group_gemm_fn(group_A, group_B):
    assert len(group_A) == len(group_B)
    group_size = len(group_A)
    A_addrs, B_addrs, C_addrs, g_sizes, g_lds, group_C = [], [], [], [], [], []
    for A, B in zip(group_A, group_B):
        assert A.shape[1] == B.shape[0]
        M, K = A.shape
        _, N = B.shape
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        group_C.append(C)
        A_addrs.append(A.data_ptr())
        B_addrs.append(B.data_ptr())
        C_addrs.append(C.data_ptr())
        g_sizes += [M, N, K]
        g_lds += [A.stride(0), B.stride(0), C.stride(0)]
    device = group_A[0].device
    d_a_ptrs = torch.tensor(A_addrs, device=device)
    d_b_ptrs = torch.tensor(B_addrs, device=device)
    d_c_ptrs = torch.tensor(C_addrs, device=device)
    d_g_sizes = torch.tensor(g_sizes, dtype=torch.int32, device=device)
    d_g_lds = torch.tensor(g_lds, dtype=torch.int32, device=device)
    grid = lambda META: (META["NUM_SM"], )
    grouped_matmul_kernel[grid](d_a_ptrs, d_b_ptrs, d_c_ptrs, d_g_sizes, d_g_lds, group_size, NUM_SM=NUM_SM)
    return group_C
