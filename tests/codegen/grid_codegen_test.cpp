#include "linker/c_text.h"
#include "linker/grid_codegen.h"

#include <gtest/gtest.h>

namespace tta::link {
namespace {

using Names = std::map<std::string, std::string, std::less<>>;

std::string emit(std::string_view expression, const Names &names, GridHelpers *used = nullptr) {
  GridHelpers local;
  return emitGridExpression(expression, names, used ? *used : local);
}

const Names kNames = {{"n", "(int64_t)n"},
                      {"m", "(int64_t)m_"},
                      {"BLOCK", "INT64_C(1024)"},
                      {"OFFSET", "(-INT64_C(3))"},
                      {"stride", "INT64_C(1)"}};

TEST(GridCodegen, ParametersAreCastConstexprsSubstitutedFunctionsRenamed) {
  GridHelpers used;
  EXPECT_EQ(emit("cdiv(n, BLOCK)", kNames, &used), "tta_cdiv((int64_t)n, INT64_C(1024))");
  EXPECT_TRUE(used.cdiv);
  EXPECT_FALSE(used.min);
  EXPECT_FALSE(used.max);
  EXPECT_EQ(emit("max(min(n, m), 1)", kNames, &used),
            "tta_max(tta_min((int64_t)n, (int64_t)m_), INT64_C(1))");
  EXPECT_TRUE(used.min);
  EXPECT_TRUE(used.max);
}

TEST(GridCodegen, EveryLiteralIsSixtyFourBit) {
  // 1 << 40 overflows int; INT64_C makes every operand 64-bit.
  EXPECT_EQ(emit("1 << 40", kNames), "INT64_C(1) << INT64_C(40)");
  EXPECT_EQ(emit("(n + 0x3ff) / BLOCK", kNames), "((int64_t)n + INT64_C(0x3ff)) / INT64_C(1024)");
  EXPECT_EQ(emit("n * stride + OFFSET", kNames), "(int64_t)n * INT64_C(1) + (-INT64_C(3))");
  EXPECT_EQ(emit("-n", kNames), "-(int64_t)n");
  EXPECT_EQ(emit("n > 0 ? n : -BLOCK", kNames),
            "(int64_t)n > INT64_C(0) ? (int64_t)n : -INT64_C(1024)");
}

TEST(GridCodegen, ALoneNumberOrConstexprIsBare) {
  EXPECT_EQ(emit("1", kNames), "1");
  EXPECT_EQ(emit("0x10", kNames), "0x10");
  EXPECT_EQ(emit("BLOCK", kNames), "1024");
  EXPECT_EQ(emit("OFFSET", kNames), "(-INT64_C(3))");
  EXPECT_EQ(emit("n", kNames), "(int64_t)n");
}

TEST(GridCodegen, NameBeforeParenthesisIsOnlyAFunctionForCdivMinMax) {
  // A parameter called min is a name unless called.
  const Names names = {{"min", "(int64_t)min"}};
  EXPECT_EQ(emit("min(min, 4)", names), "tta_min((int64_t)min, INT64_C(4))");
}

TEST(GridCodegen, UnknownNamesStopTheCCompiler) {
  EXPECT_EQ(emit("cdiv(n, WHAT)", kNames), "tta_cdiv((int64_t)n, tta_unknown_grid_name_WHAT)");
}

TEST(CText, StringLiterals) {
  EXPECT_EQ(cStringLiteral("plain"), "\"plain\"");
  EXPECT_EQ(cStringLiteral("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(cStringLiteral("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
  EXPECT_EQ(cStringLiteral("what?"
                           "?!"),
            "\"what?\\?!\""); // "??!" is a trigraph
  EXPECT_EQ(cStringLiteral("\x01"
                           "1"),
            "\"\\0011\"");
  EXPECT_EQ(cStringLiteral("\xc3\xa9"), "\"\\303\\251\"");
}

TEST(CText, CommentsCannotEndEarly) {
  EXPECT_EQ(commentText("a */ b /* c\nd"), "a * / b / * c d");
  EXPECT_EQ(commentText("**/"), "** /");
}

TEST(CText, Int64Literals) {
  EXPECT_EQ(int64Literal(0), "INT64_C(0)");
  EXPECT_EQ(int64Literal(1024), "INT64_C(1024)");
  EXPECT_EQ(int64Literal(-1), "(-INT64_C(1))");
  EXPECT_EQ(int64Literal(INT64_MIN), "(-INT64_C(9223372036854775807) - 1)");
}

TEST(CText, ConstexprLiterals) {
  EXPECT_EQ(constexprLiteral(128), "INT64_C(128)");
  EXPECT_EQ(constexprLiteral(-7), "(-INT64_C(7))");
  EXPECT_EQ(constexprLiteral(true), "INT64_C(1)");
  EXPECT_EQ(constexprLiteral(false), "INT64_C(0)");
  EXPECT_EQ(constexprLiteral(0.5), "0.5");
  EXPECT_EQ(constexprLiteral(-2.0), "(-2.0)");
  EXPECT_EQ(constexprLiteral(1e20), "1e+20");
  EXPECT_EQ(constexprLiteral(nlohmann::json(18446744073709551615ull)),
            "(int64_t)UINT64_C(18446744073709551615)");
  EXPECT_FALSE(constexprLiteral("ieee"));
  EXPECT_FALSE(constexprLiteral(nullptr));
  EXPECT_EQ(constexprDisplay(0.5), "0.5");
  EXPECT_EQ(constexprDisplay("ieee"), "\"ieee\"");
}

} // namespace
} // namespace tta::link
