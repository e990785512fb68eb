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


def replay(library_path, prefix, launch):
    """One row: whether the library reproduces the launch's memory exactly."""
    import torch
    from launch_capture import storage_tensor
    lib = Library(library_path, prefix)
    kernel = lib.kernels[0]
    index, config_name = config_index(kernel, launch)
    memory = [storage_tensor(launch, i) for i in range(len(launch.storages))]
    for live, storage in zip(memory, launch.storages):
        live.copy_(storage.before)
    for name in launch.reset_to_zero:
        launch.values[name].zero_()
    args = {}
    for p in kernel["params"]:
        name = p["name"]
        kind = p.get("kind", "")
        if kind.startswith("tensordesc_"):   # "X.shape0", "X.stride1" of a host TensorDescriptor
            desc = launch.values[p["tensordesc"]]
            args[name] = int((desc.shape if kind == "tensordesc_shape" else desc.strides)[p["dim"]])
        elif kind == "tensordesc":
            args[name] = launch.values[name].base.data_ptr()
        elif name in launch.pointers:
            args[name] = launch.values[name].data_ptr()
        elif p["type"].startswith("*"):
            args[name] = 0  # None
        else:
            args[name] = _scalar(launch.values[name])
    stream = torch.cuda.current_stream().cuda_stream
    status = lib.call(kernel, index, stream, args, grid=launch.grid)
    torch.cuda.synchronize()
    row = {"config": config_name, "grid": "x".join(map(str, launch.grid))}
    if status != 0:
        row.update(equal="error", note=lib.last_error())
        return row
    differing = 0
    for live, storage in zip(memory, launch.storages):
        differing += int((live != storage.after).sum())
    row.update(equal="yes" if differing == 0 else "no", differing_bytes=differing)
    return row
