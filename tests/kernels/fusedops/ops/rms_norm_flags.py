"""RMS norm over rows in the style of unsloth and Liger-Kernel: decorators applied by
assignment; flags the caller passes that a heuristic setting the same parameter normalises
(unsloth's "GEMMA": lambda args: bool(args["GEMMA"])); a block size the caller asks for, rounded
the same way; a scale tested against None; limits written as powers."""
import triton
import triton.language as tl

MAX_FUSED_SIZE = 2 ** 16


def _rms_norm_rows(Y, Y_row_stride, X, X_row_stride, W, n_rows, n_cols, eps, scale,
                   GEMMA: tl.constexpr, LONG_INDEXING: tl.constexpr, HAS_SCALE: tl.constexpr,
                   UNIT_SCALE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    if LONG_INDEXING:
        row = row.to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * X_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    if GEMMA:
        y = x * inv_rms * (w + 1.0)
    else:
        y = x * inv_rms * w
    if HAS_SCALE:
        if not UNIT_SCALE:
            y = y * scale
    tl.store(Y + row * Y_row_stride + cols, y, mask=mask)


_rms_norm_rows = triton.jit(_rms_norm_rows)
_rms_norm_rows = triton.heuristics({
    "GEMMA": lambda args: bool(args["GEMMA"]),
    "LONG_INDEXING": lambda args: args["n_rows"] * args["Y_row_stride"] >= 2 ** 31,
    "HAS_SCALE": lambda args: args["scale"] is not None,
    "UNIT_SCALE": lambda args: float(args["scale"]) == 1.0,
    "BLOCK_SIZE": lambda args: min(MAX_FUSED_SIZE, triton.next_power_of_2(int(args["BLOCK_SIZE"]))),
})(_rms_norm_rows)
rms_norm_rows = _rms_norm_rows
