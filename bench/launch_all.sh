#!/usr/bin/env bash
# The launch-overhead figure, all four ways, in one command (docs/benchmarks.md, "Launch
# overhead"): the generated entry point, raw cuLaunchKernel of the same function (the reference),
# upstream compile.py + link.py's launcher, and Triton's Python launch.
#
#   bench/launch_all.sh --out DIR [--bin DIR] [--python PY] [--machine NAME] [-- launch_overhead options]
#
# --bin: where launch_overhead is (default build/default/bin); --python: the interpreter with
# Triton and torch (default python3); --machine names the CSVs (default h100). Writes under DIR:
# upstream/ (upstream's generated files and libupstream_vector_add.so), launch_overhead.txt and
# launch_triton.txt (each program's report), launch_overhead_<machine>.csv (one row per
# repetition, every method) and launch_overhead_<machine>_summary.csv (per method: median, min,
# ratio to raw cuLaunchKernel). The C++ methods are interleaved in one process; Triton's Python
# launch runs in its own process right after, timed the same way, and its ratio is against the
# raw median of the C++ run. Exit status: 0 measured, 1 error, 77 skipped (no GPU / no torch).
set -euo pipefail
cd "$(dirname "$0")/.."

out="" bin=build/default/bin python=python3 machine=h100
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "launch_all: unknown option $1 (see the header of $0)" >&2; exit 1 ;;
  esac
done
[[ -n $out ]] || { echo "launch_all: --out DIR is required" >&2; exit 1; }
[[ -x $bin/launch_overhead ]] || { echo "launch_all: no $bin/launch_overhead (build it, or --bin)" >&2; exit 1; }
mkdir -p "$out"

# No GPU: skip before upstream's compile.py fails on the missing driver.
set +e
"$bin/launch_overhead" --repetitions 1 --launches 1 > "$out/probe.txt" 2>&1
probe=$?
set -e
if [[ $probe -eq 77 ]]; then cat "$out/probe.txt"; exit 77; fi
[[ $probe -eq 0 ]] || { cat "$out/probe.txt" >&2; echo "launch_all: launch_overhead failed" >&2; exit 1; }

echo "== upstream launcher (compile.py + link.py + cc)"
"$python" bench/upstream_launcher.py --out "$out/upstream" --python "$python" > "$out/upstream.txt" 2>&1 \
  || { cat "$out/upstream.txt" >&2; echo "launch_all: building upstream's launcher failed" >&2; exit 1; }
upstream_lib=$(tail -n 1 "$out/upstream.txt")

echo "== launch_overhead (library, raw, upstream: interleaved)"
"$bin/launch_overhead" --upstream-lib "$upstream_lib" --csv "$out/launch_overhead_cpp.csv" "$@" \
  | tee "$out/launch_overhead.txt"
sha256=$(sed -n 's/^cubin sha256: //p' "$out/launch_overhead.txt")

echo "== Triton's Python launch"
"$python" bench/launch_triton.py --csv "$out/launch_triton.csv" --expect-sha256 "$sha256" "$@" \
  | tee "$out/launch_triton.txt"

"$python" - "$out/launch_overhead_cpp.csv" "$out/launch_triton.csv" \
  "$out/launch_overhead_$machine.csv" "$out/launch_overhead_${machine}_summary.csv" <<'EOF'
import csv, statistics, sys
cpp_path, triton_path, joined_path, summary_path = sys.argv[1:]
cpp = list(csv.DictReader(open(cpp_path)))
triton = list(csv.DictReader(open(triton_path)))
if len(cpp) != len(triton):
    sys.exit(f"launch_all: {len(cpp)} C++ repetitions but {len(triton)} Python ones")
for row, extra in zip(cpp, triton):
    row["triton_python_us_per_launch"] = extra["triton_python_us_per_launch"]
columns = list(cpp[0].keys())
with open(joined_path, "w", newline="") as f:
    writer = csv.DictWriter(f, columns, quoting=csv.QUOTE_MINIMAL)
    writer.writeheader()
    writer.writerows(cpp)
methods = [c[: -len("_us_per_launch")] for c in columns if c.endswith("_us_per_launch")]
median = {m: statistics.median(float(r[m + "_us_per_launch"]) for r in cpp) for m in methods}
with open(summary_path, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["method", "median_us_per_launch", "min_us_per_launch", "x_raw"])
    print(f"{'method':<16} {'median us':>10} {'min us':>8} {'x raw':>7}")
    for m in methods:
        low = min(float(r[m + "_us_per_launch"]) for r in cpp)
        ratio = median[m] / median["raw"]
        writer.writerow([m, f"{median[m]:.4f}", f"{low:.4f}", f"{ratio:.4f}"])
        print(f"{m:<16} {median[m]:>10.3f} {low:>8.3f} {ratio:>7.3f}")
print(f"raw figures: {joined_path}\nsummary: {summary_path}")
EOF
