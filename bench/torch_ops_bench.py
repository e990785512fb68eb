#!/usr/bin/env python3
"""The PyTorch operators of a triton-aot library against Triton's own launch and a native torch op
(docs/torch.md#measured), on the GPU, with tests/torch/project's add kernel (fp32, BLOCK=1024):

- first call in a fresh process: `torch.ops.kops.add(...)` (the extension loaded, its image not
  yet) against `add_kernel[grid](...)` through Triton (the module imported, Triton's disk cache
  warm: a process before the timed ones compiled it), --runs fresh processes each, alternating;
  CUDA and torch are initialised in both before the clock starts, and the call is timed up to a
  synchronize after it. Loading the extension and importing Triton are reported beside it.
- per-call host overhead on tiny tensors (16 elements), in one process: `torch.ops.kops.add`
  against `torch.add(x, y, out=out)` (and Triton's launch, for reference), --repetitions batches
  of --calls calls each, the methods interleaved batch by batch, the stream synchronised after
  each batch, never inside it.

    python3 bench/torch_ops_bench.py --tritonaot-dir build/default --work /tmp/kops-bench \\
        [--runs 20] [--repetitions 30] [--calls 1000] [--csv FILE]
    python3 bench/torch_ops_bench.py --library /tmp/kops/build/kops_torch.so ...   (built already)

Goals (issue 29): first call >= 100x faster than Triton's; per call <= 1.2x torch.add's.
Exit status: 0 measured, 1 error, 77 skipped (no torch, no CUDA GPU).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
TORCH_TESTS = os.path.join(ROOT, "tests", "torch")
KERNELS = os.path.join(TORCH_TESTS, "project", "kernels", "ops.py")
SKIPPED = 77
N_FIRST = 1 << 20


def load_kernels():
    import importlib.util
    spec = importlib.util.spec_from_file_location("kops_kernels", KERNELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ready_tensors(torch, n):
    """CUDA initialised and torch's allocator and a kernel of its own run: what both methods of
    the first-call figure have before their clock starts."""
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    torch.add(x, y, out=out)
    torch.cuda.synchronize()
    return x, y, out


def child_first_op(library):
    import torch
    start = time.perf_counter()
    torch.ops.load_library(library)
    load_s = time.perf_counter() - start
    x, y, out = ready_tensors(torch, N_FIRST)
    start = time.perf_counter()
    torch.ops.kops.add(x, y, out, x.numel())
    torch.cuda.synchronize()
    first_s = time.perf_counter() - start
    return {"load_s": load_s, "first_s": first_s, "correct": bool(torch.equal(out, x + y)),
            "triton_imported": "triton" in sys.modules}


def child_first_triton():
    import torch
    start = time.perf_counter()
    import triton
    kernels = load_kernels()
    import_s = time.perf_counter() - start
    x, y, out = ready_tensors(torch, N_FIRST)
    start = time.perf_counter()
    kernels.add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    torch.cuda.synchronize()
    first_s = time.perf_counter() - start
    return {"import_s": import_s, "first_s": first_s, "correct": bool(torch.equal(out, x + y))}


def child_overhead(library, repetitions, calls):
    import torch
    import triton
    torch.ops.load_library(library)
    kernels = load_kernels()
    x, y, out = ready_tensors(torch, 16)
    op, n = torch.ops.kops.add, x.numel()
    grid = (triton.cdiv(n, 1024),)
    methods = {
        "torch_add": lambda: torch.add(x, y, out=out),
        "op": lambda: op(x, y, out, n),
        # the overload itself, as torch.compile's graphs and a package's wrapper call it:
        # no overload resolution in Python on each call
        "op_default": lambda: op.default(x, y, out, n),
        "triton": lambda: kernels.add_kernel[grid](x, y, out, n, BLOCK=1024),
    }
    found = {}
    for name, call in methods.items():   # warm up; each must compute x + y
        out.zero_()
        for _ in range(1000):
            call()
        torch.cuda.synchronize()
        found[f"{name}_correct"] = bool(torch.equal(out, x + y))
    us = {name: [] for name in methods}
    for _ in range(repetitions):
        for name, call in methods.items():
            start = time.perf_counter()
            for _ in range(calls):
                call()
            us[name].append((time.perf_counter() - start) * 1e6 / calls)
            torch.cuda.synchronize()
    found["us_per_call"] = us
    found["device"] = torch.cuda.get_device_name()
    found["torch"] = torch.__version__
    found["triton"] = triton.__version__
    return found


def run_child(args, *child):
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *child] + args,
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(child)}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", help="kops_torch.so built already")
    parser.add_argument("--tritonaot-dir", help="build tests/torch/project against this TritonAOT")
    parser.add_argument("--work", default="/tmp/kops-bench", help="scratch (build, Triton cache)")
    parser.add_argument("--runs", type=int, default=20, help="fresh processes per method")
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--csv", help="raw figures: method,run,value")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind = args.child[0]
        if kind == "first_op":
            found = child_first_op(args.child[1])
        elif kind == "first_triton":
            found = child_first_triton()
        else:
            found = child_overhead(args.child[1], args.repetitions, args.calls)
        print(json.dumps(found))
        return 0

    try:
        import torch
        if not torch.cuda.is_available():
            print("SKIP: no CUDA GPU")
            return SKIPPED
    except ImportError:
        print("SKIP: no torch")
        return SKIPPED
    library = args.library
    if not library:
        if not args.tritonaot_dir:
            parser.error("--library or --tritonaot-dir")
        sys.path.insert(0, TORCH_TESTS)
        from torch_ops_test import build
        library = build(args.tritonaot_dir, args.work, sys.executable)
    library = os.path.abspath(library)
    # Triton's own disk cache, warm for every timed process (the "warm disk cache")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(os.path.abspath(args.work), "triton-cache")
    passing = ["--repetitions", str(args.repetitions), "--calls", str(args.calls)]
    run_child(passing, "first_triton")
    rows, first = [], {"op": [], "triton": []}
    for run in range(args.runs):
        op = run_child(passing, "first_op", library)
        triton_run = run_child(passing, "first_triton")
        if not (op["correct"] and triton_run["correct"]) or op["triton_imported"]:
            print(f"FAIL: run {run}: {op} {triton_run}")
            return 1
        first["op"].append(op["first_s"])
        first["triton"].append(triton_run["first_s"])
        rows += [("op_first_call_s", run, op["first_s"]), ("op_load_library_s", run, op["load_s"]),
                 ("triton_first_call_s", run, triton_run["first_s"]),
                 ("triton_import_s", run, triton_run["import_s"])]
    overhead = run_child(passing, "overhead", library)
    if not all(overhead[f"{m}_correct"] for m in ("torch_add", "op", "op_default", "triton")):
        print(f"FAIL: a method computed something else: {overhead}")
        return 1
    for name, values in overhead["us_per_call"].items():
        rows += [(f"{name}_us_per_call", r, v) for r, v in enumerate(values)]
    median = statistics.median
    op_first, triton_first = median(first["op"]), median(first["triton"])
    us = {name: median(values) for name, values in overhead["us_per_call"].items()}
    print(f"{overhead['device']}, torch {overhead['torch']}, Triton {overhead['triton']}")
    print(f"first call (median of {args.runs} fresh processes): op {op_first * 1e3:.3f} ms, "
          f"Triton {triton_first * 1e3:.1f} ms: {triton_first / op_first:.0f}x faster (goal >= 100x)")
    print(f"  loading the extension {median(r[2] for r in rows if r[0] == 'op_load_library_s') * 1e3:.1f} ms, "
          f"importing Triton and the kernels {median(r[2] for r in rows if r[0] == 'triton_import_s') * 1e3:.0f} ms")
    print(f"per call on 16 elements (median of {args.repetitions} x {args.calls}): op "
          f"{us['op']:.2f} us, torch.add {us['torch_add']:.2f} us: {us['op'] / us['torch_add']:.3f}x "
          f"(goal <= 1.2x); Triton's launch {us['triton']:.2f} us")
    print(f"  through the overload (torch.ops.kops.add.default) {us['op_default']:.2f} us: "
          f"{us['op_default'] / us['torch_add']:.3f}x")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(f"# {overhead['device']}, torch {overhead['torch']}, Triton {overhead['triton']}\n")
            f.write("method,run,value\n")
            for method, run, value in rows:
                f.write(f"{method},{run},{value:.9g}\n")
        print(f"raw figures: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
