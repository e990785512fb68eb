"""Every kind of constexpr value a signature can give: dtype, bool, negative float, string,
negative integer (end-to-end test of the signature grammar through the frontend)."""
import triton
import triton.language as tl


@triton.jit
def constexpr_kinds_kernel(x_ptr, out_ptr, n_elements, DTYPE: tl.constexpr, FLIP: tl.constexpr,
                           SCALE: tl.constexpr, MODE: tl.constexpr, OFFSET: tl.constexpr,
                           BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(DTYPE)
    if FLIP:
        x = -x
    if MODE == "double":
        x = x * 2
    y = x.to(tl.float32) * SCALE + OFFSET
    tl.store(out_ptr + offsets, y, mask=mask)
