"""A pytest plugin that runs upstream Triton's test_aot.py, unchanged, against the compatibility
front (python/triton_aot/compile.py and link.py) instead of triton/tools/compile.py and link.py.

The test finds the scripts at triton.tools.__path__[0]; this plugin puts the front's directory
first on that path before the test module is imported, so the test runs our scripts as it would
run upstream's. Environment:
  TTA_UPSTREAM_MODE    device (the machine's own GPU, nothing faked), or hip / cuda: the test's
                       is_hip()/is_cuda() answer as on a GPU of that backend (gfx942 / sm_80)
                       and compile.py's default target is that GPU's, so a machine without one
                       runs every step up to the first that needs the GPU
  TTA_UPSTREAM_RESULTS a JSON file to write: per test, its outcome and where it failed
"""
import json
import os
from pathlib import Path

import triton
import triton.tools

_FRONT = Path(__file__).resolve().parents[2] / "python" / "triton_aot"
triton.tools.__path__.insert(0, str(_FRONT))

_MODE = os.environ.get("TTA_UPSTREAM_MODE", "device")
_FAKE_TARGETS = {"hip": ("hip", "gfx942", 64), "cuda": ("cuda", 80, 32)}


def _nvidia_capability():
    """The first GPU's compute capability from nvidia-smi, or None without one."""
    import shutil
    import subprocess
    if not shutil.which("nvidia-smi"):
        return None
    done = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                          capture_output=True, text=True)
    first = done.stdout.split()[0] if done.returncode == 0 and done.stdout.split() else ""
    major, _, minor = first.partition(".")
    return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None


def _stand_in_for_torch(capability):
    """triton._internal_testing imports torch and asks it, at import, whether a GPU is there and
    its capability, and Triton's CUDA driver asks it for the current device; test_aot.py calls
nothing else of it. Where torch is not installed (a build
    machine, a GPU machine set up for C), this answers those questions as torch would."""
    import sys
    import types
    stub = types.ModuleType("torch")
    stub.Tensor = type("Tensor", (), {})  # named in an annotation
    stub.dtype = type("dtype", (), {})
    stub.cuda = types.SimpleNamespace(is_available=lambda: capability is not None,
                                      get_device_capability=lambda device=None: capability,
                                      current_device=lambda: 0, set_device=lambda device: None)
    stub.version = types.SimpleNamespace(cuda=None, hip=None)
    sys.modules["torch"] = stub


try:
    import torch  # noqa: F401
except ImportError:
    _stand_in_for_torch(_nvidia_capability() if _MODE == "device" else None)

if _MODE in _FAKE_TARGETS:
    import triton._internal_testing as internal_testing
    from triton.backends.compiler import GPUTarget

    backend, arch, warp_size = _FAKE_TARGETS[_MODE]
    internal_testing.get_current_target = lambda: GPUTarget(backend, arch, warp_size)
    os.environ["TRITON_AOT_TARGET"] = f"{backend}:{arch}:{warp_size}"
elif _MODE != "device":
    raise SystemExit(f"TTA_UPSTREAM_MODE={_MODE}: expected device, hip or cuda")

_results = {}


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        entry = {"outcome": report.outcome}
        if report.failed:
            entry["failure"] = str(report.longrepr)[-4000:]
        if report.when != "call" and report.skipped:
            entry["outcome"] = "skipped"
        _results.setdefault(report.nodeid.split("::", 1)[-1], entry)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("TTA_UPSTREAM_RESULTS")
    if path:
        Path(path).write_text(json.dumps(_results, indent=1, sort_keys=True))
