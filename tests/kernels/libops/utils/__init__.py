from .heuristics import reporting_heuristics  # noqa: F401
from .libentry import LibEntry, LibTuner, libentry, libtuner  # noqa: F401
from .tracing import Traced, shape_tune, traced  # noqa: F401
