#!/usr/bin/env python3
"""Wall time of compiling the 24 specializations of compile_specs.json for three targets:
triton-aot-cc (one run, cold cache; then the same run again, served from its cache) against
upstream `python -m triton.tools.compile` run once per specialization and target, one after
another and N at a time. Every run starts with an empty Triton cache. Results go to a CSV.

Upstream needs a GPU driver even to cross-compile, so its figures come from the GPU machine:
  python3 bench/compile_bench.py --tool build/default/bin/triton-aot-cc --upstream
"""
import argparse
import concurrent.futures
import csv
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_specs():
    with open(os.path.join(REPO, "bench", "compile_specs.json")) as f:
        spec = json.load(f)
    return spec["targets"], spec["specializations"]


def triton_version(python):
    return subprocess.run([python, "-c", "import triton; print(triton.__version__)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def append_csv(path, rows):
    """Appends `rows` (dicts with the same keys) to the CSV at `path`, with a header if new."""
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def upstream_grid(grid):
    """Upstream splits --grid on every comma, so cdiv(a, b) is spelled out."""
    return re.sub(r"cdiv\(([^,()]+),\s*([^()]+)\)", r"((\1) + (\2) - 1) / (\2)", grid).replace(" ", "")


def upstream_target(target):
    backend, arch = target.split(":", 1)
    if backend == "cuda":
        return f"cuda:{arch.rstrip('af')}:32"   # Triton builds sm_90 as sm_90a anyway
    return f"hip:{arch}:64"


def fresh_env(workdir, name):
    env = dict(os.environ)
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix=name + "-triton-cache-", dir=workdir)
    return env


def write_spec(targets, specs, root, workdir):
    """workdir/spec.json: a triton-aot-cc spec of the specializations, their sources under root."""
    spec = {"targets": targets, "kernels": []}
    for i, (source, function, signature, grid, warps, stages) in enumerate(specs):
        spec["kernels"].append({"source": os.path.join(root, source), "function": function,
                                "name": f"{function}_{i}", "signatures": [signature],
                                "configs": [f"num_warps={warps} num_stages={stages}"],
                                "grid": grid})
    path = os.path.join(workdir, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def run_ours(tool, python, targets, specs, jobs, workdir, cold=True, out=None):
    spec_path = write_spec(targets, specs, REPO, workdir)
    out = out or tempfile.mkdtemp(prefix="ours-", dir=workdir)
    cmd = [tool, "--spec", spec_path, "-o", out, "--python", python, "-j", str(jobs)]
    if cold:
        cmd.append("--no-cache")
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=fresh_env(workdir, "ours"))
    return time.perf_counter() - start, out


def upstream_command(python, spec, target, workdir):
    source, function, signature, grid, warps, stages = spec
    out = tempfile.mkdtemp(prefix="upstream-", dir=workdir)
    return [python, os.path.join(REPO, "bench", "upstream_compile.py"), os.path.join(REPO, source),
            "-n", function, "-s", signature, "-g", upstream_grid(grid), "-w", str(warps),
            "-ns", str(stages), "-t", upstream_target(target), "-o", os.path.join(out, function)]


def run_upstream(python, targets, specs, parallel, workdir):
    commands = [upstream_command(python, s, t, workdir) for s in specs for t in targets]

    def one(cmd):
        subprocess.run(cmd, check=True, env=fresh_env(workdir, "upstream"),
                       stdout=subprocess.DEVNULL)

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(one, commands))
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="the triton-aot-cc binary")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--upstream", action="store_true", help="also time upstream compile.py")
    parser.add_argument("--csv", default=None, help="append rows here")
    args = parser.parse_args()

    targets, specs = load_specs()
    workdir = tempfile.mkdtemp(prefix="tta-bench-")
    rows = []
    host = f"{platform.node()} ({os.cpu_count()} CPUs)"
    version = triton_version(args.python)

    def record(flow, seconds_list):
        median = statistics.median(seconds_list)
        rows.append({"flow": flow, "median_s": round(median, 3),
                     "runs_s": " ".join(f"{s:.3f}" for s in seconds_list),
                     "images": len(specs) * len(targets), "cpus": os.cpu_count(),
                     "triton": version, "host": host})
        print(f"{flow:48s} {median:8.2f} s", flush=True)

    try:
        cold = [run_ours(args.tool, args.python, targets, specs, args.jobs, workdir)[0]
                for _ in range(args.repeat)]
        record(f"triton-aot-cc cold, -j {args.jobs}", cold)
        # The one-at-a-time flows are slow and steady: one run each.
        record("triton-aot-cc cold, -j 1",
               [run_ours(args.tool, args.python, targets, specs, 1, workdir)[0]])
        _, out = run_ours(args.tool, args.python, targets, specs, args.jobs, workdir, cold=False)
        warm = [run_ours(args.tool, args.python, targets, specs, args.jobs, workdir, cold=False,
                         out=out)[0] for _ in range(args.repeat)]
        record("triton-aot-cc unchanged rerun (cache)", warm)
        if args.upstream:
            record("upstream compile.py, one at a time",
                   [run_upstream(args.python, targets, specs, 1, workdir)])
            record(f"upstream compile.py, {args.jobs} at a time",
                   [run_upstream(args.python, targets, specs, args.jobs, workdir)
                    for _ in range(args.repeat)])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    base = {r["flow"]: r["median_s"] for r in rows}
    ours = base[f"triton-aot-cc cold, -j {args.jobs}"]
    for r in rows:
        r["ratio_to_ours_cold"] = round(r["median_s"] / ours, 2)
    if args.csv:
        append_csv(args.csv, rows)
    print("\nflow                                             median    x ours(cold, -j N)")
    for r in rows:
        print(f"{r['flow']:48s} {r['median_s']:8.2f} s  {r['ratio_to_ours_cold']:6.2f}")


if __name__ == "__main__":
    main()
