"""Answers a kernel module's import-time questions about "the GPU" with the target compiled.

Kernel modules ask Triton's driver about the device while they are imported: Triton's tutorials
set `DEVICE = triton.runtime.driver.active.get_active_torch_device()` and read
`driver.active.utils.get_device_properties(...)`; autotune config lists are chosen by
`is_cuda()` / `is_hip()` through `driver.active.get_current_target()`. With no GPU, Triton's
own driver fails there. While the worker imports a module for a target, `TargetDriver` is the
active driver: it answers with that target and the properties of a representative GPU of its
architecture, so a CUDA target gets the CUDA list and a HIP target the HIP list. It records
whether it was asked: a module that asked is imported again for another target.

Questions only a real GPU can answer (benchmarking, streams for a launch) raise `NoDeviceError`,
which the worker reports with what asked and how to build such a module.
"""

import contextlib


class NoDeviceError(RuntimeError):
    """A question about the device that a build without one cannot answer."""


# Representative GPUs per architecture: what Triton's get_device_properties() returns there
# (max_shared_mem is the opt-in maximum per block; clocks in kHz, bus width in bits).
# An architecture not listed answers as the nearest older one of its backend.
_CUDA = {
    75: ("Tesla T4", 40, 65536, 1590000, 5001000, 256),
    80: ("NVIDIA A100-SXM4-80GB", 108, 166912, 1410000, 1593000, 5120),
    86: ("NVIDIA A10", 72, 101376, 1695000, 6251000, 384),
    87: ("NVIDIA Jetson AGX Orin", 16, 166912, 1300000, 3199000, 256),
    89: ("NVIDIA L4", 58, 101376, 2040000, 6251000, 192),
    90: ("NVIDIA H100 80GB HBM3", 132, 232448, 1980000, 2619000, 5120),
    100: ("NVIDIA B200", 148, 232448, 1965000, 3996000, 8192),
    103: ("NVIDIA B300", 148, 232448, 2032000, 3996000, 8192),
    110: ("NVIDIA Jetson Thor", 20, 232448, 1575000, 4266000, 256),
    120: ("NVIDIA GeForce RTX 5090", 170, 101376, 2407000, 14001000, 512),
    121: ("NVIDIA GB10", 48, 101376, 2418000, 4266000, 256),
}
_HIP = {
    "gfx90a": ("AMD Instinct MI250X", 110, 65536, 1700000, 1600000, 4096),
    "gfx942": ("AMD Instinct MI300X", 304, 65536, 2100000, 1300000, 8192),
    "gfx950": ("AMD Instinct MI355X", 256, 163840, 2400000, 2000000, 8192),
    "gfx1100": ("AMD Radeon RX 7900 XTX", 96, 65536, 2500000, 1250000, 384),
    "gfx1200": ("AMD Radeon RX 9060 XT", 32, 65536, 3130000, 2518000, 128),
    "gfx1201": ("AMD Radeon RX 9070 XT", 64, 65536, 2970000, 2518000, 256),
}


def representative_gpu(target):
    """(name, properties dict) of the GPU that answers for `target` (a GPUTarget)."""
    if target.backend == "cuda":
        known = [cc for cc in sorted(_CUDA) if cc <= int(target.arch)] or [min(_CUDA)]
        row = _CUDA[known[-1]]
    else:
        arch = str(target.arch)
        row = _HIP.get(arch) or _HIP[max((a for a in _HIP if a[:4] == arch[:4] and a <= arch),
                                         default="gfx942")]
    name, sms, shared, sm_clock, mem_clock, bus = row
    return name, {"max_shared_mem": shared, "max_num_regs": 65536, "multiprocessor_count": sms,
                  "warpSize": target.warp_size, "sm_clock_rate": sm_clock,
                  "mem_clock_rate": mem_clock, "mem_bus_width": bus}


class _DeviceStandIn:
    """torch.device("cuda", 0) where torch is not installed: what tutorials keep as DEVICE."""
    type = "cuda"
    index = 0

    def __str__(self):
        return "cuda:0"

    __repr__ = __str__

    def __eq__(self, other):
        return str(other) in ("cuda", "cuda:0") or getattr(other, "type", None) == "cuda"

    def __hash__(self):
        return hash("cuda:0")


class _Utils:
    def __init__(self, driver):
        self._driver = driver

    def get_device_properties(self, device=0):
        self._driver.queried = True
        return dict(representative_gpu(self._driver.target)[1])


class TargetDriver:
    """The active driver while a kernel module is imported for `target`."""

    def __init__(self, target):
        self.target = target
        self.queried = False
        self.utils = _Utils(self)

    @staticmethod
    def is_active():
        return True

    def get_current_target(self):
        self.queried = True
        return self.target

    def get_active_torch_device(self):
        self.queried = True
        try:
            import torch
        except ImportError:
            return _DeviceStandIn()
        return torch.device("cuda", 0)  # ROCm's torch names its GPUs "cuda" too

    def get_device_interface(self):
        self.queried = True
        import torch
        return torch.cuda

    def get_current_device(self):
        self.queried = True
        return 0

    def set_current_device(self, device):
        self.queried = True

    def get_current_stream(self, device=None):
        raise NoDeviceError("get_current_stream() asks for a stream of a live GPU")

    def get_benchmarker(self):
        raise NoDeviceError("get_benchmarker() times kernels on a live GPU")

    def get_empty_cache_for_benchmark(self):
        raise NoDeviceError("get_empty_cache_for_benchmark() allocates on a live GPU")

    def __getattr__(self, name):
        raise NoDeviceError(f"triton.runtime.driver.active.{name} needs a live GPU")


@contextlib.contextmanager
def answering_for(target):
    """Makes a TargetDriver for `target` Triton's active driver; yields it; restores the old."""
    from triton.runtime.driver import driver
    stand_in = TargetDriver(target)
    previous = driver._active  # never `driver.active`: with no GPU it raises
    driver.set_active(stand_in)
    try:
        yield stand_in
    finally:
        driver._active = previous
