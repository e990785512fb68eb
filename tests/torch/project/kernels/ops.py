"""Kernels as PyTorch users write them, to become torch.ops.kops.*: an out-of-place add
(out written), a scale over a row-wise caller grid with scalars of every kind, and an
in-place histogram (atomics)."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, n_cols, scale, bias, FLIP: tl.constexpr, relu, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * scale + bias.to(tl.float32)
    if FLIP:
        y = -y
    if relu:
        y = tl.maximum(y, 0.0)
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def histogram_kernel(values_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.atomic_add(counts_ptr + tl.load(values_ptr + offsets, mask=mask, other=0), 1, mask=mask)


@triton.jit
def tile_scale_kernel(in_desc, out_desc, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out = in * scale, a tile per program, through host tensor descriptors (TMA on Hopper)."""
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    out_desc.store([m, n], in_desc.load([m, n]) * scale)
