"""A kernel library laid out as FlagGems lays out its own: kernels in modules of `ops`, each
wrapped in the library's own objects from `utils` (a launch-caching entry over Triton's
KernelInterface, an autotuner and heuristics derived from Triton's, a tracer and a tuner of the
library's own), applied outermost over the Triton decorators."""
