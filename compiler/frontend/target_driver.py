"""Answers a kernel module's import-time questions about "the GPU" with the target compiled.

Kernel modules ask about the device while they are imported: Triton's tutorials set
`DEVICE = triton.runtime.driver.active.get_active_torch_device()` and read
`driver.active.utils.get_device_properties(...)`; autotune config lists are chosen by
`is_cuda()` / `is_hip()` through `driver.active.get_current_target()`; packages such as
flash-linear-attention and FlagGems ask torch (`torch.cuda.get_device_capability()`,
`torch.version.hip`, ...). With no GPU, Triton's driver and torch fail there. While the worker
imports a module for a target, `TargetDriver` is the active driver and torch's questions are
answered too (torch_answers.py): with that target and a representative GPU of its architecture
(`GPUS`, the one table), so a CUDA target gets the CUDA answers and a HIP target the HIP ones.

Every question is recorded with the file and line that asked (`askers`): a module of an
installed package that asked keeps that target's answer for the life of the worker process,
so the worker serves that target only from then on (triton_aot_worker.py).

Questions only a real GPU can answer (benchmarking, streams for a launch) raise `NoDeviceError`,
which the worker reports with what asked and how to build such a module.
"""

import collections
import contextlib
import os
import sys


class NoDeviceError(RuntimeError):
    """A question about the device that a build without one cannot answer."""


# A representative GPU per architecture (nominal figures of the product named). Sizes in bytes;
# clocks in kHz; shared_optin is the opt-in maximum per block (Triton's "max_shared_mem"),
# shared_sm the shared memory per multiprocessor. An architecture not listed answers as the
# nearest older one of its backend. docs/compiler.md shows this table: keep them together.
Gpu = collections.namedtuple("Gpu", "name sms shared_optin shared_sm threads_sm l2 memory "
                                    "sm_clock mem_clock bus")
_GIB, _MIB = 1 << 30, 1 << 20
GPUS = {
    "cuda": {
        75: Gpu("Tesla T4", 40, 65536, 65536, 1024, 4 * _MIB, 15 * _GIB, 1590000, 5001000, 256),
        80: Gpu("NVIDIA A100-SXM4-80GB", 108, 166912, 167936, 2048, 40 * _MIB, 80 * _GIB,
                1410000, 1593000, 5120),
        86: Gpu("NVIDIA A10", 72, 101376, 102400, 1536, 6 * _MIB, 24 * _GIB, 1695000, 6251000, 384),
        87: Gpu("NVIDIA Jetson AGX Orin", 16, 166912, 167936, 1536, 4 * _MIB, 64 * _GIB,
                1300000, 3199000, 256),
        89: Gpu("NVIDIA L4", 58, 101376, 102400, 1536, 48 * _MIB, 24 * _GIB, 2040000, 6251000, 192),
        90: Gpu("NVIDIA H100 80GB HBM3", 132, 232448, 233472, 2048, 50 * _MIB, 80 * _GIB,
                1980000, 2619000, 5120),
        100: Gpu("NVIDIA B200", 148, 232448, 233472, 2048, 126 * _MIB, 180 * _GIB,
                 1965000, 3996000, 8192),
        103: Gpu("NVIDIA B300", 148, 232448, 233472, 2048, 126 * _MIB, 288 * _GIB,
                 2032000, 3996000, 8192),
        110: Gpu("NVIDIA Jetson Thor", 20, 232448, 233472, 1536, 32 * _MIB, 128 * _GIB,
                 1575000, 4266000, 256),
        120: Gpu("NVIDIA GeForce RTX 5090", 170, 101376, 102400, 1536, 96 * _MIB, 32 * _GIB,
                 2407000, 14001000, 512),
        121: Gpu("NVIDIA GB10", 48, 101376, 102400, 1536, 24 * _MIB, 128 * _GIB,
                 2418000, 4266000, 256),
    },
    "hip": {
        "gfx90a": Gpu("AMD Instinct MI250X", 110, 65536, 65536, 2048, 8 * _MIB, 64 * _GIB,
                      1700000, 1600000, 4096),
        "gfx942": Gpu("AMD Instinct MI300X", 304, 65536, 65536, 2048, 4 * _MIB, 192 * _GIB,
                      2100000, 1300000, 8192),
        "gfx950": Gpu("AMD Instinct MI355X", 256, 163840, 163840, 2048, 4 * _MIB, 288 * _GIB,
                      2400000, 2000000, 8192),
        "gfx1100": Gpu("AMD Radeon RX 7900 XTX", 96, 65536, 65536, 2048, 6 * _MIB, 24 * _GIB,
                       2500000, 1250000, 384),
        "gfx1200": Gpu("AMD Radeon RX 9060 XT", 32, 65536, 65536, 2048, 4 * _MIB, 16 * _GIB,
                       3130000, 2518000, 128),
        "gfx1201": Gpu("AMD Radeon RX 9070 XT", 64, 65536, 65536, 2048, 8 * _MIB, 16 * _GIB,
                       2970000, 2518000, 256),
    },
}


def representative(target):
    """The `Gpu` row that answers for `target` (a GPUTarget)."""
    if target.backend == "cuda":
        table = GPUS["cuda"]
        known = [cc for cc in sorted(table) if cc <= int(target.arch)] or [min(table)]
        return table[known[-1]]
    table, arch = GPUS["hip"], str(target.arch)
    return table.get(arch) or table[max((a for a in table if a[:4] == arch[:4] and a <= arch),
                                        default="gfx942")]


def capability(target):
    """(major, minor) as torch reports it: sm_90a is (9, 0); gfx942 is (9, 4), as ROCm's torch
    reads the target ID (gfx<major><minor><stepping>, minor and stepping one hex digit each)."""
    if target.backend == "cuda":
        return divmod(int(target.arch), 10)
    digits = str(target.arch)[3:]
    return int(digits[:-2]), int(digits[-2], 16)


def representative_gpu(target):
    """(name, Triton's get_device_properties() dict) of the GPU that answers for `target`."""
    gpu = representative(target)
    return gpu.name, {"max_shared_mem": gpu.shared_optin, "max_num_regs": 65536,
                      "multiprocessor_count": gpu.sms, "warpSize": target.warp_size,
                      "sm_clock_rate": gpu.sm_clock, "mem_clock_rate": gpu.mem_clock,
                      "mem_bus_width": gpu.bus}


# ---------------------------------------------------------------------------------------------
# Who asked: the innermost frame that is neither this machinery, Triton's nor torch's own code.

def machinery_roots():
    roots = [os.path.dirname(os.path.abspath(__file__))]
    for name in ("triton", "torch"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            roots.append(os.path.dirname(os.path.abspath(file)))
    return tuple(root + os.sep for root in roots)


def asking_frame():
    """(file, line) of the code that asked the question being answered, or ("", 0)."""
    roots = machinery_roots()
    frame = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if os.path.isabs(file) and not os.path.normpath(file).startswith(roots):
            return os.path.normpath(file), frame.f_lineno
        frame = frame.f_back
    return "", 0


_ACTIVE = None  # the TargetDriver answering now (torch_answers.py asks it too)


def active():
    return _ACTIVE


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
        self._driver.asked("get_device_properties()")
        return dict(representative_gpu(self._driver.target)[1])


class TargetDriver:
    """The active driver while a kernel module is imported for `target`."""

    def __init__(self, target):
        self.target = target
        self.askers = []  # (file, line, question) of every question answered
        self.utils = _Utils(self)

    @property
    def queried(self):
        return bool(self.askers)

    def asked(self, question):
        file, line = asking_frame()
        self.askers.append((file, line, question))

    @staticmethod
    def is_active():
        return True

    def get_current_target(self):
        self.asked("get_current_target()")
        return self.target

    def get_active_torch_device(self):
        self.asked("get_active_torch_device()")
        try:
            import torch
        except ImportError:
            return _DeviceStandIn()
        return torch.device("cuda", 0)  # ROCm's torch names its GPUs "cuda" too

    def get_device_interface(self):
        self.asked("get_device_interface()")
        import torch
        return torch.cuda

    def get_current_device(self):
        self.asked("get_current_device()")
        return 0

    def set_current_device(self, device):
        self.asked("set_current_device()")

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
    """Makes a TargetDriver for `target` Triton's active driver and the one torch's questions
    are answered by (torch_answers.py); yields it; restores the old."""
    global _ACTIVE
    import torch_answers
    from triton.runtime.driver import driver
    stand_in = TargetDriver(target)
    previous, previous_active = driver._active, _ACTIVE  # never `driver.active`: no GPU raises
    driver.set_active(stand_in)
    _ACTIVE = stand_in
    torch_answers.install()
    try:
        yield stand_in
    finally:
        driver._active = previous
        _ACTIVE = previous_active
