#!/usr/bin/env python3
"""Charts of the benchmark results: docs/launch_overhead.png, docs/build.png, docs/size.png from
bench/results/*.csv (docs/benchmarks.md). Each chart states its result in its title and prints
the value and the ratio to the reference on every bar.

    python bench/plot_results.py [--results bench/results] [--out docs]
                                 [--launch CSV] [--build CSV...] [--size CSV]

Defaults: the launch CSV with the most methods (launch_overhead_*.csv, one row per repetition,
a <method>_us_per_launch column per method), every build_*.csv (one panel per kernel set, the
last run of each), and the newest size_*.csv run (preferring the proof set).
"""
import argparse
import csv
import glob
import os
import statistics

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
OURS, REFERENCE, OTHER = "#1f6fb4", "#7f7f7f", "#e08a2c"

LAUNCH_LABELS = {  # launch_overhead's CSV method names (bench/launch_overhead.cpp, launch_all.sh)
    "library": "triton-aot entry point\n<prefix>_vector_add()",
    "library_tuned": "triton-aot tuned dispatch\n<prefix>_vector_add()",
    "raw": "raw cuLaunchKernel (CUfunction)\nreference",
    "raw_kernel": "raw cuLaunchKernel (CUkernel)",
    "raw_kernel_ctx": "raw CUkernel +\ncuCtxGetCurrent + cuCtxGetDevice",
    "raw_ctx_current": "raw CUfunction +\ncuCtxGetCurrent",
    "raw_ctx_id": "raw CUfunction +\ncuCtxGetCurrent + cuCtxGetId",
    "upstream": "upstream compile.py + link.py\nlauncher",
    "triton_python": "Triton's Python launch\nkernel[grid](...)",
}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def bar_labels(ax, bars, texts, horizontal=False):
    for bar, text in zip(bars, texts):
        if horizontal:
            ax.annotate(text, (bar.get_width(), bar.get_y() + bar.get_height() / 2), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=9)
        else:
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)


# ---- launch overhead -----------------------------------------------------------------------

def launch_methods(rows):
    """[(method, median µs)] in the CSV's column order, from per-repetition rows."""
    methods = [c[:-len("_us_per_launch")] for c in rows[0] if c.endswith("_us_per_launch")]
    return [(m, statistics.median(float(r[f"{m}_us_per_launch"]) for r in rows if r[f"{m}_us_per_launch"]))
            for m in methods]


def pick_launch_csv(results):
    paths = [p for p in sorted(glob.glob(os.path.join(results, "launch_overhead_*.csv")))
             if not p.endswith("_summary.csv")]
    return max(paths, key=lambda p: len(launch_methods(read(p))), default=None)


def plot_launch(path, out):
    rows = read(path)
    medians = dict(launch_methods(rows))
    if "raw" not in medians:
        raise SystemExit(f"plot_results: {path} has no raw_us_per_launch column (the reference)")
    reference = medians["raw"]
    methods = list(medians)
    fig, ax = plt.subplots(figsize=(9, 0.75 * len(methods) + 1.6))
    y = range(len(methods))[::-1]  # the CSV's first method on top
    colors = [OURS if m.startswith("library") else REFERENCE if m == "raw" else
              "#c7c7c7" if m.startswith("raw") else OTHER for m in methods]
    bars = ax.barh(list(y), [medians[m] for m in methods], color=colors)
    bar_labels(ax, bars, [f"{medians[m]:.2f} µs  ({medians[m] / reference:.3f}×)" for m in methods],
                horizontal=True)
    ax.set_yticks(list(y), [LAUNCH_LABELS.get(m, m) for m in methods], fontsize=9)
    ax.set_xlim(right=max(medians.values()) * 1.35)
    ax.set_xlabel("host time per launch, µs (median of %d repetitions × %s launches)"
                  % (len(rows), rows[0].get("launches", "?")))
    ours = medians.get("library", float("nan")) / reference
    title = f"triton-aot's entry point costs {ours:.2f}× a raw cuLaunchKernel"
    others = [f"{name} {medians[m] / reference:.1f}×" for m, name in
              (("upstream", "upstream's launcher"), ("triton_python", "Triton's Python launch"))
              if m in medians]
    if others:
        title += "\n(" + ", ".join(others) + ")"
    ax.set_title(title, fontsize=11)
    device = rows[0].get("device", "")
    ax.text(1.0, -0.22 if len(methods) < 5 else -0.14, f"{device}, {os.path.basename(path)}",
            transform=ax.transAxes, ha="right", fontsize=7, color="#555555")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


# ---- build time ------------------------------------------------------------------------------

BUILD_PHASES = [("clean", "clean", "clean"), ("no-op (ninja)", "no-op ninja", "no-op ninja"),
                ("no-op (cmake --build)", "no-op", None), ("one-file edit", "one-file", "one-file")]


def best_rows(rows):
    """One row per (flow, phase): the one with the most runs, the latest of those. A CSV is
    appended to run after run, and a long flow may run in a command of its own (build_bench
    --upstream-flows serial --repeat 1) beside one that repeats the others."""
    best = {}
    for row in rows:
        key = (row["flow"], row["phase"])
        if key not in best or len(row["runs_s"].split()) >= len(best[key]["runs_s"].split()):
            best[key] = row
    return best


def plot_build(paths, out):
    panels = []
    for path in paths:
        rows = read(path)
        by_set = {}
        for row in rows:
            by_set.setdefault(row.get("set") or "examples", []).append(row)
        for set_name, set_rows in by_set.items():
            panels.append((set_name, path, best_rows(set_rows)))
    fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 5.2), squeeze=False)
    for ax, (set_name, path, runs) in zip(axes[0], panels):
        flows = list(dict.fromkeys(flow for flow, _ in runs))
        width = 0.8 / len(flows)
        any_row = next(iter(runs.values()))
        for i, flow in enumerate(flows):
            xs, heights, texts = [], [], []
            for x, (_, aot_phase, upstream_phase) in enumerate(BUILD_PHASES):
                row = runs.get((flow, aot_phase if flow == "triton-aot" else upstream_phase))
                if not row:
                    continue
                seconds = float(row["median_s"])
                # The ratio to triton-aot's time measured in the same command (the CSV's own).
                ratio = float(row["x_triton_aot"]) if row["x_triton_aot"] and flow != "triton-aot" else None
                xs.append(x + (i - (len(flows) - 1) / 2) * width)
                heights.append(max(seconds, 1e-3))
                texts.append((f"{seconds:.3g} s" if seconds >= 0.01 else f"{seconds * 1000:.0f} ms")
                             + (f"\n{ratio:.1f}×" if ratio and row["phase"] != "no-op ninja" else ""))
            color = OURS if flow == "triton-aot" else OTHER if "serial" not in flow else "#b5471c"
            bars = ax.bar(xs, heights, width * 0.95, label=flow, color=color)
            bar_labels(ax, bars, texts)
        ax.set_yscale("log")
        ax.set_ylim(top=ax.get_ylim()[1] * 4)
        ax.set_xticks(range(len(BUILD_PHASES)), [p[0] for p in BUILD_PHASES], fontsize=9)
        ax.set_ylabel("wall time, s (log scale; median of the runs)")
        ax.legend(fontsize=8, loc="upper right")
        clean = {f: runs.get((f, "clean")) for f in flows}
        parallel = next((f for f in flows if f.startswith("upstream -j")), None)
        title = f"{set_name} set ({any_row.get('variants_x_targets', '?')} images): "
        if parallel and clean.get(parallel):
            title += (f"clean build {float(clean[parallel]['x_triton_aot']):.1f}× faster than "
                      f"upstream {parallel[len('upstream '):]}")
        if clean.get("upstream serial"):
            title += (f",\n{float(clean['upstream serial']['x_triton_aot']):.0f}× faster than "
                      "upstream one at a time")
        if runs.get(("triton-aot", "no-op")):
            title += f"; no-op {float(runs[('triton-aot', 'no-op')]['median_s']):.2f} s"
        ax.set_title(title, fontsize=10)
        ax.text(1.0, -0.12, f"{any_row.get('cpus', '?')} CPUs, Triton {any_row.get('triton', '?')}, "
                f"{any_row.get('date', '')}, {os.path.basename(path)}", transform=ax.transAxes,
                ha="right", fontsize=7, color="#555555")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


# ---- size ------------------------------------------------------------------------------------

def pick_size_run(paths):
    """The rows of the newest run (machine, set, date) among the size CSVs: the proof set first,
    then a run whose upstream C is compile.py's own files (exact) over a rendered one."""
    runs, exact_runs = {}, {}
    for path in paths:
        for row in read(path):
            exact = "rendered" not in row.get("note", "") if "upstream" in row["item"] else None
            key = (row["date"], row["set"] == "proof", row["machine"], row["set"])
            if exact is not None:
                exact_runs[key] = exact
            runs.setdefault(key, {})[row["item"]] = row
    if not runs:
        return None, None
    key = max(runs, key=lambda k: (k[1], k[0], exact_runs.get(k, False)))
    return key, list(runs[key].values())


def human(size):
    return f"{size / 2**20:.2f} MiB" if size >= 2**20 else f"{size / 1024:.0f} KiB"


def plot_size(paths, out):
    key, rows = pick_size_run(paths)
    if not rows:
        return None
    reference = next(r for r in rows if r["item"].startswith("raw images, all"))
    fig, ax = plt.subplots(figsize=(9.5, 0.55 * len(rows) + 1.8))
    y = list(range(len(rows)))[::-1]
    colors = [REFERENCE if r["item"].startswith("raw") else OTHER if r["item"].startswith("upstream")
              else OURS for r in rows]
    bars = ax.barh(y, [int(r["bytes"]) / 2**20 for r in rows], color=colors)
    texts = []
    for r in rows:
        text = f"{human(int(r['bytes']))}  ({float(r['x_raw_images']):.2f}×)"
        if r["item"].startswith("upstream"):  # compile.py embeds the binaries only, no PTX
            text += f"\n= {float(r['x_binaries']):.1f}× its cubin + hsaco"
        texts.append(text)
    bar_labels(ax, bars, texts, horizontal=True)
    labels = []
    for r in rows:
        label = r["item"]
        if label.startswith("upstream"):
            label += "\n(exact: compile.py's files)" if "compile.py's output" in r["note"] \
                else "\n(rendered from compile.py's templates)"
        labels.append(label)
    ax.set_yticks(y, labels, fontsize=8.5)
    ax.set_xlim(right=max(int(r["bytes"]) for r in rows) / 2**20 * 1.55)
    ax.set_xlabel("MiB (× the raw images the library embeds: cubin + hsaco + PTX)")
    get = {r["item"]: int(r["bytes"]) for r in rows}
    raw = int(reference["bytes"])
    title = (f"{key[3]} set, {reference['architectures']}, {reference['variants_x_targets']} images: "
             f"the compressed shared library\nis {get.get('shared library (.so), COMPRESS', 0) / raw:.2f}× "
             f"its raw images; upstream's C source is "
             f"{get.get('upstream compile.py C (.c/.cpp + .h)', 0) / raw:.1f}×")
    ax.set_title(title, fontsize=10)
    ax.text(1.0, -0.1, f"{key[2]}, {key[0]}", transform=ax.transAxes, ha="right", fontsize=7, color="#555555")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(BENCH, "results"))
    parser.add_argument("--out", default=os.path.join(REPO, "docs"))
    parser.add_argument("--launch", default=None,
                        help="a launch_overhead CSV (default: the one with the most methods)")
    parser.add_argument("--build", nargs="+", default=None, help="build CSVs (default: every build_*.csv)")
    parser.add_argument("--size", nargs="+", default=None, help="size CSVs (default: every size_*.csv)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    launch = args.launch or pick_launch_csv(args.results)
    builds = args.build or sorted(glob.glob(os.path.join(args.results, "build_*.csv")))
    sizes = args.size or sorted(glob.glob(os.path.join(args.results, "size_*.csv")))
    written = [plot_launch(launch, os.path.join(args.out, "launch_overhead.png")) if launch else None,
               plot_build(builds, os.path.join(args.out, "build.png")) if builds else None,
               plot_size(sizes, os.path.join(args.out, "size.png")) if sizes else None]
    for name, path in zip(("launch", "build", "size"), written):
        print(f"plot_results: {name}: {path or 'no CSV, not drawn'}")


if __name__ == "__main__":
    main()
