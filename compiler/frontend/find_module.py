"""Where the file of a kernel module is, for triton_add_kernel(MODULE pkg.sub.mod) at configure.

Prints the module's .py file, or a message naming what is there and exits 1. Finds it as the
import system would, without importing anything (a package's __init__ may import torch: seconds
per kernel at configure time otherwise).
"""
import importlib.machinery
import pkgutil
import sys


def find(name):
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None, f"'{name}' is not a dotted module name such as liger_kernel.ops.swiglu"
    path, found = None, None
    for index, part in enumerate(parts):
        spec = importlib.machinery.PathFinder.find_spec(part, path)
        where = ".".join(parts[:index])
        if spec is None:
            if path is None:
                return None, (f"no module named '{part}' for {sys.executable}: pip install the package "
                              "that provides it there, or set TRITON_AOT_PYTHON to an interpreter that has it")
            here = sorted(m.name for m in pkgutil.iter_modules(path))
            return None, f"no module '{part}' in {where} ({', '.join(here) or 'it has no modules'})"
        found = spec
        if index < len(parts) - 1:
            if not spec.submodule_search_locations:
                return None, f"{where + '.' if where else ''}{part} is a module, not a package"
            path = list(spec.submodule_search_locations)
    if not found.origin or not found.origin.endswith(".py"):
        return None, f"'{name}' is {'a namespace package' if not found.origin else found.origin}, not a Python file"
    return found.origin, None


def main():
    origin, why = find(sys.argv[1])
    print(origin or why)
    return 0 if origin else 1


if __name__ == "__main__":
    sys.exit(main())
