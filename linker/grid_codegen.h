// Grid expressions as C: the compiler's normalised expressions (contract/grid.h) rewritten so
// that they evaluate in int64_t inside a dispatcher, with the config's constexprs substituted.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tta::link {

/// Which static helpers an emitted expression calls (only those get emitted, so the generated
/// file has no unused functions).
struct GridHelpers {
  bool cdiv = false; ///< tta_cdiv(a, b)
  bool min = false;  ///< tta_min(a, b)
  bool max = false;  ///< tta_max(a, b)
};

/// Rewrites \p expression: cdiv/min/max calls become tta_cdiv/tta_min/tta_max, a name found in
/// \p names becomes its C text there ("(int64_t)n", "INT64_C(1024)"), an integer literal
/// becomes INT64_C(literal), everything else is copied. An expression that is one number, or
/// one name whose text is an INT64_C literal, is emitted as the bare number ("1", "64").
/// A name not in \p names becomes an undeclared identifier (tta_unknown_grid_name_<name>), so
/// the C compiler stops with that name rather than the code silently using something else.
std::string emitGridExpression(std::string_view expression,
                               const std::map<std::string, std::string, std::less<>> &names,
                               GridHelpers &used);

} // namespace tta::link
