#!/usr/bin/env python3
"""A build of many images against its floor: N compiles of t_i seconds on J workers take at least
max(sum t_i / J, max t_i), plus one worker's start (importing Triton).

The images are compile_specs.json's (24 specializations x 3 targets). The t_i are Triton's
compile times measured one after another in one warm worker (`triton-aot-cc -j 1 --summary`,
each answer's compile_ms: once per backend, its first compile included); the worker's start is
`import triton` in a fresh interpreter. Both are measured again before each round of builds
(--repeat rounds), and the medians make the floor. Then in each round, for each J:
- **edited**: every kernel file edited (a comment appended), so that every image compiles again,
  with the cache of an earlier build: its compile times known, the longest first;
- **fresh**: the same with an empty cache (no times known: declaration order);
- **pool**: as edited, with the worker pool warm from a build before (the next build after an
  edit, as a developer's is): no worker starts or imports Triton, every backend is warm.
  Measured against the same floor, one worker's start included.
- **coldpool**: as edited, through the worker pool (the default) started by the build itself:
  a project's first build after the machine started, its workers the pool's.
- **prepared**: as coldpool, the pool prepared first as CMake's configure prepares it
  (`triton-aot-cc --prepare-workers`, J workers warmed up for the targets): a project's first
  build after its configure. The build starts once the pool's log says its workers are
  forked; the preparation's own time (what the configure must leave it) goes to the CSV.
- **rushed**: as prepared, the build started the moment the preparation returns: a configure
  that ends at once, the warm-up cut short by the build.
Every run has a fresh Triton cache. Results go to a CSV.

  python3 bench/floor_bench.py --tool build/default/bin/triton-aot-cc --jobs 2 16 \\
      --csv bench/results/floor_<machine>.csv
"""
import argparse
import csv
import glob
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
sys.path.insert(0, os.path.join(REPO, "bench"))
from compile_bench import load_specs, write_spec  # noqa: E402  (the same specializations and spec)
SUMMARY = re.compile(r"Triton's compiles: ([0-9.]+) s in all[^,]*(?:, [^,]* refused by the target)?, the longest ([0-9.]+) s")


def copy_sources(specs, workdir, edit):
    """The kernel files (and their directories' helper modules) under workdir/src, each edited
    with `edit` appended as a comment when given; the spec file naming them."""
    src = os.path.join(workdir, "src")
    shutil.rmtree(src, ignore_errors=True)
    for directory in sorted({os.path.dirname(s[0]) for s in specs}):
        shutil.copytree(os.path.join(REPO, directory), os.path.join(src, directory),
                        ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    if edit:
        for source in {s[0] for s in specs}:
            with open(os.path.join(src, source), "a") as f:
                f.write(f"\n# {edit}\n")
    return src


def pool_environment(pool):
    return dict(os.environ, TRITON_AOT_WORKER_POOL_DIR=pool, TRITON_AOT_WORKER_IDLE="600")


def build_command(args, spec, jobs, cache, workdir, pool=None):
    """The command and environment of one build (a fresh Triton cache and output directory);
    with `pool`, the worker pool's directory, its workers (kept warm between builds), else
    workers of the build's own. The project is the working directory (as the default
    --source-root names sources), so that a prepared pool is the build's."""
    env = pool_environment(pool) if pool else dict(os.environ)
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-", dir=workdir)
    out = tempfile.mkdtemp(prefix="out-", dir=workdir)
    cmd = [args.tool, "--spec", spec, "-o", out + "/", "--python", args.python, "-j", str(jobs),
           "--cache-dir", cache, "--summary", "--source-root", os.getcwd()]
    return cmd + ([] if pool else ["--no-worker-pool"]), env


def wait_for_workers(pool, limit=120):
    """Seconds until the log of the pool in directory `pool` says its prepared workers are
    forked (`worker pool: N worker(s) prepared`)."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        for log in glob.glob(os.path.join(pool, "*.log")):
            with open(log) as f:
                if "worker(s) prepared" in f.read():
                    return time.perf_counter() - started
        time.sleep(0.01)
    raise RuntimeError(f"the pool in {pool} never said its workers were prepared")


def prepare(args, targets, jobs, cache, pool, wait):
    """What CMake's configure runs (`--prepare-workers`) for a fresh pool in `pool`; with
    `wait`, returns once the pool's log says its workers are forked. Seconds it took."""
    os.makedirs(pool, mode=0o700)
    started = time.perf_counter()
    subprocess.run([args.tool, "--prepare-workers", "--source-root", os.getcwd(), "--python",
                    args.python, "--cache-dir", cache, "-j", str(jobs)] +
                   [option for target in targets for option in ("-t", target)],
                   check=True, env=pool_environment(pool))
    if wait:
        wait_for_workers(pool)
    return time.perf_counter() - started


def build(args, spec, jobs, cache, workdir, pool=None):
    """Wall seconds of one build and its --summary output (build_command's)."""
    cmd, env = build_command(args, spec, jobs, cache, workdir, pool)
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if os.environ.get("FLOOR_BENCH_DEBUG"):
        print(done.stdout[-1500:], done.stderr[-1500:])
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return seconds, done.stdout


def worker_start(python):
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([python, "-c", "import triton, triton.compiler"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure_floor(args, specs, targets, workdir, cache):
    """Triton's compile times one after another in one worker (a -j 1 build into `cache`) and
    a worker's start: (sum of the compiles, the longest, the start), in seconds."""
    spec = write_spec(targets, specs, copy_sources(specs, workdir, None), workdir)
    _, summary = build(args, spec, 1, cache, workdir)
    found = SUMMARY.search(summary)
    if not found:
        raise RuntimeError("no compile times in the summary:\n" + summary)
    return float(found.group(1)), float(found.group(2)), worker_start(args.python)


def one_build(args, specs, targets, workdir, earlier, jobs, flow, r, pool):
    """Seconds of the r-th build of `flow` at `jobs` workers (floor_bench's flows), and the
    preparation's (prepared, rushed)."""
    cache = os.path.join(workdir, f"cache-{jobs}-{flow}-{r}")
    if flow != "fresh":
        shutil.copytree(earlier, cache)
        # Triton's own cache lives inside ours; a comment appended to a file leaves a
        # function's source, Triton's key, as it was: as an edit of the kernels would, it
        # must miss.
        shutil.rmtree(os.path.join(cache, "triton"), ignore_errors=True)
    spec = write_spec(targets, specs, copy_sources(specs, workdir, f"edit {jobs} {flow} {r}"), workdir)
    cold = os.path.join(workdir, f"{flow}-{jobs}-{r}")
    preparing = None
    if flow in ("prepared", "rushed"):
        preparing = prepare(args, targets, jobs, cache, cold, wait=flow == "prepared")
    own_pool = flow in ("coldpool", "prepared", "rushed")
    seconds = build(args, spec, jobs, cache, workdir,
                    pool if flow == "pool" else cold if own_pool else None)[0]
    if own_pool:   # its workers hold memory: end the pool now
        subprocess.run(["pkill", "-f", cold], check=False)
    return seconds, preparing


def warm_pool(args, specs, targets, workdir, earlier, jobs, pool):
    """The build before a `pool` flow's, which leaves the pool's workers warm."""
    cache = os.path.join(workdir, f"cache-{jobs}-pool-warm")
    shutil.copytree(earlier, cache)
    shutil.rmtree(os.path.join(cache, "triton"), ignore_errors=True)
    spec = write_spec(targets, specs, copy_sources(specs, workdir, f"warm {jobs}"), workdir)
    build(args, spec, jobs, cache, workdir, pool)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="the triton-aot-cc binary")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton")
    parser.add_argument("--jobs", type=int, nargs="+", default=[os.cpu_count()])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--flows", nargs="+", default=["edited", "fresh", "pool", "coldpool"],
                        choices=["edited", "fresh", "pool", "coldpool", "prepared", "rushed"])
    parser.add_argument("--csv")
    args = parser.parse_args()
    targets, specs = load_specs()
    images = len(specs) * len(targets)
    workdir = tempfile.mkdtemp(prefix="tta-floor-")
    rows = []
    try:
        # The floor is measured again before each round of builds: the host drifts (the longest
        # compile measured 1.11 to 1.44 s on one GPU host within minutes), so each round's
        # builds are timed beside a floor of their own, and the medians are compared.
        floors, runs, preparations = [], {}, {}
        earlier = None
        for r in range(args.repeat):
            cache = os.path.join(workdir, f"earlier-cache-{r}")
            floors.append(measure_floor(args, specs, targets, workdir, cache))
            total, longest, start = floors[-1]
            print(f"round {r + 1}: {images} images: compiles {total:.2f} s in all, the longest "
                  f"{longest:.2f} s; a worker's start {start:.2f} s", flush=True)
            earlier = earlier or cache   # "the cache of an earlier build": the first's
            for jobs in args.jobs:
                pool = os.path.join(workdir, f"pool-{jobs}")
                if r == 0 and "pool" in args.flows:
                    warm_pool(args, specs, targets, workdir, earlier, jobs, pool)
                for flow in args.flows:
                    seconds, preparing = one_build(args, specs, targets, workdir, earlier, jobs,
                                                   flow, r, pool)
                    runs.setdefault((jobs, flow), []).append(seconds)
                    if preparing is not None:
                        preparations.setdefault((jobs, flow), []).append(preparing)
        total, longest, start = (statistics.median(f[i] for f in floors) for i in range(3))
        print(f"floor (medians of {len(floors)}): compiles {total:.2f} s, the longest "
              f"{longest:.2f} s (from {min(f[1] for f in floors):.2f} to "
              f"{max(f[1] for f in floors):.2f}), a worker's start {start:.2f} s", flush=True)
        for jobs in args.jobs:
            floor = max(total / jobs, longest) + start
            for flow in args.flows:
                times = runs[(jobs, flow)]
                median = statistics.median(times)
                preparing = preparations.get((jobs, flow))
                rows.append({"jobs": jobs, "flow": flow, "median_s": round(median, 3),
                             "runs_s": " ".join(f"{s:.3f}" for s in times),
                             "floor_s": round(floor, 3), "over_floor": round(median / floor, 3),
                             "compiles_s": round(total, 3), "longest_s": round(longest, 3),
                             "longest_range_s": f"{min(f[1] for f in floors):.2f}-"
                                                f"{max(f[1] for f in floors):.2f}",
                             "worker_start_s": round(start, 3), "images": images,
                             "prepare_s": round(statistics.median(preparing), 3) if preparing else "",
                             "cpus": os.cpu_count(), "host": platform.node()})
                print(f"-j {jobs:2} {flow:8}: {median:6.2f} s, floor {floor:5.2f} s: "
                      f"{median / floor:.3f}x" + (f" (prepared in {statistics.median(preparing):.2f} s)"
                                                  if preparing else ""), flush=True)
    finally:
        subprocess.run(["pkill", "-f", workdir], check=False)   # pools left warm
        shutil.rmtree(workdir, ignore_errors=True)
    if args.csv:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            if new:
                writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
