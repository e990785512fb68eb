#!/usr/bin/env python3
"""One build of bench/compile_specs.json's images with `triton-aot-cc -v`, every line it prints
stamped with the seconds since the build started: where a build's time goes (worker starts,
describes, the first compiles, the tail), beside floor_bench.py's totals.

    python3 bench/build_timeline.py --tool build/default/bin/triton-aot-cc --jobs 16 \\
        [--flow edited|coldpool|pool|prepared|rushed] [--python PY]

The build is floor_bench.py's `edited` flow (every kernel file edited, the cache of an earlier
build), `coldpool` (the same through a worker pool the build starts), `pool` (through a pool
left warm by a build before), `prepared` (through a pool prepared as CMake's configure does,
once its workers are forked) or `rushed` (the same, the build started at once)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_bench import load_specs, write_spec  # noqa: E402
from floor_bench import build_command, copy_sources, prepare  # noqa: E402


def run(args, spec, jobs, cache, workdir, pool, verbose):
    cmd, env = build_command(args, spec, jobs, cache, workdir, pool)
    cmd += ["-v"] if verbose else []
    started = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    for line in process.stdout:
        if verbose:
            print(f"{time.perf_counter() - started:7.3f} {line.rstrip()[:160]}", flush=True)
    process.wait()
    print(f"{time.perf_counter() - started:7.3f} exit {process.returncode}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--flow", choices=["edited", "coldpool", "pool", "prepared", "rushed"],
                        default="edited")
    args = parser.parse_args()
    targets, specs = load_specs()
    workdir = tempfile.mkdtemp(prefix="tta-timeline-")
    try:
        earlier = os.path.join(workdir, "earlier-cache")
        run(args, write_spec(targets, specs, copy_sources(specs, workdir, None), workdir), 1,
            earlier, workdir, None, False)
        cache = os.path.join(workdir, "cache")
        shutil.copytree(earlier, cache)
        shutil.rmtree(os.path.join(cache, "triton"), ignore_errors=True)
        pool = os.path.join(workdir, "pool") if args.flow != "edited" else None
        if args.flow == "pool":   # the build before, which leaves the pool's workers warm
            warm = os.path.join(workdir, "warm-cache")
            shutil.copytree(earlier, warm)
            shutil.rmtree(os.path.join(warm, "triton"), ignore_errors=True)
            run(args, write_spec(targets, specs, copy_sources(specs, workdir, "warm"), workdir),
                args.jobs, warm, workdir, pool, False)
        if args.flow in ("prepared", "rushed"):
            seconds = prepare(args, targets, args.jobs, cache, pool, args.flow == "prepared")
            print(f"prepared in {seconds:.3f} s", flush=True)
        run(args, write_spec(targets, specs, copy_sources(specs, workdir, "edited"), workdir),
            args.jobs, cache, workdir, pool, True)
        if pool:
            subprocess.run(["pkill", "-f", pool], check=False)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
