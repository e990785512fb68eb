"""The PyTorch operators of a triton-aot library (triton_add_torch_library, docs/torch.md): builds
tests/torch/project against the torch of the first interpreter given (the oldest), then in every
interpreter given (newer torch releases too: the stable C ABI's promise) loads the extension and
checks the schemas and their mutation marks, each check's message, that every call deletes the
tensor handles it is given (use counts unchanged, errors too), opcheck and a
torch.compile(fullgraph=True) trace over meta tensors, that Triton is never imported, and, where
there is a GPU, every op against Triton's own launch of the same kernel and torch's computation
(bit for bit), a CUDA graph of the ops replayed, and torch.compile (Inductor) against eager.

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
# kops_tma: host tensor descriptors, one tensor each (built for 90a only)
TMA_SCHEMA = "kops_tma::tile_scale(Tensor in_desc, Tensor(a!) out_desc, float scale, int[3] grid) -> ()"


def check(library):
    """Runs in the interpreter under test; prints one JSON line of what it found."""
    import torch
    torch.ops.load_library(library)
    torch.ops.load_library(os.path.join(os.path.dirname(library), "kops_tma_torch.so"))
    ops = torch.ops.kops
    found = {"torch": torch.__version__, "schemas": {}, "errors": {}}
    for name in SCHEMAS:
        found["schemas"][name] = str(getattr(ops, name).default._schema)
    found["tma_schema"] = str(torch.ops.kops_tma.tile_scale.default._schema)

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
    tile = torch.empty(64, 96, device="meta")
    found["errors"]["rank"] = error(lambda: torch.ops.kops_tma.tile_scale(meta(64), tile, 2.0, [2, 3, 1]))
    # Loading and calling the operators needs no Triton (opcheck and torch.compile below
    # import it themselves, as torch's own tooling)
    found["errors"]["cpu_dtype"] = error(lambda: ops.add(x.half(), x, torch.empty(1000), 1000))
    found["use_counts"] = use_counts(torch, ops, meta, error)
    found["triton_imported"] = "triton" in sys.modules
    # opcheck: schema, fake tensors, the mutation marks against what the Meta kernel does
    torch.library.opcheck(ops.add, (meta(1000), meta(1000), meta(1000), 1000))
    torch.library.opcheck(ops.scale_rows, (meta(64, torch.float16), meta(64, torch.float16), 8,
                                           2.0, 0.5, True, [8, 1, 1]))
    torch.library.opcheck(ops.histogram, (meta(100, torch.int32), meta(16, torch.int32), 100))
    torch.library.opcheck(torch.ops.kops_tma.tile_scale, (tile, torch.empty_like(tile), 2.0, [2, 3, 1]))

    def scaled_sum(a, b, out):
        ops.add(a, b, out, a.numel())
        return out * 2
    compiled = torch.compile(scaled_sum, fullgraph=True, backend="eager")
    found["compiled_shape"] = list(compiled(meta(1000), meta(1000), meta(1000)).shape)

    if torch.cuda.is_available():
        found.update(gpu_checks(torch, ops))
    print(json.dumps(found))


def use_counts(torch, ops, meta, error):
    """The dispatcher hands an op a new handle for each tensor argument (and the grid's list),
    which the op deletes once, whether it returns or raises: calls that launch nothing (Meta,
    CPU tensors), return and raise, leave each tensor's use count as it was. [before, after]."""
    held = [torch.ones(8), torch.ones(8, dtype=torch.float16), meta(8), meta(8, torch.float16),
            meta(64, torch.float16)]
    before = [t._use_count() for t in held]
    error(lambda: ops.add(held[0], held[0], held[0], 8))   # on the GPU: no
    error(lambda: ops.add(held[1], held[0], held[0], 8))   # the dtype
    ops.add(held[2], held[2], held[2], 8)
    error(lambda: ops.add(held[3], held[2], held[2], 8))
    ops.scale_rows(held[4], held[4], 8, 2.0, 0.5, True, [8, 1, 1])
    error(lambda: ops.scale_rows(held[1], held[1], 8, 2.0, 0.5, True, [8, 1, 1]))
    return [before, [t._use_count() for t in held]]


def gpu_checks(torch, ops):
    """On the GPU, after the no-Triton checks: every op against torch's own computation and
    against Triton's own launch of the same kernel (bit for bit), a CUDA graph of the ops
    replayed on new inputs, and torch.compile (Inductor) against eager."""
    import importlib.util
    import triton
    spec = importlib.util.spec_from_file_location("kops_kernels",
                                                  os.path.join(HERE, "project", "kernels", "ops.py"))
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    found = {"device": torch.cuda.get_device_name()}
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(29)

    def inputs(seed):
        gen.manual_seed(seed)
        return {"a": torch.randn(4097, device=dev, generator=gen),
                "b": torch.randn(4097, device=dev, generator=gen),
                "rows": torch.randn(32, 100, device=dev, generator=gen).half(),
                "values": torch.randint(0, 16, (100000,), device=dev, generator=gen,
                                        dtype=torch.int32)}

    def through_ops(x):
        out, scaled = torch.empty_like(x["a"]), torch.empty_like(x["rows"])
        counts = torch.zeros(16, device=dev, dtype=torch.int32)
        ops.add(x["a"], x["b"], out, x["a"].numel())
        ops.scale_rows(x["rows"], scaled, 100, 1.5, -0.25, True, [32, 1, 1])
        ops.histogram(x["values"], counts, x["values"].numel())
        return out, scaled, counts

    def through_triton(x):   # the same kernels and constexprs, launched by Triton's JIT
        out, scaled = torch.empty_like(x["a"]), torch.empty_like(x["rows"])
        counts = torch.zeros(16, device=dev, dtype=torch.int32)
        n = x["a"].numel()
        kernels.add_kernel[(triton.cdiv(n, 1024),)](x["a"], x["b"], out, n, BLOCK=1024)
        # bias -0.25 is exact in fp16, the library's type for it (Triton's JIT passes fp32)
        kernels.scale_rows_kernel[(32,)](x["rows"], scaled, 100, 1.5, -0.25, False, True, BLOCK=128)
        m = x["values"].numel()
        kernels.histogram_kernel[(triton.cdiv(m, 256),)](x["values"], counts, m, BLOCK=256)
        return out, scaled, counts

    names = ("add", "scale_rows", "histogram")
    x = inputs(1)
    counts_before = {key: t._use_count() for key, t in x.items()}
    mine, theirs = through_ops(x), through_triton(x)
    # the launches delete the handles the dispatcher gave them, as the checks without a GPU do
    counts_after = {key: t._use_count() for key, t in x.items()}
    found["launch_use_counts_equal"] = counts_before == counts_after
    reference = (x["a"] + x["b"],
                 torch.relu(x["rows"].float() * 1.5 - 0.25).half(),
                 torch.bincount(x["values"], minlength=16).int())
    for name, m, t, r in zip(names, mine, theirs, reference):
        found[f"{name}_equal_triton"] = bool(torch.equal(m, t))
        found[f"{name}_equal_torch"] = bool(torch.equal(m, r))

    # Host tensor descriptors (TMA, sm_90 and later; the library has only a 90a image)
    if torch.cuda.get_device_capability() == (9, 0):
        from triton.tools.tensor_descriptor import TensorDescriptor
        tiles = torch.randn(96, 160, device=dev, generator=gen)
        mine, theirs = torch.empty_like(tiles), torch.empty_like(tiles)
        torch.ops.kops_tma.tile_scale(tiles, mine, 1.5, [3, 5, 1])
        kernels.tile_scale_kernel[(3, 5)](TensorDescriptor.from_tensor(tiles, [32, 32]),
                                          TensorDescriptor.from_tensor(theirs, [32, 32]), 1.5,
                                          BLOCK_M=32, BLOCK_N=32)
        found["tile_scale_equal_triton"] = bool(torch.equal(mine, theirs))
        found["tile_scale_equal_torch"] = bool(torch.equal(mine, tiles * 1.5))

    # A CUDA graph of the three ops, captured once, replayed on inputs copied in afterwards
    static = inputs(2)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        through_ops(static)   # warm up (first launch loads the images) outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = through_ops(static)
    for seed in (3, 4):
        fresh = inputs(seed)
        for key in static:
            static[key].copy_(fresh[key])
        graph.replay()
        for name, got, want in zip(names, captured, through_triton(fresh)):
            found[f"{name}_graph_replay_{seed}_equal"] = bool(torch.equal(got, want))

    # torch.compile with Inductor (it generates Triton code of its own around the op)
    def scaled_sum(a, b):
        out = torch.empty_like(a)
        ops.add(a, b, out, a.numel())
        return out * 2 + 1
    x = inputs(5)
    compiled = torch.compile(scaled_sum, fullgraph=True)
    found["compiled_equal_eager"] = bool(torch.equal(compiled(x["a"], x["b"]), scaled_sum(x["a"], x["b"])))
    torch.cuda.synchronize()
    return found


def build(tritonaot_dir, work, python, architectures="80;90a"):
    """tests/torch/project built against the torch of `python` (for the A100 and H100/H200
    generations by default); the extension's path."""
    build_dir = os.path.join(work, "build")
    subprocess.run(["cmake", "-S", os.path.join(HERE, "project"), "-B", build_dir, "-G", "Ninja",
                    f"-DTritonAOT_DIR={os.path.abspath(tritonaot_dir)}",
                    f"-DTRITON_AOT_PYTHON={python}", f"-DCMAKE_TRITON_ARCHITECTURES={architectures}"],
                   check=True)
    subprocess.run(["cmake", "--build", build_dir], check=True)
    return os.path.join(build_dir, "kops_torch.so")


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
    library = build(args.tritonaot_dir, args.work, pythons[0])
    failures = []
    for python in pythons:
        done = subprocess.run([python, "-X", "faulthandler", __file__, "--check", library],
                              capture_output=True, text=True)
        if done.returncode:
            failures.append(f"{python}: exit {done.returncode}: {done.stdout[-2000:]}"
                            f"{done.stderr[-3000:]}")
            continue
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{python}: torch {found['torch']}: {json.dumps(found)}")
        expected = {
            "schemas": SCHEMAS,
            "cpu": "kops::add: x_ptr must be a tensor on the GPU",
            "dtype": "kops::add: x_ptr must be a tensor of fp32 elements (the kernel's type)",
            "cpu_dtype": "kops::add: x_ptr must be a tensor of fp32 elements (the kernel's type)",
            "rank": "kops_tma::tile_scale: in_desc must be a 2-dimensional tensor (the kernel's "
                    "tensor descriptor), not 1-dimensional",
        }
        if found["schemas"] != SCHEMAS:
            failures.append(f"{python}: schemas {found['schemas']} != {SCHEMAS}")
        if found["tma_schema"] != TMA_SCHEMA:
            failures.append(f"{python}: schema {found['tma_schema']} != {TMA_SCHEMA}")
        for key in ("cpu", "dtype", "cpu_dtype", "rank"):
            if not (found["errors"][key] or "").endswith(expected[key]):
                failures.append(f"{python}: the {key} error is {found['errors'][key]!r}, expected "
                                f"one ending {expected[key]!r}")
        before, after = found["use_counts"]
        if before != after:
            failures.append(f"{python}: the ops' calls changed their tensors' use counts from "
                            f"{before} to {after}: a handle not deleted, or deleted twice")
        if found["triton_imported"]:
            failures.append(f"{python}: loading and calling the operators imported Triton")
        if found["compiled_shape"] != [1000]:
            failures.append(f"{python}: the compiled function gave {found['compiled_shape']}")
        gpu = [k for k in found if k.endswith("_equal") or "_equal_" in k]
        if args.require_gpu and not gpu:
            failures.append(f"{python}: no GPU to compare on")
        failures += [f"{python}: {k} is false" for k in gpu if not found[k]]
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
