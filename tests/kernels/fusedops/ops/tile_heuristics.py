"""Tile sizes for the row reductions of tiled_sum.py, chosen as FlagGems chooses them: functions
of several statements, a helper called by another, and a search that doubles the tile while the
grid still fills the GPU more than once (its SM count asked of torch when the value is needed)."""
import torch
import triton

MAX_TILE_K = 1024
MIN_TILE_N = 64
MAX_TILE_N = 4096


def tile_k(args):
    """The widest power-of-two tile of K that still gives every SM more than one program."""
    num_sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    tile = 1
    upper = min(args["K"], MAX_TILE_K)
    while tile <= upper:
        waves = args["M"] * triton.cdiv(args["K"], tile) / num_sms
        if waves > 1 and tile * 2 <= upper:
            tile *= 2
        else:
            break
    return tile


def tile_n(args):
    if args["N"] <= MIN_TILE_N:
        return MIN_TILE_N
    elif args["N"] <= MAX_TILE_N:
        return triton.next_power_of_2(args["N"])
    return MAX_TILE_N


def one_tile(args):
    tile = tile_n(args)
    return tile >= args["N"]


def warps_for_tile(args):
    """A launch option set by a heuristic (Triton's launch takes it from the heuristics' keyword
    arguments): from the tile another heuristic chose."""
    if args["TILE_N"] <= 64:
        return 2
    elif args["TILE_N"] <= 1024:
        return 4
    return 8
