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


NO_IMAGE = 3  # TRITON_AOT_ERROR_NO_IMAGE: the library refuses a config this device cannot run


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


# Relative tolerance, by element type, of a comparison by value (see _verdict).
_RTOL = {"float64": 1e-6, "float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def _typed(launch, memory, contents):
    """{pointer parameter: its tensor's values} with `contents` in the launch's memory."""
    from launch_capture import tensor_of
    for live, want in zip(memory, contents):
        live.copy_(want)
    return {name: tensor_of(launch.values[name]).clone() for name in launch.pointers}


def _max_difference(a, b):
    return float((a.double() - b.double()).abs().nan_to_num(0.0).max()) if a.numel() else 0.0


def _verdict(launch, memory, library_after, triton_after, run_triton):
    """The row fields of a comparison: equal "yes" when every byte matches. Otherwise Triton's
    launch runs once more from the same memory: when that run matches its first, the library's
    bytes are wrong ("no"). When Triton's own two runs differ (float atomics across programs:
    the sum's order is the order programs ran in), bytes cannot match, and the results are
    compared by value ("close" or "no"): every float tensor within a relative tolerance of its
    element type, of Triton's largest magnitude, or no further from Triton's first run than
    Triton's second run is (a sum whose order moves it more than the tolerance, as a loss
    accumulated by atomics over many programs does); every other tensor equal."""
    import torch
    differing = _differing(library_after, triton_after)
    if differing == 0:
        return {"equal": "yes", "differing_bytes": 0}
    _restore(launch, memory)
    run_triton()
    torch.cuda.synchronize()
    again = [live.clone() for live in memory]
    spread = _differing(again, triton_after)
    if spread == 0:
        return {"equal": "no", "differing_bytes": differing}
    mine, theirs, theirs_again = (_typed(launch, memory, c) for c in (library_after, triton_after, again))
    worst, own, close = 0.0, 0.0, True
    for name, want in theirs.items():
        got = mine[name]
        if not want.is_floating_point():
            close = close and torch.equal(got, want)
            continue
        rtol = _RTOL.get(str(want.dtype).replace("torch.", ""), 1e-2)
        scale = float(want.double().abs().nan_to_num(0.0).max()) if want.numel() else 0.0
        mine_off = _max_difference(got, want)
        own_off = _max_difference(theirs_again[name], want)
        close = close and (torch.allclose(got.double(), want.double(), rtol=rtol, atol=rtol * scale,
                                          equal_nan=True) or mine_off <= own_off)
        worst = max(worst, mine_off)
        own = max(own, own_off)
    note = (f"Triton's own two launches differ in {spread} bytes (float atomics); by value, "
            f"max |library - Triton| {worst:.3g}, max |Triton - Triton| {own:.3g}")
    return {"equal": "close" if close else "no", "differing_bytes": differing, "note": note}


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
    library_after = [live.clone() for live in memory]
    row.update(_verdict(launch, memory, library_after, [s.after for s in launch.storages],
                        launch.run_triton))
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
        row = {"config": config_name, "grid": "x".join(map(str, grid))}

        def run_triton(config=config):  # as the autotuner runs a config: its pre_hook, then it
            if config.pre_hook:
                config.pre_hook({**launch.values, **config.all_kwargs()})
            launch.autotuner.fn.run(grid=launch.grid_arg, warmup=False, **passed, **options,
                                    **config.all_kwargs())
        _restore(launch, memory)
        try:
            run_triton()
        except Exception as exc:  # noqa: BLE001 - only a config the device cannot hold is expected
            if type(exc).__name__ != "OutOfResources":
                raise
            # The autotuner skips such a config; the library must refuse it on this device.
            status = lib.call(kernel, index, torch.cuda.current_stream().cuda_stream,
                              _library_args(kernel, launch, values), grid=grid)
            torch.cuda.synchronize()
            refused = status == NO_IMAGE
            row.update(equal="refused" if refused else "no",
                       note=f"Triton: {exc}; the library: " + (lib.last_error() if status else "launched it"))
            rows.append(row)
            continue
        torch.cuda.synchronize()
        triton_after = [live.clone() for live in memory]
        _restore(launch, memory)
        status = lib.call(kernel, index, torch.cuda.current_stream().cuda_stream,
                          _library_args(kernel, launch, values), grid=grid)
        torch.cuda.synchronize()
        if status != 0:
            row.update(equal="error", note=lib.last_error())
        else:
            library_after = [live.clone() for live in memory]
            row.update(_verdict(launch, memory, library_after, triton_after, run_triton))
        rows.append(row)
    launch.restore_block_shapes()
    return rows
