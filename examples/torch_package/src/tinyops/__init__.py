"""Prebuilt Triton kernels as PyTorch operators: importing the package loads _ops.so, which
registers torch.ops.tinyops.silu_and_mul and torch.ops.tinyops.rms_norm (out-style: they write
their last tensor and return nothing). The functions below allocate the output and call them;
neither imports Triton or compiles anything."""
import os

import torch

torch.ops.load_library(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ops.so"))
ops = torch.ops.tinyops


def silu_and_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up, elementwise, for fp16 tensors of one shape on one GPU."""
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    ops.silu_and_mul(gate, up, out, gate.numel())
    return out


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension (at most 4096), fp16."""
    x, weight = x.contiguous(), weight.contiguous()
    out = torch.empty_like(x)
    rows = x.numel() // x.shape[-1] if x.numel() else 0
    ops.rms_norm(x, weight, out, x.shape[-1], eps, [rows, 1, 1])
    return out
