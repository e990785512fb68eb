// The expressions of a tuning spec: the element count of a buffer, a scalar argument's value,
// a caller grid's dimension, written over the key's names ("M * K") and, in grids, the config's
// constexprs ("cdiv(M, BLOCK_M)"). The compiler reads the same arguments (TUNE_ARGS) to know
// each argument's value per tuned shape (--specialize-arg).
//
// Language: integer and floating literals, names, unary - and +, binary * / % + -, parentheses,
// cdiv(a, b), min(a, b), max(a, b). Integers are 64-bit and `/` floors, as Python's `//`
// (Triton's grids are Python); an operation with a floating operand is floating.
#pragma once

#include "contract/diagnostic.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tta::tune {

/// An evaluated expression: an integer unless a floating literal took part.
struct ExprValue {
  bool isFloat = false;
  std::int64_t integer = 0;
  double floating = 0;

  double asDouble() const { return isFloat ? floating : static_cast<double>(integer); }
};

/// The names an expression may read and their values.
using ExprNames = std::map<std::string, std::int64_t, std::less<>>;

/// A parse or evaluation failure: what went wrong and the 1-based column in the text.
struct ExprError {
  int column = 0;
  std::string message;
};

struct ExprNode;

/// A parsed expression. Copies share the tree (it is never modified).
class Expression {
public:
  /// Parses \p text; on failure \p error says why and where.
  static bool parse(std::string_view text, Expression &out, ExprError &error);

  /// The value with \p names. Fails on a name \p names lacks, a division or cdiv by zero, an
  /// integer overflow, or `%` of a floating value.
  bool evaluate(const ExprNames &names, ExprValue &out, ExprError &error) const;

  /// Every name the expression reads, in order of first use, with its column.
  std::vector<std::pair<std::string, int>> names() const;

  const std::string &text() const { return text_; }

private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
};

} // namespace tta::tune
