#include "linker/grid_codegen.h"

#include "contract/lexing.h"

#include <algorithm>

namespace tta::link {

namespace {

/// "INT64_C(64)" -> "64"; anything else unchanged.
std::string bareNumber(const std::string &text) {
  constexpr std::string_view open = "INT64_C(";
  if (text.size() > open.size() + 1 && text.compare(0, open.size(), open) == 0 &&
      text.back() == ')') {
    std::string inner = text.substr(open.size(), text.size() - open.size() - 1);
    if (inner.find_first_not_of("0123456789xXabcdefABCDEF") == std::string::npos)
      return inner;
  }
  return text;
}

} // namespace

std::string emitGridExpression(std::string_view expression,
                               const std::map<std::string, std::string, std::less<>> &names,
                               GridHelpers &used) {
  const std::string_view whole = trim(expression);
  if (!whole.empty() && isDigit(whole.front()) &&
      std::all_of(whole.begin(), whole.end(), [](char c) { return isIdentChar(c); }))
    return std::string(whole);

  std::string out;
  std::size_t tokens = 0;
  for (std::size_t i = 0; i < expression.size();) {
    const char c = expression[i];
    if (!isIdentChar(c)) {
      out += c;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < expression.size() && isIdentChar(expression[end]))
      ++end;
    const std::string_view word = expression.substr(i, end - i);
    ++tokens;
    if (isDigit(c)) {
      out += "INT64_C(" + std::string(word) + ")";
    } else {
      std::size_t next = end;
      while (next < expression.size() && isSpace(expression[next]))
        ++next;
      const bool call = next < expression.size() && expression[next] == '(';
      if (call && (word == "cdiv" || word == "min" || word == "max")) {
        (word == "cdiv" ? used.cdiv : word == "min" ? used.min : used.max) = true;
        out += "tta_" + std::string(word);
      } else if (auto found = names.find(word); found != names.end()) {
        out += found->second;
      } else {
        out += "tta_unknown_grid_name_" + std::string(word);
      }
    }
    i = end;
  }
  // A lone constexpr reads better as its value than as INT64_C(value).
  if (tokens == 1)
    return bareNumber(std::string(trim(out)));
  return out;
}

} // namespace tta::link
