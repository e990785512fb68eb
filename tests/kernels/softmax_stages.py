"""A row softmax in the style of Triton's fused softmax tutorial: a persistent loop over rows
whose software pipelining depth is the `num_stages` constexpr parameter, which the launch sets
together with the compile option of the same name (kernel[grid](..., num_stages=4))."""
import triton
import triton.language as tl


@triton.jit
def softmax_stages_kernel(out_ptr, in_ptr, row_stride, n_rows, n_cols, BLOCK: tl.constexpr,
                          num_stages: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    for row in tl.range(start, n_rows, step, num_stages=num_stages):
        x = tl.load(in_ptr + row * row_stride + cols, mask=cols < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * row_stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)
