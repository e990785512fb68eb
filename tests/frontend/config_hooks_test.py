"""compiler/frontend/config_hooks.py without Triton: which @triton.autotune pre_hooks run at build
time (those that set tensor descriptors' block shapes from config values), and what the error
says of the others."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import config_hooks  # noqa: E402
from config_hooks import HookNeedsLaunch, run_config_hook  # noqa: E402


def _value(spec):  # the frontend's constexpr_value, for the int and bool values used here
    return spec["value"]


def params(split=False):
    """a_desc, c_desc, M, BLOCK_M, BLOCK_N, SPLIT as a compile request gives them."""
    return [{"name": "a_desc", "kind": "tensordesc", "type": "tensordesc<fp16[1, 1]>"},
            {"name": "c_desc", "kind": "tensordesc", "type": "tensordesc<fp16[1, 1]>"},
            {"name": "M", "kind": "scalar", "type": "i32"},
            {"name": "BLOCK_M", "kind": "constexpr", "value": {"type": "int", "value": 128}},
            {"name": "BLOCK_N", "kind": "constexpr", "value": {"type": "int", "value": 64}},
            {"name": "SPLIT", "kind": "constexpr", "value": {"type": "bool", "value": split}}]


def set_block_shapes(nargs):  # the persistent matmul tutorial's kind of hook
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], 64]
    if nargs.get("SPLIT", False):
        nargs["c_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"] // 2]
    else:
        nargs["c_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]


class BuildTimeHooks(unittest.TestCase):
    def test_block_shapes_follow_the_config_and_its_constexprs(self):
        self.assertEqual(run_config_hook(set_block_shapes, params(), {"num_warps": 4}, _value),
                         {"a_desc": [128, 64], "c_desc": [128, 64]})
        self.assertEqual(run_config_hook(set_block_shapes, params(split=True), {}, _value),
                         {"a_desc": [128, 64], "c_desc": [128, 32]})

    def test_a_descriptor_the_hook_leaves_keeps_its_block_shape(self):
        def only_a(nargs):
            nargs["a_desc"].block_shape = (64, 64)  # a tuple of ints is a block shape too
        self.assertEqual(run_config_hook(only_a, params(), {}, _value),
                         {"a_desc": [64, 64], "c_desc": [1, 1]})

    def test_the_options_are_there_as_triton_passes_them(self):
        def by_warps(nargs):
            nargs["a_desc"].block_shape = [16 * nargs["num_warps"], 64]
        self.assertEqual(run_config_hook(by_warps, params(), {"num_warps": 8}, _value)["a_desc"], [128, 64])

    def assertRefused(self, hook, what):
        with self.assertRaises(HookNeedsLaunch) as caught:
            run_config_hook(hook, params(), {}, _value)
        self.assertEqual(caught.exception.what, what)

    def test_a_hook_that_needs_a_launch_is_refused_with_what_it_did(self):
        def zero(nargs):
            nargs["M"].zero_()
        self.assertRefused(zero, "uses argument 'M' (M.zero_)")

        def by_size(nargs):
            if nargs["M"] > 1024:
                nargs["a_desc"].block_shape = [256, 64]
        self.assertRefused(by_size, "uses the value of argument 'M'")

        def other_attribute(nargs):
            nargs["a_desc"].base = None
        self.assertRefused(other_attribute, "sets a_desc.base")

        def reads_shape(nargs):
            nargs["a_desc"].block_shape = [nargs["a_desc"].shape[0], 64]
        self.assertRefused(reads_shape, "reads a_desc.shape")

        def not_ints(nargs):
            nargs["a_desc"].block_shape = ["x", 64]
        self.assertRefused(not_ints, "sets a_desc.block_shape to ['x', 64], not a list of integers")

        def missing(nargs):
            nargs["a_desc"].block_shape = [nargs["BLOCK_K"], 64]
        self.assertRefused(missing, "raised KeyError: 'BLOCK_K'")

    def test_type_text_round_trip(self):
        self.assertEqual(config_hooks.block_shape_of("tensordesc<bf16[1, 64, 64]>"), [1, 64, 64])
        self.assertEqual(config_hooks.with_block_shape("tensordesc<bf16[1, 1, 1]>", [1, 32, 64]),
                         "tensordesc<bf16[1, 32, 64]>")


if __name__ == "__main__":
    unittest.main()
