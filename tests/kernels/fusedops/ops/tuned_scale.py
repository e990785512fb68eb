"""An autotuned kernel whose config list depends on the backend, chosen at import as the matmul
tutorial chooses its CUDA and HIP lists."""
import triton
import triton.language as tl

from .device_info import is_cuda


def get_autotune_config():
    if is_cuda():
        return [triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 512}, num_warps=2)]
    return [triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=4)]


@triton.autotune(configs=get_autotune_config(), key=["n"])
@triton.jit
def tuned_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)
