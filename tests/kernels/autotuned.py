"""Autotuned kernels in the style of real projects (Liger-Kernel, FlagGems, the matmul tutorial):
@triton.autotune with several configs, a tuning key, a build-time early_config_prune that filters
on the configs' kwargs, one that needs argument values, decorators applied by assignment, and a
config with a pre_hook."""

import triton
import triton.language as tl

try:  # only the launch helpers need torch; building the kernels does not
    import torch
except ImportError:
    torch = None


def _matmul_configs():
    configs = []
    for block_m, block_n, block_k, stages, warps in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4),
                                                     (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                                                     (64, 32, 32, 5, 2), (32, 64, 128, 2, 4)):
        configs.append(triton.Config({"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": 8},
                                     num_stages=stages, num_warps=warps))
    return configs


def _drop_wide_k(configs, named_args, **kwargs):
    """Keeps the configs whose K tile is at most 64: decided from the configs alone."""
    return [c for c in configs if c.kwargs["BLOCK_K"] <= 64]


@triton.autotune(configs=_matmul_configs(), key=["M", "N", "K"],
                 prune_configs_by={"early_config_prune": _drop_wide_k})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def _fits_rows(configs, named_args, **kwargs):
    """Keeps the blocks no wider than the row: needs the argument n_cols, known only at launch."""
    return [c for c in configs if c.kwargs["BLOCK"] <= triton.next_power_of_2(named_args["n_cols"])]


def _scale_rows(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        tl.atomic_add(out_ptr + row * n_cols + cols, x * scale, mask=mask)


# Decorators applied by assignment, as some projects do; reset_to_zero matters only while tuning.
scale_rows = triton.autotune(
    configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4),
             triton.Config({"BLOCK": 1024}, num_warps=8)],
    key=["n_cols"], reset_to_zero=["out_ptr"], prune_configs_by={"early_config_prune": _fits_rows},
)(triton.jit(_scale_rows))


def _zero_output(nargs):
    nargs["out_ptr"].zero_()


@triton.autotune(configs=[triton.Config({"BLOCK": 512}, num_warps=4, pre_hook=_zero_output),
                          triton.Config({"BLOCK": 1024}, num_warps=4, pre_hook=_zero_output)],
                 key=["n_elements"])
@triton.jit
def accumulate_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.atomic_add(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def matmul(a, b):
    """The launch a project writes: the autotuner picks the config."""
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), )
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1))
    return c
