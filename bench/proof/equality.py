#!/usr/bin/env python3
"""Equality with Triton (docs/benchmarks.md): every kernel and config of triton-aot libraries,
run through the library's C entry point and through Triton's own launch of the same @jit
function on the same inputs, must give outputs equal bit for bit. Also reports whether the JIT
compiled the very image the library dispatched to, and each one's device time.

    python3 bench/proof/equality.py build/proof/libproof_kernels.so build/proof/libproof_gluon.so \
        --csv out/equality.csv

With --numeric the libraries come from another Triton (built elsewhere, carried here), so
equal bits are not expected: each output is checked against a torch reference within the
kernel's tolerance (references.py), and its distance from this machine's JIT is reported
(elements that differ, max absolute and relative error). --source-root finds the kernel
sources the manifest names under this checkout.

    python3 bench/proof/equality.py --numeric --source-root . build/proof-3.9/libproof_kernels.so \
        build/proof-3.9/libproof_gluon.so --csv out/numeric.csv

Exit status: 0 all equal (--numeric: all within tolerance), 1 a mismatch or an error (each
printed), 77 skipped (no torch, Triton or GPU), 2 bad usage.
"""
import argparse
import csv
import hashlib
import importlib.util
import os
import random
import statistics
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proof_lib  # noqa: E402
import references  # noqa: E402

SKIP = 77
# Bit patterns for comparison: each element type as the integer type of its width.
POISON_BYTE = 0xFF  # all ones: a NaN in fp16, bf16 and fp32, -1 in integers


class Case:
    """One run of a kernel: its arguments (parameter name -> tensor or Python scalar), the
    output parameters with the region each must write (a function of the tensor)."""

    def __init__(self, shape, args, outputs):
        self.shape = shape
        self.args = args
        self.outputs = outputs


def round16(n):
    return (n + 15) // 16 * 16


# Inputs per kernel. Every size is off the block sizes, and an unhinted integer is neither a
# multiple of 16 nor 1 (nor is a hinted one anything but a multiple of 16), so Triton's JIT
# specialises the arguments as the library's variant does; strides are padded to 16 elements.
def cases_for(kernel_name, constexprs, torch, gen, dev):
    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=gen, device=dev, dtype=torch.float32).to(dtype)

    def empty(*shape, dtype=torch.float32):
        return torch.empty(*shape, device=dev, dtype=dtype)

    def whole(t):
        return t

    if kernel_name in ("vector_add", "gluon_add", "gluon_add_wave64"):
        cases = []
        # vector_add has a hinted variant (n % 16 == 0) and a generic one: a size for each.
        # The Gluon kernel declares n without a hint, so only a size off 16 matches its image.
        sizes = (1_000_000, 1_000_003) if kernel_name == "vector_add" else (1_000_003,)
        for n in sizes:
            cases.append(Case(f"n={n}", dict(x_ptr=randn(n), y_ptr=randn(n), out_ptr=empty(n),
                                             n_elements=n), {"out_ptr": whole}))
        return cases
    if kernel_name == "softmax":
        rows, cols = 1000, constexprs["BLOCK"] - 27   # one program holds a row: cols <= BLOCK
        stride = round16(cols)
        return [Case(f"{rows}x{cols}", dict(
            out_ptr=empty(rows, stride), in_ptr=randn(rows, stride), in_row_stride=stride,
            out_row_stride=stride, n_rows=rows, n_cols=cols), {"out_ptr": lambda t: t[:, :cols]})]
    if kernel_name in ("matmul", "matmul_bf16"):
        dtype = torch.float16 if kernel_name == "matmul" else torch.bfloat16
        # The kernels wrap rows/columns past M and N (Triton's tutorial layout) and promise
        # 16-element-aligned wraps: N is a multiple of 16 (not of any block), M and K are not.
        M, N, K = 1531, 1200, 1007
        ka, nb = round16(K), round16(N)
        return [Case(f"{M}x{N}x{K}", dict(
            a_ptr=randn(M, ka, dtype=dtype), b_ptr=randn(K, nb, dtype=dtype),
            c_ptr=empty(M, nb, dtype=dtype), M=M, N=N, K=K, stride_am=ka, stride_bk=nb,
            stride_cm=nb), {"c_ptr": lambda t: t[:, :N]})]
    if kernel_name == "layer_norm":
        rows, cols = 2001, 3001
        stride = round16(cols)
        return [Case(f"{rows}x{cols}", dict(
            x_ptr=randn(rows, stride, dtype=torch.float16), y_ptr=empty(rows, stride, dtype=torch.float16),
            w_ptr=randn(cols, dtype=torch.float16), b_ptr=randn(cols, dtype=torch.float16),
            mean_ptr=empty(rows), rstd_ptr=empty(rows), row_stride=stride, n_rows=rows, N=cols,
            eps=1e-5), {"y_ptr": lambda t: t[:, :cols], "mean_ptr": whole, "rstd_ptr": whole})]
    if kernel_name in ("attention_fwd", "attention_fwd_causal"):
        heads, n_ctx, d = 6, 1000, constexprs["HEAD_DIM"]   # batch 2 x 3 heads, flattened
        qkv = [randn(heads, n_ctx, d, dtype=torch.float16) for _ in range(3)]
        return [Case(f"{heads}x{n_ctx}x{d}", dict(
            q_ptr=qkv[0], k_ptr=qkv[1], v_ptr=qkv[2], out_ptr=empty(heads, n_ctx, d, dtype=torch.float16),
            lse_ptr=empty(heads, n_ctx), sm_scale=d ** -0.5, heads=heads, N_CTX=n_ctx),
            {"out_ptr": whole, "lse_ptr": whole})]
    if kernel_name == "scale_shift":
        n = 1_000_003
        cases = []
        for use_beta in (True, False):
            # Scalars exactly representable at their C width: both launches pass the same bits.
            alpha = float(randn(1).item())
            beta = float(randn(1, dtype=torch.float16).item())
            cases.append(Case(f"n={n} use_beta={int(use_beta)}", dict(
                x_ptr=randn(n), out_ptr=empty(n), alpha=alpha, beta=beta, n_elements=n,
                use_beta=use_beta), {"out_ptr": whole}))
        return cases
    return None


def bits(torch, t):
    width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return t.contiguous().view(width)


def poison(torch, case):
    for name in case.outputs:
        case.args[name].view(torch.uint8).fill_(POISON_BYTE)


def resolve_source(kernel, source_root=None, exists=os.path.isfile):
    """The file of a manifest kernel's source here. With `source_root` (a checkout of the tree
    the library was built from, on another machine) the manifest's absolute path is rebased
    onto it first, even where that path also exists here: it may be another, older checkout."""
    source = kernel["source"]
    if source_root:
        rebased = references.rebase_source(source, os.path.abspath(source_root), exists)
        if rebased:
            return rebased
    if exists(source):
        return source
    raise FileNotFoundError(
        f"the kernel source {source} named by the manifest is not here" +
        (f", nor any tail of it under --source-root {source_root}" if source_root else
         " (build the library on this machine, or give --source-root CHECKOUT)"))


def load_function(kernel, source_root=None):
    """The @triton.jit / @gluon.jit function of a manifest kernel, imported from its source
    (found under `source_root` when the library was built in another directory)."""
    source = resolve_source(kernel, source_root)
    name = "proof_src_" + hashlib.sha1(source.encode()).hexdigest()[:12]
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, source)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return getattr(sys.modules[name], kernel["function"])


def device_target(torch):
    """The manifest's spelling of this GPU's target ("cuda:90a", "hip:gfx942")."""
    if torch.version.hip:
        return "hip:" + torch.cuda.get_device_properties(0).gcnArchName.split(":")[0]
    major, minor = torch.cuda.get_device_capability()
    arch = f"{major}{minor}"
    return f"cuda:{arch}a" if major >= 9 else f"cuda:{arch}"


def time_pair(torch, launches, repetitions, sleep_cycles):
    """Median device time (µs) of each launch, from CUDA events around it; each timed launch
    waits behind a _sleep kernel, so the host's launch cost never shows. Alternating order."""
    events = [[] for _ in launches]
    for rep in range(repetitions):
        order = range(len(launches)) if rep % 2 == 0 else reversed(range(len(launches)))
        for i in order:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(sleep_cycles)
            start.record()
            launches[i]()
            end.record()
            events[i].append((start, end))
    torch.cuda.synchronize()
    return [statistics.median(s.elapsed_time(e) * 1000.0 for s, e in pairs) for pairs in events]


def run_case(torch, lib, kernel, config, fn, case, target, args_ns):
    """Returns the CSV row of one kernel, config and case; raises on an error."""
    stream = torch.cuda.current_stream().cuda_stream
    param_names = [p["name"] for p in kernel["params"]]
    c_args = {n: (v.data_ptr() if hasattr(v, "data_ptr") else v) for n, v in case.args.items()}
    grid_names = dict(c_args)
    grid_names.update({k: int(v) for k, v in config["constexprs"].items()
                       if isinstance(v, (bool, int))})
    grid = proof_lib.eval_grid(kernel["grid"], grid_names)
    jit_kwargs = dict(case.args)
    jit_kwargs.update(config["constexprs"])
    jit_kwargs.update({n: 1 for n in kernel["specialized_to_one_params"]})
    jit_kwargs.update(config["options"])
    jit_kwargs.update(num_warps=config["num_warps"], num_stages=config["num_stages"])

    def lib_launch():
        status = lib.call(kernel, config["index"], stream, c_args)
        if status != 0:
            raise RuntimeError(f"{lib.prefix}_{kernel['name']}_config() returned {status}: "
                               f"{lib.last_error()}")

    def triton_launch():
        return fn[grid](**jit_kwargs)

    poison(torch, case)
    lib_launch()
    torch.cuda.synchronize()
    lib_out = {n: case.args[n].clone() for n in case.outputs}
    poison(torch, case)
    mismatches, notes = 0, []
    try:
        compiled = triton_launch()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        if not args_ns.numeric:
            raise
        # --numeric: the JIT of this machine's Triton is only a point of comparison (the
        # kernel may use what this Triton lacks): its failure is reported, not a failure.
        compiled = None
        notes.append(f"this Triton's JIT failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}")

    if args_ns.numeric:
        numbers = compare_numeric(torch, kernel, config, case, lib_out, compiled is not None)
        mismatches = 0 if numbers["within_tolerance"] == "yes" else 1
        notes += numbers.pop("notes")
    for name, region in case.outputs.items():
        if not args_ns.numeric:
            a, b = bits(torch, lib_out[name]), bits(torch, case.args[name])
            diff = int((a != b).sum().item())
            mismatches += diff
            if diff:
                notes.append(f"{name}: {diff} of {a.numel()} elements differ")
        # Equal (or close) is only worth something if the kernel wrote its outputs at all.
        left = int((bits(torch, region(lib_out[name])) == -1).sum().item())
        if left:
            notes.append(f"{name}: {left} elements of the written region still poisoned")
            mismatches += left

    variant = proof_lib.chosen_variant(config, c_args)
    same_image = "n/a"
    if variant is None:
        notes.append("no variant accepts the arguments")
    elif compiled is not None:
        function = next((f for f in variant["functions"] if f["target"] == target), None)
        asm_kind = "hsaco" if target.startswith("hip:") else "cubin"
        if function is None:
            notes.append(f"the library has no {target} image: the runtime chose another target")
        elif asm_kind in compiled.asm:
            jit_sha = hashlib.sha256(compiled.asm[asm_kind]).hexdigest()
            same_image = "yes" if jit_sha == function["image"]["sha256"] else "no"
            if same_image == "no":
                hints, types = proof_lib.jit_hints(compiled, param_names)
                why = proof_lib.specialization_difference(variant, kernel["params"], hints, types)
                notes.append("JIT image differs: " + (
                    why or "same specialisation (options, version or compiler flags differ)"))

    if compiled is not None:
        lib_us, triton_us = time_pair(torch, [lib_launch, triton_launch], args_ns.repetitions,
                                      args_ns.sleep_cycles)
        times = dict(lib_us=f"{lib_us:.2f}", triton_us=f"{triton_us:.2f}",
                     ratio=f"{lib_us / triton_us:.3f}")
    else:
        (lib_us,) = time_pair(torch, [lib_launch], args_ns.repetitions, args_ns.sleep_cycles)
        times = dict(lib_us=f"{lib_us:.2f}", triton_us="n/a", ratio="n/a")
    row = dict(kernel=kernel["name"], config=config["name"], shape=case.shape,
                equal="yes" if mismatches == 0 else "no", mismatches=mismatches,
                same_image=same_image, **times,
                variant=proof_lib.hints_text(variant["hints"]) if variant else "",
                note="; ".join(notes))
    if args_ns.numeric:
        row.update(numbers)
    return row


def compare_numeric(torch, kernel, config, case, lib_out, jit_ran=True):
    """The library's outputs against the torch reference (within tolerance?) and against this
    machine's JIT, whose outputs are in case.args (unless it failed: jit_ran False, its figures
    "n/a"): the worst figures over all outputs."""
    want = references.reference(torch, kernel["name"], case.args, config["constexprs"])
    if want is None:
        raise ValueError(f"references.py has no reference for {kernel['name']}")
    atol, rtol = references.TOLERANCES[kernel["name"]]
    out = dict(jit_differing=0, jit_elements=0, jit_max_abs=0.0, jit_max_rel=0.0, ref_max_abs=0.0,
               ref_max_rel=0.0, within_tolerance="yes", tolerance=f"{atol:g}+{rtol:g}*|ref|",
               notes=[])
    for name, region in case.outputs.items():
        got = region(lib_out[name])
        out["jit_elements"] += got.numel()
        if jit_ran:
            count, abs_err, rel_err = references.differences(torch, got, region(case.args[name]))
            out["jit_differing"] += count
            out["jit_max_abs"] = max(out["jit_max_abs"], abs_err)
            out["jit_max_rel"] = max(out["jit_max_rel"], rel_err)
        _, abs_ref, rel_ref = references.differences(torch, got, want[name])
        out["ref_max_abs"] = max(out["ref_max_abs"], abs_ref)
        out["ref_max_rel"] = max(out["ref_max_rel"], rel_ref)
        if not references.within(torch, kernel["name"], got, want[name]):
            out["within_tolerance"] = "no"
            out["notes"].append(f"{name}: beyond tolerance {out['tolerance']} of the reference "
                                f"(max abs {abs_ref:.3g})")
    for key in ("jit_max_abs", "jit_max_rel", "ref_max_abs", "ref_max_rel"):
        out[key] = f"{out[key]:.3g}"
    if not jit_ran:
        out.update(jit_differing="n/a", jit_max_abs="n/a", jit_max_rel="n/a")
    return out


def numeric_summary(row):
    return (f"{'within tolerance' if row['within_tolerance'] == 'yes' else 'BEYOND TOLERANCE'} of "
            f"the reference (max abs {row['ref_max_abs']}, rel {row['ref_max_rel']}); vs the JIT: "
            f"{row['jit_differing']} of {row['jit_elements']} elements differ (max abs "
            f"{row['jit_max_abs']}, rel {row['jit_max_rel']})")


# The summary table printed at the end of a run: (title, CSV column) per mode.
TABLE_EQUAL = [("kernel", "kernel"), ("config", "config"), ("shape", "shape"), ("equal", "equal"),
               ("differing", "mismatches"), ("same image", "same_image"), ("lib/triton", "ratio")]
TABLE_NUMERIC = [("kernel", "kernel"), ("config", "config"), ("shape", "shape"),
                 ("pass", "within_tolerance"), ("ref max abs", "ref_max_abs"),
                 ("tolerance", "tolerance"), ("differ from JIT", "jit_differing"),
                 ("of", "jit_elements"), ("JIT max abs", "jit_max_abs"),
                 ("JIT max rel", "jit_max_rel"), ("lib/triton", "ratio")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("libraries", nargs="+", help="generated shared libraries (lib<prefix>.so)")
    ap.add_argument("--prefix", action="append", default=[],
                    help="C prefix of each library, in order (default: from the file name)")
    ap.add_argument("--csv", help="write one row per kernel, config and shape here")
    ap.add_argument("--seed", type=int, help="input seed (default: a fresh one, printed)")
    ap.add_argument("--repetitions", type=int, default=50, help="timed launches per method")
    ap.add_argument("--sleep-cycles", type=int, default=1_000_000,
                    help="GPU cycles of the _sleep before each timed launch (keeps the queue busy)")
    ap.add_argument("--kernel", action="append", default=[], help="only these kernels")
    ap.add_argument("--numeric", action="store_true",
                    help="libraries of another Triton: check against torch references, report "
                         "the distance from this Triton's JIT instead of requiring equal bits")
    ap.add_argument("--source-root", help="find the manifest's kernel sources under this directory")
    args_ns = ap.parse_args()

    try:
        import torch
        import triton  # noqa: F401
    except ImportError as e:
        print(f"equality: skipped: {e}")
        return SKIP
    if not torch.cuda.is_available():
        print("equality: skipped: torch sees no GPU")
        return SKIP

    libs = []
    for i, path in enumerate(args_ns.libraries):
        prefix = args_ns.prefix[i] if i < len(args_ns.prefix) else None
        try:
            libs.append(proof_lib.Library(path, prefix))
        except (OSError, ValueError) as e:
            print(f"equality: error: cannot use {path}: {e}")
            return 1

    seed = args_ns.seed if args_ns.seed is not None else random.SystemRandom().randrange(2**31)
    target = device_target(torch)
    lib_versions = " ".join(sorted({v for lib in libs for v in lib.manifest.get("triton_versions", [])}))
    print(f"equality: seed {seed} (--seed {seed} repeats this run); {torch.cuda.get_device_name()} "
          f"({target}); torch {torch.__version__}, triton {triton.__version__}; the libraries' "
          f"Triton: {lib_versions}" + (" (--numeric: against torch references)" if args_ns.numeric else ""))
    if not args_ns.numeric and lib_versions and lib_versions != triton.__version__:
        print(f"equality: note: the libraries come from Triton {lib_versions}, this is "
              f"{triton.__version__}: equal bits are not to be expected (--numeric checks them "
              "against torch references instead)")
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)

    rows, failures = [], 0
    for lib in libs:
        for kernel in lib.kernels:
            if args_ns.kernel and kernel["name"] not in args_ns.kernel:
                continue
            backend = target.split(":")[0] + ":"
            if not any(t.startswith(backend) for t in kernel["targets"]):
                print(f"  {kernel['name']}: skipped: {lib.prefix} has no image for {target} "
                      f"(targets {', '.join(kernel['targets'])})")
                continue
            try:
                fn = load_function(kernel, args_ns.source_root)
            except Exception as e:  # noqa: BLE001: every failure is reported, the run goes on
                print(f"  {kernel['name']}: ERROR importing {kernel['function']}: {e}")
                failures += 1
                continue
            for config in kernel["configs"]:
                cases = cases_for(kernel["name"], config["constexprs"], torch, gen, dev)
                if cases is None:
                    print(f"  {kernel['name']}: ERROR: equality.py has no inputs for this kernel")
                    failures += 1
                    break
                for case in cases:
                    what = f"{kernel['name']} [{config['name']}] {case.shape}"
                    try:
                        row = run_case(torch, lib, kernel, config, fn, case, target, args_ns)
                    except Exception as e:  # noqa: BLE001
                        print(f"  {what}: ERROR: {e}")
                        traceback.print_exc(limit=3)
                        failures += 1
                        continue
                    row["library_triton"] = " ".join(lib.manifest.get("triton_versions", [])) or "?"
                    rows.append(row)
                    if row["equal"] != "yes":
                        failures += 1
                    print(f"  {what}: " + (numeric_summary(row) if args_ns.numeric else
                          f"{'equal' if row['equal'] == 'yes' else 'MISMATCH'}"
                          f" ({row['mismatches']} differing), same image: {row['same_image']}") +
                          f", lib {row['lib_us']} us, triton {row['triton_us']} us, "
                          f"ratio {row['ratio']}" + (f"; {row['note']}" if row["note"] else ""))
    if rows:
        print("\n".join(proof_lib.format_table(rows, TABLE_NUMERIC if args_ns.numeric else TABLE_EQUAL)))
    if args_ns.csv:
        os.makedirs(os.path.dirname(os.path.abspath(args_ns.csv)), exist_ok=True)
        with open(args_ns.csv, "w", newline="") as f:
            fields = ["kernel", "config", "shape", "equal", "mismatches", "same_image", "lib_us",
                      "triton_us", "ratio", "variant", "note"]
            if args_ns.numeric:
                fields[3:5] = ["library_triton", "jit_triton", "within_tolerance", "ref_max_abs",
                               "ref_max_rel", "tolerance", "jit_differing", "jit_elements",
                               "jit_max_abs", "jit_max_rel"]
                for row in rows:
                    row.update(jit_triton=triton.__version__)
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
        print(f"equality: wrote {args_ns.csv}")
    if not rows and not failures:
        print("equality: skipped: no kernel has an image for this GPU")
        return SKIP
    print(f"equality: {len(rows)} runs, {failures} failed (seed {seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
