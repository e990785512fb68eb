"""Kernels whose pointer parameters are written in the ways real kernels write them: through a
helper, in a loop with pointers carried beside read-only ones, atomically, through a pointer
picked by tl.where, inside if/while, and through a pointer read from memory."""
import triton
import triton.language as tl


@triton.jit
def _store_block(ptr, offs, value, mask):
    tl.store(ptr + offs, value, mask=mask)


@triton.jit
def copy_through_helper(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    _store_block(dst, offs, tl.load(src + offs, mask=mask), mask)


@triton.jit
def strided_loop(src, dst, scale, n, stride, BLOCK: tl.constexpr):
    # src and dst pointers both carried around the loop; only dst is written.
    src_ptrs = src + tl.arange(0, BLOCK)
    dst_ptrs = dst + tl.arange(0, BLOCK)
    for _ in range(0, n):
        tl.store(dst_ptrs, tl.load(src_ptrs) * tl.load(scale))
        src_ptrs += stride
        dst_ptrs += stride


@triton.jit
def histogram(values, counts, total, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(values + offs, mask=mask, other=0)
    tl.atomic_add(counts + bins, 1, mask=mask)
    tl.atomic_cas(total, 0, 1)


@triton.jit
def pick_output(x, out_a, out_b, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if flag > 0:
        target = out_a
    else:
        target = out_b
    tl.store(target + offs, tl.load(x + offs))


@triton.jit
def while_scan(x, out, n, BLOCK: tl.constexpr):
    i = 0
    ptrs = out + tl.arange(0, BLOCK)
    while i < n:
        tl.store(ptrs, tl.load(x + tl.arange(0, BLOCK)) + i)
        ptrs += BLOCK
        i += 1


@triton.jit
def read_only(x, y, out_sum, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x + offs, mask=offs < n, other=0.0) + tl.load(y + offs, mask=offs < n, other=0.0))
    tl.store(out_sum, s)
