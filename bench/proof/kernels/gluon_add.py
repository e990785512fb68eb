"""Element-wise addition written in Gluon, with an explicit BlockedLayout.

WARP_SIZE is a constexpr because the layout spells out threads per warp: 32 on NVIDIA, 64 on
CDNA (gfx9xx).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def gluon_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: gl.constexpr, WARP_SIZE: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[WARP_SIZE],
                                            warps_per_cta=[gl.num_warps()], order=[0])
    offsets = gl.program_id(axis=0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n_elements
    x = gl.load(x_ptr + offsets, mask=mask)
    y = gl.load(y_ptr + offsets, mask=mask)
    gl.store(out_ptr + offsets, x + y, mask=mask)
