#!/usr/bin/env python3
"""Building N kernels from one module whose import takes 2 s: the worker pool against none.

A CMake project declares N kernels (triton_add_kernel) from one module that sleeps --import-s
at import, as a module importing torch and its package does (Liger-Kernel's: ~17 s on the GPU
machine), and builds them for one architecture: N build edges, one triton-aot-cc each. Each
build is clean (a new build tree, an empty compile cache, and for the pool, a new pool
directory, so its first workers start cold too). The same builds run with
TRITON_AOT_WORKER_POOL=0, where every edge starts its own worker and pays the import, and the
figure N x import time is what that costs at least. Rounds alternate the two modes.

  python3 bench/worker_pool_bench.py --triton-aot build/default --counts 1 10 40 \\
      --csv bench/results/worker_pool_cpu2.csv
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from compile_bench import append_csv, triton_version  # noqa: E402

MODULE_HEAD = '''"""{count} kernels in one module that takes {seconds} s to import (a stand-in for torch)."""
import time

import triton
import triton.language as tl

time.sleep({seconds})
'''

KERNEL = '''

@triton.jit
def scale_{index}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * {index}.0 + 1.0, mask=mask)
'''

PROJECT = '''cmake_minimum_required(VERSION 3.25)
project(worker_pool_bench LANGUAGES C)
find_package(TritonAOT CONFIG REQUIRED)
foreach(index RANGE 1 {count})
  triton_add_kernel(scale_${{index}} SOURCE kernels/many.py
    SIGNATURE "*fp32:16, *fp32:16, i32, 1024" GRID "cdiv(n, BLOCK)")
  list(APPEND kernels scale_${{index}})
endforeach()
triton_add_library(many STATIC KERNELS ${{kernels}} ARCHITECTURES {arch})
'''


def write_project(root, count, seconds, arch):
    os.makedirs(os.path.join(root, "kernels"), exist_ok=True)
    with open(os.path.join(root, "kernels", "many.py"), "w") as f:
        f.write(MODULE_HEAD.format(count=count, seconds=seconds))
        for index in range(1, count + 1):
            f.write(KERNEL.format(index=index))
    with open(os.path.join(root, "CMakeLists.txt"), "w") as f:
        f.write(PROJECT.format(count=count, arch=arch))


def build_once(args, root, pool, scratch):
    """Configure (untimed) and build (timed) from scratch; returns seconds."""
    build = os.path.join(scratch, "build")
    shutil.rmtree(build, ignore_errors=True)
    env = dict(os.environ, TRITON_AOT_WORKER_POOL="1" if pool else "0",
               TRITON_AOT_WORKER_POOL_DIR=tempfile.mkdtemp(prefix="pools-", dir=scratch),
               TRITON_AOT_WORKER_IDLE="5")
    os.chmod(env["TRITON_AOT_WORKER_POOL_DIR"], 0o700)
    subprocess.run([args.cmake, "-S", root, "-B", build, "-G", "Ninja",
                    f"-DTritonAOT_DIR={os.path.abspath(args.triton_aot)}",
                    f"-DTRITON_AOT_PYTHON={args.python}",
                    f"-DTRITON_AOT_CACHE_DIR={os.path.join(build, 'cache')}"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    start = time.perf_counter()
    subprocess.run([args.cmake, "--build", build, "--target", "many"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton-aot", required=True, help="a built triton-aot tree (TritonAOT_DIR)")
    parser.add_argument("--python", default=os.path.join(REPO, ".venv", "bin", "python"))
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 10, 40])
    parser.add_argument("--import-s", type=float, default=2.0)
    parser.add_argument("--arch", default="80")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--csv", help="append one row per count and mode here")
    args = parser.parse_args()

    version = triton_version(args.python)
    cpus = os.cpu_count()
    rows = []
    print(f"Triton {version}, {cpus} CPUs, import {args.import_s} s, sm_{args.arch}")
    print(f"{'N':>4} {'pool s':>8} {'no pool s':>10} {'N x import s':>13} {'no pool / pool':>15}")
    for count in args.counts:
        scratch = tempfile.mkdtemp(prefix=f"tta-pool-bench-{count}-")
        try:
            root = os.path.join(scratch, "project")
            write_project(root, count, args.import_s, args.arch)
            times = {True: [], False: []}
            for _ in range(args.repeat):
                for pool in (True, False):
                    times[pool].append(build_once(args, root, pool, scratch))
            pooled, direct = statistics.median(times[True]), statistics.median(times[False])
            print(f"{count:4d} {pooled:8.2f} {direct:10.2f} {count * args.import_s:13.1f} "
                  f"{direct / pooled:15.2f}", flush=True)
            for mode, seconds in (("pool", pooled), ("no_pool", direct)):
                rows.append({"kernels": count, "mode": mode, "build_s": f"{seconds:.3f}",
                             "import_s": args.import_s, "n_times_import_s": count * args.import_s,
                             "ratio_to_n_imports": f"{seconds / (count * args.import_s):.3f}",
                             "triton": version, "cpus": cpus, "arch": args.arch,
                             "repeat": args.repeat, "machine": platform.node()})
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.csv:
        append_csv(args.csv, rows)


if __name__ == "__main__":
    main()
