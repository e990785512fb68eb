"""Sums over K of an (M, K, N) tensor, with tiles chosen by heuristics of several statements
(tile_heuristics.py), as FlagGems' reductions are declared."""
import torch  # noqa: F401  (real projects import it at the top; the heuristics ask it the SM count)
import triton
import triton.language as tl

from .tile_heuristics import one_tile, tile_k, tile_n, warps_for_tile


@triton.heuristics({"TILE_K": tile_k, "TILE_N": tile_n, "ONE_TILE_PER_CTA": one_tile,
                    "num_warps": warps_for_tile})
@triton.jit
def tiled_sum_kernel(x_ptr, out_ptr, M, N, K, TILE_N: tl.constexpr, TILE_K: tl.constexpr,
                     ONE_TILE_PER_CTA: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    k = pid_k * TILE_K + tl.arange(0, TILE_K)
    acc = tl.zeros([TILE_N, TILE_K], dtype=tl.float32)
    if ONE_TILE_PER_CTA:
        n = tl.arange(0, TILE_N)
        mask = (n[:, None] < N) & (k[None, :] < K)
        acc += tl.load(x_ptr + pid_m * N * K + n[:, None] * K + k[None, :], mask=mask, other=0.0)
    else:
        for start in range(0, N, TILE_N):
            n = start + tl.arange(0, TILE_N)
            mask = (n[:, None] < N) & (k[None, :] < K)
            acc += tl.load(x_ptr + pid_m * N * K + n[:, None] * K + k[None, :], mask=mask, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + pid_m * K + k, total, mask=k < K)
