"""Records every Triton kernel launch a Python workload makes, as the launch happened.

A project's own code (Liger-Kernel's autograd functions, a tutorial's wrapper) decides the
argument types, constexprs, options and grid of each launch; this module records them at the
bottom of Triton's launch path, `JITFunction.run`, with what the layers above it added: the
config a `@triton.autotune` chose and the names a `@triton.heuristics` set. The records become
`triton_add_kernel()` declarations (declarations.py) and the launches are replayed through the
built libraries (replay.py).

Two modes:
- "gpu": the launch runs for real. Before it, every storage a tensor argument lives in is copied;
  after it (synchronized) again: the replay starts from the first copy and must end with the
  second, byte for byte. The autotuner's benchmarking launches are not recorded; for an
  autotuned launch "before" is the memory before the autotuner ran (its benchmark runs may
  already have written the outputs, and a replay that did nothing would then pass), and the
  replay zeroes the `reset_to_zero` arguments as the autotuner did.
- "dry": no GPU. Nothing launches (outputs stay as allocated); an autotuned kernel takes its first
  config. Enough to see which kernels a workload reaches and to build their declarations.

`untuned=True` (gpu mode): an autotuned kernel launches its first config that Triton can compile
for the GPU, without timing any: the launch the library is compared with is still Triton's own,
and a workload whose autotuners compile dozens of configs each (flash-linear-attention's) records
in minutes.
"""
import contextlib
import dataclasses
import sys
import threading

import triton
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import JITFunction, KernelInterface

# Keyword arguments of a launch that are Triton's options, not kernel parameters; `run` adds
# the last two itself.
_RUN_ADDED = {"debug", "instrumentation_mode"}
# Storages larger than this are not copied: such a launch is recorded but not replayed.
MAX_SNAPSHOT_BYTES = 1 << 30


@dataclasses.dataclass
class Storage:
    """One allocation that tensor arguments point into, as it was before and after the launch."""
    base: int                 # data_ptr of the storage
    nbytes: int
    before: object = None     # torch uint8 tensors (gpu mode)
    after: object = None


@dataclasses.dataclass
class Launch:
    jit: JITFunction                  # the innermost @triton.jit function that launched
    values: dict                      # parameter name -> value (defaults filled in)
    passed: set                       # parameters the caller passed (not from a default)
    options: dict                     # num_warps, num_stages, ... as passed
    grid: tuple                       # (x, y, z)
    grid_arg: object = None           # the grid as the caller gave it (a callable of META, or a tuple)
    autotuner: Autotuner = None       # the @triton.autotune layer, if any
    config: object = None             # the triton.Config it launched with
    heuristic_names: tuple = ()       # constexprs a @triton.heuristics layer set
    reset_to_zero: tuple = ()         # arguments the autotuner zeroed before this launch
    storages: list = dataclasses.field(default_factory=list)
    pointers: dict = dataclasses.field(default_factory=dict)  # param -> (storage index, offset)
    note: str = ""                    # why it cannot be replayed, when it cannot
    call: tuple = ((), {})            # (args, kwargs) of the JITFunction.run call, to run it again
    block_shapes: dict = dataclasses.field(default_factory=dict)  # descriptor -> block shape then
    through: object = None            # the outermost kernel object the caller launched through

    def restore_block_shapes(self):
        """Host descriptors as they were at this launch: a config's pre_hook sets their block
        shape, and the autotuner runs every config's on the same objects."""
        for name, shape in self.block_shapes.items():
            self.values[name].block_shape = list(shape)

    def run_triton(self):
        """Triton's launch again, exactly as it was called (no autotuner, no hooks: the config's
        values and what the hooks set are in the call)."""
        args, kwargs = self.call
        self.restore_block_shapes()
        return self.jit.run(*args, grid=self.grid_arg, warmup=False, **kwargs)

    @property
    def name(self):
        return f"{self.jit.fn.__module__}.{self.jit.fn.__name__}"


def _is_tensor(value):
    return hasattr(value, "data_ptr") and hasattr(value, "dtype")


def tensor_of(value):
    """The tensor an argument points into: itself, a host TensorDescriptor's base, or None."""
    if _is_tensor(value):
        return value
    if hasattr(value, "block_shape") and _is_tensor(getattr(value, "base", None)):
        return value.base
    return None


def _autotuner_classes():
    """Autotuner and those of its subclasses that launch by a `run` of their own (FlagGems'
    LibTuner): each is hooked, so that what they launch is recorded as autotuned and a dry run
    takes the first config without timing any."""
    classes, todo = [], [Autotuner]
    while todo:
        cls = todo.pop()
        if cls is Autotuner or "run" in vars(cls):
            classes.append(cls)
        todo += cls.__subclasses__()
    return classes


class _DryKernel:
    """What a dry launch returns for Triton's compiled kernel: a caller that keeps it and launches
    it again itself (FlagGems' LibEntry: `kernel[grid](*args)`) launches nothing."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


class _Frames(threading.local):
    def __init__(self):
        self.stack = []
        self.benchmarking = 0


class Recorder:
    """`with Recorder("gpu") as rec: workload()` fills rec.launches."""

    def __init__(self, mode, untuned=False):
        if mode not in ("gpu", "dry"):
            raise ValueError(f"mode {mode!r}: 'gpu' or 'dry'")
        self.mode = mode
        self.untuned = untuned or mode == "dry"
        self.launches = []
        self._frames = _Frames()
        self._saved = []

    # -- hooks -----------------------------------------------------------------------------
    def __enter__(self):
        recorder = self
        jit_run, tune_bench, heur_run = JITFunction.run, Autotuner._bench, Heuristics.run
        self._saved = [(JITFunction, "run", jit_run), (Autotuner, "_bench", tune_bench),
                       (Heuristics, "run", heur_run)]
        tuners = [(cls, "run", cls.run) for cls in _autotuner_classes()]
        self._saved += tuners

        def run_jit(fn, *args, grid, warmup, **kwargs):
            if warmup or recorder._frames.benchmarking:
                return jit_run(fn, *args, grid=grid, warmup=warmup, **kwargs)
            return recorder._record(jit_run, fn, args, grid, kwargs)

        def hook_autotuner(tune_run):
            def run_autotuner(tuner, *args, **kwargs):
                stack = recorder._frames.stack
                if stack and stack[-1][1] is tuner:  # a subclass's run calling Autotuner.run
                    return tune_run(tuner, *args, **kwargs)
                frame = {"benchmarked": False, "memory": {}}
                if recorder.mode == "gpu":
                    named = {**dict(zip(tuner.arg_names, args)), **kwargs}
                    frame["memory"] = recorder._copy_storages(named.values())
                stack.append(("autotune", tuner, frame))
                try:
                    if recorder.untuned:
                        return recorder._run_first_config(tuner, args, kwargs)
                    return tune_run(tuner, *args, **kwargs)
                finally:
                    stack.pop()
            return run_autotuner

        def bench(tuner, *args, **kwargs):
            recorder._frames.benchmarking += 1
            for frame in recorder._frames.stack:
                if frame[0] == "autotune":
                    frame[2]["benchmarked"] = True
            try:
                return tune_bench(tuner, *args, **kwargs)
            finally:
                recorder._frames.benchmarking -= 1

        def run_heuristics(heur, *args, **kwargs):
            recorder._frames.stack.append(("heuristics", heur, None))
            try:
                return heur_run(heur, *args, **kwargs)
            finally:
                recorder._frames.stack.pop()

        JITFunction.run, Autotuner._bench, Heuristics.run = run_jit, bench, run_heuristics
        for cls, _, tune_run in tuners:
            cls.run = hook_autotuner(tune_run)
        return self

    def __exit__(self, *exc):
        for cls, attr, original in self._saved:
            setattr(cls, attr, original)
        return False

    def _run_first_config(self, tuner, args, kwargs):
        """The tuner's launch with its first config (on a GPU, the first Triton compiles for it:
        one that needs more shared memory than the device has is passed over, as the autotuner's
        benchmark passes it over)."""
        from triton.compiler.errors import CompilationError
        from triton.runtime.errors import OutOfResources
        configs = list(tuner.configs)
        for position, config in enumerate(configs):
            tuner.best_config = config
            if config.pre_hook is not None:  # as the autotuner runs it (block shapes)
                config.pre_hook({**dict(zip(tuner.arg_names, args)), **kwargs,
                                 **config.all_kwargs()})
            try:
                return tuner.fn.run(*args, **kwargs, **config.all_kwargs())
            except (OutOfResources, CompilationError):
                # Nothing was recorded or launched: _record appends after the launch.
                if self.mode == "dry" or position + 1 == len(configs):
                    raise

    # -- one launch ------------------------------------------------------------------------
    def _record(self, jit_run, fn, args, grid, kwargs):
        names = fn.arg_names
        values = dict(zip(names, args))
        options = {}
        for key, value in kwargs.items():
            if key in names:
                values[key] = value
            elif key not in _RUN_ADDED:
                options[key] = value
        passed = set(values)
        for p in fn.params:
            if p.name not in values:
                values[p.name] = p.default.value if isinstance(p.default, triton.language.constexpr) \
                    else p.default
        launch = Launch(jit=fn, values=values, passed=passed, options=options,
                        grid=resolve_grid(grid, values), grid_arg=grid, call=(args, dict(kwargs)),
                        block_shapes={name: list(value.block_shape) for name, value in values.items()
                                      if tensor_of(value) is not None and hasattr(value, "block_shape")})
        launch.through = _outermost_layer(fn)
        tuned_memory = {}
        for kind, layer, frame in self._frames.stack:
            if kind == "autotune":
                launch.autotuner, launch.config = layer, layer.best_config
                tuned_memory = frame["memory"]
                if frame["benchmarked"]:
                    launch.reset_to_zero = tuple(getattr(layer, "reset_to_zero", None) or ())
            else:
                launch.heuristic_names += tuple(layer.values)
        if self.mode == "dry":
            self.launches.append(launch)
            return _DryKernel()
        self._snapshot(launch, "before", tuned_memory)
        result = jit_run(fn, *args, grid=grid, warmup=False, **kwargs)
        self._snapshot(launch, "after")
        self.launches.append(launch)
        return result

    @staticmethod
    def _copy_storages(values):
        """{storage base: uint8 copy} of the tensors among values."""
        import torch
        torch.cuda.synchronize()
        out = {}
        for value in map(tensor_of, values):
            if value is not None:
                storage = value.untyped_storage()
                if storage.data_ptr() not in out and storage.nbytes() <= MAX_SNAPSHOT_BYTES:
                    out[storage.data_ptr()] = storage_bytes(value).clone()
        return out

    def _snapshot(self, launch, when, earlier=None):
        import torch
        torch.cuda.synchronize()
        if when == "before":
            bases = {}
            for name, value in launch.values.items():
                value = tensor_of(value)
                if value is None:
                    continue
                storage = value.untyped_storage()
                base = storage.data_ptr()
                if base not in bases:
                    if storage.nbytes() > MAX_SNAPSHOT_BYTES:
                        launch.note = f"{name}: storage of {storage.nbytes()} bytes not copied"
                        return
                    bases[base] = len(launch.storages)
                    launch.storages.append(Storage(base=base, nbytes=storage.nbytes()))
                launch.pointers[name] = (bases[base], value.data_ptr() - base)
        for index, storage in enumerate(launch.storages):
            if when == "before" and earlier and storage.base in earlier:
                storage.before = earlier[storage.base]
            else:
                setattr(storage, when, storage_tensor(launch, index).clone())


def _outermost_layer(jit):
    """The outermost kernel object over `jit` that the launch went through, from the callers'
    frames: what the project's code launched (a wrapper of its own, such as FlagGems' LibEntry,
    an autotuner, a heuristics layer, or the JIT function itself). A module may hold several
    objects over one JIT function; this one names the kernel as the launch called it."""
    outermost, frame = jit, sys._getframe(1)
    while frame is not None:
        layer = frame.f_locals.get("self")
        if isinstance(layer, KernelInterface) and _layers_down_to(layer, jit):
            outermost = layer
        frame = frame.f_back
    return outermost


def _layers_down_to(layer, jit):
    while layer is not jit and not isinstance(layer, JITFunction) and hasattr(layer, "fn"):
        layer = layer.fn
    return layer is jit


def resolve_grid(grid, values):
    """(x, y, z) of a launch's grid: a callable gets the bound arguments, as Triton calls it."""
    if callable(grid):
        grid = grid(dict(values))
    grid = tuple(int(g) for g in grid)
    return (grid + (1, 1, 1))[:3]


def storage_bytes(tensor):
    """The whole allocation a tensor lives in, as a uint8 tensor over the same memory."""
    import torch
    return torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(tensor.untyped_storage())


def storage_tensor(launch, index):
    """The whole storage `index` of a launch, as uint8 (the live allocation: the launch record
    holds its tensors, so it is neither freed nor reused)."""
    for name, (i, _) in launch.pointers.items():
        if i == index:
            return storage_bytes(tensor_of(launch.values[name]))
    raise AssertionError("storage without a tensor")


@contextlib.contextmanager
def dry_driver():
    """The device answered without a GPU, for dry mode, as the compiler's worker answers it
    (compiler/frontend/target_driver.py): modules that ask Triton's driver (the tutorials'
    DEVICE) or torch (flash-linear-attention's `torch.cuda.get_device_capability()`, FlagGems'
    `get_device_properties(0).major`) while they are imported or run get a CUDA sm_90 target;
    the torch device of the tensors stays the CPU, and a device context switches nothing."""
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "compiler", "frontend"))
    from target_driver import answering_for
    from triton.backends.compiler import GPUTarget
    import torch

    class NoDeviceToSwitch:  # torch.cuda.device(...): the tensors' device is the CPU
        def __init__(self, device=None):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    with answering_for(GPUTarget("cuda", 90, 32)) as stand_in:
        stand_in.get_active_torch_device = lambda: torch.device("cpu")
        # FlagGems runs each op inside `with torch.cuda.device(x.device)`, which torch refuses
        # for a CPU tensor (and for any index without a GPU).
        device_context, torch.cuda.device = torch.cuda.device, NoDeviceToSwitch
        try:
            yield
        finally:
            torch.cuda.device = device_context
