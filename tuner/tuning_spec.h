// The tuning spec (`*.tune.json`, schema "triton-aot-tuning-spec", version 1): which kernels of
// a library triton-aot-tune times, over which shapes, and how each shape becomes arguments.
// Format: docs/tuning.md, "The tuning spec".
#pragma once

#include "contract/diagnostic.h"
#include "contract/tune_expression.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tta::tune {

/// One argument of the kernel: its C parameter name and the expression that gives the element
/// count of its buffer (pointers) or its value (scalars).
struct SpecArg {
  std::string name;
  Expression expression;
};

struct KernelSpec {
  std::string kernel;                              ///< the kernel's name in the library
  std::vector<std::string> key;                    ///< integer runtime parameters keyed on
  std::vector<std::vector<std::int64_t>> shapes;   ///< key values, one per key name
  std::vector<SpecArg> args;                       ///< in the order the spec gives them
  std::optional<std::array<Expression, 3>> grid;   ///< only for kernels the caller grids
  std::string where;                               ///< "mm.tune.json: kernels[0] (matmul)"
};

struct TuningSpec {
  std::vector<KernelSpec> kernels;
};

/// Parses and checks a spec (\p where names it in errors: its path). Each error names the
/// kernel, the member and, for an expression, the column. Names an arg expression reads must be
/// key names; a grid may also read constexprs, checked against the library later.
Expected<TuningSpec> parseTuningSpec(const nlohmann::json &json, const std::string &where);
/// Reads a file and parses it.
Expected<TuningSpec> readTuningSpec(const std::string &path);

/// The arg named \p name, or null.
const SpecArg *findArg(const KernelSpec &spec, const std::string &name);

} // namespace tta::tune
