"""FlagGems (flag-gems 5.0.2) workload: FlagGems' own Triton kernels, launched by FlagGems' own
Python.

Every case calls the op as FlagGems exports it (``flag_gems.<op>``: the function FlagGems
registers for the aten op, after swapping in its architecture's own versions: on sm_90
``hopper.ops.mm`` / ``hopper.ops.mul`` / ``hopper.ops.fill``) -- the code exactly as shipped in
the PyPI wheel, unedited -- on small seeded tensors; for ops with a backward, FlagGems' backward
op too (``softmax_backward``, ``layer_norm_backward``, ...), as autograd would call it. Ops are
called directly rather than through ``flag_gems.enable()`` and torch's dispatcher, which sends
only CUDA tensors to FlagGems: so the same cases run on the CPU of a dry run.

A spread of FlagGems' ops: pointwise (add, mul, gelu, silu, where: FlagGems writes their
kernels at run time, see below), reductions (sum, mean, max, argmax, amax, prod, var_mean,
vector_norm, cumsum, all/any), softmax and log_softmax, the norms (layer, RMS, group, batch),
matrix products (mm, addmm, bmm, baddbmm, mv), index ops (index_select, gather, scatter,
index_add, embedding, masked_fill, nonzero, topk, sort, flip, triu, cat), fills (arange,
full, zeros, fill), dropout, nll_loss and the fused cross entropy.

FlagGems wraps most kernels in its own ``LibEntry`` (a KernelInterface holding the
``@triton.heuristics`` / ``@triton.jit`` or its ``LibTuner`` autotuner), whose first launch
of each argument key goes through Triton's ``JITFunction.run`` and later ones launch the
compiled kernel directly.

Install (here and on the GPU machine, which has no network: carry the wheels there):

    pip download --no-deps flag-gems==5.0.2 pyyaml sqlalchemy   # a machine with network
    pip install --no-deps --target /tmp/pylib flag_gems-5.0.2-py3-none-any.whl PyYAML-*.whl \\
        SQLAlchemy-*.whl
    export PYTHONPATH=/tmp/pylib GEMS_VENDOR=nvidia

FlagGems needs PyYAML and SQLAlchemy at import (its tuned configs and its autotuner's
cache; its pinned numpy is not needed). ``GEMS_VENDOR=nvidia`` is FlagGems' own setting for
its vendor: without it FlagGems runs ``nvidia-smi`` (and the other vendors' tools) at import
to find one, and on a machine without a GPU (the dry run, the compiler's workers) it finds
none and raises.
"""

import torch

# The modules whose @triton.jit kernels are counted: those of the ops below.
MODULES = [
    # reductions
    "flag_gems.ops.sum",
    "flag_gems.ops.mean",
    "flag_gems.ops.max",
    "flag_gems.ops.argmax",
    "flag_gems.ops.amax",
    "flag_gems.ops.prod",
    "flag_gems.ops.var_mean",
    "flag_gems.ops.vector_norm",
    "flag_gems.ops.cumsum",
    "flag_gems.ops.all",
    "flag_gems.ops.any",
    # softmax, norms
    "flag_gems.ops.softmax",
    "flag_gems.ops.log_softmax",
    "flag_gems.ops.layernorm",
    "flag_gems.ops.rms_norm",
    "flag_gems.ops.groupnorm",
    "flag_gems.ops.batch_norm",
    # matrix products
    "hopper.ops.mm",
    "flag_gems.ops.addmm",
    "flag_gems.ops.bmm",
    "flag_gems.ops.baddbmm",
    "flag_gems.ops.mv",
    # index ops
    "flag_gems.ops.index_select",
    "flag_gems.ops.gather",
    "flag_gems.ops.scatter",
    "flag_gems.ops.index_add",
    "flag_gems.ops.embedding",
    "flag_gems.ops.masked_fill",
    "flag_gems.ops.nonzero",
    "flag_gems.ops.topk",
    "flag_gems.ops.sort",
    "flag_gems.ops.flip",
    "flag_gems.ops.triu",
    "flag_gems.ops.cat",
    # fills, random, losses
    "flag_gems.ops.arange",
    "flag_gems.ops.full",
    "flag_gems.ops.zeros",
    "hopper.ops.fill",
    "flag_gems.ops.dropout",
    "flag_gems.ops.nllloss",
    "flag_gems.fused.cross_entropy_loss",
    # pointwise: scalar functions of kernels FlagGems writes at run time
    "flag_gems.ops.add",
    "hopper.ops.mul",
    "flag_gems.ops.gelu",
    "flag_gems.ops.silu",
    "flag_gems.ops.where",
]

# Kernels Triton itself cannot compile (its own launch fails the same way), each with why: none.
# The 13 that do not build in the dry build are triton-aot's to take (docs/benchmarks.md).
EXPECTED_FAILURES = {}


def _gems():
    import flag_gems
    return flag_gems


def _seed(s=0):
    torch.manual_seed(s)


def _randn(shape, device, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float32, device=device).to(dtype)


# ----------------------------------------------------------------------------- pointwise


def pointwise(device):
    g = _gems()
    _seed()
    x, y = _randn((64, 100), device), _randn((64, 100), device)
    g.add(x, y, alpha=2)
    g.add(x, 3.0)
    g.mul(x, y)
    g.gelu(x, approximate="tanh")
    g.silu(_randn((3, 5, 7), device, torch.bfloat16))
    g.where_self(x > 0, x, y)


# ----------------------------------------------------------------------------- reductions


def reductions(device):
    g = _gems()
    _seed()
    x = _randn((64, 1000), device)
    g.sum(x)
    g.sum_dim(x, [1])
    g.sum_dim(x, [0], keepdim=True)
    g.mean(x)
    g.mean_dim(x, [1])
    g.max(x)
    g.max_dim(x, 1)
    g.argmax(x, 1)
    g.argmax(x)
    g.amax(x, [1])
    g.prod(_randn((1000,), device))
    g.var_mean(x, [1], correction=1)
    g.vector_norm(x, 2, [1])
    g.vector_norm(x, float("inf"), [1])
    g.cumsum(x, 1)
    g.all(x > -10)
    g.any(x > 3)


def reductions_bf16(device):
    g = _gems()
    _seed()
    x = _randn((8, 33, 200), device, torch.bfloat16)
    g.sum_dim(x, [2])
    g.mean_dim(x, [1])
    g.max_dim(x, 2)
    g.cumsum(x, 2)


# ----------------------------------------------------------------------------- softmax, norms


def softmax(device):
    g = _gems()
    _seed()
    for x, dim in ((_randn((64, 1000), device), 1), (_randn((8, 40, 16), device), 1),
                   (_randn((16, 100), device, torch.float16), -1)):
        y = g.softmax(x, dim)
        g.softmax_backward(torch.randn_like(y), y, dim, x.dtype)
        ly = g.log_softmax(x, dim)
        g.log_softmax_backward(torch.randn_like(ly), ly, dim, x.dtype)


def layer_norm(device):
    g = _gems()
    _seed()
    for shape in ((64, 256), (4, 10000)):
        x = _randn(shape, device)
        w, b = _randn(shape[-1:], device), _randn(shape[-1:], device)
        y, mean, rstd = g.layer_norm(x, shape[-1:], w, b, 1e-5)
        g.layer_norm_backward(torch.randn_like(y), x, shape[-1:], mean, rstd, w, b,
                              [True, True, True])


def rms_norm(device):
    g = _gems()
    _seed()
    x = _randn((64, 256), device, torch.bfloat16)
    g.rms_norm(x, [256], _randn((256,), device, torch.bfloat16), 1e-6)


def group_norm(device):
    g = _gems()
    _seed()
    n, c, hw, groups = 2, 32, 49, 4
    x = _randn((n, c, 7, 7), device)
    w, b = _randn((c,), device), _randn((c,), device)
    y, mean, rstd = g.group_norm(x, w, b, n, c, hw, groups, 1e-5)
    g.group_norm_backward(torch.randn_like(y), x, mean, rstd, w, n, c, hw, groups,
                          [True, True, True])


def batch_norm(device):
    g = _gems()
    _seed()
    x = _randn((8, 16, 10, 10), device)
    w, b = _randn((16,), device), _randn((16,), device)
    rm, rv = torch.zeros(16, device=device), torch.ones(16, device=device)
    y, save_mean, save_invstd = g.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
    g.batch_norm_backward(torch.randn_like(y), x, w, rm, rv, save_mean, save_invstd, True, 1e-5,
                          [True, True, True])


# ----------------------------------------------------------------------------- matrix products


def matmul(device):
    g = _gems()
    _seed()
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        a, b = _randn((100, 96), device, dtype), _randn((96, 80), device, dtype)
        g.mm(a, b)
        g.addmm(_randn((80,), device, dtype), a, b, beta=0.5, alpha=2.0)
    a, b = _randn((3, 40, 64), device, torch.float16), _randn((3, 64, 24), device, torch.float16)
    g.bmm(a, b)
    g.baddbmm(_randn((3, 40, 24), device, torch.float16), a, b)
    g.mv(_randn((100, 96), device), _randn((96,), device))


# ----------------------------------------------------------------------------- index ops


def index_ops(device):
    g = _gems()
    _seed()
    x = _randn((64, 100), device)
    idx = torch.randint(0, 64, (20,), device=device)
    g.index_select(x, 0, idx)
    g.index_select(x, 1, torch.randint(0, 100, (30,), device=device))
    gi = torch.randint(0, 100, (64, 10), device=device)
    g.gather(x, 1, gi)
    g.scatter(x, 1, gi, _randn((64, 10), device))
    g.scatter(x, 1, gi, _randn((64, 10), device), reduce="add")
    g.index_add(x, 0, idx, _randn((20, 100), device), alpha=0.5)
    g.masked_fill(x, x > 1, 0.0)
    g.nonzero(x > 1)
    g.flip(x, [0, 1])
    g.triu(x, 1)
    g.cat([x, _randn((10, 100), device), _randn((3, 100), device)], 0)


def embedding(device):
    g = _gems()
    _seed()
    w = _randn((1000, 64), device)
    ids = torch.randint(0, 1000, (4, 30), device=device)
    y = g.embedding(w, ids, padding_idx=0)
    g.embedding_backward(torch.randn_like(y), ids, 1000, 0, False)


def topk_sort(device):
    g = _gems()
    _seed()
    x = _randn((32, 1000), device)
    g.topk(x, 8, dim=-1)
    g.topk(x, 8, dim=-1, largest=False)
    g.sort(_randn((32, 100), device), dim=-1)
    g.sort(_randn((32, 100), device), dim=-1, descending=True)


# ----------------------------------------------------------------------------- fills, dropout, losses


def fills(device):
    g = _gems()
    g.arange(1000, device=device)
    g.full([64, 100], 3.5, device=device)
    g.zeros([64, 100], device=device)
    g.fill_scalar(torch.empty(64, 100, device=device), 1.25)


def dropout(device):
    g = _gems()
    _seed()
    x = _randn((64, 1000), device)
    y, mask = g.dropout(x, 0.3, True)
    g.dropout_backward(torch.randn_like(y), mask, 1 / 0.7)


def nll_loss(device):
    g = _gems()
    _seed()
    logp = torch.log_softmax(_randn((64, 1000), device), 1)
    target = torch.randint(0, 1000, (64,), device=device)
    target[:3] = -100
    loss, total = g.nll_loss_forward(logp, target, None, 1, -100)
    g.nll_loss_backward(torch.ones((), device=device), logp, target, None, 1, -100, total)


def cross_entropy(device):
    g = _gems()
    _seed()
    x = _randn((64, 1000), device).requires_grad_(True)
    target = torch.randint(0, 1000, (64,), device=device)
    g.cross_entropy_loss(x, target, label_smoothing=0.1).backward()


_CASES = [
    pointwise, reductions, reductions_bf16, softmax, layer_norm, rms_norm, group_norm,
    batch_norm, matmul, index_ops, embedding, topk_sort, fills, dropout, nll_loss, cross_entropy,
]


def cases():
    """[(case_name, fn)] where fn(device: str) -> None runs FlagGems ops on small tensors."""
    return [(f.__name__, f) for f in _CASES]
