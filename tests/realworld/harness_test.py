"""bench/realworld's recorder and declarations (launch_capture.py, declarations.py, run.py) on
kernels wrapped and launched as FlagGems and flash-linear-attention do it, in dry mode (nothing
launches: no GPU, no torch): a KernelInterface of the project's own around the kernel that keeps
the compiled kernel of its first launch and launches that itself afterwards (FlagGems'
LibEntry), an autotuner subclass with a `run` of its own (FlagGems' LibTuner), a heuristic that
sets a launch option (num_warps), and a kernel module that the project writes and loads at run
time without a name in sys.modules (FlagGems' generated pointwise kernels)."""
import importlib.util
import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "realworld"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime.autotuner import Autotuner  # noqa: E402

import run  # noqa: E402
from declarations import build_entries, innermost  # noqa: E402
from launch_capture import Recorder  # noqa: E402


@triton.jit
def twice(x):
    return x * 2


@triton.jit
def fill_kernel(value, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.device_assert(offsets < n + BLOCK)
    tl.static_print(twice(value))


class KeepsCompiled(triton.KernelInterface):
    """As FlagGems' LibEntry: the first launch goes through Triton, which returns the compiled
    kernel; later launches call that kernel directly."""

    def __init__(self, fn):
        self.fn, self.arg_names, self.compiled = fn, fn.arg_names, None

    def run(self, *args, grid, warmup=False, **kwargs):
        if self.compiled is None:
            self.compiled = self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)
        else:
            self.compiled[grid](*args)
        return self.compiled


class TimesEveryConfig(Autotuner):
    """An autotuner whose own `run` times every config (FlagGems' LibTuner): a dry run must not."""

    def run(self, *args, **kwargs):
        timings = {config: self._bench(*args, config=config, **kwargs) for config in self.configs}
        self.best_config = min(timings, key=timings.get)
        return self.fn.run(*args, **kwargs, **self.best_config.all_kwargs())


kept = KeepsCompiled(fill_kernel)
tuned = KeepsCompiled(TimesEveryConfig(fill_kernel, fill_kernel.arg_names,
                                       [triton.Config({"BLOCK": 128}, num_warps=4),
                                        triton.Config({"BLOCK": 256}, num_warps=8)],
                                       ["n"], None, None))
warps_by_heuristic = triton.heuristics({"num_warps": lambda args: 8 if args["n"] > 1000 else 2})(
    fill_kernel)

GENERATED = '''
import triton
import triton.language as tl
from harness_test import twice


@triton.jit
def generated_kernel(value, n, BLOCK: tl.constexpr):
    tl.static_print(twice(value) + n)
'''


class DryRecording(unittest.TestCase):
    def setUp(self):
        kept.compiled = tuned.compiled = None  # each test's first launch goes through Triton

    def record(self, launch):
        with Recorder("dry") as recorder:
            launch()
        return recorder.launches

    def test_a_wrapper_that_launches_its_kept_kernel_records_the_first_launch_only(self):
        def launch():
            kept[(4,)](1, 500, BLOCK=128)
            kept[(4,)](1, 500, BLOCK=128)  # through the kept kernel: a dry one, that does nothing
        launches = self.record(launch)
        self.assertEqual(len(launches), 1)
        self.assertIs(innermost(kept), fill_kernel)
        entries, skipped = build_entries(launches)
        self.assertEqual(skipped, {})
        self.assertEqual([e.attribute for e in entries], ["kept"])
        self.assertEqual(entries[0].config, "")

    def test_an_autotuner_with_a_run_of_its_own_takes_its_first_config_untimed(self):
        launches = self.record(lambda: tuned[(4,)](1, 500))
        self.assertEqual(len(launches), 1)
        self.assertIs(launches[0].autotuner, tuned.fn)
        self.assertEqual(launches[0].config.kwargs, {"BLOCK": 128})
        entries, _ = build_entries(launches)
        self.assertEqual(entries[0].attribute, "tuned")  # the wrapper holding the autotuner
        self.assertNotIn("BLOCK", entries[0].signatures[-1])  # the configs set it

    def test_first_config_declares_the_config_the_dry_launch_took(self):
        launches = self.record(lambda: tuned[(4,)](1, 500))
        entry = build_entries(launches, first_config=True)[0][0]
        self.assertIn("BLOCK=128", entry.signatures[-1])
        self.assertTrue(entry.config.startswith("name=launch "), entry.config)
        self.assertIn(" num_warps=4", entry.config)
        self.assertNotIn("None", entry.config)  # options the config leaves unset are left out

    def test_a_dry_autotuned_launch_runs_its_configs_pre_hook(self):
        class Descriptor:  # what the hook sets, as on a host TensorDescriptor
            block_shape = [1]

        def set_block(nargs):
            nargs["value"].block_shape = [nargs["BLOCK"]]

        hooked = triton.autotune([triton.Config({"BLOCK": 64}, pre_hook=set_block)], key=[])(
            fill_kernel)
        descriptor = Descriptor()
        self.record(lambda: hooked[(1,)](descriptor, 500))
        self.assertEqual(descriptor.block_shape, [64])

    def test_a_heuristic_that_sets_a_launch_option_goes_into_the_config(self):
        launches = self.record(lambda: warps_by_heuristic[(4,)](1, 5000, BLOCK=128))
        entries, skipped = build_entries(launches)
        self.assertEqual(skipped, {})
        self.assertEqual(entries[0].attribute, "warps_by_heuristic")
        self.assertEqual(entries[0].config, "name=launch num_warps=8")
        # Listed too: a launch-option heuristic over a runtime argument is compiled for the
        # values the launches used (one decided at build time ignores the list).
        self.assertEqual(entries[0].heuristic_values, {"num_warps": [8]})

    def test_a_module_made_at_run_time_is_declared_by_its_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "generated_rank_1.py")
            with open(path, "w") as f:
                f.write(textwrap.dedent(GENERATED))
            spec = importlib.util.spec_from_file_location("_gen_module_rank_1_pid_42", path)
            module = importlib.util.module_from_spec(spec)  # not put in sys.modules
            spec.loader.exec_module(module)
            launches = self.record(lambda: module.generated_kernel[(1,)](3, 7, BLOCK=64))
            entries, skipped = build_entries(launches)
            self.assertEqual(skipped, {})
            self.assertEqual((entries[0].module, entries[0].attribute, entries[0].source,
                              entries[0].installed),
                             ("_gen_module_rank_1_pid_42", "generated_kernel", path, False))
            inventory = [("harness_test", "twice", twice), ("harness_test", "fill_kernel", fill_kernel)]
            self.assertEqual([(m, a) for m, a, _ in run.outside_kernels(inventory, launches, entries)],
                             [("_gen_module_rank_1", "generated_kernel")])
            callers = run.possible_callers(inventory, launches)
            self.assertTrue(run.is_helper(twice, callers))  # the generated kernel calls it
            self.assertFalse(run.is_helper(fill_kernel, callers))


if __name__ == "__main__":
    unittest.main()
