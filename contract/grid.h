// Grid expressions: three C expressions over the kernel's parameter and constexpr names, as
// given to -g/--grid ("(n + BLOCK - 1) / BLOCK, 1, 1"). Commas inside parentheses do not split.
//
// Accepted expression language (a C subset the linker can emit verbatim into C):
//   integer literals, names, unary - + ! ~, binary * / % + - << >> < <= > >= == != & ^ | && ||,
//   ?:, parentheses, and calls of cdiv(a, b), min(a, b), max(a, b).
#pragma once

#include "contract/diagnostic.h"

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tta {

struct Grid {
  std::array<std::string, 3> dims;          ///< normalised expressions (whitespace collapsed)
  std::array<std::set<std::string>, 3> names;  ///< the names each expression uses (not functions)
};

/// Parses "X, Y, Z" (fewer than three dims are padded with "1"; more is an error).
Expected<Grid> parseGrid(std::string_view text);
/// Parses three separate expressions (spec files give a list).
Expected<Grid> parseGrid(const std::vector<std::string> &dims);
/// Every name used must be in \p known (parameter and constexpr names); the error lists them.
Status checkGridNames(const Grid &grid, const std::vector<std::string> &known);

} // namespace tta
