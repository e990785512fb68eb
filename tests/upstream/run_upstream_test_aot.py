"""Runs upstream Triton's python/test/unit/tools/test_aot.py, unchanged, against the compatibility
front, and checks each test's outcome for the mode (see upstream_plugin.py):

  device  on a GPU machine: every test that is not skipped passes
  hip     on a machine without a GPU, as on a gfx942: the compile-only tests pass (IR to asm,
          Gluon for gfx942 and gfx1250) and each compile-and-link test runs compile.py, checks the
          .c/.h, links, and compiles the C with gcc, failing only where the HIP runtime library
          is looked up (a GPU machine's step)
  cuda    on a machine without a GPU, as on an sm_80: the IR test passes and each compile-and-link
          test gets as far as linking against libcuda

The test file is upstream's and is not in this repository: pass its path (docs/upstream.md says
where to fetch it; CI cannot reach GitHub and skips). Without it, or without pytest, this exits
77, which CTest reports as skipped.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77
LINK_TESTS = {"test_compile_link_matmul_no_specialization", "test_compile_link_matmul",
              "test_launcher_has_no_available_kernel", "test_compile_link_autotune_matmul"}
# Where a compile-and-link test may stop in a mode without the GPU: finding the GPU runtime
# library, linking against it, or running the test program on the device. Anything earlier
# (compile.py, the .c/.h check, link.py, compiling the C) must have passed.
GPU_STEPS = {
    "hip": ["_get_path_to_hip_runtime_dylib", "Command '['./test"],
    "cuda": ["libcuda", "'-l', 'cuda'", "Command '['./test"],
}
# Tests that call triton.compile directly, never the front: their outcome is Triton's own
FRONT_FREE = {"test_ttgir_to_asm"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--test-aot", default=os.environ.get("TRITON_AOT_UPSTREAM_TEST_AOT", ""),
                        help="upstream's test_aot.py (default $TRITON_AOT_UPSTREAM_TEST_AOT)")
    parser.add_argument("--mode", choices=["device", "hip", "cuda"], required=True)
    parser.add_argument("--bin-dir", required=True, help="the directory of triton-aot-cc")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with Triton")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)   # the tests run from directories of their own

    if not args.test_aot or not Path(args.test_aot).is_file():
        print(f"SKIP: upstream's test_aot.py not given (--test-aot or TRITON_AOT_UPSTREAM_TEST_AOT; "
              f"got '{args.test_aot}')")
        return SKIP
    has_pytest = subprocess.run([args.python, "-c", "import pytest, numpy"], capture_output=True)
    if has_pytest.returncode != 0:
        print(f"SKIP: {args.python} has no pytest or numpy (requirements-dev.txt installs them)")
        return SKIP
    if args.mode == "device" and not shutil.which("nvidia-smi") and not shutil.which("rocminfo"):
        print("SKIP: no GPU here (neither nvidia-smi nor rocminfo on PATH)")
        return SKIP

    with tempfile.TemporaryDirectory(prefix="tta-upstream-aot-") as work:
        # a copy, byte for byte, so pytest's cache and rootdir are ours and not the source's
        test_file = Path(work) / "test_aot.py"
        shutil.copyfile(args.test_aot, test_file)
        results_path = Path(work) / "results.json"
        env = dict(os.environ)
        here = str(Path(__file__).resolve().parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in [here, env.get("PYTHONPATH", "")] if p)
        env.update(TTA_UPSTREAM_MODE=args.mode, TTA_UPSTREAM_RESULTS=str(results_path),
                   TRITON_AOT_BIN_DIR=args.bin_dir)
        env.pop("TRITON_AOT_TARGET", None)
        command = [args.python, "-m", "pytest", "-p", "upstream_plugin", "-p", "no:cacheprovider",
                   "-q", "-rA", "--rootdir", work, "-c", os.devnull, str(test_file)]
        print("+", " ".join(command), flush=True)
        subprocess.run(command, env=env, cwd=work)
        if not results_path.exists():
            print("FAIL: pytest wrote no results (the test module did not load?)")
            return 1
        results = json.loads(results_path.read_text())

    problems = []
    for name, entry in sorted(results.items()):
        print(f"{name}: {entry['outcome']}")
    if args.mode == "device":
        for name, entry in results.items():
            if entry["outcome"] == "failed":
                problems.append(f"{name} failed:\n{entry.get('failure', '')}")
        ran = [n for n, e in results.items() if e["outcome"] == "passed"]
        if not all(t in ran for t in LINK_TESTS):
            problems.append(f"expected every compile-and-link test to pass, passed: {ran}")
    else:
        for name, entry in results.items():
            base = name.split("[")[0]
            if base in LINK_TESTS:
                failure = entry.get("failure", "")
                last = failure.strip().splitlines()[-6:] if failure else []
                at_gpu_step = any(step in line for step in GPU_STEPS[args.mode] for line in last)
                if entry["outcome"] == "failed" and not at_gpu_step:
                    problems.append(f"{name}: failed before the first step that needs a GPU:\n{failure}")
            elif base in FRONT_FREE:
                if entry["outcome"] == "failed":
                    print(f"note: {name} failed in Triton itself (it runs no compile.py/link.py):\n"
                          + "\n".join(entry.get("failure", "").strip().splitlines()[-3:]))
            elif entry["outcome"] == "failed":
                problems.append(f"{name} failed:\n{entry.get('failure', '')}")
        compile_only = [n for n, e in results.items() if n.split("[")[0] not in LINK_TESTS | FRONT_FREE
                        and e["outcome"] == "passed"]
        expected = 2 if args.mode == "hip" else 0  # Gluon for gfx942 and gfx1250
        if len(compile_only) < expected:
            problems.append(f"expected {expected} compile-only tests to pass, passed: {compile_only}")
        if not all(t in results for t in LINK_TESTS):
            problems.append(f"missing compile-and-link tests: {sorted(set(LINK_TESTS) - set(results))}")
    for problem in problems:
        print("FAIL:", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
