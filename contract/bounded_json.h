// JSON that a cache, a server or another tool hands over, parsed only once it is known to be
// small and shallow. nlohmann::json copies, compares and writes values by recursion, one stack
// frame per level, so a 100 KB record of 50,000 nested brackets would crash the tool that reads
// it: the nesting is counted first, by a scan that does not recurse.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

namespace tta {

/// More levels of arrays and objects than any file between the tools or cache record has (a
/// compile answer nests about ten deep).
inline constexpr int kMaxJsonDepth = 100;

/// How deeply \p text nests arrays and objects (brackets inside strings do not count), counting
/// no further than \p stopAt + 1. Does not check that \p text is JSON.
int jsonNestingDepth(std::string_view text, int stopAt = kMaxJsonDepth);

/// \p text parsed, when it is at most \p maxBytes long and nests at most \p maxDepth levels.
/// \returns a UsageError saying which limit was passed, or where the text is not JSON.
Expected<nlohmann::json> parseBoundedJson(std::string_view text, std::size_t maxBytes,
                                          int maxDepth = kMaxJsonDepth);

} // namespace tta
