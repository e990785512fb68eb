"""A prepared pool's warm-up (compiler/frontend/warm_up.py, triton-aot-cc --prepare-workers):
the small kernel compiles for each target in a Triton cache of its own, removed after, with the
caller's TRITON_CACHE_DIR as it was; a target that fails is left out; and a build that asks for
a worker meanwhile stops it before the next target (it waits for one compile at most)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import warm_up  # noqa: E402

SM80 = {"backend": "cuda", "arch": 80, "warp_size": 32}
SM90 = {"backend": "cuda", "arch": 90, "warp_size": 32}


class WarmUp(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="tta-warm-up-test-")
        os.environ["TRITON_CACHE_DIR"] = self.cache
        self.addCleanup(os.environ.pop, "TRITON_CACHE_DIR", None)

    def scratch_dirs(self):
        return [d for d in os.listdir(tempfile.gettempdir()) if d.startswith("triton-aot-warm-up-")]

    def test_each_target_compiles_in_a_cache_of_its_own(self):
        before = self.scratch_dirs()
        self.assertEqual(warm_up.compile_for([SM80, SM90]), ["cuda:80", "cuda:90"])
        self.assertEqual(os.environ["TRITON_CACHE_DIR"], self.cache)
        self.assertEqual(os.listdir(self.cache), [])   # nothing of the warm-up in the caller's
        self.assertEqual(self.scratch_dirs(), before)  # and its own is gone

    def test_a_target_that_fails_is_left_out(self):
        broken = {"backend": "cuda", "arch": "not-a-number", "warp_size": 32}
        self.assertEqual(warm_up.compile_for([broken, SM80]), ["cuda:80"])

    def test_a_build_asking_meanwhile_stops_it_before_the_next_target(self):
        asked = iter([False, True, True])
        self.assertEqual(warm_up.compile_for([SM80, SM90, SM80], lambda: next(asked)), ["cuda:80"])

    def test_without_a_cache_directory_of_the_callers_none_is_left_set(self):
        del os.environ["TRITON_CACHE_DIR"]
        warm_up.compile_for([SM80])
        self.assertNotIn("TRITON_CACHE_DIR", os.environ)


if __name__ == "__main__":
    unittest.main()
