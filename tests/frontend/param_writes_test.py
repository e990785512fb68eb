"""compiler/frontend/param_writes.py on TTIR texts written for the case (the compiled kernels are
tests/integration/param_writes_test.cpp's): what a reader of a value learns, and that an op it
does not know, a call or a pointer read from memory count as writes."""
import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
from param_writes import param_writes  # noqa: E402


def module(args, body):
    body = textwrap.indent(textwrap.dedent(body), "    ")
    return (f'#loc = loc("k.py":1:1)\nmodule {{\n'
            f'  tt.func public @k({args}) attributes {{noinline = false}} {{\n'
            f'{body}    tt.return loc(#loc)\n  }} loc(#loc)\n}} loc(#loc)\n')


PTRS = '%a: !tt.ptr<f32> loc("a"(#loc)), %b: !tt.ptr<f32> loc("b"(#loc)), %n: i32 loc("n"(#loc))'


class ParamWrites(unittest.TestCase):
    def test_a_store_writes_its_destination_not_its_value(self):
        text = module(PTRS, """\
            %0 = tt.load %a : !tt.ptr<f32> loc(#loc)
            tt.store %b, %0 : !tt.ptr<f32> loc(#loc)
            """)
        self.assertEqual(param_writes(text), [False, True])

    def test_scf_if_results_carry_both_branches(self):
        text = module(PTRS + ', %c: i1 loc("c"(#loc))', """\
            %p = scf.if %c -> (!tt.ptr<f32>) {
              scf.yield %a : !tt.ptr<f32> loc(#loc)
            } else {
              scf.yield %b : !tt.ptr<f32> loc(#loc)
            } loc(#loc)
            %v = arith.constant 1.0 : f32 loc(#loc)
            tt.store %p, %v : !tt.ptr<f32> loc(#loc)
            """)
        self.assertEqual(param_writes(text), [True, True])

    def test_a_while_loop_feeds_its_yield_back_to_its_arguments(self):
        # %q starts as %b, the loop body replaces it by %a each iteration: %a is written.
        text = module(PTRS, """\
            %r:2 = scf.while (%i = %n, %q = %b) : (i32, !tt.ptr<f32>) -> (i32, !tt.ptr<f32>) {
              %cond = arith.cmpi sgt, %i, %n : i32 loc(#loc)
              scf.condition(%cond) %i, %q : i32, !tt.ptr<f32> loc(#loc)
            } do {
            ^bb0(%j: i32 loc(#loc), %s: !tt.ptr<f32> loc(#loc)):
              %v = arith.constant 1.0 : f32 loc(#loc)
              tt.store %s, %v : !tt.ptr<f32> loc(#loc)
              scf.yield %j, %a : i32, !tt.ptr<f32> loc(#loc)
            } loc(#loc)
            """)
        self.assertEqual(param_writes(text), [True, True])

    def test_a_loop_result_carries_what_its_iterations_yield(self):
        text = module(PTRS, """\
            %c0 = arith.constant 0 : i32 loc(#loc)
            %c1 = arith.constant 1 : i32 loc(#loc)
            %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (!tt.ptr<f32>, !tt.ptr<f32>)  : i32 {
              %x2 = tt.addptr %x, %i : !tt.ptr<f32>, i32 loc(#loc)
              scf.yield %x2, %y : !tt.ptr<f32>, !tt.ptr<f32> loc(#loc)
            } loc(#loc)
            %v = arith.constant 1.0 : f32 loc(#loc)
            tt.store %r#0, %v : !tt.ptr<f32> loc(#loc)
            """)
        # %r#0 and %r#1 share a name: both count, the safe side.
        self.assertEqual(param_writes(text), [True, True])

    def test_a_pointer_read_from_memory_may_point_at_any_parameter(self):
        args = '%a: !tt.ptr<!tt.ptr<f32>> loc("a"(#loc)), %b: !tt.ptr<f32> loc("b"(#loc))'
        text = module(args, """\
            %p = tt.load %a : !tt.ptr<!tt.ptr<f32>> loc(#loc)
            %v = arith.constant 1.0 : f32 loc(#loc)
            tt.store %p, %v : !tt.ptr<f32> loc(#loc)
            """)
        self.assertEqual(param_writes(text), [True, True])

    def test_a_call_or_an_unknown_op_writes_what_it_is_given(self):
        text = module(PTRS, """\
            tt.call @helper(%a) : (!tt.ptr<f32>) -> () loc(#loc)
            """)
        self.assertEqual(param_writes(text), [True, False])
        text = module(PTRS, """\
            some.dialect_op %b, %n : !tt.ptr<f32>, i32 loc(#loc)
            """)
        self.assertEqual(param_writes(text), [False, True])

    def test_atomics_write_their_pointer(self):
        text = module(PTRS, """\
            %v = arith.constant 1.0 : f32 loc(#loc)
            %old = tt.atomic_rmw fadd, acq_rel, gpu, %a, %v : (!tt.ptr<f32>, f32) -> f32 loc(#loc)
            """)
        self.assertEqual(param_writes(text), [True, False])

    def test_text_without_a_public_kernel_has_no_answer(self):
        self.assertIsNone(param_writes("module {\n}\n"))
        self.assertIsNone(param_writes('tt.func public @k(%a: !tt.ptr<f32> loc("a"(#loc))'))


if __name__ == "__main__":
    unittest.main()
