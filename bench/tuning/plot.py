"""The tuned-dispatch chart (docs/tuning.png) from proof.py's CSV: per shape, the tuned library's
device time over the best config's and over Triton's autotuned launch, tuned shapes then
held-out ones, one panel per kernel.

  .venv/bin/python bench/tuning/plot.py bench/results/tuning_h100.csv docs/tuning.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = list(csv.DictReader(open(path)))
    kernels = [k for k in ("matmul", "rms_norm") if any(r["kernel"] == k for r in rows)]
    fig, axes = plt.subplots(len(kernels), 1, figsize=(12, 4.2 * len(kernels)), squeeze=False)
    for ax, kernel in zip(axes[:, 0], kernels):
        mine = [r for r in rows if r["kernel"] == kernel]
        xs = range(len(mine))
        over_best = [float(r["tuned_over_best"]) for r in mine]
        over_triton = [float(r["tuned_over_triton"]) for r in mine]
        ax.bar([x - 0.2 for x in xs], over_best, 0.4, label="tuned library / best config (exhaustive)")
        ax.bar([x + 0.2 for x in xs], over_triton, 0.4, label="tuned library / Triton's @autotune launch")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1.02, color="gray", linewidth=0.8, linestyle="--", label="goal 1.02")
        held = next((i for i, r in enumerate(mine) if r["set"] == "held-out"), len(mine))
        top = max(over_best + over_triton) * 1.12
        ax.set_ylim(0.8, top)
        ax.axvline(held - 0.5, color="gray", linewidth=0.8)
        ax.text(held / 2 - 0.5, top * 0.99, "tuned shapes", ha="center", va="top")
        ax.text((held + len(mine)) / 2 - 0.5, top * 0.99, "held-out shapes", ha="center", va="top")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["shape"] for r in mine], rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("device time ratio")
        tuned = [b for b, r in zip(over_best, mine) if r["set"] == "tuned"]
        ax.set_title(f"{kernel}: tuned library / best config, median {statistics.median(tuned):.3f} at "
                     f"tuned shapes; / Triton's autotuned launch, median "
                     f"{statistics.median(over_triton):.3f} over all {len(mine)}")
        ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
