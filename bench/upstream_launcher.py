"""Builds upstream Triton's AOT launcher for bench/launch_overhead's kernel, as a shared library
that `launch_overhead --upstream-lib` dlopens and times.

    upstream_launcher.py --out DIR [--python PY] [--cc CC] [--spec bench/launch_overhead.json]
                         [--target cuda:90a]

The upstream flow, unchanged: `triton.tools.compile` (through bench/upstream_compile.py, which
fixes only its explicit-target bug) once per signature of the spec's kernel, for the one target
the benchmark runs (sm_90a on the H100), then `triton.tools.link` over the headers, then `cc` of
the generated C against the cuda.h Triton ships, into DIR/libupstream_vector_add.so linked with
libcuda. Both signatures are compiled, as for the triton-aot library, so upstream's dispatcher
also checks the hints before launching the hinted variant.

compile.py needs a GPU driver even to cross-compile, so this runs on the GPU machine. Besides
upstream's own files the library holds one string, `tta_upstream_cubin_sha256`: the SHA-256 of
the hinted variant's cubin, so launch_overhead can say whether it times the very same image.
Prints the library's path on the last line. Exit status: 0 built, 1 error.
"""
import argparse
import ctypes
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from build_bench import upstream_grid_arg, upstream_outputs  # noqa: E402
from compile_bench import upstream_target  # noqa: E402

KERNEL = "vector_add"   # the kernel of launch_overhead.json the benchmark launches
DISPATCHER = f"{KERNEL}_default"   # link.py's entry point for the first (only) config


def split_top_level(text):
    """'cdiv(n, B), 1, 1' -> ['cdiv(n, B)', '1', '1']: commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return parts + [current.strip()]


def parse_config(config):
    """'BLOCK=1024 num_warps=4' -> (constexprs, num_warps, num_stages); Triton's defaults else."""
    constexprs, num_warps, num_stages = {}, 4, 3
    for item in config.split():
        name, value = item.split("=", 1)
        if name == "num_warps":
            num_warps = int(value)
        elif name == "num_stages":
            num_stages = int(value)
        else:
            constexprs[name] = value
    return constexprs, num_warps, num_stages


def run(cmd, env=None):
    print("+ " + shlex.join(cmd), flush=True)
    result = subprocess.run(cmd, env=env)
    if result.returncode != 0:
        sys.exit(f"upstream_launcher: failed ({result.returncode}): {shlex.join(cmd)}")


def find_libcuda():
    """The driver to link: the installed libcuda.so.1 (from ldconfig's cache, as Triton's own
    driver finds it, else wherever the dynamic loader finds it), else the CUDA toolkit's stub;
    each gives the library a DT_NEEDED of libcuda.so.1."""
    try:
        listing = subprocess.run([shutil.which("ldconfig") or "/sbin/ldconfig", "-p"],
                                 capture_output=True, text=True).stdout
    except OSError:
        listing = ""
    for line in listing.splitlines():
        if line.strip().startswith("libcuda.so.1 ") and "x86-64" in line:
            return line.split("=>")[-1].strip()
    try:
        ctypes.CDLL("libcuda.so.1")
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "/libcuda.so" in line:
                    return line.split()[-1]
    except OSError:
        pass
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for stubs in (f"{cuda_home}/lib64/stubs", f"{cuda_home}/targets/x86_64-linux/lib/stubs"):
        if os.path.exists(os.path.join(stubs, "libcuda.so")):
            return os.path.join(stubs, "libcuda.so")
    sys.exit("upstream_launcher: no libcuda.so.1 (ldconfig -p, the dynamic loader) and no CUDA "
             f"toolkit stub ({cuda_home}/lib64/stubs/libcuda.so); set CUDA_HOME")


def cubin_sha256(c_file):
    """compile.py embeds the cubin as `unsigned char CUBIN_NAME[N] = { 0x.., ... };`."""
    with open(c_file) as f:
        match = re.search(r"CUBIN_NAME\[(\d+)\] = \{([^}]*)\}", f.read())
    if not match:
        sys.exit(f"upstream_launcher: no cubin array in {c_file}")
    data = bytes(int(byte, 16) for byte in match.group(2).split(","))
    if len(data) != int(match.group(1)):
        sys.exit(f"upstream_launcher: {c_file}: cubin array size mismatch")
    return hashlib.sha256(data).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="for the generated files and the library")
    parser.add_argument("--python", default=sys.executable, help="interpreter with Triton")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--spec", default=os.path.join(BENCH, "launch_overhead.json"))
    parser.add_argument("--target", default="cuda:90a", help="the spec target the GPU runs")
    args = parser.parse_args()

    with open(args.spec) as f:
        spec = json.load(f)
    kernel = next((k for k in spec["kernels"] if k["name"] == KERNEL), None)
    if kernel is None or args.target not in spec["targets"]:
        sys.exit(f"upstream_launcher: {args.spec} has no kernel {KERNEL} for {args.target}")
    spec_dir = os.path.dirname(os.path.abspath(args.spec))
    source = os.path.normpath(os.path.join(spec_dir, kernel["source"]))
    constexprs, num_warps, num_stages = parse_config(kernel["configs"][0])
    grid = upstream_grid_arg(split_top_level(kernel["grid"]), constexprs)

    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(out, "triton-cache"))
    stem = os.path.join(out, KERNEL)
    headers, sources, hinted = [], [], None
    for signature in kernel["signatures"]:
        # Upstream takes constexprs as values in the signature.
        entries = [constexprs.get(e.strip(), e.strip()) for e in signature.split(",")]
        signature = ", ".join(entries)
        run([args.python, os.path.join(BENCH, "upstream_compile.py"), source,
             "-n", kernel["function"], "-s", signature, "-g", grid, "-w", str(num_warps),
             "-ns", str(num_stages), "-t", upstream_target(args.target), "-on", KERNEL,
             "-o", stem], env)
        base = upstream_outputs(stem, signature, num_warps, num_stages)
        headers.append(base + ".h")
        sources.append(base + ".c")
        if hinted is None or signature.count(":16") > hinted[0]:
            hinted = (signature.count(":16"), base + ".c")
    launcher = os.path.join(out, f"{KERNEL}_launcher")
    run([args.python, "-m", "triton.tools.link", *headers, "-o", launcher], env)

    info = os.path.join(out, "tta_upstream_info.c")
    with open(info, "w") as f:
        f.write(f'const char tta_upstream_cubin_sha256[] = "{cubin_sha256(hinted[1])}";\n')
    # Triton ships the cuda.h its generated C includes: no CUDA toolkit headers needed.
    where = "import os, triton; print(os.path.dirname(triton.__file__))"
    triton_dir = subprocess.run([args.python, "-c", where], capture_output=True, text=True,
                                check=True).stdout.strip()
    cuda_include = os.path.join(triton_dir, "backends", "nvidia", "include")
    library = os.path.join(out, f"libupstream_{KERNEL}.so")
    # -include stdlib.h: upstream's compile.c calls exit() without declaring it (an error
    # from GCC 14 on); nothing else is added.
    run([args.cc, "-O3", "-DNDEBUG", "-fPIC", "-shared", "-include", "stdlib.h", "-I", cuda_include,
         *sources, launcher + ".c", info, "-o", library, "-Wl,--no-as-needed", find_libcuda()])
    print(f"upstream launcher: {DISPATCHER}() in")
    print(library)


if __name__ == "__main__":
    main()
