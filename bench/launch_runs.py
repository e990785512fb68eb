#!/usr/bin/env python3
"""Summarise launch_overhead CSVs, one line per run: each method against the raw launch.

    python3 bench/launch_runs.py bench/results/launch_h100_stop24_p20_run*.csv

A method's figure is what launch_overhead prints as its headline: the median over the run's
processes of each process's ratio of medians (method / raw cuLaunchKernel). CSVs from before
the `process` column count as one process. The last line gives each method's range over the
runs. See docs/benchmarks.md ("Launch overhead").
"""
import csv
import statistics
import sys

SUFFIX = "_us_per_launch"


def run_ratios(path):
    """{method: headline ratio} and the number of processes of one CSV."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"launch_runs: {path} has no rows")
    methods = [c[: -len(SUFFIX)] for c in rows[0] if c.endswith(SUFFIX)]
    if "raw" not in methods:
        sys.exit(f"launch_runs: {path} has no raw_us_per_launch column")
    processes = sorted({int(r.get("process") or 0) for r in rows})
    ratios = {}
    for method in methods:
        per_process = []
        for p in processes:
            mine = [r for r in rows if int(r.get("process") or 0) == p]
            per_process.append(statistics.median(float(r[method + SUFFIX]) for r in mine) /
                               statistics.median(float(r["raw" + SUFFIX]) for r in mine))
        ratios[method] = statistics.median(per_process)
    return ratios, len(processes)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = [(path, *run_ratios(path)) for path in paths]
    methods = [m for m in runs[0][1] if m != "raw"]
    print("run, processes, " + ", ".join(methods))
    for path, ratios, processes in runs:
        print(f"{path}, {processes}, " + ", ".join(f"{ratios.get(m, float('nan')):.3f}"
                                                   for m in methods))
    print("range, , " + ", ".join(
        f"{min(r[1][m] for r in runs):.3f}-{max(r[1][m] for r in runs):.3f}" for m in methods))


if __name__ == "__main__":
    main(sys.argv[1:])
