"""GPU-free checks of equality.py's harness: grid evaluation, C argument types, variant choice,
the library's manifest through ctypes, and, for each kernel and config, that the inputs
equality.py builds make Triton's JIT compile exactly the image the library dispatches to
(Triton's own JIT path with a stand-in driver for the target: no GPU, no torch).

    python bench/proof/test_proof_lib.py [lib<prefix>.so ...]    # libraries: the manifest checks

Needs Triton; libraries from bench/proof's build. Without libraries only the first checks run.
"""
import ctypes
import hashlib
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import proof_lib  # noqa: E402
import equality  # noqa: E402
import references  # noqa: E402

LIBRARIES = []
TARGET = os.environ.get("PROOF_TARGET", "cuda:90a")


class ReferencesTest(unittest.TestCase):
    def test_rebase_source_takes_the_longest_tail_that_exists_here(self):
        here = {"/repo/bench/proof/kernels/matmul.py", "/repo/kernels/matmul.py"}
        rebase = references.rebase_source
        self.assertEqual(rebase("/work/main/bench/proof/kernels/matmul.py", "/repo/", here.__contains__),
                         "/repo/bench/proof/kernels/matmul.py")
        self.assertEqual(rebase("/elsewhere/kernels/matmul.py", "/repo", here.__contains__),
                         "/repo/kernels/matmul.py")
        self.assertIsNone(rebase("/work/main/other.py", "/repo", here.__contains__))

    def test_every_proof_kernel_has_a_reference_and_a_tolerance(self):
        for name in ("vector_add", "gluon_add", "gluon_add_wave64", "softmax", "matmul", "matmul_bf16",
                     "layer_norm", "attention_fwd", "attention_fwd_causal", "scale_shift"):
            self.assertIn(name, references.TOLERANCES)
            atol, rtol = references.TOLERANCES[name]
            self.assertTrue(0 < atol <= 0.5 and 0 < rtol <= 0.02, name)


    def test_source_root_takes_precedence_over_the_manifest_path(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            path = os.path.join(root, "bench", "proof", "kernels", "matmul.py")
            os.makedirs(os.path.dirname(path))
            open(path, "w").close()
            kernel = {"source": "/build/machine/checkout/bench/proof/kernels/matmul.py"}
            self.assertEqual(equality.resolve_source(kernel, root), path)
            # The manifest's path exists here too (an older checkout): --source-root still wins.
            elsewhere = {"/build/machine/checkout/bench/proof/kernels/matmul.py", path}
            self.assertEqual(equality.resolve_source(kernel, root, elsewhere.__contains__), path)
            self.assertEqual(equality.resolve_source({"source": path}), path)
            with self.assertRaisesRegex(FileNotFoundError, "--source-root"):
                equality.resolve_source({"source": "/nowhere/attention.py"})
            with self.assertRaisesRegex(FileNotFoundError, "under --source-root"):
                equality.resolve_source({"source": "/nowhere/attention.py"}, root)


class TableTest(unittest.TestCase):
    def test_format_table(self):
        rows = [{"kernel": "softmax", "n": "150162", "err": "3.73e-09"},
                {"kernel": "matmul_bf16", "n": "0", "err": "n/a"}]
        lines = proof_lib.format_table(rows, [("kernel", "kernel"), ("differ", "n"),
                                              ("max abs", "err"), ("note", "missing")])
        self.assertEqual(lines, [
            "kernel       differ   max abs  note",
            "-----------  ------  --------  ----",
            "softmax      150162  3.73e-09",
            "matmul_bf16       0       n/a"])


def import_torch():
    try:
        import torch
        return torch
    except ImportError:
        return None


@unittest.skipIf(import_torch() is None, "no torch: the references and statistics need it")
class TorchReferencesTest(unittest.TestCase):
    """references.py and equality.py's numeric comparison on CPU tensors."""

    def setUp(self):
        self.torch = import_torch()
        self.gen = self.torch.Generator().manual_seed(5)

    def randn(self, *shape, dtype=None):
        t = self.torch.randn(*shape, generator=self.gen)
        return t.to(dtype) if dtype is not None else t

    def test_differences(self):
        torch = self.torch
        nan = float("nan")
        got = torch.tensor([1.0, 2.0, 3.0, nan, 0.0])
        want = torch.tensor([1.0, 2.5, 3.0, nan, 0.0])
        self.assertEqual(references.differences(torch, got, want), (1, 0.5, 0.2))
        # The relative error's denominator is at least 1e-3 of the largest |want|.
        count, abs_err, rel_err = references.differences(
            torch, torch.tensor([1000.0, 0.5]), torch.tensor([1000.0, 0.0]))
        self.assertEqual((count, abs_err, rel_err), (1, 0.5, 0.5))
        # A NaN on one side only is an infinite error; equal tensors differ nowhere.
        self.assertEqual(references.differences(torch, torch.tensor([nan]), torch.tensor([1.0]))[:2],
                         (1, float("inf")))
        self.assertEqual(references.differences(torch, want, want.clone()), (0, 0.0, 0.0))
        # fp16 and bf16 compare in fp64: one fp16 ulp at 1 is 2^-10.
        h = torch.tensor([1.0, 2.0], dtype=torch.float16)
        self.assertEqual(references.differences(torch, h + torch.tensor([2 ** -10, 0.0]).half(), h),
                         (1, 2 ** -10, 2 ** -10))
        inf = float("inf")
        self.assertEqual(references.differences(torch, torch.tensor([inf, -inf, 1.0]),
                                                torch.tensor([inf, -inf, 1.0])), (0, 0.0, 0.0))
        self.assertEqual(references.differences(torch, torch.tensor([1.0, 2.0]),
                                                torch.tensor([inf, 2.0])), (1, inf, inf))
        self.assertEqual(references.differences(torch, torch.empty(0), torch.empty(0)), (0, 0.0, 0.0))

    def test_within(self):
        torch = self.torch
        atol, rtol = references.TOLERANCES["matmul"]
        want = torch.tensor([0.0, 100.0])
        near = want + torch.tensor([atol, atol + rtol * 100]) * 0.99
        self.assertTrue(references.within(torch, "matmul", near, want))
        self.assertFalse(references.within(torch, "matmul", want + torch.tensor([atol * 1.01, 0.0]), want))
        self.assertFalse(references.within(torch, "matmul", torch.tensor([float("nan"), 100.0]), want))

    def test_references_against_torch_functions(self):
        torch = self.torch
        F = torch.nn.functional
        ref = references.reference
        x, y = self.randn(100), self.randn(100)
        self.assertTrue(torch.equal(ref(torch, "gluon_add", dict(x_ptr=x, y_ptr=y), {})["out_ptr"], x + y))
        got = ref(torch, "scale_shift", dict(x_ptr=x, alpha=0.5, beta=2.0, use_beta=False), {})
        self.assertTrue(torch.equal(got["out_ptr"], x * 0.5))
        got = ref(torch, "scale_shift", dict(x_ptr=x, alpha=0.5, beta=2.0, use_beta=True), {})
        self.assertTrue(torch.equal(got["out_ptr"], x * 0.5 + 2.0))

        rows = self.randn(7, 32)
        got = ref(torch, "softmax", dict(in_ptr=rows, n_cols=29), {})["out_ptr"]
        e = rows[:, :29].double().exp()
        torch.testing.assert_close(got.double(), e / e.sum(1, keepdim=True))

        a, b = self.randn(9, 32, dtype=torch.float16), self.randn(21, 16, dtype=torch.float16)
        got = ref(torch, "matmul", dict(a_ptr=a, b_ptr=b, M=9, N=13, K=21), {})["c_ptr"]
        self.assertEqual(tuple(got.shape), (9, 13))
        torch.testing.assert_close(got.double(), a[:, :21].double() @ b[:, :13].double(),
                                   rtol=1e-5, atol=1e-5)

        xs = self.randn(5, 48, dtype=torch.float16)
        w, bias = self.randn(40, dtype=torch.float16), self.randn(40, dtype=torch.float16)
        got = ref(torch, "layer_norm", dict(x_ptr=xs, w_ptr=w, b_ptr=bias, N=40, eps=1e-5), {})
        x40 = xs[:, :40].float()
        torch.testing.assert_close(got["y_ptr"], F.layer_norm(x40, (40,), w.float(), bias.float(), 1e-5))
        torch.testing.assert_close(got["mean_ptr"], x40.mean(1))
        torch.testing.assert_close(got["rstd_ptr"], (x40.var(1, unbiased=False) + 1e-5).rsqrt())

        q, k, v = (self.randn(3, 50, 16, dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            got = ref(torch, "attention_fwd_causal" if causal else "attention_fwd",
                      dict(q_ptr=q, k_ptr=k, v_ptr=v, sm_scale=0.25), {"IS_CAUSAL": causal})
            s = (q.double() @ k.double().transpose(1, 2)) * 0.25
            if causal:
                s = s.masked_fill(torch.ones(50, 50, dtype=torch.bool).triu(1), float("-inf"))
            torch.testing.assert_close(got["out_ptr"].double(), s.softmax(-1) @ v.double(),
                                       rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(got["lse_ptr"].double(), s.exp().sum(-1).log2(), rtol=1e-5, atol=1e-5)
        self.assertIsNone(ref(torch, "no_such_kernel", {}, {}))

    def test_every_case_has_a_reference_of_its_outputs_shape(self):
        torch = self.torch
        constexprs = {"softmax": {"BLOCK": 1024}, "attention_fwd": {"HEAD_DIM": 64, "IS_CAUSAL": False},
                      "attention_fwd_causal": {"HEAD_DIM": 64, "IS_CAUSAL": True}}
        for name in references.TOLERANCES:
            for case in equality.cases_for(name, constexprs.get(name, {}), torch, self.gen, "cpu"):
                want = references.reference(torch, name, case.args, constexprs.get(name, {}))
                self.assertEqual(set(want), set(case.outputs), name)
                for out, region in case.outputs.items():
                    self.assertEqual(tuple(want[out].shape), tuple(region(case.args[out]).shape),
                                     f"{name} {out}")

    def test_compare_numeric(self):
        torch = self.torch
        x, y = self.randn(64), self.randn(64)
        case = equality.Case("n=64", dict(x_ptr=x, y_ptr=y, out_ptr=x + y, n_elements=64),
                             {"out_ptr": lambda t: t})
        kernel, config = {"name": "vector_add"}, {"constexprs": {}}
        lib_out = {"out_ptr": (x + y).clone()}
        row = equality.compare_numeric(torch, kernel, config, case, lib_out)
        self.assertEqual((row["within_tolerance"], row["jit_differing"], row["jit_elements"],
                          row["jit_max_abs"], row["notes"]), ("yes", 0, 64, "0", []))
        lib_out["out_ptr"][3] += 0.25
        row = equality.compare_numeric(torch, kernel, config, case, lib_out)
        self.assertEqual((row["within_tolerance"], row["jit_differing"], row["jit_max_abs"],
                          row["ref_max_abs"]), ("no", 1, "0.25", "0.25"))
        self.assertIn("out_ptr: beyond tolerance 1e-06+1e-06*|ref|", row["notes"][0])
        # This Triton's JIT failed: its figures are n/a, the reference still decides.
        row = equality.compare_numeric(torch, kernel, config, case, {"out_ptr": x + y}, jit_ran=False)
        self.assertEqual((row["within_tolerance"], row["jit_differing"], row["jit_max_rel"]),
                         ("yes", "n/a", "n/a"))


class GridTest(unittest.TestCase):
    def test_c_semantics(self):
        ev = proof_lib.eval_grid
        self.assertEqual(ev(["cdiv(n, B)", "1", "1"], {"n": 1000, "B": 256}), (4, 1, 1))
        self.assertEqual(ev(["cdiv(M, BM) * cdiv(N, BN)"], {"M": 1531, "BM": 128, "N": 1201, "BN": 256}), (12 * 5,))
        self.assertEqual(ev(["-7 / 2", "-7 % 2", "7 % -2"], {}), (-3, -1, 1))  # C truncation
        self.assertEqual(ev(["1 + 2 * 3 << 1", "(1 + 2) * 3", "10 - 4 - 3"], {}), (14, 9, 3))
        self.assertEqual(ev(["a > 3 ? a : 3", "a && 0 || 1", "!a + ~0"], {"a": 5}), (5, 1, -1))
        self.assertEqual(ev(["min(a, 3) + max(a, 9)", "a == 5 & 1", "2 ^ 3 | 4"], {"a": 5}), (12, 1, 5))
        self.assertEqual(ev(["n"], {"n": True}), (1,))

    def test_errors(self):
        for text, names in (("cdiv(n)", {"n": 1}), ("m", {}), ("foo(1, 2)", {}), ("1 +", {}),
                            ("1 / 0", {}), ("a $ b", {"a": 1, "b": 1})):
            with self.assertRaises((ValueError, ZeroDivisionError), msg=text):
                proof_lib.eval_grid([text], names)


class ArgumentTest(unittest.TestCase):
    def test_ctypes(self):
        def param(t, size):
            return {"name": "p", "type": t, "size": size}
        self.assertIs(proof_lib.ctype_of(param("*bf16", 8)), ctypes.c_void_p)
        self.assertIs(proof_lib.ctype_of(param("i1", 1)), ctypes.c_bool)
        self.assertIs(proof_lib.ctype_of(param("i64", 8)), ctypes.c_int64)
        self.assertIs(proof_lib.ctype_of(param("fp16", 2)), ctypes.c_uint16)
        self.assertIs(proof_lib.ctype_of(param("fp32", 4)), ctypes.c_float)
        with self.assertRaises(ValueError):
            proof_lib.ctype_of(param("i32", 8))   # the manifest's size must match
        with self.assertRaises(ValueError):
            proof_lib.ctype_of(param("fp8e5", 1))
        # A host tensor descriptor: its base a pointer, its shapes and strides int64.
        base = {"name": "a", "kind": "tensordesc", "type": "tensordesc<fp16[128, 64]>", "size": 8}
        shape = {"name": "a.shape0", "kind": "tensordesc_shape", "type": "i64", "size": 8}
        self.assertIs(proof_lib.ctype_of(base), ctypes.c_void_p)
        self.assertIs(proof_lib.ctype_of(shape), ctypes.c_int64)
        self.assertEqual(proof_lib.c_value(base, 0x7f0000100000).value, 0x7f0000100000)
        self.assertEqual(proof_lib.c_value(shape, 1000).value, 1000)

    def test_values(self):
        self.assertEqual(proof_lib.fp16_bits(0.5), 0x3800)
        self.assertEqual(proof_lib.fp16_bits(-2.0), 0xC000)
        self.assertEqual(proof_lib.bf16_bits(1.0), 0x3F80)
        with self.assertRaises(ValueError):
            proof_lib.fp16_bits(0.1)
        with self.assertRaises(ValueError):
            proof_lib.bf16_bits(1.0 + 2 ** -20)
        v = proof_lib.c_value({"name": "b", "type": "fp16", "size": 2}, 1.5)
        self.assertEqual(v.value, 0x3E00)
        self.assertEqual(proof_lib.c_value({"name": "p", "type": "*fp32", "size": 8}, 4096).value, 4096)

    def test_chosen_variant(self):
        config = {"variants": [{"hints": {"x": 16, "n": 16}}, {"hints": {"n": 1}}, {"hints": {}}]}
        self.assertEqual(proof_lib.chosen_variant(config, {"x": 256, "n": 32})["hints"], {"x": 16, "n": 16})
        self.assertEqual(proof_lib.chosen_variant(config, {"x": 8, "n": 1})["hints"], {"n": 1})
        self.assertEqual(proof_lib.chosen_variant(config, {"x": 256, "n": 33})["hints"], {})
        self.assertIsNone(proof_lib.chosen_variant({"variants": [{"hints": {"n": 16}}]}, {"n": 3}))


# A stand-in for torch, enough for equality.cases_for(): tensors with a shape, a dtype and a
# 256-byte aligned address (as torch's caching allocator gives).
class FakeTensor:
    _next = 1 << 20

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
        FakeTensor._next += 1 << 20
        self.address = FakeTensor._next

    def data_ptr(self):
        return self.address

    def to(self, dtype):
        return FakeTensor(self.shape, dtype)

    def item(self):
        return 0.75   # exact in fp16, bf16 and fp32

    def __getitem__(self, index):
        return self


class FakeTorch:
    float16, bfloat16, float32 = "float16", "bfloat16", "float32"

    @staticmethod
    def randn(*shape, generator=None, device=None, dtype="float32"):
        return FakeTensor(shape, dtype)

    @staticmethod
    def empty(*shape, device=None, dtype="float32"):
        return FakeTensor(shape, dtype)


def offline_jit(fn, kwargs, grid, target):
    """Compiles fn as Triton's JIT does for a launch with kwargs on target, without a GPU (a
    stand-in driver answers Triton's questions about the device); returns the CompiledKernel."""
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.runtime.driver import driver
    from triton.runtime.jit import MockTensor

    backend, arch = target.split(":")
    if backend == "cuda":
        gpu_target = GPUTarget("cuda", int(arch.rstrip("a")), 32)
    else:
        gpu_target = GPUTarget("hip", arch, 64)

    class StandIn:
        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

        def get_current_target(self):
            return gpu_target

    dtypes = {"float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32}
    args = {k: MockTensor(dtypes[v.dtype]) if isinstance(v, FakeTensor) else v
            for k, v in kwargs.items()}
    previous = driver._active   # reset_active() would look for a real driver
    driver.set_active(StandIn())
    try:
        return fn.warmup(grid=grid, **args)
    finally:
        driver._active = previous


class LibraryTest(unittest.TestCase):
    def test_libraries(self):
        if not LIBRARIES:
            self.skipTest("no library given")
        for path in LIBRARIES:
            lib = proof_lib.Library(path)
            self.assertEqual(lib.manifest["prefix"], lib.prefix)
            for kernel in lib.kernels:
                entry = lib.entry(kernel)
                self.assertEqual(len(entry.argtypes), 2 + len(kernel["params"]))
                fn = equality.load_function(kernel)
                for config in kernel["configs"]:
                    cases = equality.cases_for(kernel["name"], config["constexprs"], FakeTorch, None, None)
                    self.assertTrue(cases, f"no inputs for {kernel['name']}")
                    for case in cases:
                        with self.subTest(kernel=kernel["name"], config=config["name"], shape=case.shape):
                            self.check_case(kernel, config, fn, case)

    def check_case(self, kernel, config, fn, case):
        names = {p["name"] for p in kernel["params"]}
        self.assertEqual(set(case.args), names)
        self.assertTrue(set(case.outputs) <= names)
        c_args = {n: (v.data_ptr() if isinstance(v, FakeTensor) else v) for n, v in case.args.items()}
        for p in kernel["params"]:   # every scalar converts to its C type
            proof_lib.c_value(p, c_args[p["name"]])
        grid_names = dict(c_args)
        grid_names.update({k: int(v) for k, v in config["constexprs"].items() if isinstance(v, (bool, int))})
        grid = proof_lib.eval_grid(kernel["grid"], grid_names)
        self.assertTrue(all(g >= 1 for g in grid), grid)
        variant = proof_lib.chosen_variant(config, c_args)
        self.assertIsNotNone(variant)
        function = next((f for f in variant["functions"] if f["target"] == TARGET), None)
        if function is None:
            return
        kwargs = dict(case.args)
        kwargs.update(config["constexprs"])
        kwargs.update(config["options"])
        kwargs.update(num_warps=config["num_warps"], num_stages=config["num_stages"])
        compiled = offline_jit(fn, kwargs, grid, TARGET)
        kind = "hsaco" if TARGET.startswith("hip:") else "cubin"
        same = hashlib.sha256(compiled.asm[kind]).hexdigest() == function["image"]["sha256"]
        hints, types = proof_lib.jit_hints(compiled, list(names))
        why = proof_lib.specialization_difference(variant, kernel["params"], hints, types)
        if kernel["name"] == "vector_add" and variant["hints"] == {}:
            # The generic variant: the JIT specialises torch's aligned pointers, the library not.
            self.assertFalse(same)
            self.assertIn("x_ptr: library no hint, JIT :16", why)
        else:
            self.assertTrue(same, f"the JIT compiled another image: {why or 'same specialisation'}")
            self.assertEqual(why, "")


if __name__ == "__main__":
    LIBRARIES = [a for a in sys.argv[1:] if not a.startswith("-")]
    unittest.main(argv=[sys.argv[0]] + [a for a in sys.argv[1:] if a.startswith("-")], verbosity=2)
