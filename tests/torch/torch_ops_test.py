"""The PyTorch operators of a triton-aot library (triton_add_torch_library, docs/torch.md): builds
tests/torch/project against the torch of the first interpreter given (the oldest), then in every
interpreter given (newer torch releases too: the stable C ABI's promise) loads the extension and
checks the schemas and their mutation marks, each check's message, opcheck and a
torch.compile(fullgraph=True) trace over meta tensors, that Triton is never imported, and, where
there is a GPU, every op against torch's own computation.

    python3 tests/torch/torch_ops_test.py --tritonaot-dir build/default --work /tmp/kops \\
        /work/torchenv/bin/python /work/torch215/bin/python

Exit status 77 (skipped) when no interpreter is given or the first has no torch.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

SCHEMAS = {
    "add": "kops::add(Tensor x_ptr, Tensor y_ptr, Tensor(a!) out_ptr, int n_elements) -> ()",
    "scale_rows": "kops::scale_rows(Tensor x_ptr, Tensor(a!) out_ptr, int n_cols, float scale, "
                  "float bias, bool relu, int[3] grid) -> ()",
    "histogram": "kops::histogram(Tensor values_ptr, Tensor(a!) counts_ptr, int n) -> ()",
}


def check(library):
    """Runs in the interpreter under test; prints one JSON line of what it found."""
    import torch
    torch.ops.load_library(library)
    ops = torch.ops.kops
    found = {"torch": torch.__version__, "schemas": {}, "errors": {}}
    for name in SCHEMAS:
        found["schemas"][name] = str(getattr(ops, name).default._schema)

    def error(call):
        try:
            call()
        except Exception as exc:   # torch raises RuntimeError or NotImplementedError
            return str(exc).splitlines()[0]
        return None
    x = torch.ones(1000)
    found["errors"]["cpu"] = error(lambda: ops.add(x, x, torch.empty(1000), 1000))
    meta = lambda n, dtype=torch.float32: torch.empty(n, device="meta", dtype=dtype)
    found["errors"]["dtype"] = error(lambda: ops.add(meta(8, torch.float16), meta(8), meta(8), 8))
    ops.add(meta(8), meta(8), meta(8), 8)
    # Loading and calling the operators needs no Triton (opcheck and torch.compile below
    # import it themselves, as torch's own tooling)
    found["triton_imported"] = "triton" in sys.modules
    # opcheck: schema, fake tensors, the mutation marks against what the Meta kernel does
    torch.library.opcheck(ops.add, (meta(1000), meta(1000), meta(1000), 1000))
    torch.library.opcheck(ops.scale_rows, (meta(64, torch.float16), meta(64, torch.float16), 8,
                                           2.0, 0.5, True, [8, 1, 1]))
    torch.library.opcheck(ops.histogram, (meta(100, torch.int32), meta(16, torch.int32), 100))

    def scaled_sum(a, b, out):
        ops.add(a, b, out, a.numel())
        return out * 2
    compiled = torch.compile(scaled_sum, fullgraph=True, backend="eager")
    found["compiled_shape"] = list(compiled(meta(1000), meta(1000), meta(1000)).shape)

    if torch.cuda.is_available():   # the GPU: every op against torch's own
        dev = "cuda"
        a, b = torch.randn(4097, device=dev), torch.randn(4097, device=dev)
        out = torch.empty_like(a)
        ops.add(a, b, out, a.numel())
        found["add_equal"] = bool(torch.equal(out, a + b))
        rows = torch.randn(32, 100, device=dev, dtype=torch.float16)
        scaled = torch.empty_like(rows)
        ops.scale_rows(rows, scaled, 100, 1.5, -0.25, True, [32, 1, 1])
        want = torch.relu(rows.float() * 1.5 + torch.tensor(-0.25, dtype=torch.float16).float()).half()
        found["scale_rows_equal"] = bool(torch.equal(scaled, want))
        values = torch.randint(0, 16, (100000,), device=dev, dtype=torch.int32)
        counts = torch.zeros(16, device=dev, dtype=torch.int32)
        ops.histogram(values, counts, values.numel())
        found["histogram_equal"] = bool(torch.equal(counts, torch.bincount(values, minlength=16).int()))
        found["device"] = torch.cuda.get_device_name()
    print(json.dumps(found))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tritonaot-dir", help="the TritonAOT package (a build tree or install)")
    parser.add_argument("--work", help="a scratch directory")
    parser.add_argument("--check", help=argparse.SUPPRESS)   # run in the interpreter under test
    parser.add_argument("--require-gpu", action="store_true",
                        help="fail unless the GPU comparison ran (the gpu test)")
    parser.add_argument("pythons", nargs="*", help="interpreters with torch; the first builds")
    args = parser.parse_args()
    if args.check:
        check(args.check)
        return 0
    pythons = [p for p in args.pythons if p]
    if not pythons:
        print("SKIP: no interpreter with torch given (TRITON_AOT_TEST_TORCH_PYTHONS)")
        return SKIP
    if subprocess.run([pythons[0], "-c", "import torch, triton"], capture_output=True).returncode:
        print(f"SKIP: {pythons[0]} has no torch and Triton")
        return SKIP
    if args.require_gpu and subprocess.run(
            [pythons[0], "-c", "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"],
            capture_output=True).returncode:
        print("SKIP: no GPU")
        return SKIP
    build = os.path.join(args.work, "build")
    subprocess.run(["cmake", "-S", os.path.join(HERE, "project"), "-B", build, "-G", "Ninja",
                    f"-DTritonAOT_DIR={os.path.abspath(args.tritonaot_dir)}",
                    f"-DTRITON_AOT_PYTHON={pythons[0]}", "-DCMAKE_TRITON_ARCHITECTURES=80;90a"],
                   check=True)
    subprocess.run(["cmake", "--build", build], check=True)
    library = os.path.join(build, "kops_torch.so")
    failures = []
    for python in pythons:
        done = subprocess.run([python, __file__, "--check", library], capture_output=True, text=True)
        if done.returncode:
            failures.append(f"{python}: {done.stderr[-3000:]}")
            continue
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{python}: torch {found['torch']}: {json.dumps(found)}")
        expected = {
            "schemas": SCHEMAS,
            "cpu": "kops::add: x_ptr must be a tensor on the GPU",
            "dtype": "kops::add: x_ptr must be a tensor of fp32 elements (the kernel's type)",
        }
        if found["schemas"] != SCHEMAS:
            failures.append(f"{python}: schemas {found['schemas']} != {SCHEMAS}")
        for key in ("cpu", "dtype"):
            if not (found["errors"][key] or "").endswith(expected[key]):
                failures.append(f"{python}: the {key} error is {found['errors'][key]!r}, expected "
                                f"one ending {expected[key]!r}")
        if found["triton_imported"]:
            failures.append(f"{python}: loading and calling the operators imported Triton")
        if found["compiled_shape"] != [1000]:
            failures.append(f"{python}: the compiled function gave {found['compiled_shape']}")
        gpu = [k for k in found if k.endswith("_equal")]
        if args.require_gpu and not gpu:
            failures.append(f"{python}: no GPU to compare on")
        failures += [f"{python}: {k} is false" for k in gpu if not found[k]]
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
