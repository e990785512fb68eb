"""Torch references of the proof kernels, and how far two outputs are apart.

Used by equality.py --numeric: a library built by another Triton (3.9 here, 3.6's JIT there)
need not give the same bits as the JIT, so its outputs are checked against these references
within a tolerance per kernel, and its difference from the JIT is measured, not required to be 0.
Torch is imported by the caller and passed in: nothing here imports it.
"""


def _fp32(t):
    return t.float()


def reference(torch, kernel_name, args, constexprs):
    """{output parameter: expected values (fp32)} for one case of equality.py, or None."""
    a = args
    if kernel_name in ("vector_add", "gluon_add", "gluon_add_wave64"):
        return {"out_ptr": a["x_ptr"] + a["y_ptr"]}
    if kernel_name == "softmax":
        cols = a["n_cols"]
        return {"out_ptr": torch.softmax(a["in_ptr"][:, :cols], dim=1)}
    if kernel_name in ("matmul", "matmul_bf16"):
        M, N, K = a["M"], a["N"], a["K"]
        return {"c_ptr": _fp32(a["a_ptr"][:M, :K]) @ _fp32(a["b_ptr"][:K, :N])}
    if kernel_name == "layer_norm":
        cols = a["N"]
        x = _fp32(a["x_ptr"][:, :cols])
        mean = x.mean(dim=1)
        rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + a["eps"])
        y = (x - mean[:, None]) * rstd[:, None] * _fp32(a["w_ptr"]) + _fp32(a["b_ptr"])
        return {"y_ptr": y, "mean_ptr": mean, "rstd_ptr": rstd}
    if kernel_name in ("attention_fwd", "attention_fwd_causal"):
        q, k, v = (_fp32(a[n]) for n in ("q_ptr", "k_ptr", "v_ptr"))
        scores = (q @ k.transpose(1, 2)) * a["sm_scale"]
        if constexprs.get("IS_CAUSAL"):
            n = scores.shape[-1]
            mask = torch.ones(n, n, dtype=torch.bool, device=scores.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        # The kernel's lse is in base 2 (it works with exp2): log2(sum exp(s)) = lse_e / ln 2.
        lse = torch.logsumexp(scores, dim=-1) * 1.4426950408889634
        return {"out_ptr": torch.softmax(scores, dim=-1) @ v, "lse_ptr": lse}
    if kernel_name == "scale_shift":
        y = a["x_ptr"] * a["alpha"]
        if a["use_beta"]:
            y = y + a["beta"]
        return {"out_ptr": y}
    return None


# (absolute, relative) tolerance against the fp32 reference, by the precision of the output and
# the length of the reduction behind it. Inputs are N(0, 1): a K=1007 dot product is ~32.
TOLERANCES = {
    "vector_add": (1e-6, 1e-6), "gluon_add": (1e-6, 1e-6), "gluon_add_wave64": (1e-6, 1e-6),
    "scale_shift": (1e-5, 1e-5), "softmax": (1e-6, 1e-4),
    "layer_norm": (2e-2, 1e-2),      # fp16 out; statistics in fp32
    "matmul": (0.1, 1e-2),           # fp16 out: 2^-11 of ~32, plus fp32 summation order
    "matmul_bf16": (0.5, 2e-2),      # bf16 out: 2^-8 of ~32
    "attention_fwd": (1e-2, 1e-2), "attention_fwd_causal": (1e-2, 1e-2),
}


def differences(torch, got, want):
    """(elements that differ, max absolute error, max relative error) of two tensors of the same
    shape, compared in fp64. The relative error divides by |want|, but by no less than 1e-3 of
    the largest finite |want|: elements near zero (an attention output, a matmul sum that
    cancels) would otherwise turn a rounding step into a huge ratio. NaN against NaN and equal
    infinities are equal; NaN against a number, or a number against an infinity, is an
    infinite error."""
    g, w = got.double(), want.double()
    if not g.numel():
        return 0, 0.0, 0.0
    g_nan, w_nan = torch.isnan(g), torch.isnan(w)
    zero, inf = torch.zeros_like(g), torch.full_like(g, float("inf"))
    same = (g == w) | (g_nan & w_nan)
    diff = torch.where(same, zero, (g - w).abs())
    diff = torch.where(g_nan != w_nan, inf, diff)
    finite = torch.isfinite(w)
    scale = float(torch.where(finite, w.abs(), zero).max().item())
    denominator = torch.where(finite, w.abs(), inf).clamp_min(max(1e-3 * scale, 1e-30))
    rel = torch.where(same, zero, torch.where(finite, diff / denominator, inf))
    return int((~same).sum().item()), float(diff.max().item()), float(rel.max().item())


def within(torch, kernel_name, got, want):
    """Whether every element of `got` is within the kernel's tolerance of `want`."""
    atol, rtol = TOLERANCES[kernel_name]
    g, w = got.double(), want.double()
    return bool(((g - w).abs() <= atol + rtol * w.abs()).all().item())


def rebase_source(source, root, exists):
    """The kernel file `source` (a path of the machine that built the library) under `root`:
    the longest tail of its path that exists there ("/a/b/bench/proof/kernels/x.py" ->
    root/bench/proof/kernels/x.py). `exists` is os.path.isfile, injectable for tests."""
    parts = [p for p in source.replace("\\", "/").split("/") if p]
    for start in range(len(parts)):
        candidate = "/".join([root.rstrip("/")] + parts[start:])
        if exists(candidate):
            return candidate
    return None
