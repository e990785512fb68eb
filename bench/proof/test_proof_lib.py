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
