// @triton.heuristics in triton-aot-cc: each heuristic the frontend found (describe's
// "heuristics") is translated into a HeuristicExpr and, per variant, either evaluated at build
// time (it reads only constexprs) or turned into variants the linker's dispatcher picks among at
// run time: both values of a bool, the declared values of an integer. docs/compiler.md#heuristics.
#pragma once

#include "compiler/signature.h"
#include "contract/diagnostic.h"
#include "contract/heuristic_expr.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace tta {

/// What the declaration says about a kernel's heuristics.
struct HeuristicDeclarations {
  /// --heuristic NAME=EXPR: a C expression over parameter names replacing the lambda.
  std::map<std::string, std::string> overrides;
  /// --heuristic-values NAME=V1,V2: the values an integer heuristic over runtime arguments is
  /// compiled for.
  std::map<std::string, std::vector<std::int64_t>> values;
  bool operator==(const HeuristicDeclarations &) const = default;
};

/// Parses "NAME=EXPR" (--heuristic) into \p into. Errors name the problem.
Status addHeuristicOverride(std::string_view text, HeuristicDeclarations &into);
/// Parses "NAME=V1,V2,..." (--heuristic-values) into \p into.
Status addHeuristicValues(std::string_view text, HeuristicDeclarations &into);

struct KernelHeuristic {
  std::string name;          ///< the constexpr parameter it sets
  std::string written;       ///< the expression as written (Python, or the --heuristic C text)
  std::string file;          ///< where the lambda is
  int line = 0;
  bool manual = false;       ///< from --heuristic
  /// It sets a launch option (num_warps ...), not a parameter: the variant's config takes it.
  bool launchOption = false;
  HeuristicExpr expr;
};

/// The heuristics of a describe answer, translated, in Triton's order. Errors (usage): a
/// lambda outside the supported subset (naming it, its line, and the --heuristic fix), a name
/// that is not a parameter, a heuristic that sets a parameter that is not tl.constexpr, an
/// override or values entry for a heuristic the kernel does not have.
Expected<std::vector<KernelHeuristic>> translateHeuristics(const nlohmann::json &describe,
                                                           const HeuristicDeclarations &declared,
                                                           const std::string &function,
                                                           const std::string &file);

/// One assignment of the heuristics for one variant.
struct HeuristicAssignment {
  Signature signature;                      ///< the resolved signature plus NAME=value entries
  nlohmann::json record = nlohmann::json::array();   ///< metadata "heuristics" of the variant
  /// Launch options the heuristics set (num_warps=8): they override the config's, as the
  /// heuristic's keyword overwrites the autotune config's in Triton's launch.
  std::map<std::string, std::int64_t> launchOptions;
};

/// The variants \p resolved (a job's signature, constexpr names resolved) becomes: every
/// heuristic that reads only constexprs (and heuristics already decided) is evaluated; a bool
/// over runtime arguments doubles the variants, an integer one multiplies them by its declared
/// values. A runtime scalar read only against None is never None (decided here). A heuristic
/// that reads the parameter it sets normalises the caller's value: the signature's (a value:
/// evaluated here), or one the C API takes (the signature gives a type, or leaves it out: i1
/// for a bool heuristic, else i64), recorded as "input" (its type) in the record. Errors: the
/// signature sets a heuristic's parameter that the heuristic does not read, or gives such a
/// caller's value as a pointer, string, hinted or fp16/bf16 scalar; an integer heuristic over
/// runtime arguments without declared values; an evaluation error (division by zero).
Expected<std::vector<HeuristicAssignment>>
expandHeuristics(const Signature &resolved, const std::vector<KernelHeuristic> &heuristics,
                 const HeuristicDeclarations &declared, const nlohmann::json &describe,
                 const std::string &function, const std::string &file);

} // namespace tta
