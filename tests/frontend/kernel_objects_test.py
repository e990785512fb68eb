"""What the worker takes for a kernel (triton_adapter.kernel_chain, classify): the layers around a
@jit function known by what they are and hold, never by name, and the cases a kernel file in
tests/kernels would not show: layers whose `fn` loop or never end, attributes that raise, objects
that hold a kernel somewhere else than `fn`, and what the error says of each."""
import os
import sys
import types
import unittest
from unittest import mock

import triton
import triton.language as tl
from triton.runtime import KernelInterface

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import triton_adapter as A  # noqa: E402
import triton_aot_worker as worker  # noqa: E402

worker.A = A


@triton.jit
def copy_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets))


def plain_copy(x_ptr, y_ptr, BLOCK):
    return None


class Entry(KernelInterface):
    """A launch cache in the style of FlagGems' LibEntry."""

    def __init__(self, fn):
        self.fn = fn


class Tuned(triton.runtime.Autotuner):
    """An Autotuner subclass, as FlagGems' LibTuner and fla's CachedAutotuner are."""


class Heuristic(triton.runtime.Heuristics):
    pass


class Holder:
    """No Triton class: a tracer that launches self.fn."""

    def __init__(self, fn):
        self.fn = fn


class Tuner(KernelInterface):
    """A tuner written from scratch over KernelInterface."""

    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs


class Rules(KernelInterface):
    def __init__(self, fn, values):
        self.fn = fn
        self.values = values


class SlotsLauncher:
    """Holds its kernel in a slot of another name, as vLLM's CachedKernel does."""
    __slots__ = ("_kernel", "_launchers")

    def __init__(self, kernel):
        self._kernel = kernel
        self._launchers = {}


def kinds(obj):
    return [kind for kind, _ in A.kernel_chain(obj).layers]


class Layers(unittest.TestCase):
    def test_tritons_own_layers_and_their_subclasses(self):
        rules = Heuristic(copy_kernel, copy_kernel.arg_names, {"BLOCK": lambda args: 128})
        tuned = Tuned(rules, copy_kernel.arg_names, [triton.Config({})], ["x_ptr"], None, None)
        chain = A.kernel_chain(Entry(tuned))
        self.assertIs(chain.jit, copy_kernel)
        self.assertEqual(kinds(Entry(tuned)), ["wrapper", "autotune", "heuristics"])
        self.assertEqual(A.classify(tuned), "autotune")
        self.assertEqual(chain.text(), f"a {__name__}.Entry over a {__name__}.Tuned (an autotuner) over a "
                         f"{__name__}.Heuristic (heuristics) over the @jit function copy_kernel")
        plain = triton.autotune([triton.Config({"BLOCK": 64})], key=[])(triton.heuristics({"X": len})(copy_kernel))
        self.assertEqual(A.kernel_chain(plain).text(), "@triton.autotune over @triton.heuristics over the @jit "
                         "function copy_kernel")

    def test_objects_of_no_triton_class_are_known_by_what_they_hold(self):
        configs = [triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})]
        self.assertEqual(kinds(Holder(Tuner(Rules(copy_kernel, {"BLOCK": len}), configs))),
                         ["wrapper", "autotune", "heuristics"])
        self.assertEqual(A.classify(Holder(copy_kernel)), "wrapper")
        # configs that are no triton.Configs, values that are no rules: a plain wrapper.
        self.assertEqual(kinds(Tuner(Rules(copy_kernel, {"BLOCK": 64}), [{"BLOCK": 64}])), ["wrapper", "wrapper"])
        # An object of no Triton class whose fn is no kernel is no kernel; a KernelInterface is one, broken.
        self.assertEqual(A.classify(Holder(plain_copy)), "other")
        self.assertEqual(A.classify(Entry(plain_copy)), "wrapper")
        self.assertIsNone(A.kernel_chain(Entry(plain_copy)).jit)

    def test_classes_modules_and_functions_are_never_layers(self):
        module = types.ModuleType("kernels")
        module.fn = copy_kernel

        class WithFn:
            fn = copy_kernel

        def function():
            pass
        function.fn = copy_kernel
        self.assertEqual([A.classify(o) for o in (module, WithFn, Entry, function)],
                         ["other", "other", "other", "function"])
        self.assertEqual(A.classify(copy_kernel), "jit")

    def test_loops_and_endless_chains_end(self):
        entry = Entry(None)
        entry.fn = Holder(entry)
        chain = A.kernel_chain(entry)
        self.assertTrue(chain.loops)
        self.assertIsNone(chain.jit)
        self.assertEqual(A.classify(entry), "wrapper")
        self.assertIn("(the 'fn' attributes loop, never reaching a function)", chain.text())

        class Endless(KernelInterface):  # a new layer on every access
            @property
            def fn(self):
                return Endless()
        chain = A.kernel_chain(Endless())
        self.assertTrue(chain.loops)
        self.assertEqual(len(chain.layers), 32)
        self.assertEqual(A.classify(mock.MagicMock()), "other")  # any attribute, no Triton class

    def test_an_fn_that_raises_is_no_fn(self):
        class Lazy(KernelInterface):
            @property
            def fn(self):
                raise RuntimeError("no device")
        chain = A.kernel_chain(Lazy())
        self.assertEqual(A.classify(Lazy()), "wrapper")
        self.assertIsNone(chain.jit)
        self.assertTrue(chain.text().endswith("over no 'fn' (nothing it wraps)"))
        self.assertEqual(A.classify(Holder(None)), "other")

    def test_kernels_held_elsewhere_are_found_for_the_error(self):
        held = A.kernels_held(SlotsLauncher(Entry(copy_kernel)))
        self.assertEqual([(name, chain.jit) for name, chain in held], [("_kernel", copy_kernel)])
        self.assertEqual(A.kernels_held(copy_kernel), [])
        self.assertEqual(A.classify(SlotsLauncher(copy_kernel)), "other")


class FindFunction(unittest.TestCase):
    def find(self, **values):
        module = types.ModuleType("ops")
        vars(module).update(values)
        entry = worker.KernelFile(__file__, module)
        with self.assertRaises(worker.RequestError) as caught:
            worker.find_function(entry, "kernel")
        return caught.exception.fields

    def test_the_error_names_the_chain_and_the_function_it_ends_in(self):
        fields = self.find(kernel=Entry(Holder(plain_copy)), copy=copy_kernel)
        self.assertEqual(fields["message"], f"'kernel' in {worker.display(__file__)} wraps no @triton.jit function: "
                         f"it is a {__name__}.Entry over a {__name__}.Holder over the plain Python function plain_copy")
        self.assertEqual((fields["file"], fields["line"]), (__file__, plain_copy.__code__.co_firstlineno))
        self.assertIn("decorate plain_copy with @triton.jit (or @gluon.jit)", fields["notes"])
        self.assertIn(f"@jit functions in {worker.display(__file__)}: copy", fields["notes"])

    def test_an_object_holding_its_kernel_elsewhere_says_where(self):
        fields = self.find(kernel=SlotsLauncher(copy_kernel))
        self.assertEqual(fields["message"], f"'kernel' in {worker.display(__file__)} is not a function (it is a "
                         "SlotsLauncher)")
        self.assertIn("it holds the @jit function copy_kernel in '_kernel', but triton-aot looks through wrappers "
                      "that hold their kernel in 'fn' (as Triton's do); name that kernel itself if the module has it",
                      fields["notes"])

    def test_a_wrapped_kernel_is_listed_and_found(self):
        module = types.ModuleType("ops")
        module.kernel = Holder(Entry(copy_kernel))
        module.other = Holder(plain_copy)
        fn, names = worker.find_function(worker.KernelFile(__file__, module), "kernel")
        self.assertIs(fn, copy_kernel)
        self.assertEqual(names, ["kernel"])


if __name__ == "__main__":
    unittest.main()
