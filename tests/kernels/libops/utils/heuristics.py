"""Triton's heuristics, saying which values they chose when LIBOPS_REPORT=1: to see which
variant of a kernel a launch took."""
import os
import sys

from triton.runtime import Heuristics


class ReportingHeuristics(Heuristics):

    def run(self, *args, **kwargs):
        if os.environ.get("LIBOPS_REPORT") == "1":
            named = {**dict(zip(self.arg_names, args)), **kwargs}
            for name, rule in self.values.items():
                named[name] = rule(named)
                print(f"{self.fn.__name__}: {name}={named[name]!r}", file=sys.stderr)
        return super().run(*args, **kwargs)


def reporting_heuristics(values):

    def decorator(fn):
        return ReportingHeuristics(fn, fn.arg_names, values)

    return decorator
