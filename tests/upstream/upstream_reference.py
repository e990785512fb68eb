"""Runs the installed Triton's own triton/tools/compile.py (or link.py) on a machine without a GPU.

Upstream's compile.py asks Triton's active driver for its C type names even when given a target,
and with no GPU there is no active driver. This gives the driver registry a stand-in that answers
only those questions (the installed backend's own ty_to_cpp; the target given as the current
one), then runs the script as `python -m triton.tools.compile ...` would. Used by front_test.py and bench/upstream_front.py to
compare the front with upstream; never by the front itself.

usage: upstream_reference.py compile|link ARGS...
"""
import runpy
import sys


class _TypesOnlyDriver:
    def __init__(self, target):
        from triton.backends.compiler import GPUTarget
        backend, arch, warp_size = target.split(":")
        # the target compile.py is given is "the current GPU" for its JITFunction.create_binder
        self._target = GPUTarget(backend, int(arch) if arch.isdigit() else arch, int(warp_size))
        if backend == "hip":
            from triton.backends.amd.driver import ty_to_cpp
        else:
            from triton.backends.nvidia.driver import ty_to_cpp
        self._ty_to_cpp = ty_to_cpp

    def map_python_to_cpp_type(self, ty):
        return self._ty_to_cpp(ty)

    def get_current_target(self):
        return self._target


def main():
    tool, args = sys.argv[1], sys.argv[2:]
    if tool == "compile":
        from triton.runtime import driver
        target = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-t", "--target")), None)
        if target is None or target.count(":") != 2:
            sys.exit("upstream_reference.py: give compile a -t <backend>:<arch>:<warp size>")
        driver.set_active(_TypesOnlyDriver(target))
        # Triton 3.6's compile.py passes --target's numeric fields on as strings, and compiling
        # then raises TypeError; Triton's main branch makes them integers (#11279), as here
        # (bench/upstream_compile.py does the same)
        import triton.backends.compiler as compiler
        made = compiler.GPUTarget
        compiler.GPUTarget = lambda backend, arch, warp_size: made(
            backend, int(arch) if str(arch).isdigit() else arch, int(warp_size))
    sys.argv = [f"triton.tools.{tool}"] + args
    runpy.run_module(f"triton.tools.{tool}", run_name="__main__")


if __name__ == "__main__":
    main()
