"""Tuned dispatch against exhaustive search and against Triton's own autotuner, on a GPU.

Builds bench/tuning/project (the two kernels of kernels.py, TUNE_* from shapes.py) with the
installed toolchain, runs its `tune` target (timed: the tuner's run time) and builds again, so
the table is linked in. Then, for every tuned and held-out shape of each kernel:
- the device time of every config through the library (`p_K_config`: the exhaustive best),
- the device time of the tuned entry point `p_K` (the config the table picks),
- Triton's own launch of the same @triton.autotune'd function: its first call for the new key
  (wall time: the autotuner benchmarks every config) and then its device time,
- the library's first call for the new key (wall time),
- every config of the decorator through Triton's JIT (the @triton.jit function under the
  autotuner, each config's values given; its device time): the best JIT config per shape.
With --specialize the matmul is declared with a generic signature and SPECIALIZE AUTO and tuned
at shapes where the JIT's specialization matters (M = 1, sizes no multiple of 16;
shapes.MATMUL_SPECIALIZE_*), and only the matmul is measured.
Device times are measured as the tuner and Triton's autotuner measure (--method flush, the
default: triton.testing.do_bench, L2 flushed before each timed launch, which also hides the
ctypes and Python launch costs behind the flush), or as CUDA-graph replays with a warm L2
(--method graph). Ratios are against the best config measured the same way in the same run.

  python3 bench/tuning/proof.py --tritonaot-dir build/device-install/lib/cmake/TritonAOT \
      --work /tmp/tuning --csv bench/results/tuning_h100.csv [--specialize]
"""
import argparse
import csv
import ctypes
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "proof"))
from proof_lib import Library, c_value, ctype_of  # noqa: E402
import shapes  # noqa: E402

TARGET = "cuda:90a"


def build(args):
    """Configures, builds, tunes and builds again; the tuner's wall time in seconds."""
    build_dir = os.path.join(args.work, "build")
    table = os.path.join(args.work, "tuning_bench.tuning.json")
    if os.path.exists(table):
        os.remove(table)
    subprocess.run(["cmake", "-S", os.path.join(HERE, "project"), "-B", build_dir, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", f"-DTritonAOT_DIR={args.tritonaot_dir}",
                    f"-DTUNING_TABLE={table}", f"-DCMAKE_TRITON_ARCHITECTURES={args.arch}",
                    f"-DTRITON_AOT_PYTHON={sys.executable}",
                    f"-DSPECIALIZE_BENCH={'ON' if args.specialize else 'OFF'}"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build_dir], check=True, capture_output=True)
    started = time.monotonic()
    tuned = subprocess.run(["cmake", "--build", build_dir, "--target", "tune"], capture_output=True,
                           text=True)
    tuner_seconds = time.monotonic() - started
    if tuned.returncode != 0:
        raise RuntimeError("tune failed:\n" + tuned.stdout[-3000:] + tuned.stderr[-3000:])
    print(tuned.stdout.strip().splitlines()[-1], flush=True)
    subprocess.run(["cmake", "--build", build_dir], check=True, capture_output=True)
    return os.path.join(build_dir, "libtuning_bench.so"), tuner_seconds


class Tuned:
    """The library's tuned entry points, select_config and config entries."""

    def __init__(self, path):
        self.lib = Library(path, "tuning_bench")
        self.kernels = {k["name"]: k for k in self.lib.kernels}
        self.calls, self.selects = {}, {}
        for name, kernel in self.kernels.items():
            types = [ctype_of(p) for p in kernel["params"]]
            call = getattr(self.lib.dll, f"tuning_bench_{name}")
            call.restype, call.argtypes = ctypes.c_int, [ctypes.c_void_p] + types
            select = getattr(self.lib.dll, f"tuning_bench_{name}_select_config")
            select.restype, select.argtypes = ctypes.c_int, [ctypes.c_char_p] + types
            self.calls[name], self.selects[name] = call, select
        preload = self.lib.dll.tuning_bench_preload
        preload.restype = ctypes.c_int
        if preload() != 0:
            raise RuntimeError(self.lib.last_error())

    def values(self, name, args):
        return [c_value(p, args[p["name"]]) for p in self.kernels[name]["params"]]

    def launch(self, name, args, config=None):
        import torch
        stream = torch.cuda.current_stream().cuda_stream
        status = (self.calls[name](ctypes.c_void_p(stream), *self.values(name, args)) if config is None
                  else self.lib.call(self.kernels[name], config, stream, args))
        if status != 0:
            raise RuntimeError(self.lib.last_error())

    def select(self, name, args):
        return self.selects[name](TARGET.encode(), *self.values(name, args))


def matmul_case(shape):
    import torch
    import kernels
    M, N, K = shape
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    args = {"a_ptr": a.data_ptr(), "b_ptr": b.data_ptr(), "c_ptr": c.data_ptr(), "M": M, "N": N,
            "K": K, "stride_am": K, "stride_bk": N, "stride_cm": N,
            # parameters of a generic signature only (--specialize); row-major: unit strides
            "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}

    grid = lambda meta: (triton_cdiv(M, meta["BLOCK_M"]) * triton_cdiv(N, meta["BLOCK_N"]),)

    def triton_launch(config=None):
        if config is None:
            kernels.matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1)
        else:   # one config through the JIT, as the autotuner launches it
            kernels.matmul_kernel.fn[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, **config.all_kwargs())

    def check():
        torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=2e-2, atol=0.5)
    return args, triton_launch, check, (a, b, c)


def rms_case(shape):
    import torch
    import kernels
    (n_cols,) = shape
    rows = shapes.RMS_ROWS
    x = torch.randn(rows, n_cols, device="cuda", dtype=torch.float16)
    w = torch.rand(n_cols, device="cuda", dtype=torch.float16) + 0.5
    y = torch.empty_like(x)
    args = {"Y_ptr": y.data_ptr(), "X_ptr": x.data_ptr(), "W_ptr": w.data_ptr(), "n_rows": rows,
            "n_cols": n_cols, "eps": 1e-6}

    def triton_launch(config=None):
        if config is None:
            kernels.rms_norm_kernel[(rows,)](y, x, w, rows, n_cols, 1e-6)
        else:
            kernels.rms_norm_kernel.fn[(rows,)](y, x, w, rows, n_cols, 1e-6, **config.all_kwargs())

    def check():
        xf = x.float()
        want = xf * torch.rsqrt((xf * xf).mean(dim=1, keepdim=True) + 1e-6) * w.float()
        torch.testing.assert_close(y.float(), want, rtol=2e-2, atol=2e-2)
    return args, triton_launch, check, (x, w, y)


def triton_cdiv(a, b):
    return (a + b - 1) // b


def device_ms(fn):
    import torch
    import triton.testing
    torch.cuda.synchronize()
    if args_method == "graph":
        return triton.testing.do_bench_cudagraph(fn, rep=args_rep, return_mode="median")
    return triton.testing.do_bench(fn, warmup=25, rep=max(args_rep, 100), return_mode="median")


def wall_ms(fn):
    import torch
    torch.cuda.synchronize()
    started = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - started) * 1e3


def measure(tuned, name, shape, held_out, make_case):
    args, triton_launch, check, _keep = make_case(shape)
    configs = [c["name"] for c in tuned.kernels[name]["configs"]]
    row = {"kernel": name, "shape": "x".join(map(str, shape)), "set": "held-out" if held_out else "tuned"}
    row["library_first_call_ms"] = wall_ms(lambda: tuned.launch(name, args))
    check()
    times = {}
    for index, config in enumerate(configs):
        try:
            times[config] = device_ms(lambda: tuned.launch(name, args, index))
        except RuntimeError as error:   # a config the device cannot run
            times[config] = None
            print(f"  {config}: {error}")
    runnable = {c: t for c, t in times.items() if t is not None}
    best = min(runnable, key=runnable.get)
    chosen = configs[tuned.select(name, args)]
    row.update(best=best, best_us=runnable[best] * 1e3, chosen=chosen,
               chosen_exhaustive_us=(runnable.get(chosen) or float("nan")) * 1e3)
    row["tuned_us"] = device_ms(lambda: tuned.launch(name, args)) * 1e3
    row["tuned_over_best"] = row["tuned_us"] / row["best_us"]
    row["triton_first_call_ms"] = wall_ms(triton_launch)
    row["triton_us"] = device_ms(triton_launch) * 1e3
    row["tuned_over_triton"] = row["tuned_us"] / row["triton_us"]
    import kernels
    jit = {}
    for config in getattr(kernels, name + "_kernel").configs:
        try:
            jit[str(config)] = device_ms(lambda: triton_launch(config)) * 1e3
        except Exception as error:   # out of resources on this device
            print(f"  JIT {config}: {type(error).__name__}")
    jit_best = min(jit, key=jit.get)
    row.update(jit_best=jit_best, jit_best_us=jit[jit_best],
               tuned_over_jit_best=row["tuned_us"] / jit[jit_best])
    print(f"{name:9} {row['shape']:16} {row['set']:8} chosen {chosen:48} best {best:48} "
          f"tuned/best {row['tuned_over_best']:.3f} tuned/triton {row['tuned_over_triton']:.3f} "
          f"tuned/best JIT config {row['tuned_over_jit_best']:.3f} "
          f"first call: library {row['library_first_call_ms']:.2f} ms, Triton "
          f"{row['triton_first_call_ms']:.0f} ms", flush=True)
    return row


def summarize(rows, tuner_seconds):
    print(f"\ntuner: {tuner_seconds:.1f} s")
    for kernel in ("matmul", "rms_norm"):
        for which in ("tuned", "held-out"):
            rs = [r for r in rows if r["kernel"] == kernel and r["set"] == which]
            if not rs:
                continue
            over_best = [r["tuned_over_best"] for r in rs]
            over_triton = [r["tuned_over_triton"] for r in rs]
            over_jit = [r["tuned_over_jit_best"] for r in rs]
            print(f"{kernel:9} {which:8} {len(rs):2} shapes: tuned/best JIT config median "
                  f"{statistics.median(over_jit):.3f} max {max(over_jit):.3f}")
            later = [r["triton_first_call_ms"] for r in rs[1:]] or [rs[0]["triton_first_call_ms"]]
            print(f"{kernel:9} {which:8} {len(rs):2} shapes: tuned/best median "
                  f"{statistics.median(over_best):.3f} max {max(over_best):.3f}; tuned/Triton "
                  f"median {statistics.median(over_triton):.3f} max {max(over_triton):.3f}; first "
                  f"call for a new key: library median "
                  f"{statistics.median(r['library_first_call_ms'] for r in rs):.3f} ms, Triton "
                  f"median {statistics.median(later):.1f} ms")
            # The choice alone: the chosen config's time in the same exhaustive sweep as the
            # best; and the noise floor: the tuned launch over the best where they are the
            # same config (two timings of one config).
            choice = [r["chosen_exhaustive_us"] / r["best_us"] for r in rs]
            same = [r["tuned_over_best"] for r in rs if r["chosen"] == r["best"]]
            print(f"{'':9} {'':8} {'':2}         chosen/best in one sweep median "
                  f"{statistics.median(choice):.3f} max {max(choice):.3f}; where chosen is "
                  f"best ({len(same)}), tuned/best {min(same, default=1):.3f}.."
                  f"{max(same, default=1):.3f}")


def main():
    global args_rep, args_method
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tritonaot-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--arch", default="90a")
    parser.add_argument("--csv")
    parser.add_argument("--rep-ms", type=int, default=20, help="do_bench's rep, in ms")
    parser.add_argument("--specialize", action="store_true",
                        help="the matmul with a generic signature and SPECIALIZE AUTO, at "
                             "shapes.MATMUL_SPECIALIZE_* (the matmul only)")
    parser.add_argument("--method", choices=("flush", "graph"), default="flush",
                        help="flush: L2 flushed before each launch, as the tuner times; graph: "
                             "warm CUDA-graph replays")
    args = parser.parse_args()
    args_rep, args_method = args.rep_ms, args.method
    os.makedirs(args.work, exist_ok=True)
    import torch
    print(torch.cuda.get_device_name(), flush=True)
    library, tuner_seconds = build(args)
    tuned = Tuned(library)
    rows = []
    sets = [("matmul", shapes.MATMUL_TUNED, shapes.MATMUL_HELD_OUT, matmul_case),
            ("rms_norm", shapes.RMS_TUNED, shapes.RMS_HELD_OUT, rms_case)]
    if args.specialize:
        sets = [("matmul", shapes.MATMUL_SPECIALIZE_TUNED, shapes.MATMUL_SPECIALIZE_HELD_OUT,
                 matmul_case)]
    for name, tuned_shapes, held, make in sets:
        for shape in tuned_shapes:
            rows.append(measure(tuned, name, shape, False, make))
        for shape in held:
            rows.append(measure(tuned, name, shape, True, make))
    summarize(rows, tuner_seconds)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        with open(os.path.splitext(args.csv)[0] + ".tuning.json", "w") as f:
            f.write(open(os.path.join(args.work, "tuning_bench.tuning.json")).read())
    return 0


args_rep, args_method = 20, "flush"

if __name__ == "__main__":
    sys.exit(main())
