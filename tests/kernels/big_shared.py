"""A matmul whose tiles need more than 48 KiB of shared memory on NVIDIA, so a launcher must
opt in to large dynamic shared memory. The tiles are fixed here (128x128x128 fp16), so every
variant needs the large allocation. Triton 3.6 with default num_stages, num_warps=8:
cuda:80 98304 bytes, cuda:90 (sm_90a) 131072 bytes, hip:gfx942 65536 bytes (exactly the
64 KiB of LDS).
"""
import triton
import triton.language as tl

BM = tl.constexpr(128)
BN = tl.constexpr(128)
BK = tl.constexpr(128)


@triton.jit
def big_shared_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
