"""C = A @ B with fp32 accumulation, for any 16-bit element type (C takes C's pointer type);
row-major A (M x K), B (K x N), C (M x N). Programs walk the output in groups of GROUP_M row
blocks (Triton's tutorial 03), so neighbouring programs share A and B tiles in L2.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    programs_per_group = GROUP_M * blocks_n
    first_m = (pid // programs_per_group) * GROUP_M
    group_m = min(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % programs_per_group) % group_m
    pid_n = (pid % programs_per_group) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    # Rows and columns past M and N wrap around instead of being masked, so only K is masked
    # and Triton pipelines the loads; the wrapped rows and columns are never stored. N is a
    # multiple of 16 (stride_bk:16), so no 16-byte vector of B straddles the wrap.
    ra = rm % M
    rb = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    a_ptrs = a_ptr + ra[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rb[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=rk[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
