"""Launch heuristics kept apart from the kernels, as FlagGems keeps its heuristics_config_utils:
dicts of @triton.heuristics values, some of which set launch options (num_warps) rather than
constexpr parameters."""
import triton

MAX_BLOCK = 4096


def block_for(args):
    return min(triton.next_power_of_2(args["n_elements"]), MAX_BLOCK)


def warps_for_block(args):
    # Wider blocks get more warps; reads only BLOCK_SIZE, decided just before it.
    return 8 if args["BLOCK_SIZE"] >= 2048 else 4


COUNT_HEURISTICS = {
    "BLOCK_SIZE": block_for,
    "num_warps": lambda args: 8,
}

SCALE_HEURISTICS = {
    "num_warps": lambda args: 2 if args["n_elements"] <= 1024 else 4,
}

STAGED_HEURISTICS = {
    "num_warps": warps_for_block,
    "num_stages": lambda args: 2,
}
