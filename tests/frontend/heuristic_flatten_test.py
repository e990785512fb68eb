"""compiler/frontend/heuristic_flatten.py without Triton: functions of several statements become
the expression they compute, and that expression, evaluated, gives what the function returns."""
import ast
import inspect
import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import heuristic_flatten  # noqa: E402

SMS = 132
LIMIT = 64


class cdiv_namespace:  # stands in for `triton` (cdiv, next_power_of_2)
    @staticmethod
    def cdiv(a, b):
        return -(-a // b)

    @staticmethod
    def next_power_of_2(n):
        return 1 << (n - 1).bit_length()


triton = cdiv_namespace


def device_sms():
    return SMS


def tile(args):
    t = 1
    upper = min(args["K"], 1024)
    while t <= upper:
        if args["M"] * triton.cdiv(args["K"], t) / device_sms() > 1 and t * 2 <= upper:
            t *= 2
        else:
            break
    return t


def block(args):
    if args["N"] <= LIMIT:
        return LIMIT
    elif args["N"] <= 4096:
        return triton.next_power_of_2(args["N"])
    return 4096


def uses_helper(args):
    b = block(args)
    b += 0
    return b >= args["N"]


def with_get(args):
    k = args.get("K", 1)
    return k * 2 if args.get("M") > 4 else k


def counts_with_continue(args):
    n = 0
    i = 0
    while i < 6:
        i += 1
        if i % 2 == 0:
            continue
        n += args["step"]
    return n


class device:  # stands in for torch.cuda's device properties
    multi_processor_count = SMS


def tile_reading_the_device(args):
    sms = device.multi_processor_count
    return min(args["K"], sms)


def loops_forever(args):
    i = 0
    while i < args["n"]:
        i += 1
    return i


def iterates_a_list(args):
    total = 0
    for x in [1, 2]:
        total += x
    return total


def falls_off(args):
    if args["n"] > 1:
        return 1


def reads_a_dtype(args):
    n = args["N"]
    wide = args["x"].dtype == "float32"
    return n if wide else 2 * n


def reads_a_method(args):
    k = args["K"]
    return 1 << (k.bit_length() - 1)


def uses_a_helper_that_reads_a_dtype(args):
    n = args["N"]
    return n * reads_a_dtype(args)


def source(fn):
    return ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]


def evaluated(expression, args):
    return eval(compile(ast.Expression(expression), "<flat>", "eval"),
                {"args": args, "triton": triton, "min": min, "max": max})


class Flatten(unittest.TestCase):
    def check(self, fn, cases):
        expression = heuristic_flatten.flatten(fn, source(fn), source)
        text = ast.unparse(expression)
        self.assertNotIn("device_sms", text)   # asked and folded when flattening
        for args in cases:
            self.assertEqual(evaluated(expression, args), fn(args), f"{fn.__name__}{args}: {text}")
        return text

    def test_a_loop_is_unrolled_and_computes_as_python(self):
        cases = [{"M": m, "K": k} for m in (1, 3, 64) for k in (1, 3, 100, 30000, 10 ** 6)]
        text = self.check(tile, cases)
        self.assertIn("/ 132 > 1", text)

    def test_if_elif_chains_and_helpers(self):
        self.check(block, [{"N": n} for n in (1, 64, 65, 1000, 4096, 5000)])
        text = self.check(uses_helper, [{"N": n} for n in (1, 64, 65, 1000, 4096, 5000)])
        self.assertNotIn("block(", text)

    def test_args_get_reads_the_argument(self):
        text = self.check(with_get, [{"K": 3, "M": 1}, {"K": 3, "M": 9}])
        self.assertNotIn(".get(", text)

    def test_continue_and_a_constant_loop(self):
        text = self.check(counts_with_continue, [{"step": 5}, {"step": -2}])
        self.assertNotIn(" if ", text)   # the loop's tests were all known: no condition left

    def test_what_cannot_be_flattened_names_its_line(self):
        for fn, words in ((loops_forever, "not known to end within 64 iterations"),
                          (iterates_a_list, "the statement 'For'"),
                          (falls_off, "ends without a 'return'")):
            with self.subTest(fn=fn.__name__):
                with self.assertRaises(heuristic_flatten.Untranslatable) as raised:
                    heuristic_flatten.flatten(fn, source(fn), source)
                self.assertIn(words, str(raised.exception))
                self.assertIsNotNone(raised.exception.line)

    def test_an_attribute_of_an_argument_is_refused_at_its_line(self):
        # The translator refuses it too, but only this side knows the statement's line.
        first = source(reads_a_dtype).lineno
        for fn, written, offset in ((reads_a_dtype, "args['x'].dtype", 2),
                                    (reads_a_method, "k.bit_length", 2)):
            with self.subTest(fn=fn.__name__):
                with self.assertRaises(heuristic_flatten.Untranslatable) as raised:
                    heuristic_flatten.flatten(fn, source(fn), source)
                self.assertIn(f"attribute access on an argument ('{written}')",
                              str(raised.exception))
                self.assertEqual(raised.exception.line, source(fn).lineno + offset)
        # In a helper: the helper and its line are named, the caller's line is where it is called.
        with self.assertRaises(heuristic_flatten.Untranslatable) as raised:
            heuristic_flatten.flatten(uses_a_helper_that_reads_a_dtype,
                                      source(uses_a_helper_that_reads_a_dtype), source)
        self.assertIn(f"in 'reads_a_dtype' (line {first + 2})", str(raised.exception))
        self.assertEqual(raised.exception.line, source(uses_a_helper_that_reads_a_dtype).lineno + 2)

    def test_a_device_question_is_answered_not_refused(self):
        # torch.cuda...multi_processor_count reads no argument: an attribute chain evaluated here.
        text = self.check(tile_reading_the_device, [{"K": k} for k in (1, 100, 5000)])
        self.assertIn("132", text)


if __name__ == "__main__":
    unittest.main()
