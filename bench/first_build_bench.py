#!/usr/bin/env python3
"""A project's first build, with and without the worker pool prepared at configure time
(TRITON_AOT_PREPARE_WORKERS, docs/cmake.md#warm-workers-before-the-first-build).

Each run configures bench/build_set (the examples' kernels for 80, 90a and gfx942) into a new
build directory, with a new compile cache (so the installation is learned again, as in any new
build directory) and a new worker-pool directory (no worker of an earlier run is warm), then
builds it. Modes, in turn within each round:
- **off**: TRITON_AOT_PREPARE_WORKERS=OFF: the build starts the pool, learns the installation;
- **at-once**: prepared, the build started the moment the configure returns
  (`cmake -B build && cmake --build build`);
- **ready**: prepared, the build started once the pool's log says its workers are forked (a
  configure and a build run apart).
Reports the medians of the configure and of the build, and each run to a CSV.

  python3 bench/first_build_bench.py --triton-aot build/device-install --python python3 \\
      --repeat 4 --csv bench/results/first_build_<machine>.csv
"""
import argparse
import csv
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench"))
from floor_bench import wait_for_workers  # noqa: E402  (one spelling of the pool's word)
MODES = ("off", "at-once", "ready")


def timed(cmd, env):
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + done.stdout[-3000:] + done.stderr[-3000:])
    return time.perf_counter() - started


def one_run(args, mode, workdir, index):
    build = os.path.join(workdir, f"build-{mode}-{index}")
    pools = os.path.join(workdir, f"pools-{mode}-{index}")
    os.makedirs(pools, mode=0o700)
    env = dict(os.environ, TRITON_AOT_WORKER_POOL_DIR=pools, TRITON_AOT_PYTHON=args.python)
    env.pop("TRITON_AOT_CACHE_DIR", None)
    configure = timed([args.cmake, "-S", os.path.join(REPO, "bench", "build_set"), "-B", build,
                       "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                       f"-DTritonAOT_DIR={os.path.join(args.triton_aot, 'lib', 'cmake', 'TritonAOT')}",
                       f"-DTRITON_AOT_PREPARE_WORKERS={'OFF' if mode == 'off' else 'ON'}"], env)
    waited = wait_for_workers(pools) if mode == "ready" else 0.0
    seconds = timed([args.cmake, "--build", build], env)
    subprocess.run(["pkill", "-f", pools], check=False)   # the pool and its workers
    shutil.rmtree(build, ignore_errors=True)
    return {"mode": mode, "configure_s": round(configure, 3), "waited_s": round(waited, 3),
            "build_s": round(seconds, 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton-aot", required=True, help="an installed triton-aot prefix")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--csv")
    args = parser.parse_args()
    args.triton_aot = os.path.abspath(args.triton_aot)
    workdir = tempfile.mkdtemp(prefix="tta-first-build-")
    rows = []
    try:
        for index in range(args.repeat):
            for mode in args.modes:
                rows.append(one_run(args, mode, workdir, index))
                print(rows[-1], flush=True)
    finally:
        subprocess.run(["pkill", "-f", workdir], check=False)
        shutil.rmtree(workdir, ignore_errors=True)
    off = None
    for mode in args.modes:
        mine = [r for r in rows if r["mode"] == mode]
        build = statistics.median(r["build_s"] for r in mine)
        configure = statistics.median(r["configure_s"] for r in mine)
        off = build if mode == "off" else off
        ratio = f", {build / off:.3f}x the build without" if off and mode != "off" else ""
        print(f"{mode:8}: configure {configure:.2f} s, build {build:.2f} s{ratio} "
              f"(builds: {' '.join(str(r['build_s']) for r in mine)})", flush=True)
    if args.csv:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) + ["cpus", "host"])
            if new:
                writer.writeheader()
            for row in rows:
                writer.writerow(dict(row, cpus=os.cpu_count(), host=platform.node()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
