#!/usr/bin/env python3
"""What a worker forked from a zygote pays on its first compile, and what warming the zygote up
first would save: the zygote's setup (Triton imported, its key installed as a run installs it),
then the given warm-up in the zygote, then four children forked one after another, each
compiling tests/kernels/big_shared.py's kernel for sm_80 (the longest image of
bench/compile_specs.json) as its first compile.

    python3 bench/first_compile_probe.py none|imports|ptxas|all|compile

  none     no warm-up
  imports  the compiler modules Triton imports on its first compile
  ptxas    ptxas --help (the target check) and ptxas --version (Triton's)
  all      both, and LLVM's targets initialised
  compile  all, and a whole compile of a small kernel

Prints the warm-up's time and the children's first compiles (median and each)."""
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "compiler", "frontend"))
sys.path.insert(0, os.path.join(REPO, "tests", "kernels"))
import triton  # noqa: E402
import triton.compiler  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.cache import triton_key  # noqa: E402
import triton_adapter as A  # noqa: E402

SM80 = GPUTarget("cuda", 80, 32)


def compile_longest():
    import big_shared
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                 "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 6, 7, 8)}
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    started = time.perf_counter()
    triton.compile(ASTSource(fn=big_shared.big_shared_kernel, signature=signature, constexprs={},
                             attrs=attrs), target=SM80, options={"num_warps": 4, "num_stages": 2})
    return time.perf_counter() - started


def warm_up(mode):
    if mode in ("imports", "all", "compile"):
        import triton.compiler.code_generator  # noqa: F401
        import triton.experimental.gluon  # noqa: F401
    if mode in ("ptxas", "all", "compile"):
        A.check_target(SM80)
        from triton.backends.nvidia.compiler import get_ptxas_version
        get_ptxas_version(80)
    if mode in ("all", "compile"):
        from triton._C.libtriton import llvm
        llvm.init_targets()
    if mode == "compile":
        import vector_add
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
        triton.compile(ASTSource(fn=vector_add.add_kernel, constexprs={"BLOCK": 64},
                                 signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                            "n_elements": "i32", "BLOCK": "constexpr"}),
                       target=SM80, options={"num_warps": 4})


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "none"
    if mode not in ("none", "imports", "ptxas", "all", "compile"):
        sys.exit(__doc__)
    A.use_recorded_triton_key(triton_key())   # as a run's workers get it
    started = time.perf_counter()
    warm_up(mode)
    warm = time.perf_counter() - started
    firsts = []
    for _ in range(4):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, str(compile_longest()).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        firsts.append(float(os.read(read, 100)))
        os.close(read)
        os.close(write)
    print(f"{mode}: warm-up {warm * 1000:.0f} ms; a forked child's first compile "
          f"{statistics.median(firsts) * 1000:.0f} ms (median; {[round(f * 1000) for f in firsts]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
