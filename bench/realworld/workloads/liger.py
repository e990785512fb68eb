"""Liger-Kernel 0.8.5 workload: Liger's own Triton kernels, launched by Liger's own Python.

Every case below calls Liger's public autograd Functions (``Liger*Function.apply``)
or the plain Python launch functions in ``liger_kernel.ops.<module>`` -- the code
exactly as shipped in the PyPI wheel, unedited -- on small seeded tensors, forward
and backward (``.backward()`` on the outputs), so that every launchable
``@triton.jit`` kernel at the top level of ``liger_kernel/ops/`` is launched,
together with the code paths that select a different kernel or a different
constexpr specialisation: in-place vs out-of-place backward, with/without
weight/bias/shift, the casting modes (llama/gemma/none), the reductions
(none/sum/mean/batchmean), label smoothing, ignore_index, softcap, z-loss,
token accuracy, predicted tokens, log_target, the JSD beta branches, the GRPO
loss types (grpo/dapo/cispo/sapo/vespo, token and sequence level, vLLM IS ratio,
delta clamp, bias-corrected KL), the row-block RMSNorm, fp32 plus bf16 where
Liger has dtype-specific paths.

Imports are from the submodules (``liger_kernel.ops.geglu`` ...), never from the
package ``liger_kernel.ops``: the package may swap in a cuTile / CuTe DSL
implementation on a GPU, the submodules always hold the Triton one.  Ops that
go through Liger's dispatcher (JSD) are pinned to ``impl="nvidia-triton"``.

Four kernels are not launched by Liger's Python on an H100 and are driven anyway
(see ``VIA_WORKAROUND``): the Blackwell-only column-tiled SwiGLU kernels (Liger's own
``swiglu_forward``/``swiglu_backward`` with its arch probe answering "blackwell" for
the duration of the case), the multi-block softmax forward kernel (dead code in
Liger: launched directly with Liger's argument convention and a BLOCK_SIZE smaller
than the row), and the history-free Sinkhorn backward (Liger's ``mhc_sinkhorn_bwd``
called with ``hist=None``).  The kernels themselves are Liger's, unedited.
"""

import contextlib

import torch

# Every liger_kernel.ops.<mod> (top level, not backends/cute/cutile/cutedsl/experimental)
# that defines @triton.jit kernels.
MODULES = [
    "liger_kernel.ops.attn_res",
    "liger_kernel.ops.cross_entropy",
    "liger_kernel.ops.dyt",
    "liger_kernel.ops.fused_add_rms_norm",
    "liger_kernel.ops.fused_ce_tvd",
    "liger_kernel.ops.fused_linear_kl_div",
    "liger_kernel.ops.fused_moe_kernels",
    "liger_kernel.ops.fused_neighborhood_attention",
    "liger_kernel.ops.geglu",
    "liger_kernel.ops.group_norm",
    "liger_kernel.ops.grpo_loss",
    "liger_kernel.ops.jsd",
    "liger_kernel.ops.kl_div",
    "liger_kernel.ops.layer_norm",
    "liger_kernel.ops.llama4_rope",
    "liger_kernel.ops.mhc",
    "liger_kernel.ops.mlp",
    "liger_kernel.ops.modulated_rms_norm",
    "liger_kernel.ops.multi_token_attention",
    "liger_kernel.ops.poly_norm",
    "liger_kernel.ops.qwen2vl_mrope",
    "liger_kernel.ops.relu_squared",
    "liger_kernel.ops.rms_norm",
    "liger_kernel.ops.rope",
    "liger_kernel.ops.softmax",
    "liger_kernel.ops.sparsemax",
    "liger_kernel.ops.swiglu",
    "liger_kernel.ops.tvd",
    "liger_kernel.ops.utils",
    "liger_kernel.ops.vocab_parallel_cross_entropy",
]

# @triton.jit functions in MODULES that are device helpers (only called from other
# kernels, never launched): not counted as launchable.
HELPERS = {
    "liger_kernel.ops.fused_moe_kernels._keyed_add": "tl.associative_scan combine fn of _moe_router_scatter_kernel",
    "liger_kernel.ops.mlp._l2_swizzle": "pid swizzle helper called from the mlp GEMM kernels",
    "liger_kernel.ops.swiglu.silu": "activation helper called from the swiglu kernels",
}

# Launchable kernels this workload does not launch, with the reason.  Empty: with
# the workarounds below every launchable kernel is launched on one H100.
NOT_REACHED = {}

# Kernels that Triton itself cannot compile (its own launch fails the same way): not counted
# against the build.
EXPECTED_FAILURES = {
    f"liger_kernel.ops.softmax.{name}": "calls tl.float32(-float('inf')): 'dtype' object is not "
                                        "callable in Triton 3.6 to 3.9, in Liger's own launch too"
    for name in ("_softmax_multi_block_forward_kernel", "_softmax_multi_block_backward_kernel")
}

# Launchable kernels that Liger's Python does not launch on an H100, and how the
# workload launches them anyway.
VIA_WORKAROUND = {
    "liger_kernel.ops.swiglu._swiglu_forward_kernel_tiled": (
        "Blackwell-only path (_should_tile: infer_device_arch() startswith 'blackwell' and "
        "next_pow2(n_cols) >= 16384); case swiglu_tiled_blackwell_path runs Liger's swiglu_forward "
        "with liger_kernel.ops.swiglu.infer_device_arch answering 'blackwell'"
    ),
    "liger_kernel.ops.swiglu._swiglu_backward_kernel_tiled": "as _swiglu_forward_kernel_tiled (swiglu_backward)",
    "liger_kernel.ops.softmax._softmax_multi_block_forward_kernel": (
        "dead code in Liger: _softmax_forward takes it only when n_cols > BLOCK_SIZE, but "
        "BLOCK_SIZE = next_pow2(n_cols) >= n_cols (and n_cols > 65536 raises); case "
        "softmax_multi_block launches it directly with _softmax_forward's argument convention "
        "and BLOCK_SIZE=256 < n_cols=1000"
    ),
    "liger_kernel.ops.mhc._mhc_sinkhorn_bwd_kernel": (
        "LigerMHCCoeffsFunction always saves the Sinkhorn history when a backward can happen, so "
        "its backward takes _mhc_sinkhorn_bwd_hist_kernel; case mhc_sinkhorn_bwd_no_hist calls "
        "Liger's mhc_sinkhorn_bwd(..., hist=None), the recompute path"
    ),
}


# ----------------------------------------------------------------------------- helpers


def _seed(s=0):
    torch.manual_seed(s)


def _randn(shape, device, dtype=torch.float32, grad=False, scale=1.0):
    t = torch.randn(shape, dtype=torch.float32, device=device) * scale
    t = t.to(dtype)
    if grad:
        t.requires_grad_(True)
    return t


def _backward(*outs):
    """Backward through outputs with random (seeded) upstream gradients."""
    outs = [o for o in outs if o is not None and o.requires_grad]
    grads = [torch.randn_like(o) for o in outs]
    torch.autograd.backward(outs, grads)


def _targets(n, v, device, n_ignore=2, ignore_index=-100):
    t = torch.randint(0, v, (n,), device=device)
    if n_ignore:
        t[1 : 1 + n_ignore] = ignore_index
    return t


@contextlib.contextmanager
def _patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


V = 1000  # vocab
BT = 8  # tokens


# ----------------------------------------------------------------------------- attn_res


def _attn_res(device, dtype, n_blocks):
    from liger_kernel.ops.attn_res import LigerAttnResFunction

    _seed()
    v = _randn((n_blocks, 2, 4, 128), device, dtype=dtype, grad=True)  # [N blocks, B, T, D]
    wq = _randn((128,), device, dtype=dtype, grad=True)
    wn = (1.0 + 0.1 * _randn((128,), device)).to(dtype).requires_grad_(True)
    h = LigerAttnResFunction.apply(v, wq, wn, 1e-6)
    _backward(h)


def attn_res_fp32(device):
    _attn_res(device, torch.float32, 3)  # MAX_BLOCKS = 4


def attn_res_bf16(device):
    _attn_res(device, torch.bfloat16, 6)  # MAX_BLOCKS = 8


# ----------------------------------------------------------------------------- cross_entropy (+ utils.element_mul_kernel)


def _ce(device, dtype=torch.float32, weight=False, reduction="mean", ls=0.0, softcap=None, z=0.0,
        extras=False, scale=1.0, grad=True, ignore=2):
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction

    _seed()
    x = _randn((BT, V), device, dtype=dtype, grad=grad)
    t = _targets(BT, V, device, n_ignore=ignore)
    w = (torch.rand(V, device=device) + 0.5) if weight else None
    loss, z_loss, acc, pred = LigerCrossEntropyFunction.apply(
        x, t, w, -100, z, ls, reduction, softcap, extras, extras, extras
    )
    if not grad:
        return
    if reduction == "none":
        _backward(loss)
    else:
        (loss * scale).backward()


def ce_mean(device):
    _ce(device)  # grad_output == 1.0: no element_mul


def ce_sum_scaled(device):
    _ce(device, reduction="sum", scale=2.0)  # scalar grad_output != 1 -> element_mul_kernel


def ce_none_label_smoothing(device):
    _ce(device, reduction="none", ls=0.1)


def ce_weight_softcap_zloss_extras(device):
    _ce(device, weight=True, softcap=30.0, z=1e-4, extras=True, ls=0.05, scale=0.5)


def ce_bf16(device):
    _ce(device, dtype=torch.bfloat16, scale=3.0)


def ce_no_grad(device):
    _ce(device, grad=False, ignore=0)  # HAS_GRADIENTS=False


# ----------------------------------------------------------------------------- fused_linear_cross_entropy


def _flce(device, dtype=torch.float32, bias=True, reduction="mean", softcap=None, scale=2.0, ce_weight=False,
          ls=0.0, z=False, extras=False, token_scaling=False, accum_dtype=None):
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction

    _seed()
    H = 128
    x = _randn((BT, H), device, dtype=dtype, grad=True)
    w = _randn((V, H), device, dtype=dtype, grad=True, scale=0.05)
    b = _randn((V,), device, dtype=dtype, grad=True, scale=0.05) if bias else None
    t = _targets(BT, V, device)
    cw = (torch.rand(V, device=device) + 0.5) if ce_weight else None
    loss, z_loss, acc, pred = LigerFusedLinearCrossEntropyFunction.apply(
        x, w, t, b, cw, -100, 1e-4 if z else 0.0, ls, reduction, softcap, z, accum_dtype, token_scaling,
        extras, extras,
    )
    if reduction == "none":
        _backward(loss)
    else:
        (loss * scale).backward()


def flce_mean_bias_scaled(device):
    _flce(device)  # element_mul_kernel on grad_input (X_col_stride), grad_weight, grad_bias


def flce_none_deferred(device):
    _flce(device, reduction="none", bias=False)  # backward recomputes the chunked logits


def flce_bf16_softcap_weight(device):
    _flce(device, dtype=torch.bfloat16, softcap=20.0, ce_weight=True, ls=0.1, z=True, extras=True,
          token_scaling=True, accum_dtype=torch.float32)


# ----------------------------------------------------------------------------- dyt


def _dyt(device, beta, dtype=torch.float32):
    from liger_kernel.ops.dyt import LigerDyTFunction

    _seed()
    x = _randn((4, 8, 512), device, dtype=dtype, grad=True)
    alpha = torch.full((1,), 0.5, device=device, dtype=dtype, requires_grad=True)
    gamma = (1.0 + 0.1 * _randn((512,), device)).to(dtype).requires_grad_(True)
    b = _randn((512,), device, dtype=dtype, grad=True, scale=0.1) if beta else None
    y = LigerDyTFunction.apply(x, alpha, gamma, b)
    _backward(y)


def dyt_beta(device):
    _dyt(device, True)


def dyt_no_beta(device):
    _dyt(device, False)


# ----------------------------------------------------------------------------- fused_add_rms_norm


def _farn(device, casting_mode, dtype=torch.float32, offset=0.0, in_place=False, w_grad=True):
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction

    _seed()
    x = _randn((2, 4, 256), device, dtype=dtype, grad=True)
    r = _randn((2, 4, 256), device, dtype=dtype, grad=True)
    w = (1.0 + 0.1 * _randn((256,), device)).to(dtype).requires_grad_(w_grad)
    y, s = LigerFusedAddRMSNormFunction.apply(x, r, w, 1e-6, offset, casting_mode, in_place)
    _backward(y, s)


def fused_add_rms_norm_llama(device):
    _farn(device, "llama")


def fused_add_rms_norm_gemma_inplace(device):
    _farn(device, "gemma", offset=1.0, in_place=True)


def fused_add_rms_norm_none_bf16_no_dw(device):
    _farn(device, "none", dtype=torch.bfloat16, w_grad=False)


# ----------------------------------------------------------------------------- fused_ce_tvd


def _fused_ce_tvd(device, dtype):
    from liger_kernel.ops.fused_ce_tvd import LigerFusedCETVDFunction

    _seed()
    s = _randn((BT, V), device, dtype=dtype, grad=True)
    t = _randn((BT, V), device, dtype=dtype)
    y = _targets(BT, V, device)
    ce, tvd = LigerFusedCETVDFunction.apply(s, t, y, -100)
    _backward(ce, tvd)


def fused_ce_tvd_fp32(device):
    _fused_ce_tvd(device, torch.float32)


def fused_ce_tvd_bf16(device):
    _fused_ce_tvd(device, torch.bfloat16)


# ----------------------------------------------------------------------------- fused_linear_jsd (jsd kernel via dispatcher)


def fused_linear_jsd(device):
    from liger_kernel.ops.fused_linear_jsd import LigerFusedLinearJSDFunction

    _seed()
    H = 128
    xs = _randn((BT, H), device, grad=True)
    ws = _randn((V, H), device, grad=True, scale=0.05)
    xt = _randn((BT, H), device)
    wt = _randn((V, H), device, scale=0.05)
    labels = _targets(BT, V, device)
    loss = LigerFusedLinearJSDFunction.apply(xs, ws, xt, wt, labels, 0.5, -100, 1.0, None, "nvidia-triton", None)
    (loss * 2.0).backward()  # element_mul_kernel


# ----------------------------------------------------------------------------- fused_linear_kl_div


def _flkl(device, labels, reduction):
    from liger_kernel.ops.fused_linear_kl_div import LigerFusedLinearKLDivFunction

    _seed()
    H = 128
    x = _randn((BT, H), device, grad=True)
    w = _randn((V, H), device, grad=True, scale=0.05)
    target = torch.softmax(_randn((BT, V), device), dim=-1)
    sl = _targets(BT, V, device) if labels else None
    loss = LigerFusedLinearKLDivFunction.apply(x, w, target, sl, reduction, -100, 2.0, 1e-10, None)
    (loss * 2.0).backward()


def fused_linear_kl_div_labels(device):
    _flkl(device, True, "batchmean")


def fused_linear_kl_div_no_labels(device):
    _flkl(device, False, "sum")


# ----------------------------------------------------------------------------- fused_moe


def _moe(device, dtype):
    from liger_kernel.ops.fused_moe import LigerFusedMoEFunction

    _seed()
    T, H, E, I, K = 32, 128, 4, 64, 2
    x = _randn((T, H), device, dtype=dtype, grad=True)
    gate_up = _randn((E, 2 * I, H), device, dtype=dtype, grad=True, scale=0.05)
    down = _randn((E, H, I), device, dtype=dtype, grad=True, scale=0.05)
    scores = torch.randn(T, E, device=device)
    w, idx = torch.topk(torch.softmax(scores, dim=-1), K, dim=-1)
    idx = idx.to(torch.int32).contiguous()
    w = w.to(dtype).requires_grad_(True)
    out = LigerFusedMoEFunction.apply(x, gate_up, down, idx, w)
    _backward(out)


def fused_moe_bf16(device):
    _moe(device, torch.bfloat16)


def fused_moe_fp32(device):
    _moe(device, torch.float32)


# ----------------------------------------------------------------------------- fused_neighborhood_attention


def fused_neighborhood_attention(device):
    from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction

    _seed()
    q = _randn((1, 2, 32, 32), device, grad=True)
    k = _randn((1, 2, 32, 32), device, grad=True)
    v = _randn((1, 2, 32, 32), device, grad=True)
    o = LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, 7, 1, None)
    _backward(o)


# ----------------------------------------------------------------------------- geglu


def _geglu(device, dtype):
    from liger_kernel.ops.geglu import LigerGELUMulFunction

    _seed()
    a = _randn((2, 4, 512), device, dtype=dtype, grad=True)
    b = _randn((2, 4, 512), device, dtype=dtype, grad=True)
    _backward(LigerGELUMulFunction.apply(a, b))


def geglu_fp32(device):
    _geglu(device, torch.float32)


def geglu_bf16(device):
    _geglu(device, torch.bfloat16)


# ----------------------------------------------------------------------------- group_norm


def _group_norm(device, dtype):
    from liger_kernel.ops.group_norm import LigerGroupNormFunction

    _seed()
    x = _randn((2, 8, 64), device, dtype=dtype, grad=True)  # [B, C, hidden]
    w = (1.0 + 0.1 * _randn((8,), device)).to(dtype).requires_grad_(True)
    b = _randn((8,), device, dtype=dtype, grad=True, scale=0.1)
    y = LigerGroupNormFunction.apply(x, w, b, 8, 4, 1e-6)
    _backward(y)


def group_norm_fp32(device):
    _group_norm(device, torch.float32)


def group_norm_bf16(device):
    _group_norm(device, torch.bfloat16)


# ----------------------------------------------------------------------------- grpo_loss


def _grpo_inputs(device, B=2, L=8, N=V):
    _seed()
    logits = _randn((B, L + 1, N), device, grad=True)
    ids = torch.randint(0, N, (B, L), device=device)
    old = -torch.rand(B, L, device=device) * 5
    ref = -torch.rand(B, L, device=device) * 5
    adv = torch.randn(B, device=device)
    mask = torch.ones(B, L, dtype=torch.int32, device=device)
    mask[0, -2:] = 0
    return logits, ids, old, ref, adv, mask


def _grpo(device, loss_type="grpo", beta=0.04, old=True, mask=True, level="token", reduce=True, vllm=None,
          delta=None, bias_kl=False, phi=False, inplace=False):
    from liger_kernel.ops.grpo_loss import GrpoLossFunction

    logits, ids, old_logp, ref_logp, adv, m = _grpo_inputs(device)
    B, L = ids.shape
    vllm_ratio = None
    if vllm == "token":
        vllm_ratio = torch.rand(B, L, device=device) + 0.5
    elif vllm == "seq":
        vllm_ratio = torch.rand(B, 1, device=device) + 0.5
    phi_seq = (torch.rand(B, device=device) + 0.5) if phi else None
    # Liger overwrites logits.data in backward when inplace=True: hand it a non-leaf copy.
    x = logits * 1.0 if inplace else logits
    outs = GrpoLossFunction.apply(
        x, old_logp if old else None, ref_logp if beta != 0.0 else None, ids, adv, m if mask else None,
        0.9, beta, 0.2, 0.4, inplace, loss_type, None, reduce, level, 1.0, 1.05, vllm_ratio, delta, bias_kl,
        None, phi_seq,
    )
    loss = outs[0]
    if reduce:
        (loss * 2.0).backward()
    else:
        _backward(loss)


def grpo_selective_log_softmax(device):
    from liger_kernel.ops.grpo_loss import fused_selective_log_softmax

    logits, ids, _, _, _, mask = _grpo_inputs(device)
    fused_selective_log_softmax(logits.detach(), ids, 0.9, mask)
    fused_selective_log_softmax(logits.detach(), ids, 1.0, None)


def grpo_token_grpo_kl(device):
    _grpo(device, "grpo")


def grpo_token_dapo_nokl_nomask_vllm_inplace(device):
    _grpo(device, "dapo", beta=0.0, mask=False, vllm="token", inplace=True)


def grpo_token_bnpo_delta_biaskl_unreduced(device):
    _grpo(device, "bnpo", delta=2.0, bias_kl=True, reduce=False, old=True)


def grpo_token_cispo_no_old(device):
    _grpo(device, "cispo", old=False, vllm="seq")


def grpo_token_sapo(device):
    _grpo(device, "sapo")


def grpo_token_vespo(device):
    _grpo(device, "vespo", beta=0.0, phi=True, vllm="token")


def grpo_sequence_kl_biaskl(device):
    _grpo(device, "grpo", level="sequence", bias_kl=True, delta=2.0)


def grpo_sequence_nokl_vllm(device):
    _grpo(device, "dr_grpo", beta=0.0, level="sequence", vllm="seq", mask=False)


# ----------------------------------------------------------------------------- jsd


def _jsd(device, beta, labels, dtype=torch.float32, scale=1.0):
    from liger_kernel.ops.jsd import LigerJSDFunction

    _seed()
    x = torch.log_softmax(_randn((BT, V), device), dim=-1).to(dtype).requires_grad_(True)
    y = torch.log_softmax(_randn((BT, V), device), dim=-1).to(dtype)
    sl = _targets(BT, V, device) if labels else None
    loss = LigerJSDFunction.apply(x, y, sl, beta, -100, "nvidia-triton", None)
    (loss * scale).backward()


def jsd_beta_half_labels(device):
    _jsd(device, 0.5, True, scale=2.0)


def jsd_forward_kl(device):
    _jsd(device, 0.0, False)


def jsd_reverse_kl_bf16(device):
    _jsd(device, 1.0, True, dtype=torch.bfloat16)


# ----------------------------------------------------------------------------- kl_div


def _kl(device, reduction, log_target, dtype=torch.float32):
    from liger_kernel.ops.kl_div import LigerKLDivLossFunction

    _seed()
    y_pred = torch.log_softmax(_randn((BT, V), device), dim=-1).to(dtype).requires_grad_(True)
    y_true = torch.softmax(_randn((BT, V), device), dim=-1)
    if log_target:
        y_true = torch.log(y_true)
    y_true = y_true.to(dtype)
    loss = LigerKLDivLossFunction.apply(y_pred, y_true, reduction, log_target, 1e-10)
    _backward(loss)


def kl_div_batchmean(device):
    _kl(device, "batchmean", False)


def kl_div_none_log_target(device):
    _kl(device, "none", True)


def kl_div_sum_bf16(device):
    _kl(device, "sum", False, dtype=torch.bfloat16)


def kl_div_mean_log_target(device):
    _kl(device, "mean", True)


# ----------------------------------------------------------------------------- layer_norm


def _layer_norm(device, dtype, wb_grad=True):
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction

    _seed()
    x = _randn((2, 8, 256), device, dtype=dtype, grad=True)
    w = (1.0 + 0.1 * _randn((256,), device)).to(dtype).requires_grad_(wb_grad)
    b = _randn((256,), device, dtype=dtype, grad=wb_grad, scale=0.1)
    _backward(LigerLayerNormFunction.apply(x, w, b, 1e-6))


def layer_norm_fp32(device):
    _layer_norm(device, torch.float32)


def layer_norm_bf16(device):
    _layer_norm(device, torch.bfloat16)


def layer_norm_no_dw_db(device):
    _layer_norm(device, torch.float32, wb_grad=False)


# ----------------------------------------------------------------------------- llama4_rope


def _llama4_rope(device, dtype):
    from liger_kernel.ops.llama4_rope import LigerLlama4RopeFunction

    _seed()
    B, S, Hq, Hk, D = 2, 8, 4, 2, 64
    q0 = _randn((B, S, Hq, D), device, dtype=dtype, grad=True)
    k0 = _randn((B, S, Hk, D), device, dtype=dtype, grad=True)
    ang = torch.rand(S, D // 2, device=device) * 3.0
    freqs = torch.polar(torch.ones_like(ang), ang)  # complex64 [S, D/2]
    # BLOCK_SIZE left at its default: passing it makes Liger's backward return too few grads.
    q, k = LigerLlama4RopeFunction.apply(q0 * 1.0, k0 * 1.0, freqs)
    _backward(q, k)


def llama4_rope_fp32(device):
    _llama4_rope(device, torch.float32)


def llama4_rope_bf16(device):
    _llama4_rope(device, torch.bfloat16)


# ----------------------------------------------------------------------------- mhc


def _mhc_coeffs(device, dtype, allow_fp32):
    from liger_kernel.ops.mhc import LigerMHCCoeffsFunction

    _seed()
    B, T, HC, C = 2, 4, 4, 64
    M = HC * HC + 2 * HC
    x = _randn((B, T, HC, C), device, dtype=dtype, grad=True)
    phi = _randn((HC * C, M), device, dtype=dtype, grad=True, scale=0.05)
    b = _randn((M,), device, grad=True, scale=0.1)
    ap = torch.tensor(0.8, device=device, requires_grad=True)
    aq = torch.tensor(0.9, device=device, requires_grad=True)
    ar = torch.tensor(1.1, device=device, requires_grad=True)
    h_pre, h_post, h_res = LigerMHCCoeffsFunction.apply(x, phi, b, ap, aq, ar, allow_fp32, 8, 1e-6, 1e-4, 1e-6, 2.0)
    _backward(h_pre, h_post, h_res)


def mhc_coeffs_bf16(device):
    _mhc_coeffs(device, torch.bfloat16, False)  # tensor-core path (CAST_FP32=False)


def mhc_coeffs_fp32(device):
    _mhc_coeffs(device, torch.float32, True)  # CAST_FP32=True


def mhc_sinkhorn_bwd_no_hist(device):
    from liger_kernel.ops.mhc import mhc_sinkhorn_bwd
    from liger_kernel.ops.mhc import mhc_split_sinkhorn_fwd

    _seed()
    N, HC = 8, 4
    M = HC * HC + 2 * HC
    mix = _randn((N, M), device)
    b = _randn((M,), device, scale=0.1)
    a = torch.tensor(1.0, device=device)
    mhc_split_sinkhorn_fwd(mix, b, a, a, a, tmax=8, pre_eps=1e-4, sinkhorn_eps=1e-6, post_mult=2.0)  # STORE_HIST=False
    g = _randn((N, HC, HC), device)
    mhc_sinkhorn_bwd(mix, b, a, g, tmax=8, sinkhorn_eps=1e-6, hist=None)


def _mhc_pre_post(device, dtype):
    from liger_kernel.ops.mhc import LigerMHCPostResFunction
    from liger_kernel.ops.mhc import LigerMHCPreFunction

    _seed()
    B, T, HC, C = 2, 4, 4, 128
    x = _randn((B, T, HC, C), device, dtype=dtype, grad=True)
    h_pre = torch.rand((B, T, HC), device=device, requires_grad=True)
    f = _randn((B, T, C), device, dtype=dtype, grad=True)
    h_post = torch.rand((B, T, HC), device=device, requires_grad=True)
    h_res = torch.rand((B, T, HC, HC), device=device, requires_grad=True)
    y = LigerMHCPreFunction.apply(x, h_pre)
    z = LigerMHCPostResFunction.apply(x, f, h_post, h_res)
    _backward(y, z)


def mhc_pre_post_res_bf16(device):
    _mhc_pre_post(device, torch.bfloat16)


def mhc_pre_post_res_fp32(device):
    _mhc_pre_post(device, torch.float32)


# ----------------------------------------------------------------------------- mlp (TMA descriptors, autotuned)


def _mlp(device, train, dtype=torch.bfloat16, gate_multiplier=1.0, down_multiplier=1.0):
    from liger_kernel.ops.mlp import LigerMLPFunction

    _seed()
    B, S, dim, hidden = 1, 64, 128, 256
    x = _randn((B, S, dim), device, dtype=dtype, grad=train)
    wg = _randn((hidden, dim), device, dtype=dtype, grad=train, scale=0.05)
    wu = _randn((hidden, dim), device, dtype=dtype, grad=train, scale=0.05)
    wd = _randn((dim, hidden), device, dtype=dtype, grad=train, scale=0.05)
    y = LigerMLPFunction.apply(x, wg, wu, wd, gate_multiplier, down_multiplier)
    if train:
        _backward(y)


def mlp_train_bf16(device):
    _mlp(device, True, gate_multiplier=0.5, down_multiplier=2.0)


def mlp_inference_bf16(device):
    _mlp(device, False)


# ----------------------------------------------------------------------------- modulated_rms_norm


def _mod_rms(device, casting_mode, dtype=torch.float32, weight=True, shift=True, per_token=False, offset=0.0,
             in_place=False):
    from liger_kernel.ops.modulated_rms_norm import LigerModulatedRMSNormFunction

    _seed()
    B, T, H = 2, 4, 256
    x = _randn((B, T, H), device, dtype=dtype, grad=True)
    w = (1.0 + 0.1 * _randn((H,), device)).to(dtype).requires_grad_(True) if weight else None
    mshape = (B, T, H) if per_token else (B, 1, H)
    scale = _randn(mshape, device, dtype=dtype, grad=True, scale=0.1)
    sh = _randn(mshape, device, dtype=dtype, grad=True, scale=0.1) if shift else None
    y = LigerModulatedRMSNormFunction.apply(x, w, scale, sh, 1e-6, offset, casting_mode, in_place)
    _backward(y)


def modulated_rms_norm_llama_shift_broadcast(device):
    _mod_rms(device, "llama")


def modulated_rms_norm_gemma_noweight_noshift_per_token_inplace(device):
    _mod_rms(device, "gemma", weight=False, shift=False, per_token=True, offset=1.0, in_place=True)


def modulated_rms_norm_none_bf16(device):
    _mod_rms(device, "none", dtype=torch.bfloat16, per_token=True)


# ----------------------------------------------------------------------------- multi_token_attention


def _mta(device, sparse):
    from liger_kernel.ops.multi_token_attention import LigerMultiTokenAttentionFunction

    _seed()
    scores = _randn((1, 2, 16, 16), device, grad=True)
    w = _randn((2, 2, 3, 3), device, grad=True, scale=0.3)
    b = _randn((2,), device, grad=True, scale=0.1)
    out = LigerMultiTokenAttentionFunction.apply(scores, w, b, 1, 1, 1, 1, sparse)
    _backward(out)


def multi_token_attention_softmax(device):
    _mta(device, False)


def multi_token_attention_sparsemax(device):
    _mta(device, True)


# ----------------------------------------------------------------------------- poly_norm


def _poly_norm(device, dtype, in_place):
    from liger_kernel.ops.poly_norm import LigerPolyNormFunction

    _seed()
    x = _randn((2, 4, 256), device, dtype=dtype, grad=True)
    w = torch.tensor([0.3, 0.4, 0.5], device=device, dtype=dtype, requires_grad=True)
    b = torch.tensor(0.1, device=device, dtype=dtype, requires_grad=True)  # 0-d: Liger's dB is 0-d
    _backward(LigerPolyNormFunction.apply(x, w, b, 1e-6, in_place))


def poly_norm_fp32_inplace(device):
    _poly_norm(device, torch.float32, True)


def poly_norm_bf16(device):
    _poly_norm(device, torch.bfloat16, False)


# ----------------------------------------------------------------------------- qwen2vl_mrope


def _mrope(device, dtype):
    from liger_kernel.ops.qwen2vl_mrope import LigerQwen2VLMRopeFunction

    _seed()
    B, Hq, Hk, S, D = 2, 4, 2, 8, 64
    q = _randn((B, Hq, S, D), device, dtype=dtype, grad=True)
    k = _randn((B, Hk, S, D), device, dtype=dtype, grad=True)
    ang = torch.rand(3, B, S, D, device=device) * 3.0
    cos, sin = torch.cos(ang).to(dtype), torch.sin(ang).to(dtype)
    qo, ko = LigerQwen2VLMRopeFunction.apply(q, k, cos, sin, [8, 12, 12])
    _backward(qo, ko)


def qwen2vl_mrope_fp32(device):
    _mrope(device, torch.float32)


def qwen2vl_mrope_bf16(device):
    _mrope(device, torch.bfloat16)


# ----------------------------------------------------------------------------- relu_squared


def relu_squared(device):
    from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction

    _seed()
    x = _randn((4, 8, 512), device, grad=True)
    _backward(LigerReLUSquaredFunction.apply(x))


# ----------------------------------------------------------------------------- rms_norm


def _rms(device, casting_mode, dtype=torch.float32, shape=(2, 8, 256), weight=True, w_grad=True, offset=0.0,
         in_place=True, row_mode=None):
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction

    _seed()
    x = _randn(shape, device, dtype=dtype, grad=True)
    H = shape[-1]
    w = (1.0 + 0.1 * _randn((H,), device)).to(dtype).requires_grad_(w_grad) if weight else None
    y = LigerRMSNormFunction.apply(x, w, 1e-6, offset, casting_mode, in_place, row_mode)
    _backward(y)


def rms_norm_llama_inplace(device):
    _rms(device, "llama")


def rms_norm_gemma_bf16(device):
    _rms(device, "gemma", dtype=torch.bfloat16, offset=1.0, in_place=False)


def rms_norm_none_no_weight(device):
    _rms(device, "none", weight=False)


def rms_norm_llama_no_dw(device):
    _rms(device, "llama", w_grad=False, in_place=False)


def rms_norm_block_rows(device):
    # BLOCK_SIZE <= 256 and n_rows >= 32768 and not row_mode -> _block_rms_norm_{forward,backward}_kernel
    _rms(device, "llama", shape=(32768, 64), row_mode=False)


def rms_norm_block_rows_gemma_bf16_no_dw(device):
    _rms(device, "gemma", dtype=torch.bfloat16, shape=(32768, 64), w_grad=False, offset=1.0, in_place=False)


# ----------------------------------------------------------------------------- rope


def _rope(device, dtype=torch.float32, cos_batch=1, rotary_dim=None):
    from liger_kernel.ops.rope import LigerRopeFunction

    _seed()
    B, Hq, Hk, S, D = 2, 4, 2, 8, 64
    q = _randn((B, Hq, S, D), device, dtype=dtype, grad=True)
    k = _randn((B, Hk, S, D), device, dtype=dtype, grad=True)
    rd = rotary_dim or D
    ang = torch.rand(cos_batch, S, rd, device=device) * 3.0
    cos, sin = torch.cos(ang).to(dtype), torch.sin(ang).to(dtype)
    qo, ko = LigerRopeFunction.apply(q, k, cos, sin, None, 1, rotary_dim)
    _backward(qo, ko)


def rope_fp32(device):
    _rope(device)


def rope_bf16_batched_cos(device):
    _rope(device, dtype=torch.bfloat16, cos_batch=2)


def rope_partial_rotary(device):
    _rope(device, rotary_dim=32)


# ----------------------------------------------------------------------------- softmax / sparsemax


def _softmax(device, dtype):
    from liger_kernel.ops.softmax import LigerSoftmaxFunction

    _seed()
    x = _randn((4, 8, 1000), device, dtype=dtype, grad=True)
    _backward(LigerSoftmaxFunction.apply(x))


def softmax_fp32(device):
    _softmax(device, torch.float32)


def softmax_bf16(device):
    _softmax(device, torch.bfloat16)


def softmax_multi_block(device):
    from liger_kernel.ops import softmax as sm

    _seed()
    n_rows, n_cols, BLOCK_SIZE, num_warps = 4, 1000, 256, 4
    x = _randn((n_rows, n_cols), device)
    y = torch.empty_like(x)
    # Unreachable through _softmax_forward (see VIA_WORKAROUND): same launch, smaller block.
    sm._softmax_multi_block_forward_kernel[(n_rows,)](
        y, y.stride(0), x, x.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
    )
    dy = _randn((n_rows, n_cols), device)
    # Liger's own backward launcher, multi-block branch.
    sm._softmax_backward(dy, y, BLOCK_SIZE, num_warps, True)


def _sparsemax(device, dim):
    from liger_kernel.ops.sparsemax import LigerSparsemaxFunction

    _seed()
    x = _randn((4, 6, 64), device, grad=True)
    _backward(LigerSparsemaxFunction.apply(x, dim))


def sparsemax_last_dim(device):
    _sparsemax(device, -1)


def sparsemax_dim1(device):
    _sparsemax(device, 1)


# ----------------------------------------------------------------------------- swiglu


def _swiglu(device, dtype, gm=1.0, dm=1.0, shape=(2, 4, 512)):
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction

    _seed()
    a = _randn(shape, device, dtype=dtype, grad=True)
    b = _randn(shape, device, dtype=dtype, grad=True)
    _backward(LigerSiLUMulFunction.apply(a, b, gm, dm))


def swiglu_fp32(device):
    _swiglu(device, torch.float32)


def swiglu_bf16_multipliers(device):
    _swiglu(device, torch.bfloat16, gm=0.5, dm=2.0)


def swiglu_tiled_blackwell_path(device):
    import liger_kernel.ops.swiglu as sw

    with _patched(sw, "infer_device_arch", lambda *a, **k: "blackwell"):
        _swiglu(device, torch.float32, gm=0.5, shape=(4, 10000))  # next_pow2(10000) = 16384


def _fused_gate_up(device, dtype, in_place):
    from liger_kernel.ops.swiglu import LigerFusedGateUpSiLUMulFunction

    _seed()
    # 2-D input: Liger's backward returns the gradient flattened to [rows, 2 * ffn].
    y = _randn((8, 2 * 384), device, dtype=dtype, grad=True)
    _backward(LigerFusedGateUpSiLUMulFunction.apply(y * 1.0 if in_place else y, in_place))


def swiglu_fused_gate_up(device):
    _fused_gate_up(device, torch.float32, False)


def swiglu_fused_gate_up_inplace_bf16(device):
    _fused_gate_up(device, torch.bfloat16, True)


# ----------------------------------------------------------------------------- tvd


def _tvd(device, reduction, labels, dtype=torch.float32):
    from liger_kernel.ops.tvd import LigerTVDLossFunction

    _seed()
    p = torch.softmax(_randn((BT, V), device), dim=-1).to(dtype).requires_grad_(True)
    q = torch.softmax(_randn((BT, V), device), dim=-1).to(dtype)
    sl = _targets(BT, V, device) if labels else None
    _backward(LigerTVDLossFunction.apply(p, q, sl, reduction, -100))


def tvd_batchmean_labels(device):
    _tvd(device, "batchmean", True)


def tvd_none(device):
    _tvd(device, "none", False)


def tvd_sum_bf16(device):
    _tvd(device, "sum", False, dtype=torch.bfloat16)


def tvd_mean_labels(device):
    _tvd(device, "mean", True)


# ----------------------------------------------------------------------------- vocab_parallel_cross_entropy (TP=1)


def _vpce(device, ls, formula="pytorch", mode="global", dtype=torch.float32):
    from liger_kernel.ops.vocab_parallel_cross_entropy import LigerVocabParallelCEFunction

    _seed()
    s, b = 4, 2
    x = _randn((s, b, V), device, dtype=dtype, grad=True)
    t = _targets(s * b, V, device).view(s, b)
    loss = LigerVocabParallelCEFunction.apply(x, t, None, -100, ls, formula, mode)
    _backward(loss)


def vocab_parallel_ce(device):
    _vpce(device, 0.0)


def vocab_parallel_ce_label_smoothing_bf16(device):
    _vpce(device, 0.1, formula="megatron", mode="partition", dtype=torch.bfloat16)


# ----------------------------------------------------------------------------- registry


_CASES = [
    attn_res_fp32,
    attn_res_bf16,
    ce_mean,
    ce_sum_scaled,
    ce_none_label_smoothing,
    ce_weight_softcap_zloss_extras,
    ce_bf16,
    ce_no_grad,
    flce_mean_bias_scaled,
    flce_none_deferred,
    flce_bf16_softcap_weight,
    dyt_beta,
    dyt_no_beta,
    fused_add_rms_norm_llama,
    fused_add_rms_norm_gemma_inplace,
    fused_add_rms_norm_none_bf16_no_dw,
    fused_ce_tvd_fp32,
    fused_ce_tvd_bf16,
    fused_linear_jsd,
    fused_linear_kl_div_labels,
    fused_linear_kl_div_no_labels,
    fused_moe_bf16,
    fused_moe_fp32,
    fused_neighborhood_attention,
    geglu_fp32,
    geglu_bf16,
    group_norm_fp32,
    group_norm_bf16,
    grpo_selective_log_softmax,
    grpo_token_grpo_kl,
    grpo_token_dapo_nokl_nomask_vllm_inplace,
    grpo_token_bnpo_delta_biaskl_unreduced,
    grpo_token_cispo_no_old,
    grpo_token_sapo,
    grpo_token_vespo,
    grpo_sequence_kl_biaskl,
    grpo_sequence_nokl_vllm,
    jsd_beta_half_labels,
    jsd_forward_kl,
    jsd_reverse_kl_bf16,
    kl_div_batchmean,
    kl_div_none_log_target,
    kl_div_sum_bf16,
    kl_div_mean_log_target,
    layer_norm_fp32,
    layer_norm_bf16,
    layer_norm_no_dw_db,
    llama4_rope_fp32,
    llama4_rope_bf16,
    mhc_coeffs_bf16,
    mhc_coeffs_fp32,
    mhc_sinkhorn_bwd_no_hist,
    mhc_pre_post_res_bf16,
    mhc_pre_post_res_fp32,
    mlp_train_bf16,
    mlp_inference_bf16,
    modulated_rms_norm_llama_shift_broadcast,
    modulated_rms_norm_gemma_noweight_noshift_per_token_inplace,
    modulated_rms_norm_none_bf16,
    multi_token_attention_softmax,
    multi_token_attention_sparsemax,
    poly_norm_fp32_inplace,
    poly_norm_bf16,
    qwen2vl_mrope_fp32,
    qwen2vl_mrope_bf16,
    relu_squared,
    rms_norm_llama_inplace,
    rms_norm_gemma_bf16,
    rms_norm_none_no_weight,
    rms_norm_llama_no_dw,
    rms_norm_block_rows,
    rms_norm_block_rows_gemma_bf16_no_dw,
    rope_fp32,
    rope_bf16_batched_cos,
    rope_partial_rotary,
    softmax_fp32,
    softmax_bf16,
    softmax_multi_block,
    sparsemax_last_dim,
    sparsemax_dim1,
    swiglu_fp32,
    swiglu_bf16_multipliers,
    swiglu_tiled_blackwell_path,
    swiglu_fused_gate_up,
    swiglu_fused_gate_up_inplace_bf16,
    tvd_batchmean_labels,
    tvd_none,
    tvd_sum_bf16,
    tvd_mean_labels,
    vocab_parallel_ce,
    vocab_parallel_ce_label_smoothing_bf16,
]


def cases():
    """[(case_name, fn)] where fn(device: str) -> None runs Liger ops on small tensors so that kernels launch."""
    return [(f.__name__, f) for f in _CASES]
