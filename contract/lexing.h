// Character classes shared by the hand-written tokenizers (signatures, grids, configs, targets).
// ASCII only, and independent of the C locale, so a kernel's signature parses the same anywhere.
#pragma once

#include <cstddef>
#include <string_view>

namespace tta {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
inline bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// The longest expression the recursive-descent parsers (grids, heuristics, tuning specs) read.
/// Their recursion, and that of the trees they build, is bounded by the length, so that hostile
/// text ("((((...", "-----x", "x+x+x+...") cannot exhaust the stack. Real ones are far shorter.
inline constexpr std::size_t kMaxExpressionLength = 1000;
/// A heuristic may be longer: a function of several statements, its loops unrolled by the
/// frontend, is one expression (FlagGems' tile searches: about 2,000 characters). A chain of
/// 6,000 characters is 3,000 levels of the trees' recursion, within any thread's stack.
inline constexpr std::size_t kMaxHeuristicLength = 6000;

/// \p text without leading and trailing white space.
inline std::string_view trim(std::string_view text) {
  while (!text.empty() && isSpace(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back()))
    text.remove_suffix(1);
  return text;
}

} // namespace tta
