"""Tutorial 05: layer normalization, forward and backward.

The backward pass computes dX per row and accumulates the partial dW and dB of rows into
GROUP_SIZE_M buffers, which a second kernel sums.  The tutorial's version has every row's
program take a spin lock (tl.atomic_cas) on its buffer, so the order rows are added in, and
the low bits of dW and dB, change from run to run.  Here each of the GROUP_SIZE_M programs owns
one buffer and walks the rows r = g, g + GROUP_SIZE_M, ... itself: no lock, no atomics, and the
result is the same bit for bit on every run."""
import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # Mean, then variance, each in chunks of BLOCK_SIZE columns.
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        partial += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(partial, axis=0) / N
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        centered = tl.where(cols < N, x - mean, 0.)
        partial += centered * centered
    var = tl.sum(partial, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def _layer_norm_bwd_dx_grouped(DX, DY, DW, DB, X, W, Mean, Rstd, stride, M, N,
                               GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # One program per buffer: it owns row g of DW and DB, [GROUP_SIZE_M, N].
    group = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)
    for row in range(group, M, GROUP_SIZE_M):
        x = tl.load(X + row * stride + cols, mask=mask, other=0).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = tl.where(mask, w * dy, 0.)
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(DW + group * N + cols, dw, mask=mask)
    tl.store(DB + group * N + cols, db, mask=mask)


@triton.jit
def _layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N,
                         BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # Sum the M partial rows of DW and DB for a block of BLOCK_SIZE_N columns.
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def layer_norm_fwd(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5):
    x_arg = x.reshape(-1, x.shape[-1])
    M, N = x_arg.shape
    y = torch.empty_like(x)
    mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    # At most 64 KiB per row; a wider row is walked in chunks.
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_fwd_fused[(M, )](x_arg, y, weight, bias, mean, rstd, x_arg.stride(0), N, eps,
                                 BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1)
    return y, mean, rstd


def layer_norm_bwd(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, mean: torch.Tensor,
                   rstd: torch.Tensor):
    x_arg = x.reshape(-1, x.shape[-1])
    M, N = x_arg.shape
    BLOCK_SIZE_N = triton.next_power_of_2(N)
    # Fewer, longer-running programs for narrow rows, as the tutorial sizes its lock groups.
    GROUP_SIZE_M = 64
    if N <= 8192: GROUP_SIZE_M = 96
    if N <= 4096: GROUP_SIZE_M = 128
    if N <= 1024: GROUP_SIZE_M = 256
    GROUP_SIZE_M = min(GROUP_SIZE_M, M)
    num_warps = min(max(BLOCK_SIZE_N // 256, 1), 8)
    partial_dw = torch.empty((GROUP_SIZE_M, N), dtype=torch.float32, device=x.device)
    partial_db = torch.empty((GROUP_SIZE_M, N), dtype=torch.float32, device=x.device)
    dw = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
    db = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
    dx = torch.empty_like(dy)
    _layer_norm_bwd_dx_grouped[(GROUP_SIZE_M, )](dx, dy, partial_dw, partial_db, x, weight, mean, rstd,
                                                 x_arg.stride(0), M, N, GROUP_SIZE_M=GROUP_SIZE_M,
                                                 BLOCK_SIZE_N=BLOCK_SIZE_N, num_warps=num_warps)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]), )
    _layer_norm_bwd_dwdb[grid](partial_dw, partial_db, dw, db, min(GROUP_SIZE_M, M), N,
                               BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_ctas=1)
    return dx, dw, db
