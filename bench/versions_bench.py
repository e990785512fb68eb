#!/usr/bin/env python3
"""Compile time of the same kernel set per Triton version, as ratios measured in one run.

The set is compile_bench.py's: 24 specializations for cuda:80, cuda:90a and hip:gfx942 (72
images), compiled cold (--no-cache, an empty Triton cache) by one triton-aot-cc with each
interpreter in turn. Rounds go round-robin over the versions, so a slow spell of the machine
falls on all of them alike; the ratio is each version's median over the reference's (the first
--python, by default the project's .venv).

  python3 bench/versions_bench.py --tool build/default/bin/triton-aot-cc \\
      --python .venv/bin/python --python .venv-triton-3.6.0/bin/python ... --repeat 3 \\
      --csv bench/results/versions_compile.csv
"""
import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_bench import REPO, append_csv, load_specs, run_ours, triton_version  # noqa: E402


def default_pythons():
    """The project's venv, then every .venv-triton-<version> tools/bootstrap.sh made."""
    found = [os.path.join(REPO, ".venv", "bin", "python")]
    for name in sorted(os.listdir(REPO)):
        if name.startswith(".venv-triton-"):
            found.append(os.path.join(REPO, name, "bin", "python"))
    return [p for p in found if os.path.exists(p)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="the triton-aot-cc binary")
    parser.add_argument("--python", action="append", default=[],
                        help="an interpreter with Triton (repeat; the first is the reference)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=3, help="rounds over all versions")
    parser.add_argument("--csv", help="append one row per version here")
    args = parser.parse_args()

    pythons = args.python or default_pythons()
    versions = [triton_version(p) for p in pythons]
    targets, specs = load_specs()
    times = {v: [] for v in versions}
    workdir = tempfile.mkdtemp(prefix="tta-versions-bench-")
    try:
        # One warm-up pass each, untimed: the first import of a wheel reads it from disk.
        for python in pythons:
            run_ours(args.tool, python, targets, specs[:1], args.jobs, workdir)
        for round_index in range(args.repeat):
            for python, version in zip(pythons, versions):
                seconds, out = run_ours(args.tool, python, targets, specs, args.jobs, workdir)
                shutil.rmtree(out, ignore_errors=True)
                times[version].append(seconds)
                print(f"[{round_index + 1}/{args.repeat}] Triton {version:8s} {seconds:7.2f} s", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    reference = statistics.median(times[versions[0]])
    host = f"{platform.node()} ({os.cpu_count()} CPUs)"
    rows = []
    for version in versions:
        median = statistics.median(times[version])
        rows.append({"triton": version, "median_s": round(median, 3),
                     "runs_s": " ".join(f"{s:.3f}" for s in times[version]),
                     "reference": versions[0], "ratio": round(median / reference, 3),
                     "images": len(specs) * len(targets), "jobs": args.jobs, "host": host})
    print(f"\nTriton    median     x Triton {versions[0]}   ({len(specs) * len(targets)} images, -j {args.jobs})")
    for row in rows:
        print(f"{row['triton']:8s} {row['median_s']:7.2f} s  {row['ratio']:6.3f}")
    if args.csv:
        append_csv(args.csv, rows)


if __name__ == "__main__":
    main()
