"""examples/torch_package as a user builds and ships it (docs/torch.md#a-python-package):
scikit-build-core builds its wheel on this machine (no GPU) for cuda:80 and cuda:90a against the
torch of the first interpreter given (the oldest), the wheel is installed into a directory, and in
every interpreter given (newer torch releases too), with nothing on PATH (no compiler), `import
tinyops` must register the operators and run them over meta tensors (with a GPU, over real ones
against torch's own computation) twice: with Triton installed, after which `triton` is not in
sys.modules, and with Triton made unimportable, as where it is not installed.

    python3 tests/torch/package_test.py --tritonaot-dir build/default --work /tmp/tinyops \\
        /work/torchenv/bin/python /work/torch215/bin/python

Exit status 77 (skipped) when no interpreter is given, the first has no torch and Triton, or
scikit-build-core is neither installed there nor installable from PyPI.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "examples", "torch_package")
SKIP = 77

SCHEMAS = {
    "silu_and_mul": "tinyops::silu_and_mul(Tensor gate_ptr, Tensor up_ptr, Tensor(a!) out_ptr, "
                    "int n_elements) -> ()",
    "rms_norm": "tinyops::rms_norm(Tensor x_ptr, Tensor weight_ptr, Tensor(a!) out_ptr, "
                "int n_cols, float eps, int[3] grid) -> ()",
}

# Run in the interpreter under test, with the installed wheel on sys.path; prints one JSON line.
# With "absent", Triton cannot be imported, as where it is not installed (None in sys.modules:
# import fails, importlib.util.find_spec says None); otherwise it must not be imported.
CHECK = r'''
import json, sys
absent = sys.argv[1] == "absent"
if absent:
    sys.modules["triton"] = None
import torch
import tinyops
found = {"torch": torch.__version__, "module": tinyops.__file__,
         "schemas": {n: str(getattr(torch.ops.tinyops, n).default._schema)
                     for n in ("silu_and_mul", "rms_norm")},
         "triton_after_import": not absent and "triton" in sys.modules}
gate = torch.empty(3000, device="meta", dtype=torch.float16)
found["meta_shapes"] = [list(tinyops.silu_and_mul(gate, gate).shape),
                        list(tinyops.rms_norm(torch.empty(8, 100, device="meta", dtype=torch.float16),
                                              torch.empty(100, device="meta", dtype=torch.float16)).shape)]
try:
    tinyops.silu_and_mul(gate.float(), gate.float())
    found["dtype_error"] = None
except Exception as exc:
    found["dtype_error"] = str(exc).splitlines()[0]
if torch.cuda.is_available():
    g = torch.randn(1 << 20, device="cuda", dtype=torch.float16)
    u = torch.randn(1 << 20, device="cuda", dtype=torch.float16)
    want = (torch.nn.functional.silu(g.float()) * u.float()).half()
    found["silu_and_mul_close"] = bool(torch.allclose(tinyops.silu_and_mul(g, u).float(), want.float(),
                                                      rtol=1e-3, atol=1e-3))
    x = torch.randn(64, 4096, device="cuda", dtype=torch.float16)
    w = torch.randn(4096, device="cuda", dtype=torch.float16)
    want = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).half()
    found["rms_norm_close"] = bool(torch.allclose(tinyops.rms_norm(x, w).float(), want.float(),
                                                  rtol=1e-2, atol=1e-2))
    torch.cuda.synchronize()
found["triton_after_calls"] = not absent and "triton" in sys.modules
print(json.dumps(found))
'''


def run(command, **kwargs):
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tritonaot-dir", required=True,
                        help="the TritonAOT package (a build tree or install)")
    parser.add_argument("--work", required=True, help="a scratch directory (emptied)")
    parser.add_argument("pythons", nargs="*", help="interpreters with torch; the first builds")
    args = parser.parse_args()
    pythons = [p for p in args.pythons if p]
    if not pythons:
        print("SKIP: no interpreter with torch given (TRITON_AOT_TEST_TORCH_PYTHONS)")
        return SKIP
    builder = pythons[0]
    if subprocess.run([builder, "-c", "import torch, triton"], capture_output=True).returncode:
        print(f"SKIP: {builder} has no torch and Triton")
        return SKIP
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    # The build runs without isolation, in the builder's torch; scikit-build-core goes beside
    # it when that environment lacks it (the environments here are shared, left unchanged).
    env = dict(os.environ)
    if subprocess.run([builder, "-c", "import scikit_build_core"], capture_output=True).returncode:
        backend = os.path.join(args.work, "backend")
        if run([builder, "-m", "pip", "install", "-q", "--target", backend,
                "scikit-build-core>=0.10"]).returncode:
            print("SKIP: scikit-build-core is not installed and cannot be installed from PyPI")
            return SKIP
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [backend, env.get("PYTHONPATH")]))
    dist = os.path.join(args.work, "dist")
    built = run([builder, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", dist,
                 EXAMPLE,
                 "-C", f"build-dir={os.path.join(args.work, 'build')}",
                 "-C", f"cmake.define.TritonAOT_DIR={os.path.abspath(args.tritonaot_dir)}",
                 "-C", f"cmake.define.TRITON_AOT_PYTHON={builder}"], env=env)
    if built.returncode:
        print("FAIL: the wheel did not build")
        return 1
    failures = []
    wheel = glob.glob(os.path.join(dist, "tinyops-*.whl"))[0]
    names = zipfile.ZipFile(wheel).namelist()
    print(f"wheel {os.path.basename(wheel)} ({os.path.getsize(wheel)} bytes): {names}")
    if "tinyops/_ops.so" not in names:
        failures.append(f"the wheel has no tinyops/_ops.so: {names}")
    # Every target was built into the library the operators link (its manifest, read by the linker)
    manifests = glob.glob(os.path.join(args.work, "build", "**", "tinyops_kernels.json"), recursive=True)
    inspect = run([os.path.join(args.tritonaot_dir, "bin", "triton-aot-ld"), "--inspect",
                   manifests[0]], capture_output=True, text=True) if manifests else None
    for target in ("cuda:80", "cuda:90a"):
        if not inspect or target not in inspect.stdout:
            failures.append(f"the library has no image for {target}: "
                            f"{inspect.stdout if inspect else 'no manifest'}")
    site = os.path.join(args.work, "site")
    run([builder, "-m", "pip", "install", "-q", "--no-deps", "--target", site, wheel], check=True)
    # No compiler anywhere: PATH holds nothing; the interpreter is named by its path
    bare = {"PYTHONPATH": site, "PATH": os.path.join(args.work, "empty-path"), "HOME": args.work}
    for key in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "LD_LIBRARY_PATH"):
        if key in os.environ:
            bare[key] = os.environ[key]
    for python, triton in ((p, t) for p in pythons for t in ("installed", "absent")):
        done = subprocess.run([python, "-c", CHECK, triton], capture_output=True, text=True,
                              env=bare, cwd=args.work)
        python = f"{python} (Triton {triton})"
        if done.returncode:
            failures.append(f"{python}: import tinyops failed: {done.stderr[-3000:]}")
            continue
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{python}: {json.dumps(found)}")
        if not found["module"].startswith(site):
            failures.append(f"{python}: imported {found['module']}, not the installed wheel")
        if found["schemas"] != {n: SCHEMAS[n] for n in found["schemas"]} or len(found["schemas"]) != 2:
            failures.append(f"{python}: schemas {found['schemas']} != {SCHEMAS}")
        if found["triton_after_import"] or found["triton_after_calls"]:
            failures.append(f"{python}: triton is in sys.modules")
        if found["meta_shapes"] != [[3000], [8, 100]]:
            failures.append(f"{python}: the meta calls gave {found['meta_shapes']}")
        want = "tinyops::silu_and_mul: gate_ptr must be a tensor of fp16 elements (the kernel's type)"
        if not (found["dtype_error"] or "").endswith(want):
            failures.append(f"{python}: the dtype error is {found['dtype_error']!r}, not {want!r}")
        failures += [f"{python}: {k} is false" for k in found if k.endswith("_close") and not found[k]]
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
