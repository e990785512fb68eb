"""Vector add with programmatic dependent launch, as Triton's tutorial 11 writes the kernel,
autotuned over configs that not every target can run: launch_pdl=True needs programmatic
dependent launch (CUDA sm_90 or newer), and num_warps=32 makes blocks of 2048 threads on AMD's
64-wide wavefronts (gfx942), more than the 1024 a block may have. add_kernel lists first a
config that sm_80 and gfx942 cannot run, as a project tuned on Hopper lists its best config
first; pdl_add_kernel is the tutorial's kernel as a project shipping it for Hopper only writes
it (every config launches with PDL)."""

import triton
import triton.language as tl


@triton.jit
def _add_block(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if USE_GDC:
        # Launched with PDL, the kernel may start before the previous one ends: wait for it
        # before reading what it may have written.
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_GDC:
        # Let the next kernel in the stream start its prologue.
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 1024, "USE_GDC": True, "launch_pdl": True}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 8192, "USE_GDC": False}, num_warps=32),
        triton.Config({"BLOCK_SIZE": 1024, "USE_GDC": False}, num_warps=4),
    ],
    key=["n_elements"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    _add_block(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE, USE_GDC)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 1024, "USE_GDC": True, "launch_pdl": True}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048, "USE_GDC": True, "launch_pdl": True}, num_warps=8),
    ],
    key=["n_elements"],
)
@triton.jit
def pdl_add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    _add_block(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE, USE_GDC)
