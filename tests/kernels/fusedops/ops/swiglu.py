"""SwiGLU forward, c = silu(a) * b, in a package module: a relative import of the package's
helper, and an absolute one of the package's own name."""
import triton
import triton.language as tl

from .utils import silu
from fusedops.ops import utils


@triton.jit
def swiglu_fwd_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * stride + cols, mask=mask, other=0.0)
    c = silu(a).to(b.dtype) * b
    tl.store(c_ptr + row * stride + cols, c, mask=mask & (utils.LOG2E > 0))
