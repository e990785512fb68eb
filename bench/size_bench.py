#!/usr/bin/env python3
"""Size of a kernel set's library: the static archive, the shared library and the embedded
image blob, each with and without COMPRESS, against the sum of the raw images they hold and the
C source upstream compile.py would write for the same images. Results go to a CSV.

The set is built with bench/build_set (SIZE_VARIANTS: the four libraries from one compile).
Upstream's C (compile.py writes each image as a hex C array, one .c/.cpp and .h per image) is
  rendered  from compile.py's own templates, with its parameters computed as compile.py computes
            them (no GPU needed; --upstream render, the default),
  run       by running compile.py (bench/upstream_compile.py) for every image, on the same
            source files (needs a GPU driver, as compile.py does; --upstream run), or
  read      from a directory of compile.py's outputs for the same source files (--upstream DIR;
            bench/build_bench.py --size passes its first upstream build's).
The last two also check the rendering: each rendered file must equal compile.py's byte for byte.
"""
import argparse
import binascii
import csv
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import build_bench  # noqa: E402

LIBRARIES = [  # (suffix of the build_set target, file name ending, what it is)
    ("", ".a", "static library (.a)"), ("_z", ".a", "static library (.a), COMPRESS"),
    ("_shared", ".so", "shared library (.so)"), ("_shared_z", ".so", "shared library (.so), COMPRESS")]
GROUPS = ["build_set", "build_set_cuda", "build_set_hip"]  # bench/build_set/CMakeLists.txt


def default_csv(machine):
    return os.path.join(BENCH, "results", f"size_{machine}.csv")


def build(triton_aot, python, kernel_files, cuda_only, hip_only, architectures, build_dir, jobs, cmake,
          cache):
    package = os.path.abspath(triton_aot)
    where = (f"-DTritonAOT_DIR={package}" if os.path.exists(os.path.join(package, "TritonAOTConfig.cmake"))
             else f"-DCMAKE_PREFIX_PATH={package}")
    env = dict(os.environ, TRITON_AOT_CACHE_DIR=cache)
    for cmd in ([cmake, "-S", os.path.join(BENCH, "build_set"), "-B", build_dir, "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", where, f"-DTRITON_AOT_PYTHON={python}",
                 f"-DTRITON_AOT_CACHE_DIR={cache}", "-DTRITON_AOT_BENCH_SIZE_VARIANTS=ON",
                 *build_bench.set_definitions(kernel_files, cuda_only, hip_only),
                 f"-DTRITON_AOT_BENCH_ARCHITECTURES={architectures}"],
                [cmake, "--build", build_dir, "-j", str(jobs)]):
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            sys.exit(f"size_bench: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}")


def distinct_images(manifest):
    """{sha256: (kind, raw_size)} of every image and PTX the library embeds (each once)."""
    images = {}
    for kernel in manifest["kernels"]:
        for config in kernel["configs"]:
            for variant in config["variants"]:
                for function in variant["functions"]:
                    for key in ("image", "ptx"):
                        image = function.get(key)
                        if image:
                            images[image["sha256"]] = (image["kind"], image["raw_size"])
    return images


# ---- upstream's C, as compile.py writes it -----------------------------------------------

def _constexpr(text):
    """compile.py's constexpr(): an int, else a float, else None."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None


def render_upstream(spec, image, ty_to_cpp, template_dir):
    """{extension: text} that triton/tools/compile.py (Triton 3.6) writes for this variant:
    the same computation of its template parameters, the same templates."""
    arg_names_all = [p["name"] for p in spec["params"]
                     if p["kind"] not in ("global_scratch", "profile_scratch")]
    signature = [s.strip(" ") for s in build_bench.upstream_signature(spec).split(",")]
    grid = build_bench.upstream_grid_arg(spec["grid"], spec["constexprs"]).split(",")
    meta_sig = f"warps{spec['num_warps']}xstages{spec['num_stages']}"
    sig_hash = hashlib.sha256(" ".join(signature + [meta_sig]).encode()).hexdigest()[:8]
    hints = {(i, ): _constexpr(s.split(":")[1]) for i, s in enumerate(signature) if ":" in s}
    hints = {k: v for k, v in hints.items() if v is not None}
    constants = {arg_names_all[i]: _constexpr(s) for i, s in enumerate(signature)}
    constants = {k: v for k, v in constants.items() if v is not None}
    for key, value in hints.items():
        if value == 1:
            constants[arg_names_all[key[0]]] = value
    types = {arg_names_all[i]: s.split(":")[0] for i, s in enumerate(signature)}
    for key in constants:
        types[key] = "constexpr"
    const_sig = "x".join(str(v) for v in constants.values())
    doc_string = [f"{k}={v}" for k, v in constants.items()]
    doc_string += [f"num_warps={spec['num_warps']}", f"num_stages={spec['num_stages']}"]
    arg_names, arg_types, names_not_1, types_not_1 = [], [], [], []
    for i, name in enumerate(arg_names_all):
        if name not in constants:
            arg_names.append(name)
            arg_types.append(types[name])
            names_not_1.append(name)
            types_not_1.append(types[name])
        elif hints.get((i, ), None) == 1:
            arg_names.append(name)
            arg_types.append("i32")
    suffix = ""
    for i, _ in enumerate(types.values()):
        suffix += str(i) + {1: "c", 16: "d"}.get(hints.get((i, ), None), "")
    func_name = "_".join([f"{spec['name']}_{spec['tag']}", sig_hash, suffix])
    hex_ = str(binascii.hexlify(image))[2:-1]
    params = {
        "kernel_name": func_name, "triton_kernel_name": spec["function"], "bin_size": len(image),
        "bin_data": ", ".join([f"0x{x}{y}" for x, y in zip(hex_[::2], hex_[1::2])]),
        "signature": ", ".join(f"{ty_to_cpp(t)} {n}" for n, t in zip(names_not_1, types_not_1)),
        "full_signature": ", ".join(f"{ty_to_cpp(t)} {n}" for n, t in zip(arg_names, arg_types)),
        "arg_pointers": ", ".join([f"&{a}" for a in names_not_1]
                                  + ["&global_scratch"] + ["&profile_scratch"]),
        "num_args": len(names_not_1) + 2, "kernel_docstring": doc_string, "shared": spec["shared"],
        "num_warps": spec["num_warps"], "algo_info": "_".join([const_sig, meta_sig]),
        "gridX": grid[0], "gridY": grid[1], "gridZ": grid[2], "_placeholder": "",
        "warp_size": spec["warp_size"],
        # Triton 3.9's templates name the backend too; earlier ones have no such field (format
        # ignores it).
        "backend_name": "cuda" if spec["backend"] == "cuda" else "hip",
    }
    backend = "cuda" if spec["backend"] == "cuda" else "hip"
    return {path.suffix: path.read_text().format(**params)
            for path in sorted((Path(template_dir) / backend).glob("compile.*"))}


def upstream_files(upstream_dir, spec):
    """Paths of compile.py's outputs for spec under a compile directory laid out as
    bench/build_bench.py lays out its upstream build (compile/<tag>/<kernel>_<tag>.*)."""
    stem = os.path.join(upstream_dir, spec["tag"], f"{spec['name']}_{spec['tag']}")
    base = build_bench.upstream_outputs(stem, build_bench.upstream_signature(spec),
                                        spec["num_warps"], spec["num_stages"])
    return {ext: base + ext for ext in ((".c", ".h") if spec["backend"] == "cuda" else (".cpp", ".h"))}


def run_upstream(python, specs, out_dir, jobs):
    """compile.py for every spec it can take, with build_bench's rules; returns the compile dir."""
    class Args:  # what write_upstream_ninja reads
        pass
    args = Args()
    args.python, args.cc, args.cflags = python, "cc", ""
    build_bench.fresh(out_dir)
    build_bench.write_upstream_ninja(args, specs, out_dir, cuda_include="")
    targets = []
    for spec in specs:
        if spec["scratch"] or spec["options"]:
            continue  # build_bench leaves these out: compile.py cannot build them
        try:
            files = upstream_files(os.path.join(out_dir, "compile"), spec)
        except ValueError:
            continue
        targets += [path for ext, path in files.items() if ext != ".h"]
    env = dict(os.environ, TRITON_CACHE_DIR=build_bench.fresh(os.path.join(out_dir, "triton-cache")))
    proc = subprocess.run(["ninja", "-C", out_dir, "-j", str(jobs), *targets], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.exit(f"size_bench: upstream compile.py failed:\n{proc.stdout[-6000:]}")
    return os.path.join(out_dir, "compile")


def upstream_sizes(specs, upstream, work, python):
    """(bytes of upstream's C for every binary image, binaries covered, how it was obtained)."""
    try:
        import triton
        from triton.backends.nvidia.driver import ty_to_cpp
    except ImportError as error:
        sys.exit(f"size_bench: rendering upstream's C needs Triton in this interpreter ({error})")
    # compile.py types every entry point from the active driver: CUDA's on the GPU machine.
    template_dir = os.path.join(os.path.dirname(triton.__file__), "tools", "extra")
    if upstream == "run":
        upstream = run_upstream(python, specs, os.path.join(work, "upstream"), os.cpu_count())
    total, exact, rendered, same, differ, skipped = 0, 0, 0, 0, [], []
    for spec in specs:
        with open(spec["binary"], "rb") as f:
            image = f.read()
        try:
            texts = render_upstream(spec, image, ty_to_cpp, template_dir)
        except ValueError as error:
            skipped.append(f"{spec['id']}: {error}")
            continue
        files = upstream_files(upstream, spec) if upstream != "render" else {}
        if files and all(os.path.exists(p) for p in files.values()):
            exact += 1
            for ext, path in files.items():
                with open(path, encoding="utf-8") as f:
                    theirs = f.read()
                total += len(theirs.encode())
                if theirs == texts.get(ext):
                    same += 1
                else:
                    differ.append(os.path.basename(path))
        else:
            rendered += 1
            total += sum(len(t.encode()) for t in texts.values())
    how = (f"compile.py's output for {exact} images" if exact else "") + \
          (", " if exact and rendered else "") + \
          (f"rendered from compile.py's templates for {rendered}" if rendered else "")
    if upstream != "render":
        how += (f"; rendering checked: {same} files equal compile.py's"
                + (f", {len(differ)} differ ({', '.join(differ[:5])})" if differ else ""))
        if rendered:
            how += " (the rendered: images compile.py refuses, or files not found)"
    if skipped:
        how += f"; not expressible for compile.py: {'; '.join(skipped)}"
    return total, exact + rendered, how, len(differ)


# ---- the measurement -----------------------------------------------------------------------

def measure(triton_aot, python, kernel_files, cuda_only, hip_only, architectures, workdir, jobs,
            cmake, upstream, machine, set_name, cache=None):
    build_dir = os.path.join(workdir, "build")
    build(triton_aot, python, kernel_files, cuda_only, hip_only, architectures, build_dir, jobs, cmake,
          cache or os.path.join(workdir, "cache"))
    groups = [g for g in GROUPS if os.path.exists(os.path.join(build_dir, f"{g}.triton-aot", f"{g}.json"))]
    images = {}
    for group in groups:
        with open(os.path.join(build_dir, f"{group}.triton-aot", f"{group}.json")) as f:
            images.update(distinct_images(json.load(f)))
    binaries = sum(size for kind, size in images.values() if kind != "ptx")
    ptx = sum(size for kind, size in images.values() if kind == "ptx")
    raw = binaries + ptx
    specs = {}
    for group in groups:
        for spec in build_bench.load_specs(os.path.join(build_dir, f"{group}.triton-aot")):
            specs.setdefault(spec["id"], spec)
    specs = sorted(specs.values(), key=lambda s: s["id"])
    count = lambda kinds: sum(1 for kind, _ in images.values() if kind in kinds)  # noqa: E731
    rows = [("raw images, all the library embeds (reference)", raw, count(("cubin", "hsaco", "ptx")), ""),
            ("raw images: cubin + hsaco", binaries, count(("cubin", "hsaco")), ""),
            ("raw images: PTX", ptx, count(("ptx",)), "")]
    for suffix, compressed in (("", ""), ("_z", ", COMPRESS")):
        blob = sum(os.path.getsize(os.path.join(build_dir, f"{g}{suffix}.triton-aot", f"{g}{suffix}.images"))
                   for g in groups)
        rows.append((f"image blob (.images){compressed}", blob, len(groups),
                     "the images, manifest and inventory as the library embeds them"))
    for suffix, ending, what in LIBRARIES:
        library = sum(os.path.getsize(os.path.join(build_dir, f"lib{g}{suffix}{ending}")) for g in groups)
        rows.append((what, library, len(groups), "as built (Release, not stripped), runtime shim included"))
    c_bytes, covered, how, differ = upstream_sizes(specs, upstream, workdir, python)
    rows.append(("upstream compile.py C (.c/.cpp + .h)", c_bytes, covered, how))
    out = []
    date = time.strftime("%Y-%m-%d")
    for item, size, files, note in rows:
        out.append({"machine": machine, "set": set_name, "item": item, "bytes": size, "files": files,
                    "x_raw_images": round(size / raw, 3) if raw else "",
                    "x_binaries": round(size / binaries, 3) if binaries else "",
                    "architectures": architectures, "variants_x_targets": len(specs),
                    "host": platform.node(), "date": date, "note": note})
    print_table(out)
    if differ:
        print(f"size_bench: {differ} rendered files differ from compile.py's (see the note)")
    return out


def print_table(rows):
    print(f"\n{'':48s}{'bytes':>12s}{'x raw':>8s}{'files':>7s}")
    for r in rows:
        print(f"{r['item']:48s}{r['bytes']:12d}{r['x_raw_images']:8}{r['files']:7d}")
    print(f"upstream C: {rows[-1]['note']}")


def write_csv(rows, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        if new:
            writer.writeheader()
        writer.writerows(rows)
    print(f"size_bench: wrote {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton-aot", required=True,
                        help="TritonAOT package: its build tree or install prefix")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton for the compiles")
    parser.add_argument("--set", choices=sorted(build_bench.SETS), default="proof")
    parser.add_argument("--kernel-files", nargs="+", default=None, metavar="FILE",
                        help="instead of --set: kernels.cmake files, relative to the repository")
    parser.add_argument("--cuda-only", nargs="*", default=[], metavar="KERNEL")
    parser.add_argument("--hip-only", nargs="*", default=[], metavar="KERNEL")
    parser.add_argument("--architectures", default="80;90a;gfx942")
    parser.add_argument("--upstream", default="render",
                        help="render (default), run (compile.py; needs a GPU driver), or a directory "
                             "of compile.py's outputs laid out as build_bench's")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--machine", default=platform.node(), help="names the CSV: size_<machine>.csv")
    parser.add_argument("--csv", default=None, help="default: bench/results/size_<machine>.csv")
    parser.add_argument("--workdir", default=None, help="build directory (default: a temporary one)")
    args = parser.parse_args()
    python = (os.path.abspath(args.python) if os.sep in args.python
              else shutil.which(args.python) or args.python)
    chosen = ({"files": args.kernel_files, "cuda_only": args.cuda_only, "hip_only": args.hip_only}
              if args.kernel_files else build_bench.SETS[args.set])
    files = [os.path.join(REPO, f) for f in chosen["files"]]
    upstream = args.upstream if args.upstream in ("render", "run") else os.path.abspath(args.upstream)
    workdir = os.path.abspath(args.workdir) if args.workdir else tempfile.mkdtemp(prefix="tta-size-bench-")
    try:
        rows = measure(args.triton_aot, python, files, chosen["cuda_only"], chosen["hip_only"],
                       args.architectures, workdir, args.jobs, args.cmake, upstream, args.machine,
                       "custom" if args.kernel_files else args.set)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    write_csv(rows, args.csv or default_csv(args.machine))


if __name__ == "__main__":
    main()
