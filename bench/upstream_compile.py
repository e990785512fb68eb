"""Runs upstream `python -m triton.tools.compile` as shipped, with one fix from Triton's main
branch (#11279, 2026-08-17): the numeric fields of --target become integers. Without it the
3.6.0 tool raises TypeError for every explicit CUDA target ('cuda:90:32'), so no explicit
target could be benchmarked at all. Nothing else is changed; the tool still needs a GPU driver.
"""
import runpy
import sys

import triton.backends.compiler as compiler

_GPUTarget = compiler.GPUTarget


def _with_int_fields(backend, arch, warp_size):
    return _GPUTarget(backend, int(arch) if str(arch).isdigit() else arch, int(warp_size))


compiler.GPUTarget = _with_int_fields
sys.argv = ["triton.tools.compile"] + sys.argv[1:]
runpy.run_module("triton.tools.compile", run_name="__main__", alter_sys=True)
