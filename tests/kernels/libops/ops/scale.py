"""A tuned element-wise kernel: the library's entry over its own autotuner (tuning per power-of-two
bucket of n, pruning blocks that are too large for any shape it serves) over its own reporting
heuristics over the @triton.jit function."""
import triton
import triton.language as tl

from ..utils import libentry, libtuner, reporting_heuristics

MAX_BLOCK = 2048


def drop_large_blocks(configs, named_args, **kwargs):
    return [config for config in configs if config.kwargs["BLOCK"] <= MAX_BLOCK]


@libentry()
@libtuner(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": drop_large_blocks},
    reset_to_zero=["out_ptr"],
)
@reporting_heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * alpha)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * alpha, mask=mask)
