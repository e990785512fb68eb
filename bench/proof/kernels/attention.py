"""Flash-attention forward (FlashAttention-2's algorithm, as in Triton's tutorial 06 before
tensor descriptors): Out = softmax(Q K^T * sm_scale) V per head, with an online softmax in
base 2; Lse gets each row's log2-sum-exp for the backward pass. Q, K, V and Out are
contiguous [heads, N_CTX, HEAD_DIM] (batch and heads flattened), Lse is [heads, N_CTX].
IS_CAUSAL masks keys after the query; N_CTX need not be a multiple of the blocks.
"""
import triton
import triton.language as tl


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, out_ptr, lse_ptr, sm_scale, heads, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         IS_CAUSAL: tl.constexpr):
    # heads sizes the grid (one program per query block and head); the kernel does not need it.
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    base = head * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): exp(x) = exp2(x / ln 2)
    if IS_CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + base + cols[None, :] * HEAD_DIM + offs_d[:, None],
                    mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < N_CTX
        if IS_CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + cols[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    row_ok = offs_m < N_CTX
    tl.store(lse_ptr + head * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=row_ok)
    tl.store(out_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             (acc / l_i[:, None]).to(out_ptr.dtype.element_ty), mask=row_ok[:, None])
