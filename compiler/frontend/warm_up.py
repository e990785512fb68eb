"""Warming up a prepared pool's zygote (docs/compiler.md, "Warm workers").

`triton-aot-cc --prepare-workers`, which CMake's configure runs, starts a project's worker pool
before its first build. Nothing waits for that pool, so its zygote does what a worker forked
from it would otherwise do on its first compile (0.1 to 0.2 s on a 16-CPU GPU host, among
fifteen others): Triton's compiler modules, LLVM's targets, ptxas asked for its version, the
target checked. A whole compile of the small kernel below does all of it, once per target,
and every worker forked afterwards inherits it. A run's own zygote does not: there a build
waits for it, and the warm-up costs what it saves (docs/benchmarks.md).
"""
import os
import shutil
import tempfile

import triton
import triton.language as tl

import triton_adapter as A


@triton.jit
def _warm_up_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


_PARAMS = [{"name": "x_ptr", "kind": "pointer", "type": "fp32", "hint": 16},
           {"name": "n", "kind": "scalar", "type": "i32"},
           {"name": "BLOCK", "kind": "constexpr", "value": {"type": "int", "value": 128}}]


def compile_for(targets, wanted_now=lambda: False):
    """Compiles the small kernel for each of `targets` (a run's request targets: {"backend",
    "arch", "warp_size"}) in a Triton cache of its own, removed after. Returns the names of the
    targets it compiled for; one that fails is left to the first real compile to report.
    Stops before the next target once `wanted_now()`: a build that came before the warm-up
    ended waits for one compile at most."""
    scratch = tempfile.mkdtemp(prefix="triton-aot-warm-up-")
    saved = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = scratch
    warmed = []
    try:
        for spec in targets:
            if wanted_now():
                break
            try:
                target = A.make_target(spec)
                A.check_target(target)
                triton.compile(A.build_ast_source(_warm_up_kernel, _PARAMS), target=target,
                               options={})
            except Exception:
                continue
            warmed.append(A.target_name(target))
    finally:
        if saved is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = saved
        shutil.rmtree(scratch, ignore_errors=True)
    return warmed
