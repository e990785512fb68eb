"""Device facts asked at import, in the style of Triton's tutorials: the module keeps the active
torch device and the GPU's properties, and picks its defaults by backend."""
import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
WARP_SIZE = properties["warpSize"]
SIZE_SMEM = properties["max_shared_mem"]


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


# A wave64 GPU gets rows twice as wide.
ROW_BLOCK = 2048 if is_hip() else 1024
PROGRAMS = tl.constexpr(NUM_SM)
