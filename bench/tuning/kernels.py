"""The kernels the tuned-dispatch benchmark tunes (our own, in the style of Triton's tutorials):
an fp16 matmul autotuned over 8 configs on (M, N, K), and a row-wise RMS norm autotuned over 4
configs on n_cols, whose loop over a row's columns makes every BLOCK valid for every width."""
import triton
import triton.language as tl


def matmul_configs():
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                          num_stages=s, num_warps=w)
            for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
                                     (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
                                     (64, 32, 32, 5, 2), (32, 64, 32, 5, 2))]


@triton.autotune(configs=matmul_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    first_m = (pid // per_group) * GROUP_M
    rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % per_group) % rows)
    pid_n = (pid % per_group) // rows
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    rows_c = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols_c = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * rows_c[:, None] + stride_cn * cols_c[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows_c[:, None] < M) & (cols_c[None, :] < N))


def rms_norm_configs():
    return [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((256, 1), (1024, 4), (2048, 8), (4096, 16))]


@triton.autotune(configs=rms_norm_configs(), key=["n_cols"])
@triton.jit
def rms_norm_kernel(Y_ptr, X_ptr, W_ptr, n_rows, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X_ptr + row * n_cols
    sum_sq = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        sum_sq += x * x
    rstd = tl.rsqrt(tl.sum(sum_sq, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y_ptr + row * n_cols + cols, (x * rstd * w).to(tl.float16), mask=mask)
