"""The frontend's bytecode, as the build writes it: every shipped module has hash-checked
bytecode (PEP 552) for the configured interpreter beside it, a script started with the launcher
runs from it, and one whose source changed runs as changed, the stale bytecode unused and
unwritten (-B).

    python3 bytecode_test.py <build>/share/triton-aot/frontend -v"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

FRONTEND = os.path.abspath(sys.argv.pop(1))
sys.path.insert(0, FRONTEND)
import launch  # noqa: E402  (the frontend's one spelling of the command)

CHECKED_HASH = 0b11   # the pyc header's flags: hash-based, checked against the source


def flags_of(pyc):
    with open(pyc, "rb") as f:
        header = f.read(16)
    return header[:4], int.from_bytes(header[4:8], "little")


class Bytecode(unittest.TestCase):
    def test_every_module_has_hash_checked_bytecode(self):
        modules = sorted(name for name in os.listdir(FRONTEND) if name.endswith(".py"))
        self.assertIn("triton_aot_worker.py", modules)
        for name in modules:
            pyc = importlib.util.cache_from_source(os.path.join(FRONTEND, name))
            self.assertTrue(os.path.isfile(pyc), f"no bytecode for {name}: {pyc}")
            magic, flags = flags_of(pyc)
            self.assertEqual(magic, importlib.util.MAGIC_NUMBER, name)
            self.assertEqual(flags, CHECKED_HASH, name)

    def test_a_changed_script_runs_as_changed(self):
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "frontend")
            shutil.copytree(FRONTEND, copy)
            script = os.path.join(copy, "find_module.py")
            pyc = importlib.util.cache_from_source(script)
            before = open(pyc, "rb").read()

            def run():
                return subprocess.run(launch.command(sys.executable, script) + ["os"],
                                      capture_output=True, text=True, check=True).stdout
            self.assertTrue(run().strip().endswith("os.py"), "finds the os module's file")
            with open(script) as f:
                source = f.read()
            with open(script, "w") as f:   # first, before the script's own exit
                f.write("print('changed since its bytecode')\n" + source)
            self.assertIn("changed since its bytecode", run())
            self.assertEqual(open(pyc, "rb").read(), before, "-B: the bytecode is not rewritten")

    def test_the_launcher_runs_a_script_from_its_bytecode(self):
        # Bytecode that is never checked against its source: what runs shows which was used.
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "frontend")
            shutil.copytree(FRONTEND, copy)
            subprocess.run([sys.executable, "-m", "compileall", "-q", "-f", "--invalidation-mode",
                            "unchecked-hash", copy], check=True)
            script = os.path.join(copy, "find_module.py")
            with open(script) as f:
                source = f.read()
            with open(script, "w") as f:
                f.write("print('the source, not the bytecode')\n" + source)
            launched = subprocess.run(launch.command(sys.executable, script) + ["os"],
                                      capture_output=True, text=True, check=True).stdout
            self.assertNotIn("the source, not the bytecode", launched)
            named = subprocess.run([sys.executable, "-B", script, "os"],
                                   capture_output=True, text=True, check=True).stdout
            self.assertIn("the source, not the bytecode", named, "a named script never is")


if __name__ == "__main__":
    unittest.main()
