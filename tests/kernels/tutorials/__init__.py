"""Kernels written the way Triton's tutorials write them (python/tutorials/01-09), one module
per tutorial: `import torch` at the top, `DEVICE` asked of the active driver at import, config
lists picked by backend at import, and a Python wrapper per kernel that allocates its outputs
with torch and launches with `kernel[grid](...)`.  The code is this project's own; only the
style follows the tutorials.  Built unedited by triton-aot (tests, bench/realworld)."""
