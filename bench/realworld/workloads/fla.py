"""flash-linear-attention (fla-core 0.6.0) workload: fla's own Triton kernels, launched by fla's
own Python.

Every case calls fla's public ops (``fla.ops.<family>.chunk_*`` / ``fused_recurrent_*`` /
``parallel_*``, which wrap fla's autograd Functions) or its layers (``fla.modules``: the norms,
the gated norms, L2Norm, the short convolution, rotary embedding, token shift, the activations,
the fused losses) -- the code exactly as shipped in the PyPI wheel, unedited -- on small seeded
tensors, forward and backward (``.backward()`` on the outputs), with the options that pick
another kernel or another constexpr specialisation: initial state and final state on/off,
variable-length sequences (``cu_seqlens``), q/k L2 norm inside the kernel, the gates of each
family, bf16 and fp32 where fla has dtype-specific code.

The ops are the chunked / fused-chunk / fused-recurrent linear attention (fla builds the first
two on simple GLA), the gated delta rule and the delta rule (chunked and fused-recurrent: the
WY representation, the chunk states, solve_tril, the chunk cumsums), GLA, simple GLA,
retention, HGRN, and fla's utils (cumsum, solve_tril, logsumexp, softmax, pooling, softplus,
matmul). ``MODULES`` lists the modules these reach, plus the layers'; the Ascend NPU
backends (``*/triton_ascend*``) are not listed: their kernels run only on an NPU.

Install (here and on the GPU machine, which has no network: carry the wheels there):

    pip download --no-deps fla-core==0.6.0 einops           # a machine with network
    pip install --no-deps --target /tmp/pylib fla_core-0.6.0-py3-none-any.whl einops-*.whl
    export PYTHONPATH=/tmp/pylib

fla needs only torch, triton and einops at import.
"""

import torch

# The modules whose @triton.jit kernels are counted: those the cases below reach (ops) and the
# layers of fla.modules they call.
MODULES = [
    # linear attention and its relatives
    "fla.ops.common.chunk_h",
    "fla.ops.common.chunk_o",
    "fla.ops.common.chunk_delta_h",
    "fla.ops.common.chunk_scaled_dot_kkt",
    "fla.ops.common.fused_chunk",
    "fla.ops.common.fused_recurrent",
    "fla.ops.simple_gla.parallel",
    "fla.ops.gla.chunk",
    "fla.ops.delta_rule.fused_recurrent",
    "fla.ops.delta_rule.wy_fast",
    "fla.ops.gated_delta_rule.chunk_fwd",
    "fla.ops.gated_delta_rule.fused_recurrent",
    "fla.ops.gated_delta_rule.gate",
    "fla.ops.gated_delta_rule.wy_fast",
    "fla.ops.hgrn.chunk",
    "fla.ops.hgrn.fused_recurrent",
    # utils
    "fla.ops.utils.cumsum",
    "fla.ops.utils.index",
    "fla.ops.utils.logsumexp",
    "fla.ops.utils.matmul",
    "fla.ops.utils.op",
    "fla.ops.utils.pooling",
    "fla.ops.utils.softmax",
    "fla.ops.utils.solve_tril",
    # layers
    "fla.modules.activations.ops",
    "fla.modules.causal_conv1d.ops",
    "fla.modules.fused_cross_entropy.ops",
    "fla.modules.fused_kl_div.ops",
    "fla.modules.fused_linear_cross_entropy.ops",
    "fla.modules.norm.fused_norm_gate",
    "fla.modules.norm.l2norm",
    "fla.modules.norm.layernorm",
    "fla.modules.norm.layernorm_gated",
    "fla.modules.rotary.ops",
    "fla.modules.token_shift",
]

# Launchable kernels this workload does not launch, with the reason.
NOT_REACHED = {
    "fla.ops.gated_delta_rule.wy_fast.prepare_wy_repr_bwd_kernel": (
        "the gated delta rule's backward launches it after chunk_bwd_dqkwg, which fla refuses on "
        "Hopper with Triton 3.4 to 3.7.0 without TileLang (see _gated_backward): reached on "
        "other GPUs, or with Triton >= 3.7.1"),
}

# Kernels that fla's own functions do not launch, and how the workload launches them anyway.
VIA_WORKAROUND = {
    "fla.ops.utils.index.prepare_position_ids_kernel": "dead code in fla 0.6.0; case "
                                                       "utils_position_ids_kernel launches it",
    "fla.modules.fused_linear_cross_entropy.ops.logsumexp_fwd_kernel": (
        "its launch function logsumexp_fwd is not called by fla's loss; case "
        "fused_linear_ce_logsumexp calls it"),
}

# Kernels Triton itself cannot compile (its own launch fails the same way), each with why: none
# (the dry build, docs/benchmarks.md, builds every kernel the workload reaches).
EXPECTED_FAILURES = {}

B, T, H, K, V = 2, 100, 2, 64, 64  # T is no multiple of the chunk size (64)


# ----------------------------------------------------------------------------- helpers


def _seed(s=0):
    torch.manual_seed(s)


def _randn(shape, device, dtype=torch.float32, grad=True, scale=1.0):
    t = (torch.randn(shape, dtype=torch.float32, device=device) * scale).to(dtype)
    return t.requires_grad_(grad)


def _backward(*outs):
    """Backward through the outputs with random (seeded) upstream gradients."""
    outs = [o for o in outs if o is not None and o.requires_grad]
    torch.autograd.backward(outs, [torch.randn_like(o) for o in outs])


def _qkv(device, dtype=torch.float32, b=B, t=T, h=H, k=K, v=V):
    return (_randn((b, t, h, k), device, dtype), _randn((b, t, h, k), device, dtype),
            _randn((b, t, h, v), device, dtype))


def _log_decay(shape, device, dtype=torch.float32):
    """A log gate in (-inf, 0), as fla's tests make it."""
    g = torch.nn.functional.logsigmoid(torch.randn(shape, device=device, dtype=torch.float32))
    return g.to(dtype).requires_grad_(True)


def _cu_seqlens(device, lens=(37, 63, 100)):
    """Offsets of three sequences packed into one batch row of T=200."""
    offsets = [0]
    for n in lens:
        offsets.append(offsets[-1] + n)
    return torch.tensor(offsets, dtype=torch.long, device=device)


def _gated_backward(*outs):
    """The backward of a chunked op with a gate g. fla refuses its last step on Hopper with
    Triton 3.4 to 3.7.0 (chunk_bwd_dqkwg: "produces incorrect results ... see #640") unless
    TileLang is installed: there (and in the dry run, which answers as an sm_90 GPU) the
    backward's kernels before that step run, and the refusal ends the case."""
    try:
        _backward(*outs)
    except RuntimeError as e:
        if "#640" not in str(e):
            raise


# ----------------------------------------------------------------------------- linear attention


def linear_attn_chunk(device):
    from fla.ops.linear_attn import chunk_linear_attn
    _seed()
    q, k, v = _qkv(device)
    o, _ = chunk_linear_attn(q, k, v, normalize=False)
    _backward(o)


def linear_attn_chunk_normalized_state(device):
    from fla.ops.linear_attn import chunk_linear_attn
    _seed()
    q, k, v = _qkv(device)
    h0 = _randn((B, H, K, V), device)
    o, (ht, _) = chunk_linear_attn(q, k, v, initial_state=h0, output_final_state=True,
                                   normalize=True)
    _backward(o, ht)


def linear_attn_fused_chunk(device):
    from fla.ops.linear_attn import fused_chunk_linear_attn
    _seed()
    q, k, v = _qkv(device)
    o, _ = fused_chunk_linear_attn(q, k, v, normalize=False)
    _backward(o)


def linear_attn_fused_recurrent(device):
    from fla.ops.linear_attn import fused_recurrent_linear_attn
    _seed()
    q, k, v = _qkv(device)
    h0 = _randn((B, H, K, V), device)
    o, ht = fused_recurrent_linear_attn(q, k, v, initial_state=h0, output_final_state=True)
    _backward(o, ht)


# ----------------------------------------------------------------------------- simple GLA, retention


def simple_gla_chunk_g(device):
    from fla.ops.simple_gla import chunk_simple_gla
    _seed()
    q, k, v = _qkv(device)
    g = _log_decay((B, T, H), device)
    o, ht = chunk_simple_gla(q, k, v, g=g, output_final_state=True)
    _gated_backward(o, ht)


def simple_gla_chunk_varlen_bf16(device):
    from fla.ops.simple_gla import chunk_simple_gla
    _seed()
    q, k, v = _qkv(device, torch.bfloat16, b=1, t=200)
    g = _log_decay((1, 200, H), device)
    cu = _cu_seqlens(device)
    h0 = _randn((3, H, K, V), device)
    o, ht = chunk_simple_gla(q, k, v, g=g, initial_state=h0, output_final_state=True,
                             cu_seqlens=cu)
    _gated_backward(o, ht)


def simple_gla_fused_recurrent(device):
    from fla.ops.simple_gla import fused_recurrent_simple_gla
    _seed()
    q, k, v = _qkv(device)
    g = _log_decay((B, T, H), device)
    o, ht = fused_recurrent_simple_gla(q, k, v, g=g, output_final_state=True)
    _backward(o, ht)


def simple_gla_parallel(device):
    from fla.ops.simple_gla import parallel_simple_gla
    _seed()
    q, k, v = _qkv(device)
    g = _log_decay((B, T, H), device)
    o, _ = parallel_simple_gla(q, k, v, g=g)
    _backward(o)


def retention_chunk(device):
    from fla.ops.retention import chunk_retention
    _seed()
    q, k, v = _qkv(device)
    o, ht = chunk_retention(q, k, v, output_final_state=True)
    _backward(o, ht)


def retention_parallel(device):
    from fla.ops.retention import parallel_retention
    _seed()
    q, k, v = _qkv(device)
    o, _ = parallel_retention(q, k, v)
    _backward(o)


# ----------------------------------------------------------------------------- GLA


def gla_chunk(device):
    from fla.ops.gla import chunk_gla
    _seed()
    q, k, v = _qkv(device)
    g = _log_decay((B, T, H, K), device)
    h0 = _randn((B, H, K, V), device)
    o, ht = chunk_gla(q, k, v, g, initial_state=h0, output_final_state=True)
    _backward(o, ht)


def gla_chunk_wide_k(device):
    """K > 256: the intra-chunk scores split over K blocks and merged."""
    from fla.ops.gla import chunk_gla
    _seed()
    q, k, v = _qkv(device, k=512)
    g = _log_decay((B, T, H, 512), device)
    o, _ = chunk_gla(q, k, v, g)
    _gated_backward(o)


def gla_fused_recurrent(device):
    from fla.ops.gla import fused_recurrent_gla
    _seed()
    q, k, v = _qkv(device)
    gk = _log_decay((B, T, H, K), device)
    o, ht = fused_recurrent_gla(q, k, v, gk=gk, output_final_state=True)
    _backward(o, ht)


# ----------------------------------------------------------------------------- delta rules


def _beta(shape, device, dtype=torch.float32):
    return torch.rand(shape, device=device, dtype=torch.float32).sigmoid().to(dtype) \
        .requires_grad_(True)


def gated_delta_rule_chunk(device):
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    _seed()
    q, k, v = _qkv(device)
    g, beta = _log_decay((B, T, H), device), _beta((B, T, H), device)
    o, ht = chunk_gated_delta_rule(q, k, v, g, beta, use_qk_l2norm_in_kernel=True,
                                   output_final_state=True)
    _gated_backward(o, ht)


def gated_delta_rule_chunk_varlen_bf16(device):
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    _seed()
    q, k, v = _qkv(device, torch.bfloat16, b=1, t=200)
    g, beta = _log_decay((1, 200, H), device), _beta((1, 200, H), device, torch.bfloat16)
    h0 = _randn((3, H, K, V), device)
    o, ht = chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0, output_final_state=True,
                                   cu_seqlens=_cu_seqlens(device))
    _gated_backward(o, ht)


def gated_delta_rule_gate_in_kernel(device):
    """The gate computed inside the kernels from A_log and dt_bias (Mamba2-style), chunked and
    fused-recurrent."""
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule, fused_recurrent_gated_delta_rule
    from fla.ops.gated_delta_rule.gate import fused_gdn_gate
    _seed()
    q, k, v = _qkv(device)
    a, beta = _randn((B, T, H), device), _beta((B, T, H), device)
    A_log = _randn((H,), device, grad=False)
    dt_bias = _randn((H,), device, grad=False)
    o, _ = chunk_gated_delta_rule(q, k, v, a, beta, use_gate_in_kernel=True, A_log=A_log,
                                  dt_bias=dt_bias)
    _gated_backward(o)
    with torch.no_grad():
        fused_recurrent_gated_delta_rule(q, k, v, g=a, beta=beta, use_gate_in_kernel=True,
                                         A_log=A_log, dt_bias=dt_bias)
    # the gate alone, as fla's GatedDeltaNet layer computes it when it does not fuse it
    _backward(fused_gdn_gate(a, A_log.requires_grad_(True), dt_bias.requires_grad_(True)))


def gated_delta_rule_fused_recurrent(device):
    from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule
    _seed()
    q, k, v = _qkv(device)
    g, beta = _log_decay((B, T, H), device), _beta((B, T, H), device)
    h0 = _randn((B, H, K, V), device, grad=False)
    with torch.no_grad():  # fla's fused recurrent gated delta rule is inference only
        fused_recurrent_gated_delta_rule(q, k, v, g=g, beta=beta, initial_state=h0,
                                         output_final_state=True, use_qk_l2norm_in_kernel=True)


def delta_rule_chunk(device):
    from fla.ops.delta_rule import chunk_delta_rule
    _seed()
    q, k, v = _qkv(device, torch.bfloat16)  # fla's chunked delta rule refuses fp32
    beta = _beta((B, T, H), device, torch.bfloat16)
    h0 = _randn((B, H, K, V), device)
    o, ht = chunk_delta_rule(q, k, v, beta, initial_state=h0, output_final_state=True)
    _backward(o, ht)


def delta_rule_fused_recurrent(device):
    from fla.ops.delta_rule import fused_recurrent_delta_rule
    _seed()
    q, k, v = _qkv(device)
    beta = _beta((B, T, H), device)
    o, ht = fused_recurrent_delta_rule(q, k, v, beta, output_final_state=True,
                                       use_qk_l2norm_in_kernel=True)
    _backward(o, ht)


# ----------------------------------------------------------------------------- HGRN


def hgrn_chunk(device):
    from fla.ops.hgrn import chunk_hgrn
    _seed()
    x = _randn((B, T, 128), device)
    g = _log_decay((B, T, 128), device)
    o, ht = chunk_hgrn(x, g, output_final_state=True)
    _backward(o, ht)


def hgrn_fused_recurrent(device):
    from fla.ops.hgrn import fused_recurrent_hgrn
    _seed()
    x = _randn((B, T, 128), device)
    g = _log_decay((B, T, 128), device)
    h0 = _randn((B, 128), device)
    o, ht = fused_recurrent_hgrn(x, g, initial_state=h0, output_final_state=True)
    _backward(o, ht)


# ----------------------------------------------------------------------------- utils


def utils_cumsum(device):
    from fla.ops.utils import chunk_global_cumsum, chunk_local_cumsum
    _seed()
    g = torch.randn(B, T, H, device=device)
    gk = torch.randn(B, T, H, K, device=device)
    chunk_local_cumsum(g, chunk_size=64)
    chunk_local_cumsum(gk, chunk_size=64, reverse=True)
    chunk_global_cumsum(g)
    chunk_global_cumsum(gk, reverse=True)


def utils_solve_tril(device):
    from fla.ops.utils import solve_tril
    _seed()
    for bt in (16, 32, 64):
        a = torch.randn(B, T, H, bt, device=device).tril(-1) * 0.1
        solve_tril(a)


def utils_logsumexp_softmax(device):
    from fla.ops.utils import logsumexp_fwd, softmax_bwd, softmax_fwd
    _seed()
    x = torch.randn(B, T, H, K, device=device)
    logsumexp_fwd(x, scale=0.5)
    p = softmax_fwd(x)
    softmax_bwd(p, torch.randn_like(p))


def utils_position_ids_kernel(device):
    """fla.ops.utils.index.prepare_position_ids_kernel: no function of fla 0.6.0 launches it
    (prepare_position_ids computes in torch); launched directly, one program per sequence, as
    its parameters say."""
    from fla.ops.utils.index import prepare_position_ids_kernel
    cu = _cu_seqlens(device)
    y = torch.empty(int(cu[-1]), dtype=torch.long, device=device)
    prepare_position_ids_kernel[(len(cu) - 1,)](y, cu, B=64)


def utils_pooling(device):
    from fla.ops.utils import mean_pooling
    _seed()
    x = _randn((B, T, H, K), device)
    _backward(mean_pooling(x, chunk_size=16))


def utils_matmul(device):
    from fla.ops.utils import addmm, matmul
    _seed()
    a = torch.randn(100, 96, device=device, dtype=torch.bfloat16)
    b = torch.randn(96, 80, device=device, dtype=torch.bfloat16)
    c = torch.randn(100, 80, device=device, dtype=torch.bfloat16)
    matmul(a, b)
    matmul(a, b, activation="sigmoid")
    addmm(c, a, b)


# ----------------------------------------------------------------------------- layers


def norm_layernorm(device):
    from fla.modules import LayerNorm
    _seed()
    x = _randn((B, T, 256), device)
    _backward(LayerNorm(256, bias=True).to(device)(x))


def norm_layernorm_wide_rows(device):
    """Rows wider than 512: the kernels that take one row per program."""
    from fla.modules import FusedRMSNormGated, LayerNorm
    _seed()
    x, g = _randn((B, T, 1024), device), _randn((B, T, 1024), device)
    _backward(LayerNorm(1024).to(device)(x))
    _backward(FusedRMSNormGated(1024).to(device)(x, g))


def norm_rmsnorm_residual_bf16(device):
    from fla.modules import RMSNorm
    _seed()
    x = _randn((B, T, 256), device, torch.bfloat16)
    r = _randn((B, T, 256), device, torch.bfloat16)
    norm = RMSNorm(256, dtype=torch.bfloat16).to(device)
    o, res = norm(x, residual=r, prenorm=True, residual_in_fp32=True)
    _backward(o, res)


def norm_groupnorm(device):
    from fla.modules import GroupNorm
    _seed()
    x = _randn((B, T, 256), device)
    _backward(GroupNorm(4, 256, bias=True).to(device)(x))


def norm_gated(device):
    from fla.modules import FusedLayerNormGated, FusedRMSNormGated
    _seed()
    x, g = _randn((B, T, 256), device), _randn((B, T, 256), device)
    _backward(FusedRMSNormGated(256).to(device)(x, g))
    _backward(FusedLayerNormGated(256, activation="sigmoid").to(device)(x, g))


def norm_l2(device):
    from fla.modules import L2Norm
    _seed()
    _backward(L2Norm().to(device)(_randn((B, T, H, K), device)))
    _backward(L2Norm().to(device)(_randn((B, T, 1000), device)))   # row kernels: D > 512


def norm_layernorm_gated(device):
    from fla.modules.norm.layernorm_gated import rmsnorm_fn
    _seed()
    x, z = _randn((B, T, 256), device), _randn((B, T, 256), device)
    w = _randn((256,), device)
    _backward(rmsnorm_fn(x, w, None, z=z, group_size=64))


def activations(device):
    from fla.modules.activations.ops import (ELUPlusOneFunction, PowGLUFunction,
                                             SigmoidGLUFunction, logsigmoid, sigmoid, swiglu,
                                             swish)
    _seed()
    x, y = _randn((B, T, 256), device), _randn((B, T, 256), device)
    # elu_p1 computes in torch for a CPU tensor: its Function launches fla's kernels anywhere
    _backward(logsigmoid(x), sigmoid(x), swish(x), swiglu(x, y), ELUPlusOneFunction.apply(x),
              SigmoidGLUFunction.apply(x, y), PowGLUFunction.apply(x, y, 3.0))


def short_convolution(device):
    from fla.modules import ShortConvolution
    _seed()
    x = _randn((B, T, 256), device)
    conv = ShortConvolution(256, kernel_size=4, bias=True).to(device)
    o, _ = conv(x)
    _backward(o)


def short_convolution_initial_state(device):
    """The gradient of the initial state (its own kernel), then one decoding step (in place)."""
    from fla.modules import ShortConvolution
    from fla.modules.causal_conv1d import causal_conv1d
    _seed()
    conv = ShortConvolution(256, kernel_size=4).to(device)
    x = _randn((B, T, 256), device)
    h0 = _randn((B, 256, 4), device)
    w = conv.weight.detach().squeeze(1).requires_grad_(True)
    y, _ = causal_conv1d(x, weight=w, initial_state=h0, activation="silu")
    _backward(y)
    with torch.no_grad():
        cache = torch.randn(B, 256, 4, device=device)
        conv(torch.randn(B, 1, 256, device=device), cache=cache, output_final_state=True)


def short_convolution_varlen_state(device):
    from fla.modules import ShortConvolution
    _seed()
    x = _randn((1, 200, 256), device)
    conv = ShortConvolution(256, kernel_size=4, activation=None).to(device)
    o, cache = conv(x, output_final_state=True, cu_seqlens=_cu_seqlens(device))
    _backward(o)


def rotary(device):
    from fla.modules import RotaryEmbedding
    _seed()
    q, k = _randn((B, T, H, K), device), _randn((B, T, H, K), device)
    rq, rk = RotaryEmbedding(K).to(device)(q, k)
    _backward(rq, rk)


def token_shift(device):
    from fla.modules.token_shift import token_shift
    _seed()
    _backward(token_shift(_randn((B, T, 256), device)))
    _backward(token_shift(_randn((1, 5000, 64), device)))   # T > 4096: the long kernels


def fused_cross_entropy(device):
    """fla's fused cross entropy through `cross_entropy_loss`, what FusedCrossEntropyLoss calls
    (the layer itself asserts CUDA tensors: on the CPU of a dry run it stops there). With a
    vocabulary over 65536 the logits are split in vocabulary blocks and the
    partial losses reduced by a kernel of their own."""
    from fla.modules.fused_cross_entropy.ops import cross_entropy_loss
    _seed()
    for n, vocab, softcap in ((64, 1000, None), (2, 70000, 30.0)):
        logits = _randn((n, vocab), device)
        target = torch.randint(0, vocab, (n,), device=device)
        target[:3] = -100
        loss, _ = cross_entropy_loss(logits, target, label_smoothing=0.1,
                                     logit_softcapping=softcap)
        loss.sum().backward()


def fused_linear_cross_entropy(device):
    from fla.modules import FusedLinearCrossEntropyLoss
    _seed()
    x = _randn((64, 256), device)
    w = _randn((1000, 256), device, scale=0.05)
    target = torch.randint(0, 1000, (64,), device=device)
    FusedLinearCrossEntropyLoss()(x, target, w).backward()


def fused_linear_ce_logsumexp(device):
    """fused_linear_cross_entropy.ops.logsumexp_fwd: a launch function of the module that the
    module itself does not call (fla's loss takes fla.ops.utils' logsumexp); called directly."""
    from fla.modules.fused_linear_cross_entropy.ops import logsumexp_fwd
    _seed()
    logsumexp_fwd(torch.randn(64, 1000, device=device), scale=0.5, softcapping=30.0)


def fused_kl_div(device):
    from fla.modules import FusedKLDivLoss
    _seed()
    x, tx = _randn((64, 256), device), _randn((64, 256), device, grad=False)
    w, tw = _randn((1000, 256), device, scale=0.05), _randn((1000, 256), device, grad=False,
                                                            scale=0.05)
    FusedKLDivLoss()(x, tx, w, tw).backward()


_CASES = [
    linear_attn_chunk, linear_attn_chunk_normalized_state, linear_attn_fused_chunk,
    linear_attn_fused_recurrent,
    simple_gla_chunk_g, simple_gla_chunk_varlen_bf16, simple_gla_fused_recurrent,
    simple_gla_parallel, retention_chunk, retention_parallel,
    gla_chunk, gla_chunk_wide_k, gla_fused_recurrent,
    gated_delta_rule_chunk, gated_delta_rule_chunk_varlen_bf16, gated_delta_rule_gate_in_kernel,
    gated_delta_rule_fused_recurrent,
    delta_rule_chunk, delta_rule_fused_recurrent,
    hgrn_chunk, hgrn_fused_recurrent,
    utils_cumsum, utils_solve_tril, utils_logsumexp_softmax, utils_position_ids_kernel,
    utils_pooling,
    utils_matmul,
    norm_layernorm, norm_layernorm_wide_rows, norm_rmsnorm_residual_bf16, norm_groupnorm, norm_gated, norm_l2,
    norm_layernorm_gated, activations, short_convolution, short_convolution_initial_state,
    short_convolution_varlen_state,
    rotary, token_shift, fused_cross_entropy, fused_linear_cross_entropy, fused_linear_ce_logsumexp,
    fused_kl_div,
]


def cases():
    """[(case_name, fn)] where fn(device: str) -> None runs fla ops on small tensors."""
    return [(f.__name__, f) for f in _CASES]
