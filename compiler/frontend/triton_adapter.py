"""Every difference between the Triton versions triton-aot supports (3.5 to 3.9) lives here.

The worker speaks the protocol; this module knows how the installed Triton spells things:
how to build a source object, which parameters the kernel ABI appends, which metadata fields
exist and which of them change a launch, which targets its bundled ptxas builds, how the IR
text names module attributes. 3.5.1, 3.6.0, 3.7.0, 3.7.1, 3.8.0 and 3.9.0 are tested (the
`versions` test preset); their differences, as seen in the wheels:

- ASTSource: signature keyed by name with "constexpr" entries, constexprs by name, hints as a
  plain attrs dict (3.2+, so every supported version); Gluon kernels need GluonASTSource.
- Kernel ABI: global_scratch (3.2+) and profile_scratch (3.5+) pointers are appended on both
  backends; GSan instrumentation (3.8+) inserts three more before them (rejected).
- Metadata: cluster_dims up to 3.5, gone in 3.6 (launch (num_ctas, 1, 1)); HIP has
  global_scratch_* from 3.8 (possibly None before). New option fields (3.8 HIP llvm_fn_attrs;
  3.9 CUDA clc, sched4reg, min_shared_mem, fpsan_homomorphic_casts; 3.9 HIP base_arch,
  wgp_cu_mode) only change code generation; LAUNCH_FIELDS and COMPILE_FIELDS name every
  field seen, and an unknown one that is set refuses the compile (check_launch_fields).
- Source names: 3.5 and 3.6 read the file of a @jit function from `fn.fn.__code__.co_filename`
  when they compile it; 3.7+ copy it into `JITCallable.file_name` when decorating
  (rename_sources sets both).
- Targets: each version's ptxas knows other GPUs (3.6: up to sm_121a with sm_101a; 3.7 and
  3.8: sm_110a, no sm_101a; 3.9: sm_107a); buildable_cuda_capabilities asks the ptxas Triton
  would run, so a target is refused before compiling, with the version that builds it.
"""

import dataclasses
import enum
import functools
import inspect
import linecache
import os
import re
import shutil
import subprocess
import sys
import threading
import types

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import ASTSource, make_backend  # noqa: F401  (re-exported)
from triton.compiler.errors import CompilationError  # noqa: F401  (re-exported)
from triton.runtime import autotuner as _autotuner
from triton.runtime import errors as _errors
from triton.runtime import jit as _jit


def parse_version(text):
    """'3.6.0+git1234' -> (3, 6, 0)."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not match:
        return (0, 0, 0)
    return tuple(int(part or 0) for part in match.groups())


VERSION_TEXT = triton.__version__
VERSION = parse_version(VERSION_TEXT)
TRITON_DIR = os.path.dirname(os.path.abspath(triton.__file__))


def at_least(major, minor):
    return VERSION[:2] >= (major, minor)


class UsageError(Exception):
    """A request Triton cannot satisfy as asked (bad target, option, signature)."""

    def __init__(self, message, notes=()):
        super().__init__(message)
        self.notes = list(notes)


class UnsupportedTriton(UsageError):
    """This Triton produced something triton-aot does not know (an environment problem)."""


# Errors raised by a backend after the front end succeeded: the kernel itself does not compile.
BACKEND_ERRORS = tuple(getattr(_errors, name) for name in ("OutOfResources", "PTXASError") if hasattr(_errors, name))


# What under a Triton package can change generated code (toolchain_files). Relative paths,
# "/"-separated. Everything else is host-side: launcher sources and headers (driver.c,
# include/), the CUPTI profiling runtime, test helpers, and tools that never run inside
# triton.compile (the kernel-to-C tools, the disassembler, the Triton-to-Gluon translator).
_TOOLCHAIN_SKIP_DIRS = {"__pycache__", "include", "backends/nvidia/lib/cupti", "tools/triton_to_gluon_translater"}
_TOOLCHAIN_SKIP_PY = {"testing.py", "_internal_testing.py", "_filecheck.py", "profiler/viewer.py",
                      "tools/compile.py", "tools/link.py", "tools/disasm.py", "tools/build_extern.py"}

# Environment variables that name a file Triton's compiler reads or runs: the knobs.py path
# knobs (TRITON_<TOOL>_PATH of every NVIDIA tool, TRITON_LIBDEVICE_PATH, ...) except those only
# the launcher or the runtime uses, and the LLVM pass plugin libtriton loads.
_ENV_NOT_CODEGEN = {"TRITON_LIBCUDA_PATH", "TRITON_LIBHIP_PATH", "TRITON_CUDACRT_PATH", "TRITON_CUDART_PATH",
                    "TRITON_CUPTI_LIB_PATH", "TRITON_REPRODUCER_PATH"}
_ENV_EXTRA = ("LLVM_PASS_PLUGIN_PATH", )


def _toolchain_member(rel, name):
    """Whether the file `rel` (relative to a Triton package, "/"-separated) can change code."""
    if name.endswith(".py"):
        return rel not in _TOOLCHAIN_SKIP_PY
    if name.endswith(".bc"):  # libdevice, ocml, ockl, asanrtl
        return True
    if ".so" in name and (name.endswith(".so") or ".so." in name):  # libtriton, libproton
        return rel.startswith("_C/") or rel.startswith("backends/")
    parts = rel.split("/")
    return len(parts) == 4 and parts[0] == "backends" and parts[2] == "bin"  # ptxas, ptxas-blackwell, ...


def _walk_package(root, out, prefix=""):
    """Append the toolchain members under `root` to `out`. Follows directory symlinks (an
    editable install links backends/nvidia to third_party/nvidia/backend) but not cycles."""
    seen = set()
    stack = [(root, prefix)]
    while stack:
        path, rel_dir = stack.pop()
        try:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            rel = rel_dir + entry.name
            try:
                if entry.is_dir():
                    if entry.name not in _TOOLCHAIN_SKIP_DIRS and rel not in _TOOLCHAIN_SKIP_DIRS:
                        stack.append((entry.path, rel + "/"))
                elif entry.is_file() and _toolchain_member(rel, entry.name):
                    out.append(entry.path)
            except OSError:
                continue


def _env_files():
    """Files named by path knobs and similar variables (only those that exist)."""
    keys = set(_ENV_EXTRA)
    try:
        from triton import knobs
        for namespace in vars(knobs).values():
            if isinstance(namespace, type) or not isinstance(namespace, getattr(knobs, "base_knobs", ())):
                continue
            for attr in vars(type(namespace)).values():
                key = getattr(attr, "key", None)
                if isinstance(key, str) and (key.endswith("_PATH") or isinstance(attr, knobs.env_nvidia_tool)):
                    keys.add(key)
    except Exception:  # older/newer knobs layouts: the names 3.6 uses
        pass
    keys.update(("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH", "TRITON_CUOBJDUMP_PATH",
                 "TRITON_NVDISASM_PATH", "TRITON_LIBDEVICE_PATH"))
    files = []
    for key in sorted(keys - _ENV_NOT_CODEGEN):
        for value in (os.environ.get(key) or "").split(os.pathsep):
            if not value:
                continue
            if os.sep not in value:  # a program name, found on PATH as subprocess would
                value = shutil.which(value) or value
            if os.path.isfile(value):
                files.append(os.path.abspath(value))
    return files


def _override_files():
    """With TRITON_KERNEL_OVERRIDE, the IR files in TRITON_OVERRIDE_DIR replace compiled stages."""
    try:
        from triton import knobs
        if not knobs.compilation.override:
            return []
        root = knobs.cache.override_dir
    except Exception:
        return []
    files = []
    for dirpath, _, names in os.walk(root):
        files += [os.path.join(dirpath, name) for name in names]
    return files


def _backend_dirs():
    """Package directories of backends installed outside Triton (entry-point plugins)."""
    dirs = []
    try:
        from triton.backends import backends
    except Exception:
        return dirs
    for backend in backends.values():
        module = sys.modules.get(getattr(backend.compiler, "__module__", ""))
        file = getattr(module, "__file__", None)
        if file:
            path = os.path.dirname(os.path.abspath(file))
            if not (path + os.sep).startswith(TRITON_DIR + os.sep) and path not in dirs:
                dirs.append(path)
    return dirs


def toolchain_files(own_files=()):
    """Files whose change means cached outputs can no longer be trusted: every file of the
    Triton installation that can change generated code (its Python sources, the _C libraries,
    the bundled ptxas and bitcode libraries), those of backend plugins, the files the
    environment substitutes for them, and `own_files` (the worker's). Existing files only,
    absolute, without duplicates; 112 for a 3.6 wheel, listed in about 3 ms."""
    files = [os.path.abspath(path) for path in own_files]
    files.append(os.path.abspath(__file__))
    _walk_package(TRITON_DIR, files)
    for path in _backend_dirs():
        _walk_package(path, files, f"backends/{os.path.basename(path)}/")
    files += _env_files()
    files += _override_files()
    unique, seen = [], set()
    for path in files:
        if path not in seen and os.path.isfile(path):
            seen.add(path)
            unique.append(path)
    return unique


def _triton_key_module():
    """The module whose triton_key() Triton's compile() calls (runtime.cache since 3.2)."""
    try:
        from triton.runtime import cache
        if hasattr(cache, "triton_key"):
            return cache
    except ImportError:
        pass
    from triton.compiler import compiler
    return compiler


_KEY_TEXT = re.compile(r"[0-9a-f-]*")


_KEY_LOCK = threading.Lock()


def triton_key():
    """Triton's own triton_key(): its version and the SHA-256 of libtriton.so and every
    compiler, backend and language source (~0.3 s of hashing, once per process; the lock keeps
    the warm-up and an "installation" answer from hashing twice)."""
    with _KEY_LOCK:
        return _triton_key_module().triton_key()


def use_recorded_triton_key(key):
    """Makes Triton's compile() take `key` for triton_key() instead of hashing its files again,
    as Triton's own compile workers do (3.9's _compile_warmup_pool). The run passes the key its
    record of this installation holds, made by an earlier worker and valid while every
    toolchain file is unchanged (compiler/installation.h). True when installed; a key that is
    not of this Triton's form is ignored (the files are hashed as usual)."""
    if not isinstance(key, str) or not key.startswith(VERSION_TEXT) or \
            not _KEY_TEXT.fullmatch(key, len(VERSION_TEXT)) or len(key) > (1 << 16):
        return False
    _triton_key_module().triton_key = lambda: key
    return True


def warm_up():
    """Hash Triton's own files now, unless the run passed the key (TRITON_AOT_TRITON_KEY):
    triton_key() reads libtriton.so and every compiler source (~0.3 s), once per process, on
    the first compile. Hashing releases the GIL."""
    if not use_recorded_triton_key(os.environ.get("TRITON_AOT_TRITON_KEY")):
        triton_key()


# ---------------------------------------------------------------------------------------------
# Targets and options


def make_target(spec):
    """Protocol target {"backend", "arch", "warp_size"} -> GPUTarget (CUDA arch int, HIP str)."""
    backend = spec.get("backend")
    arch = spec.get("arch")
    warp_size = spec.get("warp_size")
    if backend == "cuda":
        text = str(arch).rstrip("a")  # the "a" of sm_90a is implied: Triton adds it for >= 90
        if not text.isdigit():
            raise UsageError(f"CUDA target arch must be an integer such as 90, got {arch!r}")
        return GPUTarget("cuda", int(text), int(warp_size or 32))
    if backend == "hip":
        if not isinstance(arch, str) or not arch.startswith("gfx"):
            raise UsageError(f"HIP target arch must be a processor name such as 'gfx942', got {arch!r}")
        return GPUTarget("hip", arch, int(warp_size or (32 if arch.startswith("gfx1") else 64)))
    raise UsageError(f"unknown target backend {backend!r} (expected 'cuda' or 'hip')")


def target_name(target):
    """The spelling of the IR's ttg.target attribute for `target` ("cuda:90", "hip:gfx942")."""
    return f"{target.backend}:{target.arch}"


# CUDA capabilities a Triton may build, oldest first: Turing and later (Triton's minimum).
CUDA_CAPABILITIES = (75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121)
# The first Triton release whose bundled ptxas builds a capability that older ones lack, and
# the last one for a capability CUDA 13 renamed (sm_101 became sm_110). For messages only:
# what a version builds is asked of its ptxas.
_CUDA_FIRST_VERSION = {103: "3.6.0", 121: "3.6.0", 110: "3.7.0", 107: "3.9.0"}
_CUDA_LAST_VERSION = {101: "3.6.0"}
# AMD processors newer than some supported Triton (its LLVM fails deep in a pass otherwise).
_HIP_FIRST_VERSION = {"gfx1250": (3, 6)}


def _sm_name(capability):
    return f"sm_{capability}{'a' if capability >= 90 else ''}"  # as sm_arch_from_capability


def _ptxas_for(capability):
    """The ptxas Triton runs for `capability` (3.6+ has two), or None if it cannot be found."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        return get_ptxas(capability).path
    except Exception:
        try:
            from triton import knobs
            return knobs.nvidia.ptxas.path
        except Exception:
            return None


@functools.lru_cache(maxsize=None)
def _ptxas_gpu_names(path):
    """The sm_* values `ptxas --help` allows for --gpu-name, or None when it cannot tell."""
    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"--gpu-name.*?Allowed values for this option:(.*?)\.\s*\n", text, re.DOTALL)
    names = set(re.findall(r"'(sm_\w+)'", match.group(1))) if match else set()
    return frozenset(names) or None


def cuda_target_refusal(capability):
    """None if this Triton builds `capability`, else why not and what builds it."""
    path = _ptxas_for(capability)
    names = _ptxas_gpu_names(path) if path else None
    sm = _sm_name(capability)
    if names is None or sm in names:
        return None
    reason = (f"Triton {VERSION_TEXT} cannot build cuda:{capability}{'a' if capability >= 90 else ''}: "
              f"its ptxas ({os.path.basename(path)}) does not know {sm}")
    if capability in _CUDA_FIRST_VERSION:
        fix = f"use Triton {_CUDA_FIRST_VERSION[capability]} or newer (pip install 'triton>={_CUDA_FIRST_VERSION[capability]}')"
    elif capability in _CUDA_LAST_VERSION:
        fix = (f"CUDA 13 renamed it: build cuda:110a with this Triton, or use Triton "
               f"{_CUDA_LAST_VERSION[capability]} for {sm}")
    else:
        fix = "pick another target"
    return reason, fix


def hip_target_refusal(arch):
    first = _HIP_FIRST_VERSION.get(arch.split(":")[0])
    if first is None or at_least(*first):
        return None
    version = f"{first[0]}.{first[1]}.0"
    return (f"Triton {VERSION_TEXT} cannot build hip:{arch}",
            f"use Triton {version} or newer (pip install 'triton>={version}')")


def check_target(target):
    """Refuse, before compiling, a target this Triton cannot build (the failure would come from
    deep in ptxas or an LLVM pass, after the whole pipeline ran)."""
    if target.backend == "cuda":
        refusal = cuda_target_refusal(target.arch)
    else:
        refusal = hip_target_refusal(target.arch)
    if refusal:
        reason, fix = refusal
        raise UsageError(reason, [fix, "targets it builds: " + " ".join(buildable_targets())])


def buildable_targets():
    """Every target of CUDA_CAPABILITIES this Triton builds ("cuda:90a", ...), then the AMD ones
    it knows ("hip:gfx942", ...). `python triton_adapter.py --targets` prints them, one per
    line: the CMake plugin's `all` and `all-major` are made of them."""
    cuda = [f"cuda:{c}{'a' if c >= 90 else ''}" for c in CUDA_CAPABILITIES if cuda_target_refusal(c) is None]
    hip = [f"hip:{arch}" for arch in HIP_ARCHS if hip_target_refusal(arch) is None]
    return cuda + hip


HIP_ARCHS = ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150",
             "gfx1151", "gfx1200", "gfx1201", "gfx1250")


_option_fields = {}


def check_options(backend, options):
    """Reject option names the backend would silently ignore (parse_options drops them)."""
    name = backend.target.backend
    if name not in _option_fields:
        defaults = backend.parse_options({})
        _option_fields[name] = {field.name for field in dataclasses.fields(defaults)}
    known = _option_fields[name]
    unknown = sorted(key for key in options if key not in known)
    if unknown:
        raise UsageError(
            f"option {unknown[0]!r} is not an option of Triton {VERSION_TEXT}'s {name} backend",
            [f"known options: {', '.join(sorted(known))}"])


# ---------------------------------------------------------------------------------------------
# What a Python file holds. A kernel is a @jit function inside any number of layers, as the
# module holds it: Triton's Autotuner and Heuristics, subclasses of them (FlagGems' LibTuner,
# fla's CachedAutotuner), and wrappers projects write (FlagGems' LibEntry, vLLM's JitCache).
# A layer holds what it wraps in `fn`, as Triton's own do. Layers are told apart by what they
# are and hold, never by their class's name:
# - an Autotuner, or another object holding a kernel in `fn` and triton.Config objects in
#   `configs` (a tuner written after Triton's), is an autotune layer;
# - a Heuristics, or another object holding a kernel in `fn` and a dict of callables in
#   `values`, is a heuristics layer;
# - any other triton KernelInterface, or object holding a kernel in `fn`, is looked through:
#   what it does around a launch (caching launches, logging) is Python the library never runs.

_ABSENT = object()  # what a layer without an `fn` holds
# Past this many layers the chain is objects made on each access (a mock's attributes), not a
# kernel; a shorter loop is caught by identity.
_MAX_LAYERS = 32


def _attribute(obj, name):
    try:
        return getattr(obj, name, _ABSENT)
    except Exception:  # a property or __getattr__ of someone else's object may raise anything
        return _ABSENT


def _holds_no_kernel(obj):
    """Classes, modules, functions and @jit callables: their `fn` (if any) is no wrapped kernel."""
    return isinstance(obj, (type, types.ModuleType)) or inspect.isroutine(obj) or is_jit_callable(obj)


def _is_config_list(value):
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(c, _autotuner.Config) for c in value)


def _is_heuristic_values(value):
    return (isinstance(value, dict) and bool(value)
            and all(isinstance(k, str) and callable(v) for k, v in value.items()))


def _layer_kind(obj):
    """'autotune' | 'heuristics' | 'wrapper' for a layer over a kernel, None for anything else."""
    if isinstance(obj, _autotuner.Autotuner):
        return "autotune"
    if isinstance(obj, _autotuner.Heuristics):
        return "heuristics"
    if _holds_no_kernel(obj) or (_attribute(obj, "fn") is _ABSENT and not isinstance(obj, _jit.KernelInterface)):
        return None
    if _is_config_list(_attribute(obj, "configs")):
        return "autotune"
    if _is_heuristic_values(_attribute(obj, "values")):
        return "heuristics"
    return "wrapper"


@dataclasses.dataclass
class KernelChain:
    """A kernel object taken apart: its layers as (kind, object), outermost first, and what the
    innermost one holds (`end`), which is the kernel when it is a @jit function."""
    layers: list
    end: object
    loops: bool = False  # the `fn`s come back to a layer (or never end)

    @property
    def jit(self):
        return self.end if isinstance(self.end, _jit.JITFunction) and not self.loops else None

    def is_kernel(self):
        """Whether the outermost object is a kernel object at all, whole or broken: a @jit
        function, or layers of which one is Triton's (a KernelInterface) or that end in one. An
        object of no Triton class whose `fn` is a plain function is not."""
        return self.jit is not None or any(isinstance(layer, _jit.KernelInterface) for _, layer in self.layers)

    def text(self):
        """'a libops.utils.libentry.LibEntry over @triton.heuristics over the plain Python
        function softmax': what the chain is, for diagnostics."""
        parts = [_layer_text(kind, layer) for kind, layer in self.layers]
        if self.loops:
            return " over ".join(parts) + " over ... (the 'fn' attributes loop, never reaching a function)"
        return " over ".join(parts + [_end_text(self.end)])


def _layer_text(kind, layer):
    cls = type(layer)
    if cls is _autotuner.Autotuner:
        return "@triton.autotune"
    if cls is _autotuner.Heuristics:
        return "@triton.heuristics"
    name = f"a {cls.__module__}.{cls.__qualname__}"
    return {"autotune": f"{name} (an autotuner)", "heuristics": f"{name} (heuristics)"}.get(kind, name)


def _end_text(end):
    if end is _ABSENT:
        return "no 'fn' (nothing it wraps)"
    if isinstance(end, _jit.JITFunction):
        return f"the @jit function {end.__name__}"
    kind = classify(end)
    if kind == "constexpr_function":
        return "a @triton.constexpr_function"
    if kind == "function":
        return f"the plain Python function {getattr(end, '__name__', '?')}"
    return "None" if end is None else f"a {type(end).__name__}"


def kernel_chain(obj):
    """The KernelChain of a module's value, through every layer (see above)."""
    layers, seen = [], set()
    while not isinstance(obj, _jit.JITFunction):
        kind = _layer_kind(obj)
        if kind is None:
            break
        if id(obj) in seen or len(layers) == _MAX_LAYERS:
            return KernelChain(layers, obj, loops=True)
        seen.add(id(obj))
        layers.append((kind, obj))
        obj = _attribute(obj, "fn")
    return KernelChain(layers, obj)


def classify(obj):
    """'jit' | 'autotune' | 'heuristics' | 'wrapper' (the outermost layer of a kernel object, see
    KernelChain.is_kernel) | 'constexpr_function' | 'function' | 'other'."""
    if isinstance(obj, _jit.JITFunction):
        return "jit"
    constexpr_fn = getattr(_jit, "ConstexprFunction", None)  # 3.5+
    if constexpr_fn is not None and isinstance(obj, constexpr_fn):
        return "constexpr_function"
    chain = kernel_chain(obj)
    if chain.layers and chain.is_kernel():
        return chain.layers[0][0]
    if callable(obj) and hasattr(obj, "__code__"):
        return "function"
    return "other"


def kernels_held(obj):
    """[(attribute, KernelChain)] for each instance attribute of `obj` (its __dict__ and
    __slots__) that holds a whole kernel: for saying what an object that is no kernel wraps."""
    if _holds_no_kernel(obj):
        return []
    own = _attribute(obj, "__dict__")
    names = list(own) if isinstance(own, dict) else []
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    held = []
    for name in dict.fromkeys(names):
        chain = kernel_chain(_attribute(obj, name))
        if chain.jit is not None:
            held.append((name, chain))
    return held


def config_facts(config):
    """(kwargs, options, pre_hook) of a triton.Config: options are what Config.all_kwargs() adds
    to kwargs in this Triton (num_warps, num_stages, num_ctas, maxnreg, ir_override; older
    releases also had num_buffers_warp_spec and friends), None ones left out."""
    kwargs = dict(getattr(config, "kwargs", None) or {})
    every = config.all_kwargs() if hasattr(config, "all_kwargs") else dict(kwargs)
    options = {k: v for k, v in every.items() if k not in kwargs and v is not None}
    return kwargs, options, getattr(config, "pre_hook", None)


def autotune_layer_facts(autotuner):
    """What a @triton.autotune object declares, version-independently: its triton.Config
    objects, key, pruning and hooks."""
    prune = getattr(autotuner, "early_config_prune", None)
    return {
        "configs": list(getattr(autotuner, "configs", None) or []),
        "key": list(getattr(autotuner, "keys", None) or getattr(autotuner, "key", None) or []),
        "reset_to_zero": list(getattr(autotuner, "reset_to_zero", None) or []),
        "restore_value": list(getattr(autotuner, "restore_value", None) or []),
        "early_config_prune": prune,
        "perf_model": getattr(autotuner, "perf_model", None),
        "top_k": getattr(autotuner, "configs_top_k", None),
        # Autotuner-level hooks run only around benchmarking, never on a tuned launch.
        "pre_hook": autotuner.pre_hook if getattr(autotuner, "user_defined_pre_hook", False) else None,
        "post_hook": autotuner.post_hook if getattr(autotuner, "user_defined_post_hook", False) else None,
    }


def prune_configs(prune, configs, named_args):
    """Calls an early_config_prune as Triton's Autotuner.prune_configs does (3.5 to 3.9:
    `early_config_prune(configs, named_args, **kwargs)`), with no launch keywords."""
    return prune(list(configs), named_args)


# How Triton (3.5 to 3.9) refuses a config that the target cannot build, as opposed to an error
# in the kernel: fp8e4nv before sm_89 ("type fp8e4nv not supported in this architecture"),
# num_ctas > 1 before sm_90 ("num_ctas > 1 requires NVIDIA SM90+"), resources it checks itself.
_TARGET_REFUSALS = (re.compile(r"not supported in this architecture"), re.compile(r"requires NVIDIA SM\d+"),
                    re.compile(r"out of resource", re.IGNORECASE))


def target_cannot_build(exc, message):
    """Is this failure the target's (it cannot build the config), not the kernel's?"""
    out_of_resources = getattr(_errors, "OutOfResources", None)
    if out_of_resources is not None and isinstance(exc, out_of_resources):
        return True
    return any(pattern.search(message or "") for pattern in _TARGET_REFUSALS)


def is_jit_callable(obj):
    """Anything whose source Triton compiles (kernels, helpers, constexpr functions)."""
    base = getattr(_jit, "JITCallable", _jit.JITFunction)  # JITCallable appeared in 3.5
    return isinstance(obj, base)


def is_gluon(fn):
    return bool(getattr(fn, "is_gluon", lambda: False)())


def function_start(fn):
    """(file, line of `def`, indentation of `def`) of a @jit function; 1-based line.

    Triton reports AST line numbers relative to `fn.src`, which starts at the `def` line (the
    decorators are stripped) and is dedented. `starting_line_number` is the first decorator's
    line, as inspect.getsourcelines reports it.
    """
    file = source_file(fn)
    start = getattr(fn, "starting_line_number", None) or fn.fn.__code__.co_firstlineno
    for index, line in enumerate(getattr(fn, "raw_src", None) or ()):
        stripped = line.lstrip()
        if stripped.startswith("def ") or stripped.startswith("async def "):
            return file, start + index, len(line) - len(stripped)
    return file, fn.fn.__code__.co_firstlineno, 0


# ---------------------------------------------------------------------------------------------
# Source names (docs/reproducible.md): Triton writes the file of every @jit function it compiles
# into the images' line information (PTX .file, the cubin's debug lines). The worker has Triton
# see the names the outputs use instead of absolute paths; line numbers stay.


def source_file(fn):
    """The file a Python or @jit function was defined in, also after rename_sources()."""
    py = fn.fn if is_jit_callable(fn) else fn
    code = getattr(py, "__code__", None)
    return getattr(py, "_tta_source_file", None) or (code.co_filename if code else "")


def rename_sources(functions, name):
    """Has Triton name each @jit function's file `name(real file)`; returns the names given.

    The code object is replaced by a copy with that co_filename (3.5, 3.6 read it when they
    compile) and `file_name` is set (3.7+ copied co_filename when decorating). The real file is
    kept on the function, so a later call (another request's names) starts from it again, and
    the worker's dependencies and diagnostics keep reading it (source_file). Triton reads a
    function's source through linecache (inspect): the new name is entered there with the real
    file's lines, never read from the working directory."""
    names = set()
    for fn in functions:
        py = getattr(fn, "fn", None)
        code = getattr(py, "__code__", None)
        if code is None:
            continue
        real = py.__dict__.setdefault("_tta_source_file", code.co_filename)
        mapped = name(real)
        names.add(mapped)
        if code.co_filename != mapped:
            py.__code__ = code.replace(co_filename=mapped)
        if getattr(fn, "file_name", None) is not None:
            fn.file_name = mapped
        if mapped != real:
            lines = linecache.getlines(real)
            if lines:  # mtime None: linecache.checkcache() keeps the entry
                linecache.cache[mapped] = (sum(map(len, lines)), None, lines, mapped)
    return sorted(names)


# ---------------------------------------------------------------------------------------------
# Sources


def _dtype(name):
    import triton.language as tl
    value = getattr(tl, name, None)
    if isinstance(value, tl.dtype):
        return value
    try:
        return tl.dtype(name)  # Triton's short spelling: "fp16", "bf16", "int32"
    except Exception:
        raise UsageError(f"unknown Triton dtype {name!r} for a constexpr") from None


def constexpr_value(spec):
    """Protocol constexpr value -> the Python value Triton expects."""
    kind = spec.get("type")
    value = spec.get("value")
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    if kind == "str":
        return str(value)
    if kind == "dtype":
        return _dtype(str(value))
    if kind == "none":
        return None
    raise UsageError(f"unknown constexpr value type {kind!r}")


def _source_class(fn):
    if not is_gluon(fn):
        return ASTSource
    try:
        from triton.experimental.gluon._runtime import GluonASTSource
    except ImportError:
        raise UsageError(f"Gluon kernels are not supported by Triton {VERSION_TEXT}") from None
    return GluonASTSource


def build_ast_source(fn, params):
    """ASTSource for `fn` specialised as `params` (protocol entries, one per parameter).

    Since 3.2 the signature is keyed by parameter name and covers every parameter (constexprs
    as "constexpr"), constexprs are keyed by name, and hints are a plain attrs dict. A hint of 1
    makes the parameter a constexpr equal to 1 (3.3+ semantics, as tools/compile.py does).
    Gluon kernels need GluonASTSource, which `GluonJITFunction.create_binder` would pick, but
    that needs an active driver.
    """
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(params):
        name = param["name"]
        kind = param.get("kind")
        if kind == "constexpr":
            signature[name] = "constexpr"
            constexprs[name] = constexpr_value(param.get("value") or {"type": "none"})
        elif param.get("hint") == 1:
            signature[name] = "constexpr"
            constexprs[name] = 1
        elif kind in ("pointer", "scalar"):
            ty = param.get("type") or ""
            if not ty:
                raise UsageError(f"parameter {name!r}: no type given")
            signature[name] = "*" + ty if kind == "pointer" and not ty.startswith("*") else ty
            if param.get("hint") == 16:
                attrs[(index, )] = [["tt.divisibility", 16]]
        elif kind == "tensordesc":
            # A host TensorDescriptor, spelled as upstream compile.py passes it to Triton.
            signature[name] = param.get("type") or ""
        else:
            raise UsageError(f"parameter {name!r}: unknown kind {kind!r}")
    return _source_class(fn)(fn, signature, constexprs=constexprs, attrs=attrs)


# ---------------------------------------------------------------------------------------------
# Results


def trailing_params(metadata):
    """The pointer parameters this Triton appends to every kernel, in order (both backends)."""
    if "gsan" in str(metadata.get("instrumentation_mode") or ""):
        # main (3.8 development) appends three more for GSan; their ABI is not supported.
        raise UsageError("instrumentation_mode 'gsan' is not supported by triton-aot")
    names = []
    if at_least(3, 2):
        names.append("global_scratch")
    if at_least(3, 5):
        names.append("profile_scratch")
    return names


# Fields the protocol guarantees; None or absent means this version/backend lacks them:
# HIP has no global_scratch_* before 3.7 and never tmem_size/launch_pdl; Triton itself
# defaults alignments to 1.
_METADATA_DEFAULTS = {
    "num_ctas": 1,
    "shared": 0,
    "global_scratch_size": 0,
    "global_scratch_align": 1,
    "profile_scratch_size": 0,
    "profile_scratch_align": 1,
    "launch_pdl": False,
    "launch_cooperative_grid": False,
    "tmem_size": 0,
}

_DROP = object()

# Metadata fields the runtime launches by (block, shared memory, cluster, scratch, attributes).
LAUNCH_FIELDS = frozenset({
    "tensordesc_meta", "name", "num_warps", "warp_size", "shared", "num_ctas", "cluster_dims", "global_scratch_size",
    "global_scratch_align", "profile_scratch_size", "profile_scratch_align", "launch_pdl",
    "launch_cooperative_grid", "tmem_size"})
# Fields of 3.5 to 3.9 that only shape code generation or describe the build: compile options
# of either backend, and facts about the compilation.
COMPILE_FIELDS = frozenset({
    "hash", "target", "triton_version", "backend_name", "arch", "base_arch", "debug", "num_stages",
    "enable_fp_fusion", "enable_reflect_ftz", "extern_libs", "allowed_dot_input_precisions",
    "default_dot_input_precision", "deprecated_fp8_dot_operand_dtypes", "supported_fp8_dtypes",
    "max_num_imprecise_acc_default", "maxnreg", "ptx_version", "ptx_options", "ir_override",
    "sanitize_overflow", "instrumentation_mode", "clc", "fpsan_homomorphic_casts", "min_shared_mem",
    "sched4reg", "allow_flush_denorm", "kpack", "matrix_instr_nonkdim", "schedule_hint", "waves_per_eu",
    "llvm_fn_attrs", "wgp_cu_mode"})
# Known fields whose set value needs launch support triton-aot does not have.
_UNSUPPORTED_WHEN_SET = {}


def _is_unset(value):
    return value in (None, False, 0, "", [], {}, ())


def check_launch_fields(raw):
    """Refuse metadata that could need a launch this runtime cannot do: a known field it does
    not support, or a field no supported Triton has that is set (a newer Triton's launch
    attribute would otherwise be dropped silently, and the library would launch wrongly)."""
    for key, value in sorted(raw.items()):
        if key in LAUNCH_FIELDS or key in COMPILE_FIELDS or _is_unset(value):
            continue
        if key in _UNSUPPORTED_WHEN_SET:
            raise UsageError(f"the kernel needs {_UNSUPPORTED_WHEN_SET[key]}, which triton-aot cannot "
                             f"launch yet (Triton metadata field '{key}')")
        shown = repr(value)
        raise UnsupportedTriton(
            f"Triton {VERSION_TEXT}'s metadata field '{key}' = {shown[:80]} is unknown to this triton-aot, "
            "and it may change how the kernel must be launched; no library is built from it",
            ["use a Triton triton-aot supports (3.5 to 3.9) or a triton-aot that knows the field"])


# Triton numbers TMA element types one way on the device and another on the host
# (nvidia/driver.py TMA_DTYPE_DEVICE_TO_HOST, the same in 3.5 to 3.9): the host's is
# CUtensorMapDataType, what cuTensorMapEncodeTiled takes.
_TMA_DTYPE_DEVICE_TO_HOST = {i: i for i in range(16)}
_TMA_DTYPE_DEVICE_TO_HOST.update({8: 10, 9: 8, 10: 9})


def hip_tensor_descriptor_refusal(names):
    return (f"{', '.join(names)}: host tensor descriptors (tensordesc parameters) are launched on "
            "CUDA only; on AMD GPUs Triton passes them in a form triton-aot does not (base pointer, "
            "shapes, strides and padding flags, or gfx1250 TDM descriptors); build this kernel "
            "for a cuda target (9.0 or later), or give it pointer parameters for HIP")


@functools.lru_cache(maxsize=1)
def _shape_args_padded():
    """Whether Triton's launcher passes an fp4-padded descriptor's doubled innermost dimension to
    the kernel (3.6) or the one the caller gave (3.9, which doubles it only for the encode)."""
    from triton.backends.nvidia import driver
    return "expanded_shape" not in inspect.getsource(driver.make_tensordesc_arg)


def tensor_descriptors(names, raw):
    """Per tensordesc parameter (in order), what the runtime needs to encode its CUtensorMap as
    Triton's launcher does, from the metadata's tensordesc_meta."""
    if not names:
        return []
    metas = raw.get("tensordesc_meta")
    if not metas or len(metas) != len(names) or any(m is None for m in metas):
        raise UsageError(f"{', '.join(names)}: Triton did not lower these host tensor descriptors to "
                         "TMA for this target, so the kernel takes them as pointer, shapes, strides "
                         "and flags, which triton-aot does not pass; build it for cuda:90a or later")
    out = []
    for name, meta in zip(names, metas):
        if meta.get("is_im2col"):
            raise UsageError(f"{name}: im2col tensor descriptors are not supported by triton-aot")
        block = [int(b) for b in meta["block_size"]]
        fp4 = bool(meta.get("fp4_padded"))
        out.append({"name": name, "rank": len(block),
                    "data_type": _TMA_DTYPE_DEVICE_TO_HOST[int(meta["elem_type"])],
                    "elem_size": int(meta["elem_size"]), "swizzle": int(meta["swizzle"]),
                    "box": block, "fp4_padded": fp4,
                    "shape_args_padded": fp4 and _shape_args_padded()})
    return out


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, GPUTarget):
        return {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
    if isinstance(value, enum.Enum):
        return _jsonable(value.value)
    if isinstance(value, (list, tuple)):
        items = (_jsonable(item) for item in value)
        return [item for item in items if item is not _DROP]
    if isinstance(value, dict):
        items = ((str(key), _jsonable(item)) for key, item in value.items())
        return {key: item for key, item in items if item is not _DROP}
    return _DROP  # nothing a launcher needs is an arbitrary object


def metadata_dict(compiled):
    """CompiledKernel.metadata as a JSON-ready dict with the protocol's guaranteed fields."""
    raw = compiled.metadata._asdict()
    meta = {key: item for key, item in ((k, _jsonable(v)) for k, v in raw.items()) if item is not _DROP}
    for key, default in _METADATA_DEFAULTS.items():
        if meta.get(key) is None:
            meta[key] = default
    # Up to 3.5 the metadata has cluster_dims; 3.6 removed it and launches (num_ctas, 1, 1).
    cluster = meta.get("cluster_dims")
    meta["cluster_dims"] = list(cluster) if cluster else [meta["num_ctas"], 1, 1]
    return meta


def image_arch(target, meta, asm):
    """What the image is built for, as the backend names it ("sm_90a", "gfx942")."""
    if target.backend == "cuda":
        match = re.search(r"^\s*\.target\s+(sm_\w+)", asm.get("ptx") or "", re.MULTILINE)
        if match:
            return match.group(1)
        return f"sm_{target.arch}{'a' if target.arch >= 90 else ''}"
    return meta.get("arch") or str(target.arch)


def ir_stages(target):
    """The asm keys written to ir_dir, in pipeline order."""
    return ["ttir", "ttgir", "llir", "ptx" if target.backend == "cuda" else "amdgcn"]


# ---------------------------------------------------------------------------------------------
# IR text (.ttir / .ttgir). Read as text: describe must not need a target or a backend.
# Module attributes are spelled "ttg." since 3.2 ("triton_gpu." before).

_ATTR_PREFIXES = ("ttg", "triton_gpu")

_MLIR_TYPES = {
    "f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64",
    "f8E4M3FN": "fp8e4nv", "f8E5M2": "fp8e5", "f8E4M3FNUZ": "fp8e4b8", "f8E5M2FNUZ": "fp8e5b16",
    "i1": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
}


def _split_top_level(text, sep=","):
    """Split on `sep` outside (), <>, {}, [] and string literals."""
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == '"' and (index == 0 or text[index - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif char in "(<{[":
            depth += 1
        elif char in ")>}]":
            depth -= 1
        elif char == sep and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _closing(text, open_index):
    """Index of the parenthesis closing the one at `open_index`."""
    depth, quoted = 0, False
    for index in range(open_index, len(text)):
        char = text[index]
        if char == '"' and text[index - 1] != "\\":
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError("unbalanced parentheses in the function signature")


def mlir_type_to_triton(ty):
    """'!tt.ptr<f32>' -> '*fp32', 'i32' -> 'i32'; anything else is returned as written."""
    match = re.fullmatch(r"!tt\.ptr<(.+?)(?:,\s*\d+)?>", ty)
    if match:
        return "*" + mlir_type_to_triton(match.group(1))
    return _MLIR_TYPES.get(ty, ty)


def _module_attr(text, name):
    for prefix in _ATTR_PREFIXES:
        match = re.search(r'"?%s\.%s"?\s*=\s*("[^"]*"|-?\d+)' % (prefix, re.escape(name)), text)
        if match:
            value = match.group(1)
            return value.strip('"') if value.startswith('"') else int(value)
    return None


def parse_ir(text):
    """The public kernel of a .ttir/.ttgir module: name, params and module attributes."""
    match = re.search(r"\btt\.func\s+public\s+@([\w$.]+)\s*\(", text)
    if not match:
        raise ValueError("no public tt.func (kernel) in the module")
    open_index = match.end() - 1
    args = text[open_index + 1:_closing(text, open_index)]
    params = []
    for index, arg in enumerate(_split_top_level(args)):
        arg_match = re.match(r"%([\w$.-]+)\s*:\s*(.*)$", arg, re.DOTALL)
        if not arg_match:
            raise ValueError(f"cannot read kernel argument {index}: {arg!r}")
        ssa_name, rest = arg_match.groups()
        ty = _split_top_level(rest, " ")[0]
        divisibility = re.search(r"tt\.divisibility\s*=\s*(\d+)", rest)
        params.append({
            "name": ssa_name if not ssa_name[0].isdigit() else f"arg{index}",
            "constexpr": False,
            "annotation": None,
            "type": mlir_type_to_triton(ty),
            "hint": 16 if divisibility and int(divisibility.group(1)) % 16 == 0 else 0,
        })
    header = text[:match.start()]
    module = re.search(r"^\s*module\b[^\n]*", header, re.MULTILINE)
    attrs = module.group(0) if module else ""
    return {
        "function": match.group(1),
        "params": params,
        "target": _module_attr(attrs, "target"),
        "num_warps": _module_attr(attrs, "num-warps"),
        "num_ctas": _module_attr(attrs, "num-ctas"),
    }


if __name__ == "__main__":
    if sys.argv[1:] != ["--targets"]:
        sys.exit("usage: triton_adapter.py --targets   (the targets the installed Triton builds)")
    print("\n".join(buildable_targets()))
