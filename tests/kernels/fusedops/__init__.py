"""A kernel package laid out as projects ship them (Liger-Kernel, FlagGems): kernels in modules
of a subpackage, importing helpers relatively and by the package's absolute name."""
from fusedops.ops.swiglu import swiglu_fwd_kernel  # noqa: F401  (re-exported, as packages do)
