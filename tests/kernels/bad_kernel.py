"""Kernels that do not compile, and functions that are not kernels (diagnostic tests).

The expected error lines are marked "ERROR:"; tests rely on the line numbers, so keep the
layout of this file stable.
"""
import triton
import triton.language as tl


@triton.jit
def undefined_name_kernel(x_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements)
    tl.store(x_ptr + offsets, x * undefined_scale, mask=offsets < n_elements)  # ERROR: line 14


@triton.jit
def _add_rows(a, b):
    return a + b  # ERROR: line 19 (16 vs 32 elements), reached from line 26


@triton.jit
def shape_mismatch_kernel(x_ptr, BLOCK: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, BLOCK))
    b = tl.load(x_ptr + tl.arange(0, 2 * BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), _add_rows(a, b))


def not_a_kernel(x):
    return x + 1


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n_elements"])
@triton.jit
def tuned_kernel(x_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.zeros((BLOCK, ), tl.float32), mask=offsets < n_elements)


@triton.jit(noinline=True)
def _scale_noinline(x, factor):
    return x * factor


@triton.jit
def noinline_tensor_arg_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), _scale_noinline(x, 2.0))  # ERROR: line 48, column 43


@triton.jit(noinline=True)
def _noinline_undefined(x_ptr, n):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x * n * undefined_factor)  # ERROR: line 54, reached from line 59


@triton.jit
def noinline_undefined_name_kernel(x_ptr, n):
    _noinline_undefined(x_ptr, n)
