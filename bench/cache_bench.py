#!/usr/bin/env python3
"""The shared compile cache across machines (docs/benchmarks.md, "Shared cache"), simulated on
this one: each "machine" is another copy of the sources at another path, another build tree,
another local cache, another worker pool and another virtual environment (a hard-linked copy of
--python's at another path: the same Triton wheel), all against one private redis-server
(tests/cache_servers/start_redis.sh) on a free local port.

  cold-warm  machine A builds the set (a cold Redis, an empty local cache), then machine B builds
             it again: every variant should come from Redis. Reported: both clean builds
             (configure, build) and B's over A's.
  sharded    machines 1..N each build a share of the architectures, then a last machine builds
             the whole library: it should compile nothing and only link. Reported: each shard's
             time, the final build's, its images and its remote hit rate.

The sets are build_bench.py's (--set examples | proof); the library is bench/build_set.

  python3 bench/cache_bench.py --triton-aot build/install --python .venv/bin/python \\
      --set proof --mode cold-warm --csv bench/results/cache_cold_warm.csv
  python3 bench/cache_bench.py --triton-aot build/install --python .venv/bin/python \\
      --set proof --mode sharded --shards 3 \\
      --architectures "80;86;89;90a;100a;120a;gfx90a;gfx942;gfx950;gfx1100;gfx1200;gfx1201;gfx1250" \\
      --csv bench/results/cache_sharded.csv
"""
import argparse
import csv
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from build_bench import SETS, copy_set, set_definitions  # noqa: E402


def run(cmd, env, what):
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"cache_bench: {what} failed ({proc.returncode}):\n{proc.stdout[-6000:]}")
    return seconds, proc.stdout


def start_redis(scratch):
    state = os.path.join(scratch, "redis")
    proc = subprocess.run(["bash", os.path.join(REPO, "tests/cache_servers/start_redis.sh"), state],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode == 77:
        print(f"cache_bench: skipped: {proc.stdout.strip()}")
        sys.exit(77)
    if proc.returncode != 0:
        sys.exit(f"cache_bench: redis-server did not start:\n{proc.stdout}")
    with open(os.path.join(state, "url")) as f:
        return state, f.read().strip()


class Machine:
    """One simulated machine: its own copy of the sources, build tree, caches, worker pool and
    virtual environment, all under scratch/<name>."""

    def __init__(self, args, scratch, name, url, key_file):
        self.name = name
        self.root = os.path.join(scratch, name)
        os.makedirs(self.root)
        self.files = copy_set(args.kernel_files, os.path.join(self.root, "src"))
        shutil.copytree(os.path.join(BENCH, "build_set"), os.path.join(self.root, "src", "build_set"))
        venv = os.path.dirname(os.path.dirname(args.python))
        copy = os.path.join(self.root, "venv")
        subprocess.run(["cp", "-al", venv, copy], check=True)
        self.python = os.path.join(copy, "bin", os.path.basename(args.python))
        self.build_dir = os.path.join(self.root, "build")
        self.env = dict(os.environ, TRITON_AOT_REMOTE_CACHE=url,
                        TRITON_AOT_REMOTE_CACHE_KEY_FILE=key_file,
                        TRITON_AOT_CACHE_DIR=os.path.join(self.root, "cache"),
                        TRITON_AOT_WORKER_POOL_DIR=os.path.join(self.root, "pool"))
        os.makedirs(self.env["TRITON_AOT_WORKER_POOL_DIR"], mode=0o700)

    def clean_build(self, args, architectures):
        package = os.path.abspath(args.triton_aot)
        configure = [args.cmake, "-S", os.path.join(self.root, "src", "build_set"), "-B", self.build_dir,
                     "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_C_COMPILER={args.cc}",
                     f"-DCMAKE_PREFIX_PATH={package}",
                     *set_definitions(self.files, args.cuda_only, args.hip_only),
                     f"-DTRITON_AOT_BENCH_ARCHITECTURES={architectures}",
                     f"-DTRITON_AOT_PYTHON={self.python}"]
        configure_s, _ = run(configure, self.env, f"{self.name}: configure")
        build_s, log = run([args.cmake, "--build", self.build_dir, "-j", str(args.jobs)], self.env,
                           f"{self.name}: build")
        origins = {"compiled": 0, "local": 0, "remote": 0}
        for path in glob.glob(os.path.join(self.build_dir, "**", "index.json"), recursive=True):
            with open(path) as f:
                counts = json.load(f).get("variants_from", {})
            for key in origins:
                origins[key] += counts.get(key, 0)
        images = sum(len(glob.glob(os.path.join(self.build_dir, "**", "compile", "**", pattern), recursive=True))
                     for pattern in ("*.cubin", "*.hsaco"))
        row = {"machine": self.name, "architectures": architectures, "configure_s": round(configure_s, 3),
               "build_s": round(build_s, 3), "variants": sum(origins.values()), "images": images, **origins}
        print(f"  {self.name:8s} {architectures:40s} configure {configure_s:7.2f} s  build {build_s:7.2f} s  "
              f"{row['variants']:4d} variants: {origins['compiled']} compiled, {origins['local']} local, "
              f"{origins['remote']} remote", flush=True)
        return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triton-aot", required=True, help="the installed toolchain (cmake --install prefix)")
    parser.add_argument("--python", required=True, help="a virtual environment's interpreter with Triton")
    parser.add_argument("--set", choices=sorted(SETS), default="proof")
    parser.add_argument("--mode", choices=("cold-warm", "sharded"), default="cold-warm")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--architectures", default="80;90a;gfx942")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--workdir", default=None, help="scratch parent (default: the system's temp)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--csv", default=None)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless the last machine compiled nothing (a test: Plugin.sharded_build)")
    args = parser.parse_args()
    args.python = os.path.abspath(args.python)   # a venv's python: a link, kept as one
    if not os.path.isfile(os.path.join(os.path.dirname(os.path.dirname(args.python)), "pyvenv.cfg")):
        parser.error(f"--python {args.python}: not a virtual environment's interpreter (each "
                     "simulated machine gets a copy of its environment)")
    args.kernel_files = SETS[args.set]["files"]
    args.cuda_only, args.hip_only = SETS[args.set]["cuda_only"], SETS[args.set]["hip_only"]
    architectures = [a for a in args.architectures.split(";") if a]

    scratch = tempfile.mkdtemp(prefix="tta-cache-bench-", dir=args.workdir and os.path.abspath(args.workdir))
    # The machines share a signing key, as a team's builds do (docs/security.md): without one
    # they would not use the remote cache.
    key_file = os.path.join(scratch, "signing-key")
    subprocess.run([os.path.join(os.path.abspath(args.triton_aot), "bin", "triton-aot-cc"),
                    "--new-remote-cache-key", key_file], check=True, stdout=subprocess.DEVNULL)
    redis, url = start_redis(scratch)
    print(f"cache_bench: {args.mode}, set {args.set}, -j {args.jobs}, scratch {scratch}, Redis "
          f"{url.split('@')[-1]}", flush=True)
    rows = []
    try:
        if args.mode == "cold-warm":
            for name in ("A", "B"):
                rows.append(Machine(args, scratch, name, url, key_file).clean_build(args, args.architectures))
            a, b = rows
            for row in rows:
                row["total_s"] = round(row["configure_s"] + row["build_s"], 3)
            print(f"B / A: build {b['build_s'] / a['build_s']:.3f}, configure + build "
                  f"{b['total_s'] / a['total_s']:.3f}; B's remote hit rate "
                  f"{b['remote'] / max(1, b['variants']):.1%}")
        else:
            shares = [architectures[i::args.shards] for i in range(args.shards)]
            for i, share in enumerate(shares, 1):
                rows.append(Machine(args, scratch, f"shard{i}", url, key_file).clean_build(args, ";".join(share)))
            final = Machine(args, scratch, "final", url, key_file).clean_build(args, args.architectures)
            rows.append(final)
            print(f"final: {final['images']} images, {final['variants']} variants, "
                  f"{final['compiled']} compiled, remote hit rate {final['remote'] / max(1, final['variants']):.1%}")
    finally:
        subprocess.run(["bash", os.path.join(REPO, "tests/cache_servers/stop_redis.sh"), redis],
                       stdout=subprocess.DEVNULL)
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.csv:
        meta = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "cpus": os.cpu_count(),
                "set": args.set, "mode": args.mode}
        with open(args.csv, "w", newline="") as f:
            columns = list(meta) + [key for row in rows for key in row]
            writer = csv.DictWriter(f, list(dict.fromkeys(columns)))
            writer.writeheader()
            for row in rows:
                writer.writerow({**meta, **row})
        print(f"results: {args.csv}")
    if args.check and rows[-1]["compiled"] != 0:
        sys.exit(f"cache_bench: the last machine compiled {rows[-1]['compiled']} variant(s); expected none")


if __name__ == "__main__":
    main()
