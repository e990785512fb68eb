"""A kernel as upstream compile.py's users declare one: the signature names every parameter,
"*fp32:16, *fp32:16, i32, fp32, BLOCK_N, EVEN_N, MODE". BLOCK_N comes from the config, EVEN_N
from its @triton.heuristics (per launch: whether n_elements fills every block) and MODE from its
default."""
import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["n_elements"] % args["BLOCK_N"] == 0})
@triton.jit
def scale_kernel(x_ptr, y_ptr, n_elements, factor, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr,
                 MODE: tl.constexpr = "scale"):
    offsets = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(x_ptr + offsets)
    else:
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    if MODE == "scale":
        y = x * factor
    else:
        y = x + factor
    if EVEN_N:
        tl.store(y_ptr + offsets, y)
    else:
        tl.store(y_ptr + offsets, y, mask=offsets < n_elements)
