"""Replays recorded launches through the built libraries and compares memory byte for byte.

Each recorded launch (gpu mode) holds every storage its tensor arguments point into, as it was
before Triton's launch and after it, and the tensors themselves (so the allocations stay alive).
The replay writes the "before" bytes back into those very allocations, zeroes what the
autotuner zeroed, calls the library's
`<prefix>_<kernel>_config(stream, config, grid_x, grid_y, grid_z, args...)` with the launch's own
pointers (so aliasing, alignment and any device-side table of pointers are the launch's), and
compares every storage with the "after" copy: equal means every byte the kernel could write
through its arguments is the same.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proof"))
from proof_lib import Library  # noqa: E402


def config_index(kernel, launch):
    """The library config of a launch: 0 for a declared one, else the decorator config the
    autotuner chose, matched by its constexprs, num_warps and num_stages."""
    if launch.autotuner is None:
        return 0, kernel["configs"][0]["name"]
    want = launch.config
    for config in kernel["configs"]:
        values = config["constexprs"]
        if all(str(values.get(k)) == str(v) for k, v in want.kwargs.items()) \
                and config["num_warps"] == want.num_warps \
                and (want.num_stages is None or config["num_stages"] == want.num_stages):
            return config["index"], config["name"]
    raise LookupError(f"no config of {kernel['name']} matches the autotuner's choice {want}")


def _scalar(value):
    value = getattr(value, "value", value)  # tl.constexpr
    return int(value) if isinstance(value, bool) else value


def _restore(launch, memory):
    """The launch's memory as it was before it (and before its autotuner, which zeroed
    reset_to_zero arguments)."""
    for live, storage in zip(memory, launch.storages):
        live.copy_(storage.before)
    for name in launch.reset_to_zero:
        launch.values[name].zero_()


def _library_args(kernel, launch, values):
    args = {}
    for p in kernel["params"]:
        name = p["name"]
        kind = p.get("kind", "")
        if kind.startswith("tensordesc_"):   # "X.shape0", "X.stride1" of a host TensorDescriptor
            desc = values[p["tensordesc"]]
            args[name] = int((desc.shape if kind == "tensordesc_shape" else desc.strides)[p["dim"]])
        elif kind == "tensordesc":
            args[name] = values[name].base.data_ptr()
        elif name in launch.pointers:
            args[name] = values[name].data_ptr()
        elif p["type"].startswith("*"):
            args[name] = 0  # None
        else:
            args[name] = _scalar(values[name])
    return args


def _differing(memory, expected):
    return sum(int((live != want).sum()) for live, want in zip(memory, expected))


def replay(library_path, prefix, launch):
    """One row: whether the library reproduces the launch's memory exactly."""
    import torch
    from launch_capture import storage_tensor
    lib = Library(library_path, prefix)
    kernel = lib.kernels[0]
    index, config_name = config_index(kernel, launch)
    memory = [storage_tensor(launch, i) for i in range(len(launch.storages))]
    _restore(launch, memory)
    status = lib.call(kernel, index, torch.cuda.current_stream().cuda_stream,
                      _library_args(kernel, launch, launch.values), grid=launch.grid)
    torch.cuda.synchronize()
    row = {"config": config_name, "grid": "x".join(map(str, launch.grid))}
    if status != 0:
        row.update(equal="error", note=lib.last_error())
        return row
    differing = _differing(memory, [s.after for s in launch.storages])
    row.update(equal="yes" if differing == 0 else "no", differing_bytes=differing)
    return row


def every_config(library_path, prefix, launch):
    """Rows for each config of an autotuned launch's decorator: Triton's own launch of the
    function under the autotuner with that config, and the library's config of the same values,
    from the same memory, compared byte for byte."""
    import torch
    from launch_capture import resolve_grid, storage_tensor
    lib = Library(library_path, prefix)
    kernel = lib.kernels[0]
    memory = [storage_tensor(launch, i) for i in range(len(launch.storages))]
    tuned = set(launch.config.all_kwargs())
    passed = {k: v for k, v in launch.values.items()
              if k in launch.passed and k not in launch.heuristic_names and k not in tuned}
    options = {k: v for k, v in launch.options.items() if k not in tuned}
    rows = []
    for config in launch.autotuner.configs:
        probe = type("Probe", (), {"autotuner": launch.autotuner, "config": config})
        try:
            index, config_name = config_index(kernel, probe)
        except LookupError:
            rows.append({"config": str(config.kwargs), "equal": "skipped",
                         "note": "not a config of the library (pruned at build time)"})
            continue
        values = {**launch.values, **config.kwargs}
        grid = resolve_grid(launch.grid_arg, values)
        _restore(launch, memory)
        launch.autotuner.fn.run(grid=launch.grid_arg, warmup=False, **passed, **options,
                                **config.all_kwargs())
        torch.cuda.synchronize()
        triton_after = [live.clone() for live in memory]
        _restore(launch, memory)
        status = lib.call(kernel, index, torch.cuda.current_stream().cuda_stream,
                          _library_args(kernel, launch, values), grid=grid)
        torch.cuda.synchronize()
        row = {"config": config_name, "grid": "x".join(map(str, grid))}
        if status != 0:
            row.update(equal="error", note=lib.last_error())
        else:
            differing = _differing(memory, triton_after)
            row.update(equal="yes" if differing == 0 else "no", differing_bytes=differing)
        rows.append(row)
    return rows
