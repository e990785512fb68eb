"""Triton's key passed by the run (TRITON_AOT_TRITON_KEY, compiler/installation.h): a worker
given the key its run recorded for this installation installs it for Triton's compile() and
hashes nothing; a key of any other form is ignored and Triton hashes its files as it would.
A cold build's workers each hashed libtriton.so (0.3 s) side by side without it."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import triton_adapter as A  # noqa: E402


class RecordedKey(unittest.TestCase):
    def setUp(self):
        self.module = A._triton_key_module()
        self.original = self.module.triton_key
        self.addCleanup(setattr, self.module, "triton_key", self.original)
        self.addCleanup(os.environ.pop, "TRITON_AOT_TRITON_KEY", None)

    def hashed_anyway(self):
        """Whether warm_up() called Triton's own (hashing) function."""
        calls = []
        self.module.triton_key = lambda: calls.append(1) or "hashed"
        A.warm_up()
        return bool(calls)

    def test_a_key_of_this_triton_is_used_and_nothing_is_hashed(self):
        key = A.VERSION_TEXT + "0123abcd" * 8 + "-" + "f" * 64
        os.environ["TRITON_AOT_TRITON_KEY"] = key
        self.assertFalse(self.hashed_anyway())
        self.assertEqual(self.module.triton_key(), key)
        self.assertEqual(A.triton_key(), key)

    def test_a_key_of_another_form_is_ignored(self):
        for key in ["9.9.9" + "a" * 64, A.VERSION_TEXT + " " + "a" * 64, A.VERSION_TEXT + "A" * 64,
                    A.VERSION_TEXT + "a" * 64 + "\n", A.VERSION_TEXT + "a" * (1 << 17), ""]:
            with self.subTest(key=key[:80]):
                os.environ["TRITON_AOT_TRITON_KEY"] = key
                self.assertTrue(self.hashed_anyway())
                self.assertEqual(self.module.triton_key(), "hashed")
        os.environ.pop("TRITON_AOT_TRITON_KEY")
        self.assertTrue(self.hashed_anyway())
        self.assertFalse(A.use_recorded_triton_key(None))

    def test_the_key_is_what_compile_puts_in_its_cache_key(self):
        """get_cache_key() (Triton's compile) calls the function installed."""
        key = A.VERSION_TEXT + "e" * 64
        self.assertTrue(A.use_recorded_triton_key(key))
        from triton.runtime import cache
        get_cache_key = getattr(cache, "get_cache_key", None)
        if get_cache_key is None:
            self.skipTest("this Triton has no runtime.cache.get_cache_key")
        src = type("Src", (), {"hash": lambda self: "src"})()
        backend = type("Backend", (), {"hash": lambda self: "backend"})()
        options = type("Options", (), {"hash": lambda self: "options"})()
        made = get_cache_key(src, backend, options, {})
        A.use_recorded_triton_key(A.VERSION_TEXT + "d" * 64)
        self.assertNotEqual(get_cache_key(src, backend, options, {}), made)
        A.use_recorded_triton_key(A.VERSION_TEXT + "e" * 64)
        self.assertEqual(get_cache_key(src, backend, options, {}), made)

    def test_the_installation_answer_holds_tritons_own_key(self):
        self.assertEqual(A.triton_key(), self.original())
        self.assertTrue(A.triton_key().startswith(A.VERSION_TEXT))


if __name__ == "__main__":
    unittest.main()
