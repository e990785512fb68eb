#include "contract/grid.h"

#include "parse_expect.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

using Names = std::set<std::string>;

Grid parsed(std::string_view text) { return expectParsed(parseGrid(text), text); }

/// The normalised form of a one-dimension grid.
std::string norm(std::string_view text) { return parsed(text).dims[0]; }

Diagnostic errorOf(std::string_view text) { return expectUsageError(parseGrid(text), text); }

TEST(GridTest, ParsesThreeDimensionsAndCollectsNames) {
  Grid g = parsed("(n + BLOCK - 1) / BLOCK, 1, 1");
  EXPECT_EQ(g.dims[0], "(n + BLOCK - 1) / BLOCK");
  EXPECT_EQ(g.dims[1], "1");
  EXPECT_EQ(g.dims[2], "1");
  EXPECT_EQ(g.names[0], (Names{"BLOCK", "n"}));
  EXPECT_TRUE(g.names[1].empty());
  EXPECT_TRUE(g.names[2].empty());

  g = parsed("cdiv(M, BM) * cdiv(N, BN), batch, heads");
  EXPECT_EQ(g.dims[0], "cdiv(M, BM) * cdiv(N, BN)");
  EXPECT_EQ(g.names[0], (Names{"BM", "BN", "M", "N"})); // cdiv is a function, not a name
  EXPECT_EQ(g.names[1], Names{"batch"});
  EXPECT_EQ(g.names[2], Names{"heads"});
}

TEST(GridTest, PadsMissingDimensionsWithOne) {
  Grid g = parsed("cdiv(n, BLOCK)");
  EXPECT_EQ(g.dims[0], "cdiv(n, BLOCK)");
  EXPECT_EQ(g.dims[1], "1");
  EXPECT_EQ(g.dims[2], "1");
  g = parsed("a, b");
  EXPECT_EQ(g.dims[1], "b");
  EXPECT_EQ(g.dims[2], "1");
}

TEST(GridTest, CommasInsideCallsDoNotSplit) {
  Grid g = parsed("max(a,b),min( c , d ),cdiv(e , f)");
  EXPECT_EQ(g.dims[0], "max(a, b)");
  EXPECT_EQ(g.dims[1], "min(c, d)");
  EXPECT_EQ(g.dims[2], "cdiv(e, f)");
  EXPECT_EQ(parsed("max(min(a, b), cdiv(c, (d)))").dims[0], "max(min(a, b), cdiv(c, (d)))");
}

TEST(GridTest, NormalisesWhitespace) {
  EXPECT_EQ(norm("  (n+BLOCK-1)/BLOCK  "), "(n + BLOCK - 1) / BLOCK");
  EXPECT_EQ(norm("( n )"), "(n)");
  EXPECT_EQ(norm("cdiv( n ,\tBLOCK )"), "cdiv(n, BLOCK)");
  EXPECT_EQ(norm("a?b:c"), "a ? b : c");
  EXPECT_EQ(norm("!a&&~b||c"), "!a && ~b || c");
  EXPECT_EQ(norm("a<<2>>1"), "a << 2 >> 1");
  EXPECT_EQ(norm("a<=b==c!=d>=e<f>g"), "a <= b == c != d >= e < f > g");
  EXPECT_EQ(norm("a&b^c|d%e"), "a & b ^ c | d % e");
  EXPECT_EQ(norm("- n"), "-n");
  EXPECT_EQ(norm("0x10*n"), "0x10 * n");
  EXPECT_EQ(norm("a ? b ? c : d : e"), "a ? b ? c : d : e");
}

TEST(GridTest, KeepsAdjacentUnaryOperatorsApartInC) {
  EXPECT_EQ(norm("- -n"), "- -n"); // not "--n", a decrement in C
  EXPECT_EQ(norm("--n"), "- -n");
  EXPECT_EQ(norm("+ +n"), "+ +n");
  EXPECT_EQ(norm("-+n"), "-+n");
  EXPECT_EQ(norm("-(-n)"), "-(-n)");
  EXPECT_EQ(norm("a - -b"), "a - -b");
}

TEST(GridTest, NormalisedFormsParseToThemselves) {
  for (std::string_view text :
       {"(n + BLOCK - 1) / BLOCK, 1, 1", "cdiv(n,B)*2, max(a,b), min(c , d)", "- -n, !a, ~b",
        "a ? b : c ? d : e", "x<<1|y>>2&z"}) {
    Grid g = parsed(text);
    Grid again = parsed(g.dims[0] + ", " + g.dims[1] + ", " + g.dims[2]);
    EXPECT_EQ(again.dims, g.dims) << text;
    EXPECT_EQ(again.names, g.names) << text;
  }
}

TEST(GridTest, ParsesAListOfDimensions) {
  Expected<Grid> g = parseGrid(std::vector<std::string>{"cdiv(n,BLOCK)", " m "});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->dims[0], "cdiv(n, BLOCK)");
  EXPECT_EQ(g->dims[1], "m");
  EXPECT_EQ(g->dims[2], "1");
  EXPECT_EQ(g->names[1], Names{"m"});

  Expected<Grid> bad = parseGrid(std::vector<std::string>{"a", "b +"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "grid dimension 2 'b +': expected a number, a name or '(', got the end of the "
            "expression");
  EXPECT_EQ(bad.error().sourceLine, "b +");
  EXPECT_EQ(bad.error().column, 4);

  bad = parseGrid(std::vector<std::string>{"a, b"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "grid dimension 1 'a, b': unexpected ','; each grid dimension is one expression");
  EXPECT_EQ(bad.error().column, 2);

  bad = parseGrid(std::vector<std::string>{"a", " "});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "grid dimension 2 is empty; expected an expression");

  bad = parseGrid(std::vector<std::string>{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "empty grid; expected 1 to 3 comma-separated expressions such "
                                 "as 'cdiv(n, BLOCK), 1, 1'");

  bad = parseGrid(std::vector<std::string>{"1", "1", "1", "1"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "grid has 4 dimensions; expected at most 3 (x, y, z)");
}

TEST(GridTest, RejectsEmptyGridsAndDimensions) {
  EXPECT_EQ(errorOf("").message, "empty grid; expected 1 to 3 comma-separated expressions such as "
                                 "'cdiv(n, BLOCK), 1, 1'");
  EXPECT_EQ(errorOf(" ").message, errorOf("").message);
  Diagnostic d = errorOf("a,,b");
  EXPECT_EQ(d.message, "grid dimension 2 is empty; expected an expression");
  EXPECT_EQ(d.column, 3);
  EXPECT_EQ(d.sourceLine, "a,,b");
  d = errorOf("a,");
  EXPECT_EQ(d.message, "grid dimension 2 is empty; expected an expression");
  EXPECT_EQ(d.column, 3);
  d = errorOf("a,b,c,d");
  EXPECT_EQ(d.message, "grid has 4 dimensions; expected at most 3 (x, y, z)");
  EXPECT_EQ(d.column, 6);
}

TEST(GridTest, RejectsUnknownFunctionsAndWrongArity) {
  Diagnostic d = errorOf("1, foo(a, b)");
  EXPECT_EQ(d.message,
            "grid dimension 2 'foo(a, b)': unknown function 'foo'; expected cdiv, min or max");
  EXPECT_EQ(d.column, 4);
  EXPECT_EQ(errorOf("cdvi(a, b)").message,
            "grid dimension 1 'cdvi(a, b)': unknown function 'cdvi'; did you mean 'cdiv'?");
  EXPECT_EQ(errorOf("MAX(a, b)").message,
            "grid dimension 1 'MAX(a, b)': unknown function 'MAX'; did you mean 'max'?");
  d = errorOf("cdiv(a)");
  EXPECT_EQ(d.message, "grid dimension 1 'cdiv(a)': cdiv takes 2 arguments (cdiv(a, b)), got 1");
  EXPECT_EQ(d.column, 1);
  EXPECT_EQ(errorOf("min(a, b, c)").message,
            "grid dimension 1 'min(a, b, c)': min takes 2 arguments (min(a, b)), got 3");
  EXPECT_EQ(errorOf("max()").message,
            "grid dimension 1 'max()': max takes 2 arguments (max(a, b)), got 0");
  EXPECT_EQ(errorOf("min(a, b").message,
            "grid dimension 1 'min(a, b': expected ',' or ')' in the call of min, got the end of "
            "the expression");
}

TEST(GridTest, RejectsSyntaxErrorsWithAColumn) {
  Diagnostic d = errorOf("n +");
  EXPECT_EQ(
      d.message,
      "grid dimension 1 'n +': expected a number, a name or '(', got the end of the expression");
  EXPECT_EQ(d.column, 4);
  d = errorOf("1, (a");
  EXPECT_EQ(d.message, "grid dimension 2 '(a': expected ')' to close the '(' at column 4, got the "
                       "end of the expression");
  EXPECT_EQ(d.column, 6);
  d = errorOf("a)");
  EXPECT_EQ(d.message,
            "grid dimension 1 'a)': unexpected ')' after 'a'; expected an operator or the "
            "end of the expression");
  EXPECT_EQ(d.column, 2);
  EXPECT_EQ(errorOf("a b").message, "grid dimension 1 'a b': unexpected 'b' after 'a'; expected an "
                                    "operator or the end of the expression");
  EXPECT_EQ(errorOf("(a, b)").message,
            "grid dimension 1 '(a, b)': expected ')' to close the '(' at "
            "column 1, got ','");
  EXPECT_EQ(errorOf("a ? b").message,
            "grid dimension 1 'a ? b': expected ':' for the '?' at column "
            "3, got the end of the expression");
  EXPECT_EQ(errorOf("* a").message,
            "grid dimension 1 '* a': expected a number, a name or '(', got '*'");
  d = errorOf("a = b");
  EXPECT_EQ(d.message, "grid dimension 1 'a = b': unexpected character '='; expected a number, a "
                       "name, an operator or a parenthesis");
  EXPECT_EQ(d.column, 3);
  EXPECT_EQ(errorOf("$x").message, "grid dimension 1 '$x': unexpected character '$'; expected a "
                                   "number, a name, an operator or a parenthesis");
}

TEST(GridTest, ExplainsPythonSpellings) {
  Diagnostic d = errorOf("n // BLOCK, 1, 1");
  EXPECT_EQ(d.message, "grid dimension 1 'n // BLOCK': '//' is not C; use cdiv(a, b) to round up "
                       "or '/' to round down");
  EXPECT_EQ(d.column, 3);
  EXPECT_EQ(
      errorOf("n ** 2").message,
      "grid dimension 1 'n ** 2': '**' is not supported; grid expressions have no power operator");
  EXPECT_EQ(errorOf("triton.cdiv(n, B)").message,
            "grid dimension 1 'triton.cdiv(n, B)': 'triton.cdiv' is not a name; expected a "
            "parameter name or cdiv, min or max");
}

TEST(GridTest, RejectsNonCIntegers) {
  EXPECT_EQ(errorOf("1.5").message, "grid dimension 1 '1.5': '1.5' is not an integer; expected "
                                    "decimal digits or 0x and hex digits");
  EXPECT_EQ(errorOf("10u").message, "grid dimension 1 '10u': '10u' is not an integer; expected "
                                    "decimal digits or 0x and hex digits");
  EXPECT_EQ(errorOf("0xg").message, "grid dimension 1 '0xg': '0xg' is not an integer; expected "
                                    "decimal digits or 0x and hex digits");
  EXPECT_EQ(errorOf("010").message, "grid dimension 1 '010': '010' has a leading zero, which C "
                                    "reads as octal; write it without the zero");
  EXPECT_EQ(norm("0"), "0");
  EXPECT_EQ(norm("0x0F"), "0x0F");
}

TEST(GridTest, CheckGridNamesAcceptsKnownNames) {
  Grid g = parsed("cdiv(n, BLOCK), m, 1");
  EXPECT_TRUE(checkGridNames(g, {"x_ptr", "n", "m", "BLOCK"}));
  EXPECT_TRUE(checkGridNames(parsed("1, 2, 3"), {}));
}

TEST(GridTest, CheckGridNamesReportsTheFirstUnknownName) {
  Grid g = parsed("cdiv(n, BLOCK) * z + N, 1, 1");
  Status s = checkGridNames(g, {"x_ptr", "n", "BLOCK"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::UsageError);
  // 'z' comes before 'N' in the expression, though 'N' sorts first.
  EXPECT_EQ(s.error().message,
            "grid dimension 1 uses unknown name 'z'; expected one of x_ptr, n, BLOCK");
  EXPECT_EQ(s.error().sourceLine, "cdiv(n, BLOCK) * z + N");
  EXPECT_EQ(s.error().column, 18);

  s = checkGridNames(parsed("1, cdiv(N, BLOCK)"), {"x_ptr", "n", "BLOCK"});
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error().message,
      "grid dimension 2 uses unknown name 'N'; did you mean 'n'? known names: x_ptr, n, BLOCK");
  EXPECT_EQ(s.error().column, 6);

  s = checkGridNames(parsed("1, 1, BLOKC"), {"n", "BLOCK"});
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error().message,
      "grid dimension 3 uses unknown name 'BLOKC'; did you mean 'BLOCK'? known names: n, BLOCK");

  s = checkGridNames(parsed("n"), {});
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error().message,
      "grid dimension 1 uses unknown name 'n'; the kernel has no parameters or constexprs to name");
}

TEST(GridTest, CheckGridNamesFindsWholeWordsForTheCaret) {
  // "n" also occurs inside "cdiv" and "nn"; the caret goes to the name itself.
  Status s = checkGridNames(parsed("cdiv(nn, 2) + n"), {"nn"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().column, 15);
}

TEST(GridTest, DeepNestingAndLongDimensionsAreRefusedNotAStackOverflow) {
  // Found by fuzz_grid: 490 nested parentheses overflowed the stack (AddressSanitizer).
  const std::string deep = std::string(64, '(') + "n" + std::string(64, ')');
  EXPECT_EQ(errorOf(deep).message,
            "grid dimension 1 '" + deep + "': the expression nests deeper than 64 levels");
  EXPECT_NE(errorOf(std::string(65, '-') + "n").message.find("nests deeper than 64 levels"),
            std::string::npos);
  EXPECT_EQ(norm(std::string(60, '(') + "n" + std::string(60, ')')),
            std::string(60, '(') + "n" + std::string(60, ')'));
  std::string chain = "n";
  while (chain.size() <= 1000)
    chain += " + n";
  EXPECT_EQ(errorOf(chain).message, "grid dimension 1 is longer than 1000 characters");
}

} // namespace
} // namespace tta
