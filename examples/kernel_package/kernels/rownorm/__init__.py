"""rownorm: row-wise normalizations, a small kernel package laid out as projects ship theirs:
kernels in modules that import the package's helpers relatively, and re-exported here."""
from .l2_normalize import l2_normalize_kernel  # noqa: F401
from .rms_norm import rms_norm_kernel  # noqa: F401
