"""The console scripts: each runs its tool from the package with this interpreter as the
default Python for compiles (the environment the package is installed in has Triton)."""
import os
import sys

from . import bin_dir


def _run(tool):
    path = os.path.join(bin_dir(), tool)
    if not os.access(path, os.X_OK):
        sys.exit(f"{tool}: not found at {path}: the triton-aot package is incomplete; "
                 "reinstall it (pip install --force-reinstall triton-aot)")
    env = dict(os.environ)
    # Only a default: TRITON_AOT_PYTHON or --python given by the user still win.
    env.setdefault("TRITON_AOT_PYTHON", sys.executable)
    os.execve(path, [tool] + sys.argv[1:], env)


def cc():
    _run("triton-aot-cc")


def ld():
    _run("triton-aot-ld")


def tune():
    _run("triton-aot-tune")


def config():
    """triton-aot-config --cmakedir | --prefix | --bin-dir | --version"""
    from .__main__ import main
    sys.exit(main(prog="triton-aot-config"))
