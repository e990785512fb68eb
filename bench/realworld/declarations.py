"""Recorded launches -> the `triton_add_kernel()` declarations a user would write for them.

One entry point per kernel (the object its module holds: the `@triton.autotune` or
`@triton.heuristics` wrapper when there is one), argument types and constexpr values; its
signatures are the hint patterns Triton's JIT specialized the recorded launches on, plus the
generic one; no `GRID` (the caller passes it, as the project's own launch does); a `CONFIG` with
the launch's options, except for an autotuned kernel, whose configs are its decorator's. What a
`@triton.heuristics` or the autotuner sets is left out of the signature: the compiler derives it.
A kernel of an installed package is named by `MODULE`, a file of this repository by `SOURCE`.
"""
import dataclasses
import os
import re
import sys
import types

import triton
import triton.language as tl
from triton.backends.compiler import BaseBackend
from triton.runtime.jit import JITFunction, KernelInterface

try:
    from triton.runtime.jit import native_specialize_impl as _specialize
except ImportError:  # older Tritons spell it in Python
    from triton.runtime.jit import specialize_impl as _specialize


@dataclasses.dataclass
class Entry:
    name: str                 # C identifier: the kernel's name and its library's prefix
    module: str
    attribute: str            # what the module calls the kernel (FUNCTION)
    source: str               # the module's file
    installed: bool           # in site-packages: declared by MODULE
    signatures: list
    config: str               # "" or the CONFIG string
    launches: list            # indices into the recorder's launches
    heuristic_values: dict    # integer heuristic -> the values the launches computed
    extra: list               # more arguments of the call, from the workload's DECLARE

    @property
    def function(self):
        return f"{self.module}.{self.attribute}"


def innermost(obj):
    """The @triton.jit function under a kernel's wrappers: Triton's autotune and heuristics and a
    project's own (FlagGems' LibEntry), each a KernelInterface holding the next in `fn`."""
    while isinstance(obj, KernelInterface) and not isinstance(obj, JITFunction) and \
            hasattr(obj, "fn"):
        obj = obj.fn
    return obj


def module_kernels(module):
    """{attribute: object} of the kernels a module holds at top level (JIT functions and their
    autotune/heuristics wrappers), defined in that module."""
    out = {}
    for attr, obj in vars(module).items():
        jit = innermost(obj)
        if isinstance(jit, JITFunction) and jit.fn.__module__ == module.__name__:
            out[attr] = obj
    return out


def _layers(obj):
    """obj and every wrapper under it, down to the @triton.jit function."""
    yield obj
    while obj is not innermost(obj):
        obj = obj.fn
        yield obj


def module_of(jit):
    """The module a kernel is defined in. A module a project writes and loads at run time without
    naming it in sys.modules (FlagGems' generated pointwise kernels) is made again from the
    kernel's globals, its file the one the kernel's code came from."""
    name = jit.fn.__module__
    if name in sys.modules:
        return sys.modules[name]
    module = types.ModuleType(name)
    module.__dict__.update(jit.fn.__globals__)  # FlagGems adds another module's names to them
    module.__name__, module.__file__ = name, jit.fn.__code__.co_filename
    return module


def _outer_attribute(launch):
    """The module attribute that names the kernel as its project launches it: the object the
    launch went through, else the wrapper that holds the autotuner or heuristics that launched
    it, else the plain @triton.jit function."""
    module = module_of(launch.jit)
    candidates = [(attr, obj) for attr, obj in module_kernels(module).items()
                  if innermost(obj) is launch.jit]
    for attr, obj in candidates:
        if obj is launch.through:
            return attr
    if launch.autotuner is not None:
        for attr, obj in candidates:
            if any(layer is launch.autotuner for layer in _layers(obj)):
                return attr
    layered = [a for a, o in candidates if o is not launch.jit]
    if launch.heuristic_names and layered:
        return layered[0]
    plain = [a for a, o in candidates if o is launch.jit]
    return (plain or [a for a, _ in candidates] or [launch.jit.fn.__name__])[0]


_DTYPE_NAMES = {}


def _dtype_literal(value):
    if not _DTYPE_NAMES:
        for attr, obj in vars(tl).items():
            if isinstance(obj, tl.dtype) and not attr.startswith("_"):
                _DTYPE_NAMES.setdefault(str(obj), attr)
    return "tl." + _DTYPE_NAMES[str(value)]


def literal(value):
    """A constexpr value as a signature entry."""
    if isinstance(value, tl.constexpr):
        value = value.value
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value + "'"
    if isinstance(value, tl.dtype):
        return _dtype_literal(value)
    raise ValueError(f"constexpr value {value!r} has no signature spelling")


def runtime_entry(param, value):
    """(generic type, hinted entry) of a runtime argument, as Triton's JIT specializes it."""
    specialize = not param.do_not_specialize
    align = not param.do_not_specialize_on_alignment
    ty, key = _specialize(BaseBackend, value, False, specialize, align)[:2]
    if ty == "constexpr":  # None, or an integer 1
        if key is None:
            return "None", "None"
        return "i32", "i32:1"
    ty = "i1" if ty == "u1" else ty
    return ty, ty + (":16" if key == "D" else "")


def _options_config(options):
    parts = [f"{k}={v}" for k, v in sorted(options.items()) if v is not None]
    return ("name=launch " + " ".join(parts)) if parts else ""


def build_entries(launches, declare=None, first_config=False):
    """[Entry] for the recorded launches, and {launch index: reason} for those left out.
    declare: {"module.attribute": [more triton_add_kernel arguments]}, what a user adds by hand
    (a HEURISTIC for a lambda the compiler cannot translate). first_config: an autotuned kernel
    is declared with the one config it launched with (a dry run's: the decorator's first) as
    its CONFIG, not with every config of its decorator."""
    declare = declare or {}
    groups, skipped = {}, {}
    for index, launch in enumerate(launches):
        try:
            attribute = _outer_attribute(launch)
            left_out = set(launch.heuristic_names)
            autotuned = launch.autotuner is not None and not first_config
            if autotuned:
                left_out |= set(launch.config.kwargs)
            generic, hinted, key_values = [], [], []
            for param in launch.jit.params:
                if param.name in left_out:
                    continue
                value = launch.values[param.name]
                if param.is_constexpr:
                    entry = literal(value)
                    generic.append(f"{param.name}={entry}")
                    hinted.append(f"{param.name}={entry}")
                    key_values.append(entry)
                else:
                    ty, hint = runtime_entry(param, value)
                    generic.append(f"{param.name}={ty}")
                    hinted.append(f"{param.name}={hint}")
                    key_values.append(ty)
            config = "" if autotuned else _options_config(launch.options)
        except (ValueError, KeyError, TypeError) as e:
            skipped[index] = f"no declaration: {e}"
            continue
        key = (launch.jit.fn.__module__, attribute, tuple(key_values), config)
        group = groups.setdefault(key, {"generic": ", ".join(generic), "hinted": [],
                                        "launches": [], "values": {}})
        # An integer heuristic over runtime arguments is compiled for listed values: those the
        # launches computed (a bool one compiles both values by itself).
        for name in launch.heuristic_names:
            if name not in launch.values:
                # A launch option a heuristic sets (FlagGems' num_warps): over a runtime
                # argument, it is compiled for the values the launches used too.
                if isinstance(launch.options.get(name), int):
                    group["values"].setdefault(name, set()).add(launch.options[name])
                continue
            value = launch.values[name]
            value = getattr(value, "value", value)
            if isinstance(value, int) and not isinstance(value, bool):
                group["values"].setdefault(name, set()).add(value)
        if ", ".join(hinted) not in group["hinted"]:
            group["hinted"].append(", ".join(hinted))
        group["launches"].append(index)

    entries, used = [], set()
    for (module_name, attribute, _, config), group in groups.items():
        base = re.sub(r"\W", "_", f"{module_name.rsplit('.', 1)[-1]}_{attribute}").strip("_")
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}_{n}"
        used.add(name)
        source = os.path.abspath(module_of(launches[group["launches"][0]].jit).__file__)
        signatures = list(group["hinted"])
        if group["generic"] not in signatures:
            signatures.append(group["generic"])
        entries.append(Entry(name=name, module=module_name, attribute=attribute, source=source,
                             installed=_installed(module_name),
                             signatures=signatures, config=config, launches=group["launches"],
                             heuristic_values={n: sorted(v) for n, v in group["values"].items()},
                             extra=list(declare.get(f"{module_name}.{attribute}", []))))
    return entries, skipped


def _installed(module_name):
    """Whether a module comes from an installed distribution (site-packages, or a directory pip
    installed into with --target): declared by MODULE, as a user of that package would."""
    top = sys.modules.get(module_name.split(".")[0])
    if getattr(top, "__file__", None) is None:  # a namespace package: a directory of the project
        return False                            # (or a module made at run time: its file)
        return False
    root = os.path.dirname(os.path.dirname(os.path.abspath(top.__file__)))
    if any(p in root for p in ("site-packages", "dist-packages")):
        return True
    return any(entry.endswith(".dist-info") for entry in os.listdir(root))


def cmake_project(entries, project="realworld"):
    """(CMakeLists.txt text, line of each entry's triton_add_kernel): each entry point in a
    shared library of its own, so one kernel that fails to build does not take the others."""
    lines = ["cmake_minimum_required(VERSION 3.25)", f"project({project} LANGUAGES C CXX)",
             "find_package(TritonAOT CONFIG REQUIRED)", ""]
    for e in entries:
        where = f"MODULE {e.module}" if e.installed else f'SOURCE "{e.source}"'
        lines.append(f"triton_add_kernel({e.name} {where} FUNCTION {e.attribute}")
        lines.append("  SIGNATURE " + "\n            ".join(f'"{s}"' for s in e.signatures))
        if e.config:
            lines.append(f'  CONFIG "{e.config}"')
        for name, values in e.heuristic_values.items():
            lines.append(f'  HEURISTIC_VALUES "{name}={",".join(map(str, values))}"')
        lines += [f"  {x}" for x in e.extra]
        lines[-1] += ")"
        lines.append(f"triton_add_library(lib_{e.name} SHARED KERNELS {e.name} PREFIX {e.name})")
        lines.append("")
    text = "\n".join(lines)
    starts = [text[:text.index(f"triton_add_kernel({e.name} ")].count("\n") + 1 for e in entries]
    return text, starts
