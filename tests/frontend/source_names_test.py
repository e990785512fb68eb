"""The worker's source names (docs/reproducible.md): the rules compiler/source_names.h pins (the
same cases as tests/unit/source_names_test.cpp), and what renaming a @jit function's file does
and keeps: the real file for dependencies, its source for inspect, its line numbers."""
import inspect
import linecache
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import triton_adapter  # noqa: E402
import triton_aot_worker as worker  # noqa: E402

worker.A = triton_adapter


def namer(pairs, root):
    return worker.source_namer({"map": [list(pair) for pair in pairs], "root": root})


class Rules(unittest.TestCase):
    def test_default_is_relative_to_the_root_and_the_site_directories(self):
        name = namer([("/src/proj", ""), ("/venv/lib/python3.11/site-packages", "")], "/src/proj")
        self.assertEqual(name("/src/proj/kernels/add.py"), "kernels/add.py")
        self.assertEqual(name("/src/proj/kernels/../kernels/add.py"), "kernels/add.py")
        self.assertEqual(name("/src/shared/x.py"), "../shared/x.py")
        self.assertEqual(name("/venv/lib/python3.11/site-packages/triton/language/standard.py"),
                         "triton/language/standard.py")
        self.assertEqual(name("/src/projx/a.py"), "../projx/a.py")
        self.assertEqual(name("<string>"), "<string>")

    def test_the_longest_prefix_wins(self):
        name = namer([("/src", ""), ("/src/.venv/lib/python3.11/site-packages", "")], "/src")
        self.assertEqual(name("/src/.venv/lib/python3.11/site-packages/liger_kernel/ops/swiglu.py"),
                         "liger_kernel/ops/swiglu.py")
        name = namer([("/src/vendor", "third_party"), ("/src", "mylib")], None)
        self.assertEqual(name("/src/vendor/k.py"), "third_party/k.py")
        self.assertEqual(name("/src/k.py"), "mylib/k.py")

    def test_a_user_map_of_the_root_replaces_its_default(self):
        name = namer([("/src", "/opt/mylib"), ("/venv/site-packages", "")], None)
        self.assertEqual(name("/src/kernels/add.py"), "/opt/mylib/kernels/add.py")
        self.assertEqual(name("/elsewhere/x.py"), "/elsewhere/x.py")


KERNEL = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def helper(x):
        return x + 1


    @triton.jit
    def kernel(x_ptr):
        tl.store(x_ptr, helper(tl.load(x_ptr)))
    ''')


class Renaming(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "kernels.py")
        with open(self.path, "w") as f:
            f.write(KERNEL)
        namespace = {"__name__": "tta_source_names_kernels", "__file__": self.path}
        exec(compile(KERNEL, self.path, "exec"), namespace)
        self.kernel, self.helper = namespace["kernel"], namespace["helper"]

    def tearDown(self):
        self.dir.cleanup()

    def test_triton_sees_the_name_and_the_worker_the_real_file(self):
        line = self.kernel.fn.__code__.co_firstlineno
        functions = worker.compiled_jit_functions(self.kernel)
        self.assertIn(self.kernel, functions)
        self.assertIn(self.helper, functions)
        self.assertTrue(any(f.fn.__code__.co_filename.endswith("standard.py") for f in functions))
        name = namer([(self.dir.name, "")] + [(d, "") for d in worker.site_dirs()], self.dir.name)
        names = triton_adapter.rename_sources(functions, name)
        self.assertIn("kernels.py", names)
        self.assertIn("triton/language/standard.py", names)
        for fn in (self.kernel, self.helper):
            self.assertEqual(fn.fn.__code__.co_filename, "kernels.py")
            self.assertEqual(getattr(fn, "file_name", "kernels.py"), "kernels.py")  # 3.7+
            self.assertEqual(triton_adapter.source_file(fn), self.path)
        self.assertEqual(self.kernel.fn.__code__.co_firstlineno, line)
        self.assertEqual(triton_adapter.function_start(self.kernel)[:2], (self.path, line + 1))
        # inspect finds the source through linecache, wherever the working directory is.
        self.assertIn("def kernel(x_ptr):", inspect.getsource(self.kernel.fn))
        self.assertEqual(linecache.getline("kernels.py", line + 1), "def kernel(x_ptr):\n")

        # Again with other names: from the real file, not from the last name.
        name = namer([(self.dir.name, "/opt/lib")], None)
        triton_adapter.rename_sources(functions, name)
        self.assertEqual(self.kernel.fn.__code__.co_filename, "/opt/lib/kernels.py")
        self.assertEqual(triton_adapter.source_file(self.kernel), self.path)


if __name__ == "__main__":
    unittest.main()
