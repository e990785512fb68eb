"""Wrappers on no Triton class: a traced kernel over the library's own shape tuner, and Triton's
autotune under the library's entry, both applied by assignment."""
import triton
import triton.language as tl

from ..utils.libentry import LibEntry
from ..utils.tracing import shape_tune, traced


@traced
@shape_tune(configs=[triton.Config({"BLOCK": 512}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=1)],
            key=["n"])
@triton.jit
def axpy_kernel(x_ptr, y_ptr, n, a, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, a * tl.load(x_ptr + offsets, mask=mask) + y, mask=mask)


def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


add_kernel = LibEntry(
    triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2)], key=["n"])(triton.jit(_add)))
