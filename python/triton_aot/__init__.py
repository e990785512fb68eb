"""triton-aot: Triton kernels as ordinary C/C++ libraries.

This package holds the toolchain built for this machine: the tools (``triton-aot-cc``,
``triton-aot-ld``, ``triton-aot-tune``, on ``PATH`` as console scripts), the runtime and its
header, and the CMake package ``TritonAOT`` (``find_package(TritonAOT)``). Nothing here is
imported by a program that uses a built kernel library.
"""
import os

__all__ = ["cmake_dir", "bin_dir", "prefix", "__version__"]

__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))


def prefix():
    """The install prefix of the toolchain: the package directory."""
    return _HERE


def cmake_dir():
    """The directory of TritonAOTConfig.cmake, for ``-DTritonAOT_DIR=`` (or put prefix() on
    ``CMAKE_PREFIX_PATH``)."""
    return os.path.join(_HERE, "lib", "cmake", "TritonAOT")


def bin_dir():
    """The directory of the tools."""
    return os.path.join(_HERE, "bin")
