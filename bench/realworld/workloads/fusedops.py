"""Workload: the kernel package tests/kernels/fusedops (laid out as Liger-Kernel and FlagGems
ship theirs).  Its modules import the package by its own name (`from fusedops.ops import
utils`), so its root, tests/kernels, goes on sys.path when this file is imported, and its
modules are named here as that package's (`fusedops.ops.swiglu`), as the compiler imports them
(docs/compiler.md, "Kernel files in packages").

The cases launch every kernel, every autotuned one at least once, and each bool
@triton.heuristics value both ways:
  clamp_kernel       FULL_TILES   n % BLOCK == 0 (4096) / not (4000)
  scale_rows_kernel  EVEN_N       n_cols a power of two (256) / not (100); and BLOCK_N 256, 128
                     HAS_BIAS     a bias tensor / None
  copy_kernel        USE_WIDE     fp32 input (itemsize 4) / fp16

copy_kernel's heuristic reads `x_ptr.dtype`, which the compiler cannot translate to C, so its
declaration gets `HEURISTIC USE_WIDE=...` by hand (DECLARE).  No C expression over the
arguments can see a pointer's element type, and DECLARE applies to every declaration of the
kernel (one per dtype), so `true` is declared: right for the fp32 launches; for fp16 the build
widens to fp32 and narrows back on the store where Triton copies fp16 as it is, which writes
the same bytes."""
import importlib
import os
import sys

import torch

_PACKAGE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "kernels")
_PACKAGE_ROOT = os.path.normpath(_PACKAGE_ROOT)
if _PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, _PACKAGE_ROOT)

MODULES = [
    "fusedops.ops.utils",
    "fusedops.ops.device_info",
    "fusedops.ops.swiglu",
    "fusedops.ops.no_specialize",
    "fusedops.ops.tuned_scale",
    "fusedops.ops.heuristic_assigned",
    "fusedops.ops.heuristic_rows",
    "fusedops.ops.heuristic_untranslatable",
    "fusedops.ops.row_scale",
]

DECLARE = {"fusedops.ops.heuristic_untranslatable.copy_kernel": ["HEURISTIC \"USE_WIDE=true\""]}


def _mod(name):
    return importlib.import_module("fusedops.ops." + name)


def _cdiv(a, b):
    return (a + b - 1) // b


def _swiglu(device):
    m = _mod("swiglu")
    torch.manual_seed(11)
    n_rows, n_cols = 37, 300
    a = torch.randn(n_rows, n_cols, device=device, dtype=torch.float16)
    b = torch.randn(n_rows, n_cols, device=device, dtype=torch.float16)
    c = torch.empty_like(a)
    m.swiglu_fwd_kernel[(n_rows, )](a, b, c, c.stride(0), n_cols, BLOCK=512)


def _no_specialize(device):
    m = _mod("no_specialize")
    torch.manual_seed(12)
    n = 5000
    x = torch.randn(n, device=device)
    y = torch.empty_like(x)
    m.shift_kernel[(_cdiv(n, 1024), )](x, y, n, 0.5, BLOCK=1024)
    # A misaligned start (do_not_specialize_on_alignment leaves x_ptr generic anyway).
    m.shift_kernel[(_cdiv(n - 1, 1024), )](x[1:], y[1:], n - 1, -1.5, BLOCK=1024)


def _tuned_scale(device):
    m = _mod("tuned_scale")
    torch.manual_seed(13)
    n = 10_007
    x = torch.randn(n, device=device)
    out = torch.empty_like(x)
    grid = lambda meta: (_cdiv(n, meta["BLOCK"]), )
    m.tuned_scale_kernel[grid](x, out, n)


def _heuristic_assigned(device):
    m = _mod("heuristic_assigned")
    torch.manual_seed(14)
    for n in (4096, 4000):  # FULL_TILES True, then False
        x = torch.randn(n, device=device)
        y = torch.empty_like(x)
        m.clamp_kernel[(_cdiv(n, 256), )](x, y, n, -0.5, 0.75, BLOCK=256)


def _heuristic_rows(device):
    m = _mod("heuristic_rows")
    torch.manual_seed(15)
    n_rows = 19
    for n_cols in (256, 100):  # EVEN_N True (BLOCK_N 256), then False (BLOCK_N 128)
        x = torch.randn(n_rows, n_cols, device=device)
        bias = torch.randn(n_cols, device=device)
        for b in (bias, None):  # HAS_BIAS True, then False
            y = torch.empty_like(x)
            m.scale_rows_kernel[(n_rows, )](x, b, y, n_rows, n_cols, 1.5)


def _heuristic_untranslatable(device):
    m = _mod("heuristic_untranslatable")
    torch.manual_seed(16)
    n = 3000
    for dtype in (torch.float32, torch.float16):  # USE_WIDE True, then False
        x = torch.randn(n, device=device).to(dtype)
        y = torch.empty_like(x)
        m.copy_kernel[(_cdiv(n, 512), )](x, y, n, BLOCK=512)


def _row_scale(device):
    m = _mod("row_scale")
    info = _mod("device_info")
    torch.manual_seed(17)
    n_rows, n_cols = 301, 700
    x = torch.randn(n_rows, n_cols, device=device)
    out = torch.empty_like(x)
    # One program per SM (the kernel's NUM_PROGRAMS default), block width by backend (ROW_BLOCK).
    m.row_scale_kernel[(info.NUM_SM, )](x, out, n_rows, n_cols, x.stride(0), 0.25, num_warps=m.NUM_WARPS)


def cases():
    """[(case_name, fn)]; fn(device) launches one module's kernels."""
    return [
        ("swiglu", _swiglu),
        ("no_specialize", _no_specialize),
        ("tuned_scale", _tuned_scale),
        ("heuristic_assigned", _heuristic_assigned),
        ("heuristic_rows", _heuristic_rows),
        ("heuristic_untranslatable", _heuristic_untranslatable),
        ("row_scale", _row_scale),
    ]
