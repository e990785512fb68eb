"""Arguments the kernel's author asks Triton never to specialize on (vLLM marks sequence
lengths and strides this way): by name and by index."""
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n_elements"], do_not_specialize_on_alignment=[1])
def shift_kernel(x_ptr, y_ptr, n_elements, shift, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + shift, mask=mask)
