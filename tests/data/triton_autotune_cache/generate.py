"""Writes this directory's fixtures with the installed Triton's own code.

Autotuner.check_disk_cache (triton/runtime/autotuner.py) hashes, names and writes the cache
file; only the GPU is faked (the driver's current target, which the hash covers) and the
timings are made up, set as Autotuner.run's benchmark() sets them. The key is built as run()
builds it: the key names' values, then str(arg.dtype) of each tensor argument in call order.

    <venv>/bin/python generate.py <triton version>   # writes ./<version>/
"""
import os
import shutil
import sys

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[1])
shutil.rmtree(out, ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = out

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.runtime import autotuner  # noqa: E402

assert triton.__version__ == sys.argv[1], triton.__version__


class _Active:

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)


class _Driver:
    active = _Active()


autotuner.driver = _Driver()

CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_warps=4, num_stages=4, maxnreg=128),
]


@triton.autotune(configs=CONFIGS, key=["M", "N"], cache_results=True)
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pass


@triton.autotune(configs=CONFIGS[:2], key=["n"], cache_results=True)
@triton.jit
def other_kernel(x_ptr, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pass


INF = float("inf")


def write(tuner, key, timings):
    """Runs check_disk_cache for a key not yet cached: it benchmarks (here: sets the timings,
    [median, p20, p80] in ms per config) and writes the file."""

    def benchmark():
        tuner.configs_timings = dict(zip(tuner.configs, timings))
        tuner.cache[key] = min(tuner.configs_timings, key=tuner.configs_timings.get)

    assert tuner.check_disk_cache(key, tuner.configs, benchmark) is False


f16, bf16, f32 = "torch.float16", "torch.bfloat16", "torch.float32"
write(mm, (512, 1024, f16, f16, f32), [[0.0112, 0.011, 0.0115], [0.0098, 0.0097, 0.0101], [INF, INF, INF]])
write(mm, (4096, 4096, f16, f16, f32), [[0.412, 0.41, 0.415], [0.53, 0.52, 0.54], [0.61, 0.6, 0.62]])
write(mm, (512, 1024, bf16, bf16, f32), [[0.02, 0.02, 0.02], [0.01, 0.01, 0.01], [0.03, 0.03, 0.03]])
write(other_kernel, (512, f32), [[0.001, 0.001, 0.001], [0.002, 0.002, 0.002]])
