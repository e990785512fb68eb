#!/usr/bin/env python3
"""Build time of a kernel set (bench/build_set): triton-aot's CMake flow against the upstream
flow (compile.py per specialization, link.py, compiling the generated C), clean build, no-op
rebuild and one-file rebuild, on this machine, in one run. Results go to a CSV.

The sets (--set): `examples`, the examples' kernels.cmake files (the default, the figures of
bench/results/build_h100.csv), and `proof`, those plus bench/proof's (issue 5's kernel set).

The set is built first with triton-aot; the upstream flow's specializations are read from the
metadata files that build wrote (docs/metadata.md), so the set has one source of truth. Both
flows work on a scratch copy of the sources; the repository's files are never edited.

Upstream compile.py needs a GPU driver even to cross-compile, so the upstream half runs only on
a machine with one (docs/benchmarks.md, "Build"):
  python3 bench/build_bench.py --triton-aot build/device --python python3 --machine h100
"""
import argparse
import ast
import csv
import glob
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from compile_bench import upstream_grid, upstream_target  # noqa: E402

FRONT_COMPILE = os.path.join(REPO, "python", "triton_aot", "compile.py")
FRONT_LINK = os.path.join(REPO, "python", "triton_aot", "link.py")
UPSTREAM_WITHOUT_GPU = os.path.join(REPO, "tests", "upstream", "upstream_reference.py")
PROGRESS = re.compile(r"^\[\d+/\d+\]", re.MULTILINE)

# kernels.cmake files relative to the repository, and the kernels that build for one vendor
# only (bench/build_set/CMakeLists.txt; bench/proof/CMakeLists.txt says why the Gluon ones do).
EXAMPLES_FILES = ["examples/vector_add/kernels.cmake", "examples/softmax/kernels.cmake",
                  "examples/matmul/kernels.cmake"]
SETS = {"examples": {"files": EXAMPLES_FILES, "cuda_only": [], "hip_only": []},
        "proof": {"files": EXAMPLES_FILES + ["bench/proof/kernels.cmake", "bench/proof/gluon_kernels.cmake"],
                  "cuda_only": ["gluon_add"], "hip_only": ["gluon_add_wave64"]}}


def timed(cmd, env):
    """Runs a build command; returns (seconds, commands it ran, output)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"build_bench: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}")
    return seconds, len(PROGRESS.findall(proc.stdout)), proc.stdout


def edit_kernel(path, function, nonce):
    """Inserts a comment as the first line of the function's body: a real edit of the kernel
    (Triton's own cache key covers the function's text, comments included), so both flows
    recompile it rather than serving it from a cache. Returns the original text."""
    with open(path) as f:
        text = f.read()
    fn = next(n for n in ast.walk(ast.parse(text))
              if isinstance(n, ast.FunctionDef) and n.name == function)
    first = fn.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + f"# build_bench edit {nonce}\n")
    with open(path, "w") as f:
        f.write("".join(lines))
    return text


def copy_set(kernel_files, scratch):
    """Copies the directory of each kernels.cmake file (its kernels and their local imports) to
    the same place under scratch; returns the copies' paths."""
    copies = []
    for path in kernel_files:
        source = os.path.realpath(os.path.join(REPO, path))
        rel = os.path.relpath(source, REPO)
        if not os.path.isfile(source) or rel.startswith(".."):
            sys.exit(f"build_bench: {path}: not a kernels.cmake file inside the repository")
        target_dir = os.path.join(scratch, os.path.dirname(rel))
        if not os.path.exists(target_dir):
            shutil.copytree(os.path.dirname(source), target_dir,
                            ignore=shutil.ignore_patterns("build*", "__pycache__", "*.pyc"))
        copies.append(os.path.join(scratch, rel))
    return copies


def set_definitions(kernel_files, cuda_only, hip_only):
    """build_set's cache variables for a set."""
    return [f"-DTRITON_AOT_BENCH_KERNEL_FILES={';'.join(kernel_files)}",
            f"-DTRITON_AOT_BENCH_CUDA_ONLY={';'.join(cuda_only)}",
            f"-DTRITON_AOT_BENCH_HIP_ONLY={';'.join(hip_only)}"]


# ---- triton-aot: the CMake flow ----------------------------------------------------------

def aot_configure(args, scratch, build, cache):
    package = os.path.abspath(args.triton_aot)
    where = (f"-DTritonAOT_DIR={package}" if os.path.exists(os.path.join(package, "TritonAOTConfig.cmake"))
             else f"-DCMAKE_PREFIX_PATH={package}")
    cmd = [args.cmake, "-S", os.path.join(scratch, "build_set"), "-B", build, "-G", "Ninja",
           "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_C_COMPILER={args.cc}", where,
           *set_definitions(args.scratch_files, args.cuda_only, args.hip_only),
           f"-DTRITON_AOT_BENCH_ARCHITECTURES={args.architectures}",
           f"-DTRITON_AOT_PYTHON={args.python}", f"-DTRITON_AOT_CACHE_DIR={cache}"]
    return timed(cmd, aot_env(cache))[0]


def aot_env(cache):
    return dict(os.environ, NINJA_STATUS="[%f/%t] ", TRITON_AOT_CACHE_DIR=cache)


def aot_build(args, build, cache):
    return timed([args.cmake, "--build", build, "-j", str(args.jobs)], aot_env(cache))


# ---- upstream: the same specializations through compile.py / link.py / cc ------------------

def source_root_of(build):
    """The top source directory of the CMake build tree `build` (or of one under it): metadata
    names kernel sources relative to the project's source root (docs/reproducible.md)."""
    here = os.path.abspath(build)
    while True:
        cache = os.path.join(here, "CMakeCache.txt")
        if os.path.exists(cache):
            with open(cache, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("CMAKE_HOME_DIRECTORY:"):
                        return line.split("=", 1)[1].strip()
        if os.path.dirname(here) == here:
            return None
        here = os.path.dirname(here)


def load_specs(build):
    """Every variant the triton-aot build compiled, from its metadata files (one per variant
    and target), with what upstream compile.py needs to compile the same one."""
    specs = {}
    root = source_root_of(build)
    for path in glob.glob(os.path.join(build, "**", "*.json"), recursive=True):
        try:
            with open(path) as f:
                meta = json.load(f)
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(meta, dict) or meta.get("schema") != "triton-aot-kernel":
            continue
        source = meta["kernel"]["source"]
        for base in filter(None, (root, os.path.dirname(path), build)):  # docs/metadata.md
            if not os.path.isabs(source) and os.path.exists(os.path.join(base, source)):
                source = os.path.join(base, source)
        if not os.path.exists(source):
            sys.exit(f"build_bench: {path}: kernel source {meta['kernel']['source']} not found")
        specs[meta["variant"]["id"]] = {
            "id": meta["variant"]["id"], "name": meta["kernel"]["name"],
            "function": meta["kernel"]["function"], "source": os.path.realpath(source),
            "backend": meta["target"]["backend"], "target": meta["target"]["spelling"],
            "tag": re.sub(r"\W", "_", meta["variant"]["id"].split(".")[1]),
            "signature": meta["variant"]["signature"],
            "constexprs": meta["variant"]["constexprs"],
            "num_warps": meta["variant"]["num_warps"], "num_stages": meta["variant"]["num_stages"],
            "options": meta["variant"]["options"], "grid": meta["grid"],
            "scratch": meta["launch"]["global_scratch"]["size"] + meta["launch"]["profile_scratch"]["size"],
            # For bench/size_bench.py: the binary image and what compile.py's C template needs.
            "params": meta["params"], "shared": meta["launch"]["shared"],
            "warp_size": meta["launch"]["warp_size"],
            "binary": os.path.join(os.path.dirname(path), meta["images"][0]["file"]),
        }
    return sorted(specs.values(), key=lambda s: s["id"])


def upstream_signature(spec):
    """The signature as compile.py takes it: a constexpr must be an int or float literal
    (compile.py's constexpr() tries int() then float()), so True/False become 1/0, which a
    user of compile.py writes (the kernel sees the same value in `if` and arithmetic). Raises
    ValueError for any other constexpr (a dtype, a string, None)."""
    entries = [s.strip() for s in spec["signature"].split(",")]
    params = [p for p in spec["params"] if p["kind"] not in ("global_scratch", "profile_scratch")]
    if len(entries) != len(params):
        raise ValueError(f"signature {spec['signature']!r} does not match its {len(params)} parameters")
    for i, param in enumerate(params):
        if param["kind"] != "constexpr":
            continue
        value = param["value"]
        if isinstance(value, bool):
            entries[i] = str(int(value))
        elif not isinstance(value, (int, float)):
            raise ValueError(f"constexpr {param['name']}={param.get('value_text', value)} "
                             "(compile.py takes only int and float constexprs)")
    return ", ".join(entries)


def upstream_grid_arg(grid, constexprs):
    """Upstream pastes --grid into a C function that sees only the runtime parameters, so
    constexpr names become their values; cdiv is spelled out (compile_bench.upstream_grid)."""
    dims = []
    for dim in grid:
        for name, value in constexprs.items():
            value = int(value) if isinstance(value, bool) else value
            dim = re.sub(rf"\b{re.escape(name)}\b", str(value), dim)
        dim = upstream_grid(dim)
        if "," in dim:
            raise ValueError(f"grid {dim!r} has a comma upstream cannot parse")
        dims.append(dim)
    return ",".join(dims)


def upstream_outputs(stem, signature, num_warps, num_stages, every_index=True):
    """The files compile.py writes for these arguments: <stem>.<hash>_<suffix>.{c,h} (.cpp for
    HIP up to Triton 3.6), named as triton/tools/compile.py names them, so Ninja knows its outputs
    in advance. The suffix names every parameter's index up to Triton 3.6 (every_index), only the
    hinted ones' later; the compatibility front names them as the installed release does."""
    entries = [s.strip(" ") for s in signature.split(",")]
    digest = hashlib.sha256(" ".join(entries + [f"warps{num_warps}xstages{num_stages}"])
                            .encode()).hexdigest()[:8]
    suffix = ""
    for i, entry in enumerate(entries):
        hint = entry.split(":")[1] if ":" in entry else None
        letter = {"1": "c", "16": "d"}.get(hint, "")
        suffix += str(i) + letter if every_index or letter else ""
    return f"{stem}.{digest}_{suffix}"


def ninja_escape(text):
    return text.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def write_upstream_ninja(args, specs, out_dir, cuda_include, front=False):
    """build.ninja for the upstream flow: compile.py per specialization (depending on its kernel
    file), link.py per kernel and CUDA target, cc of every generated C file, one static
    library. Returns (compile.py runs, link.py runs, exclusions as text). front: the same
    commands through the compatibility front (python/triton_aot/compile.py and link.py, over
    triton-aot-cc), as a script that switched module names runs them."""
    lines = ["ninja_required_version = 1.5",
             "rule run\n  command = $cmd\n  description = $desc\n"]
    upstream_py, tool_args = os.path.join(BENCH, "upstream_compile.py"), []
    if front:
        upstream_py = FRONT_COMPILE
    elif args.upstream_without_gpu:
        upstream_py, tool_args = UPSTREAM_WITHOUT_GPU, ["compile"]
    objects, links, excluded, compiles = [], {}, [], 0

    def edge(outputs, inputs, cmd, desc):
        lines.append(f"build {' '.join(map(ninja_escape, outputs))}: run "
                     f"{' '.join(map(ninja_escape, inputs))}")
        lines.append(f"  cmd = {cmd.replace('$', '$$')}\n  desc = {desc.replace('$', '$$')}")

    for s in specs:
        if s["options"]:
            excluded.append(f"{s['id']}: options {s['options']} (compile.py takes only num_warps, num_stages)")
            continue
        if s["scratch"]:
            excluded.append(f"{s['id']}: global/profile scratch (compile.py refuses such kernels)")
            continue
        try:
            signature = upstream_signature(s)
        except ValueError as error:
            excluded.append(f"{s['id']}: {error}")
            continue
        out_name = f"{s['name']}_{s['tag']}"
        stem = os.path.join(out_dir, "compile", s["tag"], out_name)
        base = upstream_outputs(stem, signature, s["num_warps"], s["num_stages"],
                                every_index=args.upstream_every_index)
        source_ext = ".c" if s["backend"] == "cuda" else args.hip_source_ext
        cmd = [args.python, upstream_py, *tool_args, s["source"], "-n", s["function"], "-s", signature,
               "-g", upstream_grid_arg(s["grid"], s["constexprs"]), "-w", str(s["num_warps"]),
               "-ns", str(s["num_stages"]), "-t", upstream_target(s["target"]), "-on", out_name,
               "-o", stem]
        edge([base + source_ext, base + ".h"], [s["source"], upstream_py], shlex.join(cmd),
             f"compile.py {s['id']}")
        compiles += 1
        if s["backend"] != "cuda":
            continue  # see the exclusion below
        links.setdefault(out_name, []).append(base + ".h")
        objects.append(base + ".o")
        edge([base + ".o"], [base + source_ext],
             shlex.join([args.cc, *shlex.split(args.cflags), "-I", cuda_include, "-c",
                         base + source_ext, "-o", base + ".o"]), f"cc {os.path.basename(base)}.c")
    if any(s["backend"] == "hip" for s in specs) and not front:
        excluded.append("HIP C++ is generated but neither linked nor compiled: link.py finds no "
                        "tt-linker line in HIP headers and writes CUDA-only C, and compile.py takes C "
                        "types from the active driver, so on a CUDA machine its HIP entry points "
                        "take CUdeviceptr, which HIP code does not declare")
    for out_name, headers in sorted(links.items()):
        stem = os.path.join(out_dir, "link", out_name)
        edge([stem + ".c", stem + ".h"], headers,
             shlex.join([args.python, *([FRONT_LINK] if front else ["-m", "triton.tools.link"]),
                         *headers, "-o", stem]),
             f"link.py {out_name}")
        objects.append(stem + ".o")
        edge([stem + ".o"], [stem + ".c"],
             shlex.join([args.cc, *shlex.split(args.cflags), "-I", cuda_include, "-c",
                         stem + ".c", "-o", stem + ".o"]), f"cc {out_name}.c")
    library = os.path.join(out_dir, "libupstream_set.a")
    edge([library], objects, f"rm -f {shlex.quote(library)} && ar qc {shlex.quote(library)} "
         + " ".join(map(shlex.quote, objects)), "ar libupstream_set.a")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "build.ninja"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return compiles, len(links), excluded


def upstream_env(cache):
    return dict(os.environ, NINJA_STATUS="[%f/%t] ", TRITON_CACHE_DIR=cache)


def front_env(args, cache):
    """The front's environment: triton-aot-cc of the package benchmarked, a fresh compile cache."""
    return dict(os.environ, NINJA_STATUS="[%f/%t] ", TRITON_AOT_CACHE_DIR=cache,
                TRITON_AOT_BIN_DIR=os.path.join(os.path.abspath(args.triton_aot), "bin"))


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


# ---- driver -------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton-aot", required=True,
                        help="TritonAOT package: its build tree or install prefix")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton (both flows)")
    parser.add_argument("--set", choices=sorted(SETS), default="examples",
                        help="the kernel set: examples (default) or proof (issue 5's set)")
    parser.add_argument("--kernel-files", nargs="+", default=None, metavar="FILE",
                        help="instead of --set: kernels.cmake files, relative to the repository")
    parser.add_argument("--cuda-only", nargs="*", default=[], metavar="KERNEL",
                        help="with --kernel-files: kernels built for the CUDA architectures only")
    parser.add_argument("--hip-only", nargs="*", default=[], metavar="KERNEL",
                        help="with --kernel-files: kernels built for the AMD architectures only")
    parser.add_argument("--architectures", default="80;90a;gfx942")
    parser.add_argument("--edit-kernel", default="softmax",
                        help="kernel whose file the one-file rebuild edits")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="-j of both builds")
    parser.add_argument("--repeat", type=int, default=3, help="runs per phase; the median is reported")
    parser.add_argument("--serial-repeat", type=int, default=None,
                        help="runs of the serial upstream flow, in the first runs (default: --repeat)")
    parser.add_argument("--upstream-flows", default="parallel,serial",
                        help="which upstream flows run: parallel (ninja -j N), serial (ninja -j 1), "
                             "comma-separated; triton-aot's always runs, as the reference")
    parser.add_argument("--machine", default=platform.node(), help="names the CSV: build_<machine>.csv")
    parser.add_argument("--csv", default=None,
                        help="default: bench/results/build_<machine>.csv (set examples), "
                             "build_<set>_<machine>.csv (another set)")
    parser.add_argument("--cmake", default="cmake", help="the cmake that configures and builds triton-aot's flow")
    parser.add_argument("--cc", default="cc", help="C compiler of both flows")
    parser.add_argument("--cflags", default="-O3 -DNDEBUG", help="upstream's C flags (CMake Release's)")
    parser.add_argument("--front-flows", default="",
                        help="also the compatibility front (python -m triton_aot.compile / .link) "
                             "running upstream's commands: parallel, serial, comma-separated; "
                             "it needs no GPU (docs/upstream.md#timing)")
    parser.add_argument("--upstream-without-gpu", action="store_true",
                        help="run upstream's compile.py through tests/upstream/upstream_reference.py, "
                             "which stands in for the GPU driver it asks for C type names, so the "
                             "upstream flows run on a machine without a GPU too")
    parser.add_argument("--upstream", choices=["run", "dry-run", "skip"], default="run",
                        help="dry-run: write and print the upstream build.ninja without running it")
    parser.add_argument("--workdir", default=None, help="scratch parent (default: the system's temp)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("--size", action="store_true",
                        help="also run bench/size_bench.py on the set, with the C files of the first "
                             "upstream clean build (exact sizes of upstream's C; not timed)")
    parser.add_argument("--size-csv", default=None, help="default: bench/results/size_<machine>.csv")
    args = parser.parse_args()
    args.set_name = "custom" if args.kernel_files else args.set
    kernel_files = args.kernel_files or SETS[args.set]["files"]
    if not args.kernel_files:
        args.cuda_only, args.hip_only = SETS[args.set]["cuda_only"], SETS[args.set]["hip_only"]
    serial_repeat = args.repeat if args.serial_repeat is None else args.serial_repeat
    flows = set(args.upstream_flows.split(","))
    if not flows <= {"parallel", "serial"}:
        parser.error(f"--upstream-flows: {args.upstream_flows} (parallel, serial)")
    if "serial" not in flows:
        serial_repeat = 0
    front_flows = set(filter(None, args.front_flows.split(",")))
    if not front_flows <= {"parallel", "serial"}:
        parser.error(f"--front-flows: {args.front_flows} (parallel, serial)")
    if args.size and "parallel" not in flows:
        parser.error("--size reads the parallel upstream flow's C files: keep it in --upstream-flows")
    # Absolute, as every build command runs in its own directory (a venv's python stays a link).
    args.python = (os.path.abspath(args.python) if os.sep in args.python
                   else shutil.which(args.python) or args.python)
    csv_path = args.csv or os.path.join(
        BENCH, "results", f"build_{args.machine}.csv" if args.set_name == "examples"
        else f"build_{args.set_name}_{args.machine}.csv")

    # Also a warm-up: Triton's files come into the page cache before either flow is timed.
    triton_dir = subprocess.run([args.python, "-c", "import os, triton, triton.tools.compile;"
                                 "print(triton.__version__); print(os.path.dirname(triton.__file__))"],
                                capture_output=True, text=True, check=True).stdout.split()
    # The names and HIP file the installed release's compile.py writes (3.6: every index, .cpp)
    tools = os.path.join(triton_dir[1], "tools")
    with open(os.path.join(tools, "compile.py")) as f:
        args.upstream_every_index = "suffix += str(i)\n" in f.read()
    args.hip_source_ext = ".c" if os.path.exists(os.path.join(tools, "extra", "hip", "compile.c")) else ".cpp"
    # Triton ships the cuda.h its generated C includes: no CUDA toolkit needed.
    version, cuda_include = triton_dir[0], os.path.join(triton_dir[1], "backends", "nvidia", "include")
    scratch = tempfile.mkdtemp(prefix="tta-build-bench-", dir=args.workdir and os.path.abspath(args.workdir))
    print(f"build_bench: scratch {scratch}, -j {args.jobs}, Triton {version}", flush=True)
    args.scratch_files = copy_set(kernel_files, scratch)
    shutil.copytree(os.path.join(BENCH, "build_set"), os.path.join(scratch, "build_set"))
    times = {}  # (flow, phase) -> [seconds]
    commands = {}  # (flow, phase) -> commands the last run ran
    nonce = 0

    def record(flow, phase, result):
        seconds, ran = result[0], result[1]
        times.setdefault((flow, phase), []).append(seconds)
        commands[(flow, phase)] = ran
        print(f"  {flow:24s} {phase:12s} {seconds:8.3f} s  {ran:4d} commands", flush=True)

    def one_file(flow, build):
        nonlocal nonce
        nonce += 1
        stat = os.stat(edited["source"])
        original = edit_kernel(edited["source"], edited["function"], f"{flow} {nonce}")
        try:
            record(flow, "one-file", build())
        finally:
            # Every later clean build (and the size measurement) sees the set as declared, with
            # its time too: Triton's line info records the source file's mtime in the image.
            with open(edited["source"], "w") as f:
                f.write(original)
            os.utime(edited["source"], ns=(stat.st_atime_ns, stat.st_mtime_ns))

    specs, edited, upstream_note = None, None, ""
    try:
        for run in range(args.repeat):
            print(f"run {run + 1}/{args.repeat}", flush=True)
            build, cache = fresh(os.path.join(scratch, "aot-build")), fresh(os.path.join(scratch, "aot-cache"))
            record("triton-aot", "configure", (aot_configure(args, scratch, build, cache), 0))
            record("triton-aot", "clean", aot_build(args, build, cache))
            if specs is None:
                specs = load_specs(build)
                matches = [s for s in specs if s["name"] == args.edit_kernel]
                if not matches:
                    sys.exit(f"build_bench: no kernel {args.edit_kernel} in the set")
                edited = matches[0]
                print(f"  {len(specs)} variants x targets; one-file edits {edited['source']}", flush=True)
            record("triton-aot", "no-op", aot_build(args, build, cache))
            # Ninja alone, as upstream's no-op runs: what `cmake --build` itself adds shows apart.
            record("triton-aot", "no-op ninja", timed(["ninja", "-C", build, "-j", str(args.jobs)],
                                                      aot_env(cache)))
            one_file("triton-aot", lambda: aot_build(args, build, cache))
            for flow in sorted(front_flows):
                jobs = args.jobs if flow == "parallel" else 1
                out, fcache = fresh(os.path.join(scratch, "front")), fresh(os.path.join(scratch, "front-cache"))
                write_upstream_ninja(args, specs, out, cuda_include, front=True)
                ninja = ["ninja", "-C", out, "-j", str(jobs)]
                name = f"front -j {jobs}" if flow == "parallel" else "front serial"
                record(name, "clean", timed(ninja, front_env(args, fcache)))
                record(name, "no-op ninja", timed(ninja, front_env(args, fcache)))
                one_file(name, lambda: timed(ninja, front_env(args, fcache)))
            if args.upstream == "skip":
                continue
            out, ucache = fresh(os.path.join(scratch, "upstream")), fresh(os.path.join(scratch, "upstream-cache"))
            compiles, links, excluded = write_upstream_ninja(args, specs, out, cuda_include)
            if run == 0:
                upstream_note = (f"{compiles} compile.py, {links} link.py, "
                                 f"excluded: {'; '.join(excluded) or 'nothing'}")
                booleans = sum(1 for s in specs if any(isinstance(v, bool) for v in s["constexprs"].values()))
                if booleans:
                    upstream_note += f"; {booleans} variants x targets pass bool constexprs as 1/0"
                print(f"  upstream: {upstream_note}", flush=True)
            if args.upstream == "dry-run":
                print(subprocess.run(["ninja", "-C", out, "-t", "commands"], capture_output=True,
                                     text=True, check=True).stdout)
                break
            ninja = ["ninja", "-C", out, "-j", str(args.jobs)]
            if "parallel" in flows:
                record(f"upstream -j {args.jobs}", "clean", timed(ninja, upstream_env(ucache)))
                if run == 0 and args.size:
                    measure_size(args, scratch, os.path.join(out, "compile"))
                record(f"upstream -j {args.jobs}", "no-op ninja", timed(ninja, upstream_env(ucache)))
                one_file(f"upstream -j {args.jobs}", lambda: timed(ninja, upstream_env(ucache)))
            if run >= serial_repeat:
                continue
            # The same commands one after another: how a build script runs them.
            out, ucache = fresh(os.path.join(scratch, "upstream")), fresh(os.path.join(scratch, "upstream-cache"))
            write_upstream_ninja(args, specs, out, cuda_include)
            record("upstream serial", "clean", timed(["ninja", "-C", out, "-j", "1"], upstream_env(ucache)))
    finally:
        if args.keep:
            print(f"build_bench: kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    report(args, times, commands, version, upstream_note, csv_path, len(specs or []))


def measure_size(args, scratch, upstream_c):
    """bench/size_bench.py on the scratch copy of the set, so that the images are compiled
    from the same paths as upstream's (Triton's line info names the source file)."""
    import size_bench
    rows = size_bench.measure(
        triton_aot=args.triton_aot, python=args.python, kernel_files=args.scratch_files,
        cuda_only=args.cuda_only, hip_only=args.hip_only,
        architectures=args.architectures, workdir=os.path.join(scratch, "size"), jobs=args.jobs,
        cmake=args.cmake, upstream=upstream_c, machine=args.machine, set_name=args.set_name,
        cache=os.path.join(scratch, "aot-cache"))
    size_bench.write_csv(rows, args.size_csv or size_bench.default_csv(args.machine))


def report(args, times, commands, version, upstream_note, csv_path, variants):
    medians = {key: statistics.median(values) for key, values in times.items()}
    rows = []
    for (flow, phase), median in medians.items():
        ours = medians.get(("triton-aot", phase))
        rows.append({"machine": args.machine, "flow": flow, "phase": phase, "jobs": args.jobs,
                     "median_s": round(median, 3),
                     "runs_s": " ".join(f"{s:.3f}" for s in times[(flow, phase)]),
                     "commands": commands[(flow, phase)],
                     "x_triton_aot": round(median / ours, 2) if ours else "",
                     "variants_x_targets": variants, "cpus": os.cpu_count(), "triton": version,
                     "host": platform.node(), "date": time.strftime("%Y-%m-%d"),
                     "upstream": upstream_note if flow.startswith("upstream") else "",
                     "set": args.set_name})
    if not rows:
        return
    flows = list(dict.fromkeys(r["flow"] for r in rows))
    print(f"\n{'phase':12s}" + "".join(f"{f:>26s}" for f in flows))
    for phase in ("configure", "clean", "no-op", "no-op ninja", "one-file"):
        cells = []
        for flow in flows:
            r = next((r for r in rows if r["flow"] == flow and r["phase"] == phase), None)
            cells.append(f"{r['median_s']:9.3f} s ({r['commands']:3d}) x{r['x_triton_aot']:<6}"
                         if r else "")
        print(f"{phase:12s}" + "".join(f"{c:>26s}" for c in cells))
    print("(median seconds, (commands run), x the triton-aot time of the same phase)")
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    new = not os.path.exists(csv_path)
    fields = list(rows[0].keys())
    if not new:  # appended in the file's own columns (the examples' CSV predates `set`)
        with open(csv_path, newline="") as f:
            fields = next(csv.reader(f), fields)
    with open(csv_path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerows(rows)
    print(f"build_bench: wrote {csv_path}")


if __name__ == "__main__":
    main()
