"""Decorators applied by assignment, as unsloth writes them, with a heuristic that reads only
constexprs (evaluated when the kernel is built) and one over a runtime argument."""
import triton
import triton.language as tl


def _clamp_kernel(x_ptr, y_ptr, n_elements, lo, hi, BLOCK: tl.constexpr, HALF: tl.constexpr,
                  FULL_TILES: tl.constexpr):
    pid = tl.program_id(0)
    # Two half-blocks per program: HALF comes from BLOCK at build time.
    for part in tl.static_range(2):
        offsets = pid * BLOCK + part * HALF + tl.arange(0, HALF)
        if FULL_TILES:
            x = tl.load(x_ptr + offsets)
            tl.store(y_ptr + offsets, tl.minimum(tl.maximum(x, lo), hi))
        else:
            mask = offsets < n_elements
            x = tl.load(x_ptr + offsets, mask=mask)
            tl.store(y_ptr + offsets, tl.minimum(tl.maximum(x, lo), hi), mask=mask)


_clamp_kernel = triton.jit(_clamp_kernel)
_clamp_kernel = triton.heuristics({
    "HALF": lambda args: args["BLOCK"] // 2,
    "FULL_TILES": lambda args: (args["n_elements"] % args["BLOCK"] == 0) if args["n_elements"] > 0 else False,
})(_clamp_kernel)
clamp_kernel = _clamp_kernel
