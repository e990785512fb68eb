"""python -m triton_aot.compile: upstream ``python -m triton.tools.compile``'s command line and
outputs (Triton 3.6-3.9), compiled by triton-aot-cc (its warm workers, cache and diagnostics).

A script changes the module name (or the path of the script it runs) and nothing else: the same
options, the same ``<out>.<sig_hash>_<suffix>.c/.h`` files, the same C API. docs/upstream.md says
what differs (a float scalar is passed at its width; errors are returned, never exit()).
"""
import os
import subprocess
import sys
import tempfile
from argparse import ArgumentParser
from pathlib import Path

if __package__ in (None, ""):
    # run as a file (python .../triton_aot/compile.py), as scripts run upstream's compile.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "triton_aot"

from triton_aot._upstream import (FrontError, KernelImage, UpstreamNames, default_cache_dir, fail,  # noqa: E402
                                  find_tool, installed_names_every_index, kernel_c_and_h)

PROG = "python -m triton_aot.compile"


def parse_args(argv):
    parser = ArgumentParser(prog=PROG, description=(
        "Triton ahead-of-time compiler, upstream compile.py's command line over triton-aot-cc: "
        "writes <out>.<hash>_<suffix>.c and .h, self-contained C that embeds the image."))
    parser.add_argument("path", help="Python source holding the kernel (or a .ttir/.ttgir file)")
    parser.add_argument("--kernel-name", "-n", type=str, default="", required=True,
                        help="name of the kernel to compile")
    parser.add_argument("--target", "-t", type=str, default=None,
                        help="<backend>:<arch>[:<warp-size>], e.g. cuda:80:32, hip:gfx942:64; default "
                        "$TRITON_AOT_TARGET, else the current machine's GPU")
    parser.add_argument("--num-warps", "-w", type=int, default=1, help="number of warps (default 1)")
    parser.add_argument("--num-stages", "-ns", type=int, default=3, help="number of stages (default 3)")
    parser.add_argument("--out-name", "-on", type=str, default=None, help="name of the compiled kernel")
    parser.add_argument("--out-path", "-o", type=Path, default=None, help="output file stem")
    parser.add_argument("--signature", "-s", type=str, required=True, help="signature of the kernel")
    parser.add_argument("--grid", "-g", type=str, required=True, help="launch grid: three C expressions")
    return parser.parse_args(argv)


def current_target():
    """Upstream's default: the target of this machine's GPU, through Triton's active driver."""
    env = os.environ.get("TRITON_AOT_TARGET")
    if env:
        return env
    try:
        import triton
        target = triton.runtime.driver.active.get_current_target()
    except Exception as err:  # no driver, no GPU: the message says what to do instead
        raise FrontError(f"no --target given and no GPU found ({type(err).__name__}: {err}); give the "
                         "target (-t cuda:80:32, -t hip:gfx942:64) or set TRITON_AOT_TARGET") from None
    return f"{target.backend}:{target.arch}:{target.warp_size}"


def hip_source_suffix():
    """The HIP launcher's file name suffix the installed Triton's compile.py writes: .cpp up to 3.6,
    .c from 3.7 (its template compile.cpp became compile.c)."""
    try:
        import importlib.util
        spec = importlib.util.find_spec("triton")
    except Exception:
        spec = None
    if spec and spec.submodule_search_locations:
        extra = Path(list(spec.submodule_search_locations)[0]) / "tools" / "extra" / "hip"
        if (extra / "compile.cpp").exists() and not (extra / "compile.c").exists():
            return ".cpp"
    return ".c"


def own_name_prefixes(kernel_dir):
    """Directories whose files keep their own absolute paths in the images' line information, as
    in upstream's images (triton-aot-cc names them relative to the project and site directories
    by default): the kernel's directory, each directory on this interpreter's path, and the one
    holding Triton (so its own modules, e.g. triton/language/standard.py, keep theirs too)."""
    import importlib.util
    prefixes = [str(kernel_dir)]
    spec = importlib.util.find_spec("triton")
    if spec and spec.submodule_search_locations:
        prefixes.append(str(Path(list(spec.submodule_search_locations)[0]).parent))
    for entry in sys.path:
        if entry and os.path.isdir(entry):
            prefixes += [entry, str(Path(entry).resolve())]
    seen = set()
    return [p for p in prefixes if p not in seen and not seen.add(p) and "=" not in p]


def compile_kernel(args):
    out_name = args.out_name if args.out_name else args.kernel_name
    out_path = args.out_path if args.out_path else Path(out_name)
    grid = args.grid.split(",")
    if len(grid) != 3:
        raise FrontError(f"--grid '{args.grid}': three comma-separated C expressions are needed, "
                         f"got {len(grid)}")
    names = UpstreamNames(args.signature, args.num_warps, args.num_stages, out_name,
                          every_index=installed_names_every_index())
    target = args.target if args.target else current_target()
    kernel_path = Path(args.path).resolve()

    with tempfile.TemporaryDirectory(prefix="triton-aot-compile-") as staging:
        command = [
            find_tool("triton-aot-cc"), str(kernel_path), "-n", args.kernel_name, "-s", args.signature,
            "-w", str(args.num_warps), "-ns", str(args.num_stages), "-t", target, "-on", out_name,
            "-o", staging + "/", "--no-ptx", "--cache-dir", default_cache_dir(),
            "--source-root", str(kernel_path.parent),
        ]
        for prefix in own_name_prefixes(kernel_path.parent):
            command += ["--file-prefix-map", f"{prefix}={prefix}"]
        if not os.environ.get("TRITON_AOT_PYTHON"):
            command += ["--python", sys.executable]  # the interpreter this script runs with, as upstream
        done = subprocess.run(command)
        if done.returncode != 0:
            sys.exit(done.returncode)  # triton-aot-cc printed the diagnostic
        metas = sorted(Path(staging).glob("*.json"))
        if len(metas) != 1:
            raise FrontError(f"triton-aot-cc wrote {len(metas)} metadata files, expected one")
        # The metadata's one reader (contract/, through the linker) checks every field and the
        # image against it before any of it reaches C; its error is printed as it says it.
        checked = subprocess.run([find_tool("triton-aot-ld"), "--inspect", str(metas[0])],
                                 stdout=subprocess.DEVNULL)
        if checked.returncode != 0:
            sys.exit(checked.returncode)
        image = KernelImage(metas[0])

    c_text, h_text = kernel_c_and_h(image, names, [g.strip() for g in grid], args.kernel_name,
                                    args.num_stages)
    source_suffix = hip_source_suffix() if image.backend == "hip" else ".c"
    outputs = []
    for suffix, text in ((source_suffix, c_text), (".h", h_text)):
        path = out_path.with_suffix(f".{names.sig_hash}_{names.suffix}{suffix}")
        # each file whole or not at all: written beside, then renamed into place
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        outputs.append(path)
    return names.func_name, outputs


def main(argv=None):
    args = parse_args(argv)
    try:
        compile_kernel(args)
    except FrontError as err:
        fail(PROG, str(err))
    except OSError as err:
        fail(PROG, f"{err.filename}: {err.strerror}" if err.filename else str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
