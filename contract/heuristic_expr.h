// @triton.heuristics values as expressions the build can evaluate and the generated C can
// compute. One parser reads two spellings of the same small language:
//
//   Python (a lambda's body, as the frontend sends it): args["N"] % args["BLOCK_N"] == 0,
//     and / or / not, `a if c else b`, `x is None`, `x is not None`, True / False / None
//   C (a hand-written --heuristic, and what the metadata records): N % BLOCK_N == 0,
//     && / || / !, c ? a : b, x == NULL
//
// Both: integer and float literals, parameter names, + - * // (Python) or / (C, integer
// division) %, ** (Python's power: int ** non-negative int is an int, otherwise a float),
// comparisons (Python's chained a < b < c too), parentheses, min, max, abs, bool, int, float
// (Python's conversions: int() truncates toward zero, bool() of a number is != 0),
// cdiv / triton.cdiv / tl.cdiv, next_power_of_2 / triton.next_power_of_2.
// Everything else is refused with the construct named, so the caller can say how to write the
// heuristic by hand.
#pragma once

#include "contract/diagnostic.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tta {

struct HeuristicValue {
  enum class Kind { Int, Float, Bool, None };
  Kind kind = Kind::Int;
  std::int64_t intValue = 0;   ///< Int; Bool as 0/1
  double floatValue = 0;
  bool operator==(const HeuristicValue &) const = default;
};

/// "1024", "0.5", "True", "None".
std::string formatHeuristicValue(const HeuristicValue &value);

struct HeuristicNode {
  enum class Kind { Literal, Name, Negate, Binary, Compare, Not, And, Or, Conditional, Call };
  Kind kind = Kind::Literal;
  std::string op;              ///< Binary: + - * // % **; Compare: == != < <= > >=; Call: its name
  HeuristicValue value;        ///< Literal
  std::string name;            ///< Name
  std::vector<HeuristicNode> children;   ///< Conditional: condition, then, else
};

enum class HeuristicDialect { Python, C };

struct HeuristicExpr {
  HeuristicNode root;
  std::set<std::string> names;   ///< every parameter name it reads
};

/// Parses \p text. In the Python dialect \p argName is the lambda's parameter (`args`): names
/// are read only as argName["NAME"]. Errors say what is not supported and where (column).
Expected<HeuristicExpr> parseHeuristic(std::string_view text, HeuristicDialect dialect,
                                       std::string_view argName = "args");

/// The C-dialect text of \p expr over parameter names ("N % BLOCK_N == 0"): what the metadata
/// records, and what parseHeuristic(..., C) reads back into the same tree.
std::string formatHeuristic(const HeuristicExpr &expr);

/// True when the value is a bool for any inputs (comparisons, not/and/or, bool(), bool literals).
bool isBoolValued(const HeuristicExpr &expr);

/// The names \p expr reads other than in a test against None (`x is None`, `x != NULL`): a
/// scalar argument of the C API is never None, so a name read only in such tests is decided
/// without its value.
std::set<std::string> namesReadAsValues(const HeuristicExpr &expr);

/// Evaluates with Python's semantics (floor division and modulo, as Triton's launch would).
/// Errors: a name not in \p values, division by zero, an operation on the wrong kinds.
Expected<HeuristicValue> evaluateHeuristic(const HeuristicExpr &expr,
                                           const std::map<std::string, HeuristicValue> &values);

/// What a name stands for in generated C: a constant, or a C expression of one of these kinds.
struct HeuristicBinding {
  enum class Kind { Constant, Int, Float, Pointer };
  Kind kind = Kind::Constant;
  HeuristicValue value;        ///< Constant
  std::string cExpr;           ///< otherwise: the C variable
};
using HeuristicResolver =
    std::function<std::optional<HeuristicBinding>(const std::string &name)>;

/// C helper functions an emitted expression calls (defined by the code generator).
inline constexpr const char *kHeuristicNextPow2 = "tta_next_power_of_2";
inline constexpr const char *kHeuristicPowInt = "tta_pow_int";         ///< int ** int >= 0
inline constexpr const char *kHeuristicPowFloat = "tta_pow_float";     ///< double ** int
inline constexpr const char *kHeuristicFloatToInt = "tta_float_to_int"; ///< int(double)

/// A C expression (int64_t / double / int truth value) computing \p expr. Constant
/// subexpressions are folded, and so are tests against None of a scalar (never None in C: `is
/// not None` is true), so the C has no comparison whose result is known. \p helpers receives
/// the helper functions the final text calls. Errors: a name the resolver does not know, a
/// pointer used other than against None/NULL, what C cannot compute without the math library
/// (a float exponent read at launch, // and % of floats).
Expected<std::string> emitHeuristicC(const HeuristicExpr &expr, const HeuristicResolver &resolve,
                                     std::set<std::string> *helpers = nullptr);

/// The C definition of a helper named by emitHeuristicC().
std::string heuristicHelperDefinition(const std::string &helper);

} // namespace tta
