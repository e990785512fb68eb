"""Workload: the tutorial-style kernel package tests/kernels/tutorials (one module per Triton
tutorial, 01-09).  Each case calls the package's Python wrappers with small seeded torch
tensors, shapes chosen so that none is a multiple of the kernels' blocks, and launches every
kernel of its module (every autotuned kernel, both causal settings of the attention, both
activations of the matmul).  The TMA matmul needs CUDA 9.0+: on another GPU its case launches
only the pointer kernel."""
import importlib

import torch

MODULES = [
    "tests.kernels.tutorials.vector_add",
    "tests.kernels.tutorials.fused_softmax",
    "tests.kernels.tutorials.activations",
    "tests.kernels.tutorials.matmul",
    "tests.kernels.tutorials.dropout",
    "tests.kernels.tutorials.layer_norm",
    "tests.kernels.tutorials.fused_attention",
    "tests.kernels.tutorials.grouped_gemm",
    "tests.kernels.tutorials.persistent_matmul",
]


def _mod(name):
    return importlib.import_module("tests.kernels.tutorials." + name)


def _gen(seed):
    torch.manual_seed(seed)


def _vector_add(device):
    m = _mod("vector_add")
    _gen(1)
    x = torch.rand(98_432, device=device)
    y = torch.rand(98_432, device=device)
    m.add(x, y)
    m.add(x[:1000], y[:1000], block_size=256)


def _fused_softmax(device):
    m = _mod("fused_softmax")
    _gen(2)
    m.softmax(torch.randn(257, 781, device=device))   # BLOCK_SIZE 1024, 4 warps
    m.softmax(torch.randn(33, 2500, device=device))   # BLOCK_SIZE 4096, 8 warps


def _matmul(device):
    m = _mod("matmul")
    _gen(3)
    a = torch.randn(200, 136, device=device, dtype=torch.float16)
    b = torch.randn(136, 72, device=device, dtype=torch.float16)
    m.matmul(a, b)
    m.matmul(a, b, activation="leaky_relu")


def _dropout(device):
    m = _mod("dropout")
    _gen(4)
    x = torch.randn(3000, device=device)
    keep = torch.rand(3000, device=device) > 0.5
    m.dropout(x, keep, p=0.5)
    m.seeded_dropout(x, p=0.3, seed=123)
    m.seeded_dropout(x, p=0.3, seed=512)


def _layer_norm(device):
    m = _mod("layer_norm")
    _gen(5)
    M, N = 151, 1000
    x = -2.3 + 0.5 * torch.randn(M, N, device=device, dtype=torch.float16)
    w = torch.rand(N, device=device, dtype=torch.float16)
    b = torch.rand(N, device=device, dtype=torch.float16)
    dy = 0.1 * torch.randn(M, N, device=device, dtype=torch.float16)
    y, mean, rstd = m.layer_norm_fwd(x, w, b, 1e-5)
    m.layer_norm_bwd(dy, x, w, mean, rstd)


def _fused_attention(device):
    m = _mod("fused_attention")
    _gen(6)
    Z, H, N_CTX, HEAD_DIM = 2, 3, 100, 64
    q = torch.randn(Z, H, N_CTX, HEAD_DIM, device=device, dtype=torch.float16)
    k = torch.randn(Z, H, N_CTX, HEAD_DIM, device=device, dtype=torch.float16)
    v = torch.randn(Z, H, N_CTX, HEAD_DIM, device=device, dtype=torch.float16)
    m.attention(q, k, v, causal=True, sm_scale=0.125)
    m.attention(q, k, v, causal=False, sm_scale=0.125)


def _grouped_gemm(device):
    m = _mod("grouped_gemm")
    _gen(8)
    shapes = [(64, 64, 64), (100, 72, 40), (33, 50, 24)]
    group_A = [torch.randn(M, K, device=device, dtype=torch.float16) for M, N, K in shapes]
    group_B = [torch.randn(K, N, device=device, dtype=torch.float16) for M, N, K in shapes]
    m.group_gemm_fn(group_A, group_B)


def _tma_ok(device):
    if not torch.cuda.is_available():
        return True  # a dry run records the launch; it never runs it
    return torch.version.hip is None and torch.cuda.get_device_capability(torch.device(device))[0] >= 9


def _persistent_matmul(device):
    m = _mod("persistent_matmul")
    _gen(9)
    M, N, K = 300, 136, 200
    a = torch.randn(M, K, device=device, dtype=torch.float16)
    b = torch.randn(K, N, device=device, dtype=torch.float16)
    m.matmul_persistent(a, b)
    if _tma_ok(device):
        m.matmul_tma(a, b.T.contiguous())
        m.matmul_tma(a, b.T.contiguous(), epilogue_subtile=True)


def cases():
    """[(case_name, fn)]; fn(device) launches every kernel of one tutorial module."""
    return [
        ("vector_add", _vector_add),
        ("fused_softmax", _fused_softmax),
        ("matmul", _matmul),
        ("dropout", _dropout),
        ("layer_norm", _layer_norm),
        ("fused_attention", _fused_attention),
        ("grouped_gemm", _grouped_gemm),
        ("persistent_matmul", _persistent_matmul),
    ]
