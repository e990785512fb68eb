"""torch's device questions, answered for the target compiled while a kernel module is imported.

flash-linear-attention, FlagGems and others ask torch about the GPU at import
(`torch.cuda.get_device_capability()[0] >= 9`, `torch.version.hip is not None`,
`torch.cuda.get_device_properties(0).multi_processor_count`). The worker has no GPU, and the
target it compiles is not the machine's. So torch's questions get the same answers Triton's
driver gives (target_driver.py: the target, and a representative GPU of its architecture):

    torch.cuda.is_available()          True
    torch.cuda.device_count()          1
    torch.cuda.current_device()        0
    torch.cuda.get_device_name()       the representative GPU's name
    torch.cuda.get_device_capability() (9, 0) for sm_90a; (9, 4) for gfx942, as ROCm's torch says
    torch.cuda.get_device_properties() its properties (DeviceProperties)
    torch.cuda.is_bf16_supported()     sm_80 and later, every HIP target
    torch.version.cuda / .hip          the installed torch's own version for its backend's
                                       targets (12.8 / 6.4 where torch was built for the other),
                                       None for the other backend

torch is patched once, when the worker first sees it imported; each stand-in answers only while
a target is being answered for (target_driver.active()) and only when code outside torch asks:
at any other time, and to torch's own modules, torch answers as itself. Every answer is recorded
with the file and line that asked. Anything else that needs the GPU (a tensor on "cuda", a
stream) fails in torch as it would, and the worker names the line that asked.
"""

import functools
import importlib.abc
import importlib.machinery
import os
import sys
import types

import target_driver
from target_driver import NoDeviceError

# Where torch was built for the other backend, the version its targets are given.
_OTHER_BACKEND_VERSION = {"cuda": "12.8", "hip": "6.4.43482"}


# What torch's _CudaDeviceProperties has (torch 2.11; ROCm's adds nothing to it).
_TORCH_DEVICE_PROPERTIES = frozenset((
    "L2_cache_size", "clock_rate", "gcnArchName", "is_integrated", "is_multi_gpu_board", "major",
    "max_threads_per_block", "max_threads_per_multi_processor", "memory_bus_width",
    "memory_clock_rate", "minor", "multi_processor_count", "name", "pci_bus_id", "pci_device_id",
    "pci_domain_id", "regs_per_multiprocessor", "shared_memory_per_block",
    "shared_memory_per_block_optin", "shared_memory_per_multiprocessor", "total_memory", "uuid",
    "warp_size"))


class DeviceProperties:
    """What torch.cuda.get_device_properties() returns, for the representative GPU of a target."""

    def __init__(self, target):
        gpu = target_driver.representative(target)
        major, minor = target_driver.capability(target)
        cuda = target.backend == "cuda"
        self.name = gpu.name
        self.major, self.minor = major, minor
        self.multi_processor_count = gpu.sms
        self.total_memory = gpu.memory
        self.is_integrated = int(gpu.name.startswith(("NVIDIA Jetson", "NVIDIA GB10")))
        self.is_multi_gpu_board = 0
        self.max_threads_per_block = 1024
        self.max_threads_per_multi_processor = gpu.threads_sm
        self.warp_size = target.warp_size
        self.regs_per_multiprocessor = 65536
        self.shared_memory_per_block = 49152 if cuda else 65536
        self.shared_memory_per_block_optin = gpu.shared_optin
        self.shared_memory_per_multiprocessor = gpu.shared_sm
        self.L2_cache_size = gpu.l2
        self.clock_rate = gpu.sm_clock
        self.memory_clock_rate = gpu.mem_clock
        self.memory_bus_width = gpu.bus
        self.gcnArchName = "" if cuda else str(target.arch)
        self.pci_bus_id = self.pci_device_id = self.pci_domain_id = 0

    def __getattr__(self, name):  # only for what __init__ did not set
        if name not in _TORCH_DEVICE_PROPERTIES:
            # As torch's own object: `getattr(props, "max_shared_memory", None)` probes for a
            # property some torch version may have (FlagGems does) and must get its default.
            raise AttributeError(f"'_CudaDeviceProperties' object has no attribute '{name}'")
        raise NoDeviceError(f"torch.cuda.get_device_properties().{name} has no answer without the GPU")

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory >> 20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def _bf16(target, including_emulation=True):
    return target.backend != "cuda" or int(target.arch) >= 80


# torch.cuda's questions: name -> answer(target, *the question's arguments)
ANSWERS = {
    "is_available": lambda target: True,
    "device_count": lambda target: 1,
    "current_device": lambda target: 0,
    "get_device_name": lambda target, device=None: target_driver.representative(target).name,
    "get_device_capability": lambda target, device=None: target_driver.capability(target),
    "get_device_properties": lambda target, device=None: DeviceProperties(target),
    "is_bf16_supported": _bf16,
}


def _torch_root():
    torch = sys.modules.get("torch")
    file = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.abspath(file)) + os.sep if file else None


def _answering(depth):
    """The TargetDriver to answer with, or None: none is active, or torch itself asks."""
    driver = target_driver.active()
    if driver is None:
        return None
    root = _torch_root()
    caller = os.path.normpath(sys._getframe(depth + 1).f_code.co_filename)
    return None if root and caller.startswith(root) else driver


def _stand_in(name, original):
    answer = ANSWERS[name]

    @functools.wraps(original)
    def question(*args, **kwargs):
        driver = _answering(1)
        if driver is None:
            return original(*args, **kwargs)
        driver.asked(f"torch.cuda.{name}()")
        return answer(driver.target, *args, **kwargs)

    question.__triton_aot_answer__ = True
    return question


class _Version(types.ModuleType):
    """torch.version, whose `cuda` and `hip` answer for the target while one is answered for."""

    def _answer(self, backend):
        own = self.__dict__.get(backend)
        driver = _answering(2)
        if driver is None:
            return own
        driver.asked(f"torch.version.{backend}")
        if driver.target.backend != backend:
            return None
        return own or _OTHER_BACKEND_VERSION[backend]

    cuda = property(lambda self: self._answer("cuda"))
    hip = property(lambda self: self._answer("hip"))


def _patch(torch):
    cuda = getattr(torch, "cuda", None)
    if cuda is None or getattr(cuda, "__triton_aot_answers__", False):
        return
    for name in ANSWERS:
        original = getattr(cuda, name, None)
        if callable(original):
            setattr(cuda, name, _stand_in(name, original))
    cuda.__triton_aot_answers__ = True
    version = getattr(torch, "version", None)
    if type(version) is types.ModuleType:
        version.__class__ = _Version


class _PatchTorchWhenImported(importlib.abc.MetaPathFinder):
    """Finds nothing itself: gives `import torch` a loader that patches torch once it ran."""

    def find_spec(self, name, path, target=None):
        if name != "torch":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module
        return spec


_WATCHER = _PatchTorchWhenImported()


def install():
    """From now on torch's device questions are answered while a target is (idempotent)."""
    if "torch" in sys.modules:
        _patch(sys.modules["torch"])
    elif _WATCHER not in sys.meta_path:
        sys.meta_path.insert(0, _WATCHER)
