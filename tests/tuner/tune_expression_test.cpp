// The expressions of a tuning spec: values, Python's floor division, and every error with its
// column.
#include "contract/tune_expression.h"

#include <gtest/gtest.h>

namespace tta::tune {
namespace {

ExprValue eval(const std::string &text, const ExprNames &names = {}) {
  Expression expression;
  ExprError error;
  EXPECT_TRUE(Expression::parse(text, expression, error)) << text << ": " << error.message;
  ExprValue value;
  EXPECT_TRUE(expression.evaluate(names, value, error)) << text << ": " << error.message;
  return value;
}

ExprError parseError(const std::string &text) {
  Expression expression;
  ExprError error;
  EXPECT_FALSE(Expression::parse(text, expression, error)) << text;
  return error;
}

ExprError evalError(const std::string &text, const ExprNames &names = {}) {
  Expression expression;
  ExprError error;
  EXPECT_TRUE(Expression::parse(text, expression, error)) << text << ": " << error.message;
  ExprValue value;
  EXPECT_FALSE(expression.evaluate(names, value, error)) << text;
  return error;
}

TEST(TuneExpression, IntegersWithNamesAndFunctions) {
  ExprNames names{{"M", 512}, {"K", 64}, {"BLOCK_M", 128}};
  EXPECT_EQ(eval("M * K", names).integer, 32768);
  EXPECT_EQ(eval("cdiv(M, BLOCK_M) * 2 + 1", names).integer, 9);
  EXPECT_EQ(eval("cdiv(M + 1, BLOCK_M)", names).integer, 5);
  EXPECT_EQ(eval("min(M, K) - max(1, 2)", names).integer, 62);
  EXPECT_EQ(eval("(M + K) % 100", names).integer, 76);
  EXPECT_EQ(eval("-K + +3", names).integer, -61);
  EXPECT_EQ(eval("  1  ").integer, 1);
  EXPECT_FALSE(eval("M", names).isFloat);
}

TEST(TuneExpression, DivisionFloorsLikePython) {
  EXPECT_EQ(eval("7 / 2").integer, 3);
  EXPECT_EQ(eval("-7 / 2").integer, -4);
  EXPECT_EQ(eval("7 / -2").integer, -4);
  EXPECT_EQ(eval("-7 % 3").integer, 2);
  EXPECT_EQ(eval("7 % -3").integer, -2);
}

TEST(TuneExpression, FloatsMakeTheResultFloating) {
  ExprValue half = eval("0.5");
  EXPECT_TRUE(half.isFloat);
  EXPECT_DOUBLE_EQ(half.floating, 0.5);
  EXPECT_DOUBLE_EQ(eval("1e-5").floating, 1e-5);
  EXPECT_DOUBLE_EQ(eval("2.5E+2").floating, 250.0);
  EXPECT_DOUBLE_EQ(eval("1 / 4.0").floating, 0.25);
  EXPECT_DOUBLE_EQ(eval("-0.5 * N", {{"N", 4}}).floating, -2.0);
  EXPECT_DOUBLE_EQ(eval("max(0.5, 1)").floating, 1.0);
}

TEST(TuneExpression, NamesInOrderWithColumns) {
  Expression expression;
  ExprError error;
  ASSERT_TRUE(Expression::parse("cdiv(M, BLOCK_M) * M + N", expression, error));
  auto names = expression.names();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], std::make_pair(std::string("M"), 6));
  EXPECT_EQ(names[1], std::make_pair(std::string("BLOCK_M"), 9));
  EXPECT_EQ(names[2], std::make_pair(std::string("N"), 24));
}

TEST(TuneExpression, ParseErrorsSayWhatAndWhere) {
  auto check = [](const std::string &text, int column, const std::string &message) {
    ExprError error = parseError(text);
    EXPECT_EQ(error.column, column) << text;
    EXPECT_EQ(error.message, message) << text;
  };
  check("", 1, "empty expression");
  check("M *", 4, "expression ends early");
  check("M K", 3, "unexpected 'K'");
  check("(M + 1", 7, "expected ')'");
  check("M $ 2", 3, "unexpected '$'");
  check("pow(M, 2)", 1, "unknown function 'pow'; the functions are cdiv, min, max");
  check("cdiv(M)", 7, "cdiv() takes 2 arguments: expected ','");
  check("min(M, 1, 2)", 9, "min() takes 2 arguments: expected ')'");
  check("99999999999999999999", 1, "integer '99999999999999999999' does not fit in 64 bits");
  check("1.2.3", 1, "malformed number '1.2.3'");
  check("1e", 1, "malformed number '1e'");
}

TEST(TuneExpression, EvaluationErrorsSayWhatAndWhere) {
  auto check = [](const std::string &text, int column, const std::string &message,
                  const ExprNames &names = {}) {
    ExprError error = evalError(text, names);
    EXPECT_EQ(error.column, column) << text;
    EXPECT_EQ(error.message, message) << text;
  };
  check("M * Q", 5, "unknown name 'Q'; the names are K, M", {{"M", 1}, {"K", 2}});
  check("Q", 1, "unknown name 'Q'; the names are (none)");
  check("M / 0", 3, "division by zero", {{"M", 1}});
  check("M % 0", 3, "modulo by zero", {{"M", 1}});
  check("cdiv(M, 0)", 1, "cdiv by zero", {{"M", 1}});
  check("1.5 / 0", 5, "division by zero");
  check("1.5 % 2", 5, "% takes integers, not floating values");
  check("cdiv(1.5, 2)", 1, "cdiv takes integers, not floating values");
  check("9223372036854775807 + 1", 21, "integer overflow");
  check("M * M", 3, "integer overflow", {{"M", 1ll << 40}});
  check("-M", 1, "integer overflow", {{"M", INT64_MIN}});
  check("M / -1", 3, "integer overflow", {{"M", INT64_MIN}});
  check("cdiv(M, -1)", 1, "integer overflow", {{"M", INT64_MIN + 2}});
  check("cdiv(M, 2)", 1, "integer overflow", {{"M", INT64_MAX}});
}

TEST(TuneExpression, LongTextIsRefusedNotAStackOverflow) {
  // Found by fuzz_tune_expression: 20000 nested parentheses, unary minuses or '+' terms
  // overflowed the stack (AddressSanitizer) in the parser or in evaluate().
  std::string chain = "M";
  while (chain.size() <= 1000)
    chain += "+M";
  EXPECT_EQ(parseError(chain).message, "the expression is longer than 1000 characters");
  EXPECT_EQ(parseError(std::string(1001, '-') + "M").message,
            "the expression is longer than 1000 characters");
  const std::string deep = std::string(490, '(') + "M" + std::string(490, ')');
  EXPECT_EQ(eval(deep, {{"M", 3}}).integer, 3);
}

TEST(TuneExpression, ExtremeOperandsAreExactOrOverflowButNeverUndefined) {
  // Found by fuzz_tune_expression: cdiv(M, INT64_MIN) computed INT64_MIN - 1, and
  // cdiv(INT64_MIN + 2, -1) divided INT64_MIN by -1 (both undefined behaviour, UBSan).
  EXPECT_EQ(eval("cdiv(M, N)", {{"M", 1}, {"N", INT64_MIN}}).integer, 1);
  EXPECT_EQ(eval("cdiv(M, -1)", {{"M", INT64_MIN + 3}}).integer, INT64_MAX);
  EXPECT_EQ(eval("M % -1", {{"M", INT64_MIN}}).integer, 0);   // Python: 0
  EXPECT_EQ(eval("cdiv(M, 1)", {{"M", INT64_MAX}}).integer, INT64_MAX);
}

} // namespace
} // namespace tta::tune
