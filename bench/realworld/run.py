"""Other projects' kernels, unedited, through triton-aot: record, declare, build, replay.

    python3 bench/realworld/run.py gpu --workload liger --work build/realworld \\
        --tritonaot-dir build/device-install/lib/cmake/TritonAOT --arch 90a
    python3 bench/realworld/run.py dry --workload liger [--build ...]   # no GPU

1. Runs the workload (bench/realworld/workloads/<name>.py: the project's own Python ops on small
   tensors) while launch_capture records every kernel launch.
2. Writes one `triton_add_kernel()` per kernel and argument types (declarations.py) into a CMake
   project, each in a shared library of its own, and builds it with `ninja -k 0`.
3. gpu: replays every recorded launch through its library and compares memory byte for byte
   with Triton's own launch (replay.py).
4. Reports, for every kernel of the workload's MODULES: launched or not (or a device helper
   that only other kernels call), built or why not, launches equal. Exit 1 when a built kernel
   differs.
"""
import argparse
import csv
import importlib.util
import os
import re
import subprocess
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)


def load_workload(name):
    path = os.path.join(HERE, "workloads", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"workload_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def missing_gpu_or_modules(workload_name, need_gpu=True):
    """Why this machine cannot run the workload (on a GPU), or "" when it can."""
    try:
        import torch
    except ImportError:
        return f"{sys.executable} has no torch"
    if need_gpu and not torch.cuda.is_available():
        return "torch sees no GPU"
    try:
        if not need_gpu:
            from launch_capture import dry_driver
            with dry_driver():
                for module in load_workload(workload_name).MODULES:
                    importlib.import_module(module)
            return ""
        for module in load_workload(workload_name).MODULES:
            importlib.import_module(module)
    except ImportError as e:
        return f"{sys.executable} cannot import {e.name} (pip install it, or --no-deps --target)"
    return ""


def run_cases(workload, mode, device, shard=(0, 1), untuned=False):
    """Runs the workload's cases (those of shard i of n) while recording their launches."""
    from launch_capture import Recorder
    failures = {}
    cases = [c for k, c in enumerate(workload.cases()) if k % shard[1] == shard[0]]
    started = time.monotonic()
    with Recorder(mode, untuned) as recorder:
        for number, (case, fn) in enumerate(cases, 1):
            # Progress, so that a run cut short by a machine's time limit says how far it got.
            print(f"[{time.monotonic() - started:5.0f} s] case {number}/{len(cases)}: {case}",
                  flush=True)
            try:
                fn(device)
            except Exception as e:  # a case that fails is reported, the others still run
                failures[case] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                if os.environ.get("REALWORLD_TRACE"):
                    traceback.print_exc()
    return recorder.launches, failures


def inventory(workload):
    """[(module, attribute, JITFunction)] of every kernel the workload's modules define, one per
    JIT function (a wrapper and the function it wraps count once, under the wrapper's name)."""
    from declarations import innermost, module_kernels
    kernels = []
    for module_name in workload.MODULES:
        module = importlib.import_module(module_name)
        by_jit = {}
        for attr, obj in module_kernels(module).items():
            jit = innermost(obj)
            if id(jit) not in by_jit or obj is not jit:
                by_jit[id(jit)] = (module_name, attr, jit)
        kernels += by_jit.values()
    return kernels


def is_helper(jit, callers):
    """A @triton.jit function other kernels call (or pass, as a tl.reduce combine function):
    Triton compiles it only inside them."""
    call = re.compile(r"\b" + re.escape(jit.fn.__name__) + r"\b")
    return any(other is not jit and call.search(other.src.split(":", 1)[-1]) for other in callers)


def possible_callers(kernels, launches):
    """Every JIT function that may call a kernel of the inventory: the inventory's, those every
    loaded module holds (fla's `fla.ops.utils.op` serves kernels all over the package), and
    those of the launched kernels' modules, which a project may make at run time (FlagGems'
    generated pointwise kernels call the scalar functions of its modules)."""
    from declarations import innermost
    from triton.runtime.jit import JITFunction
    seen = {id(jit): jit for _, _, jit in kernels}
    namespaces = [getattr(m, "__dict__", {}) for m in list(sys.modules.values())]
    namespaces += [launch.jit.fn.__globals__ for launch in launches]
    with warnings.catch_warnings():  # deprecated module attributes (torch.distributed's) warn
        warnings.simplefilter("ignore")
        for namespace in namespaces:
            for obj in list(namespace.values()):
                jit = innermost(obj)
                if isinstance(jit, JITFunction):
                    seen.setdefault(id(jit), jit)
    seen.update((id(launch.jit), launch.jit) for launch in launches)
    return list(seen.values())


def outside_kernels(kernels, launches, entries):
    """[(module, attribute, JITFunction)] of the launched kernels no module of MODULES holds:
    another module of the project, or one it wrote at run time (FlagGems' pointwise kernels,
    whose module names carry a hash of the code and, some, the process id: left out here)."""
    counted, out = {id(jit) for _, _, jit in kernels}, {}
    for e in entries:
        for index in e.launches:
            jit = launches[index].jit
            if id(jit) not in counted:
                out.setdefault(id(jit), (re.sub(r"_pid_\d+", "", e.module), e.attribute, jit))
    return list(out.values())


def build(entries, work, tritonaot_dir, arch, python):
    """Configures and builds the declarations; {entry name: None (built) or why not}."""
    from declarations import cmake_project
    project, build_dir = os.path.join(work, "project"), os.path.join(work, "build")
    os.makedirs(project, exist_ok=True)
    remaining, results = list(entries), {}
    while True:
        text, lines = cmake_project(remaining)
        with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
            f.write(text)
        configure = [
            "cmake", "-S", project, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            f"-DTritonAOT_DIR={tritonaot_dir}", f"-DCMAKE_TRITON_ARCHITECTURES={arch}"]
        if python:
            configure.append(f"-DTRITON_AOT_PYTHON={python}")
        done = subprocess.run(configure, capture_output=True, text=True)
        if done.returncode == 0:
            break
        failed = {e.name for e, line in zip(remaining, lines)
                  if re.search(rf"CMakeLists\.txt:{line} \(triton_add_kernel\)", done.stderr)}
        if not failed:
            raise RuntimeError("configure failed:\n" + done.stderr[-4000:])
        for e in remaining:
            if e.name in failed:
                results[e.name] = "configure: " + _first_error(done.stderr)
        remaining = [e for e in remaining if e.name not in failed]
    print(f"building {len(remaining)} entry points ({len(results)} refused at configure)", flush=True)
    subprocess.run(["cmake", "--build", build_dir, "--", "-k", "0"], capture_output=True, text=True)
    for e in remaining:
        if os.path.exists(library_path(work, e)):
            results[e.name] = None
            continue
        again = subprocess.run(["cmake", "--build", build_dir, "--target", f"lib_{e.name}"],
                               capture_output=True, text=True)
        results[e.name] = _first_error(again.stdout + again.stderr)
    return results


def library_path(work, entry):
    return os.path.join(work, "build", f"liblib_{entry.name}.so")


def _first_error(text):
    for line in text.splitlines():
        if "error" in line.lower() and "ninja: build stopped" not in line:
            return line.strip()[:400]
    return text.strip().splitlines()[-1][:400] if text.strip() else "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["gpu", "dry", "merge"])
    parser.add_argument("inputs", nargs="*", help="merge: the CSVs of the shards")
    parser.add_argument("--workload")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "realworld"))
    parser.add_argument("--tritonaot-dir", default=os.path.join(ROOT, "build", "default"))
    parser.add_argument("--arch", default="90a")
    parser.add_argument("--python", default=sys.executable,
                        help="TRITON_AOT_PYTHON of the build (default: this interpreter, whose "
                             "Triton made the recorded launches)")
    parser.add_argument("--build", action="store_true", help="dry: build the declarations too")
    parser.add_argument("--csv", help="write one row per kernel")
    parser.add_argument("--shard", default="0/1", metavar="I/N",
                        help="run only cases i, i+n, i+2n...: a workload too long for one run "
                             "(a GPU machine's time limit) in n runs; `merge` adds their CSVs")
    parser.add_argument("--first-config", action="store_true",
                        help="declare an autotuned kernel with the config it launched with (in a "
                             "dry run its decorator's first) instead of all its decorator's: "
                             "which kernels build, on a machine with few CPUs")
    parser.add_argument("--untuned", action="store_true",
                        help="gpu: autotuned kernels launch their first config Triton compiles "
                             "for the GPU, none timed (the comparison is still with Triton's own "
                             "launch); with --first-config, one config declared per launch")
    parser.add_argument("--every-config", action="store_true",
                        help="gpu: also run every config of each autotuned launch through Triton "
                             "and the library (not only the one the autotuner chose)")
    args = parser.parse_args()
    if args.mode == "merge":
        return merge(args)
    if not args.workload:
        parser.error("--workload is required")

    if args.mode == "gpu" or args.build:
        why = missing_gpu_or_modules(args.workload, need_gpu=args.mode == "gpu")
        if why:
            print(f"REALWORLD-SKIP: {why}")
            return 0
    from declarations import build_entries
    workload = load_workload(args.workload)
    work = os.path.join(os.path.abspath(args.work), args.workload)
    os.makedirs(work, exist_ok=True)
    shard = tuple(int(x) for x in args.shard.split("/"))
    started = time.monotonic()
    if args.mode == "dry":
        from launch_capture import dry_driver
        with dry_driver():
            kernels = inventory(workload)
            launches, failures = run_cases(workload, "dry", "cpu", shard)
    else:
        kernels = inventory(workload)
        launches, failures = run_cases(workload, "gpu", "cuda", shard, args.untuned)
    for case, why in failures.items():
        print(f"case {case} failed: {why}")
    print(f"recorded {len(launches)} launches in {time.monotonic() - started:.0f} s", flush=True)
    entries, skipped = build_entries(launches, getattr(workload, "DECLARE", {}), args.first_config)
    for index, why in skipped.items():
        print(f"launch {index} of {launches[index].name}: {why}")
    started = time.monotonic()
    built = build(entries, work, os.path.abspath(args.tritonaot_dir), args.arch, args.python) \
        if args.mode == "gpu" or args.build else {}
    if built:
        print(f"built {sum(v is None for v in built.values())} of {len(built)} entry points in "
              f"{time.monotonic() - started:.0f} s", flush=True)

    args.expected_failures = getattr(workload, "EXPECTED_FAILURES", {})
    replays, config_rows = ({}, {}) if args.mode == "dry" else \
        replay_all(entries, launches, built, work, args.every_config)
    return report(kernels, launches, entries, built, replays, config_rows, args)


def replay_all(entries, launches, built, work, every):
    """({launch index: row}, {launch index: [row per config]}) of every built entry's launches."""
    from replay import every_config, replay
    replays, config_rows = {}, {}
    for e in entries:
        if built.get(e.name, "") is not None:
            continue
        for index in e.launches:
            launch = launches[index]
            if launch.note:
                replays[index] = {"equal": "skipped", "note": launch.note}
                continue
            # One launch that cannot be replayed is reported, not fatal; nor is a failure of the
            # every-config run, which must not hide the launch's own result.
            try:
                replays[index] = replay(library_path(work, e), e.name, launch)
            except Exception as ex:  # noqa: BLE001
                replays[index] = {"equal": "error", "note": f"{type(ex).__name__}: {ex}"}
                continue
            if every and launch.autotuner is not None:
                try:
                    config_rows[index] = every_config(library_path(work, e), e.name, launch)
                except Exception as ex:  # noqa: BLE001
                    config_rows[index] = [{"config": "?", "equal": "error",
                                           "note": f"every config: {type(ex).__name__}: {ex}"}]
    return replays, config_rows


def report(kernels, launches, entries, built, replays, config_rows, args):
    rows = []
    callers = possible_callers(kernels, launches)
    outside = outside_kernels(kernels, launches, entries)
    for module_name, attr, jit in kernels + outside:
        mine = [e for e in entries if any(launches[i].jit is jit for i in e.launches)]
        row = {"kernel": f"{module_name}.{attr}", "entries": len(mine)}
        if not mine:
            row["status"] = "helper" if is_helper(jit, callers) else "not launched"
        else:
            row["status"] = "launched"
            if built:
                failed = [built[e.name] for e in mine if built.get(e.name, "") is not None]
                row["built"] = f"{len(mine) - len(failed)}/{len(mine)}"
                row["why"] = failed[0] if failed else ""
            rs = [replays[i] for e in mine for i in e.launches if i in replays]
            if rs:
                # "close": Triton's own launches differ (float atomics), equal by value.
                row["equal"] = f"{sum(r['equal'] in ('yes', 'close') for r in rs)}/{len(rs)}"
                row["by_value"] = sum(r["equal"] == "close" for r in rs)
                notes = [r.get("note", "") or f"{r.get('differing_bytes')} bytes differ"
                         for r in rs if r["equal"] != "yes"]
                row["why"] = row.get("why") or (notes[0] if notes else "")
            cs = [c for e in mine for i in e.launches for c in config_rows.get(i, [])]
            if cs:
                # "refused": Triton cannot run the config on this device, nor does the library.
                row["configs"] = f"{sum(c['equal'] in ('yes', 'close', 'refused') for c in cs)}/{len(cs)}"
                row["refused"] = sum(c["equal"] == "refused" for c in cs)
                bad = [c for c in cs if c["equal"] not in ("yes", "close", "refused", "skipped")]
                row["configs_differ"] = bool(bad)
                row["why"] = row.get("why") or (f"config {bad[0]['config']}: {bad[0].get('note') or bad[0].get('differing_bytes')}" if bad else "")
        rows.append(row)
    launched = [r for r in rows if r["status"] == "launched"]
    complete = [r for r in launched if r.get("built", "").split("/")[0] == r.get("built", "/").split("/")[-1]
                and r.get("built")]
    equal = [r for r in launched if r.get("equal") and r["equal"].split("/")[0] == r["equal"].split("/")[1]]
    for r in rows:
        print(f"{r['kernel']:70} {r['status']:12} built {r.get('built', '-'):5} "
              f"equal {r.get('equal', '-'):6} "
              + (f"every config {r['configs']:6} " if r.get("configs") else "") + r.get("why", ""))
    print(f"\n{args.workload}: {len(rows)} @triton.jit functions, "
          f"{sum(r['status'] == 'helper' for r in rows)} device helpers, "
          f"{len(launched)} launched by the workload"
          + (f" ({len(outside)} of them in modules not in MODULES)"
             if outside else "") + ", "
          + (f"{len(complete)} of them built ({100.0 * len(complete) / max(1, len(launched)):.1f}%)"
             if built else "not built")
          + (f", {len(equal)} equal to Triton's launch in every recorded launch" if replays else "")
          + (f" ({sum(bool(r.get('by_value')) for r in equal)} of them by value: Triton's own "
             "launches of those differ)" if any(r.get("by_value") for r in equal) else ""))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, ["kernel", "status", "entries", "built", "equal", "by_value", "configs", "why"],
                               extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    differs = [r for r in launched if r.get("equal") and r not in equal]
    differs += [r for r in launched if r.get("configs_differ")]
    # A kernel that does not build fails the run, unless the workload says why it cannot
    # (Triton itself cannot compile it: EXPECTED_FAILURES).
    expected = getattr(args, "expected_failures", {})
    unbuilt = [r for r in launched if built and r not in complete and r["kernel"] not in expected]
    for r in unbuilt:
        print(f"error: {r['kernel']} did not build: {r.get('why', '')}")
    return 1 if differs or unbuilt else 0


def _fraction(text):
    done, total = (int(x) for x in text.split("/")) if text else (0, 0)
    return done, total


def merge(args):
    """One report from the CSVs of a workload's shards: a kernel is launched when any shard
    launched it; its built, equal and every-config counts add up."""
    rows = {}
    for path in args.inputs:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                old = rows.setdefault(row["kernel"], dict(row))
                if old is row or old == row:
                    continue
                if row["status"] == "launched" and old["status"] != "launched":
                    rows[row["kernel"]] = dict(row)
                    continue
                if row["status"] != "launched":
                    continue
                for key in ("built", "equal", "configs"):
                    a, b = _fraction(old.get(key)), _fraction(row.get(key))
                    if a[1] or b[1]:
                        old[key] = f"{a[0] + b[0]}/{a[1] + b[1]}"
                old["entries"] = str(int(old["entries"] or 0) + int(row["entries"] or 0))
                old["by_value"] = str(int(old.get("by_value") or 0) + int(row.get("by_value") or 0))
                old["why"] = old.get("why") or row.get("why", "")
    merged = list(rows.values())
    launched = [r for r in merged if r["status"] == "launched"]
    complete = [r for r in launched if r.get("built") and _fraction(r["built"])[0] == _fraction(r["built"])[1]]
    equal = [r for r in launched if r.get("equal") and _fraction(r["equal"])[0] == _fraction(r["equal"])[1]]
    for r in merged:
        print(f"{r['kernel']:70} {r['status']:12} built {r.get('built') or '-':5} "
              f"equal {r.get('equal') or '-':6} {r.get('why', '')}")
    print(f"\n{len(merged)} @triton.jit functions, {sum(r['status'] == 'helper' for r in merged)} device "
          f"helpers, {len(launched)} launched, {len(complete)} of them built, {len(equal)} equal to "
          "Triton's launch in every recorded launch"
          + (f" ({sum(int(r.get('by_value') or 0) > 0 for r in equal)} of them by value: Triton's own "
             "launches of those differ)" if any(int(r.get("by_value") or 0) for r in equal) else ""))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, ["kernel", "status", "entries", "built", "equal", "by_value", "configs", "why"],
                               extrasaction="ignore")
            w.writeheader()
            w.writerows(merged)
    return 1 if any(r.get("equal") and r not in equal for r in launched) else 0


if __name__ == "__main__":
    sys.exit(main())
