// The @triton.heuristics translator: each construct in both spellings, each refusal, build-time
// evaluation with Python's semantics, and the C it emits.
#include "contract/heuristic_expr.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tta {
namespace {

HeuristicExpr py(const std::string &text) {
  auto e = parseHeuristic(text, HeuristicDialect::Python, "args");
  EXPECT_TRUE(e) << text << ": " << (e ? "" : e.error().message);
  return e ? *e : HeuristicExpr{};
}

std::string refusal(const std::string &text, HeuristicDialect dialect = HeuristicDialect::Python) {
  auto e = parseHeuristic(text, dialect, "args");
  EXPECT_FALSE(e) << text << " parsed";
  return e ? std::string() : e.error().message;
}

HeuristicValue I(std::int64_t v) { return {HeuristicValue::Kind::Int, v, 0}; }
HeuristicValue B(bool v) { return {HeuristicValue::Kind::Bool, v ? 1 : 0, 0}; }
HeuristicValue None() { return {HeuristicValue::Kind::None, 0, 0}; }

HeuristicValue eval(const std::string &text, const std::map<std::string, HeuristicValue> &env) {
  auto v = evaluateHeuristic(py(text), env);
  EXPECT_TRUE(v) << text << ": " << (v ? "" : v.error().message);
  return v ? *v : HeuristicValue{};
}

/// n, m: int64 parameters; p: a pointer; s: a float; BLOCK = 128 (a constexpr).
std::optional<HeuristicBinding> resolve(const std::string &name) {
  HeuristicBinding b;
  if (name == "n" || name == "m") {
    b.kind = HeuristicBinding::Kind::Int;
    b.cExpr = name;
  } else if (name == "p") {
    b.kind = HeuristicBinding::Kind::Pointer;
    b.cExpr = "p";
  } else if (name == "s") {
    b.kind = HeuristicBinding::Kind::Float;
    b.cExpr = "s";
  } else if (name == "BLOCK") {
    b.value = I(128);
  } else {
    return std::nullopt;
  }
  return b;
}

std::string c(const std::string &text, std::set<std::string> *helpers = nullptr) {
  auto out = emitHeuristicC(py(text), resolve, helpers);
  EXPECT_TRUE(out) << text << ": " << (out ? "" : out.error().message);
  return out ? *out : std::string();
}

TEST(HeuristicExpr, ReadsArgumentsBySubscriptInEitherQuote) {
  HeuristicExpr e = py("args[\"N\"] % args['BLOCK_N'] == 0");
  EXPECT_EQ(e.names, (std::set<std::string>{"N", "BLOCK_N"}));
  EXPECT_EQ(formatHeuristic(e), "N % BLOCK_N == 0");
  EXPECT_TRUE(isBoolValued(e));
}

TEST(HeuristicExpr, EveryConstructFormatsAsCAndReadsBack) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"args['a'] + args['b'] * 2 - 1", "a + b * 2 - 1"},
      {"(args['a'] + args['b']) // 4", "(a + b) / 4"},
      {"-args['a'] % 3", "-a % 3"},
      {"not args['a'] > 1 and args['b'] <= 2 or args['c'] != 0", "!(a > 1) && b <= 2 || c != 0"},
      {"args['a'] if args['f'] else args['b']", "f ? a : b"},
      {"min(triton.next_power_of_2(args['n_cols']), 8192)", "min(next_power_of_2(n_cols), 8192)"},
      {"max(args['a'], args['b'], 16)", "max(a, b, 16)"},
      {"abs(args['a'])", "abs(a)"},
      {"triton.cdiv(args['n'], 128)", "cdiv(n, 128)"},
      {"tl.cdiv(args['n'], 128)", "cdiv(n, 128)"},
      {"args['bias'] is not None", "bias != NULL"},
      {"args['bias'] is None", "bias == NULL"},
      {"args['a'] == True", "a == true"},
      {"0 < args['a'] < 10", "0 < a && a < 10"},
      {"args['x'] > 0.5", "x > 0.5"},
      {"bool(args['GEMMA'])", "bool(GEMMA)"},
      {"int(args['x'] * 2.5) + 1", "int(x * 2.5) + 1"},
      {"float(args['n']) if False else 0", "false ? float(n) : 0"},
      {"2 ** 10", "2 ** 10"},
      {"args['n'] ** 2 > 4096", "n ** 2 > 4096"},
      {"-args['a'] ** 2", "-a ** 2"},
      {"(-args['a']) ** 2", "(-a) ** 2"},
      {"args['a'] ** -1", "a ** -1"},
      {"2 ** 3 ** 2", "2 ** 3 ** 2"},
      {"(2 ** 3) ** 2", "(2 ** 3) ** 2"},
      {"2 * args['a'] ** 2 + 1", "2 * a ** 2 + 1"},
      {"not args['a'] ** 2", "!a ** 2"},
  };
  for (const auto &[python, expected] : cases) {
    HeuristicExpr e = py(python);
    EXPECT_EQ(formatHeuristic(e), expected) << python;
    auto back = parseHeuristic(expected, HeuristicDialect::C);
    ASSERT_TRUE(back) << expected << ": " << back.error().message;
    EXPECT_EQ(formatHeuristic(*back), expected);
    EXPECT_EQ(back->names, e.names) << expected;
  }
}

TEST(HeuristicExpr, TheLambdaParameterMayHaveAnyName) {
  auto e = parseHeuristic("meta['N'] > 4", HeuristicDialect::Python, "meta");
  ASSERT_TRUE(e);
  EXPECT_EQ(formatHeuristic(*e), "N > 4");
}

TEST(HeuristicExpr, RefusesWhatItCannotTranslateNamingTheConstruct) {
  EXPECT_NE(refusal("args['x'].dtype.itemsize >= 4").find("attribute access on an argument ('x.dtype')"),
            std::string::npos);
  EXPECT_NE(refusal("torch.cuda.get_device_capability()[0] >= 9").find("the function 'torch.cuda.get_device_capability'"),
            std::string::npos);
  EXPECT_NE(refusal("int(args['n'], 16)").find("'int' takes 1 argument(s), got 2"),
            std::string::npos);
  EXPECT_NE(refusal("round(args['x'])").find("(only min, max, abs, bool, int, float,"),
            std::string::npos);
  EXPECT_NE(refusal("args['n'] & 1").find("bitwise"), std::string::npos);
  EXPECT_NE(refusal("args['n'] in (1, 2)").find("'in'"), std::string::npos);
  EXPECT_NE(refusal("THRESHOLD < args['n']").find("the name 'THRESHOLD'"), std::string::npos);
  EXPECT_NE(refusal("args.get('n', 1) > 0").find("args.get"), std::string::npos);
  EXPECT_NE(refusal("args").find("used other than as args[\"NAME\"]"), std::string::npos);
  EXPECT_NE(refusal("args['a'] is 3").find("'is' is supported only against None"), std::string::npos);
  EXPECT_NE(refusal("min(args['a'])").find("two or more"), std::string::npos);
  EXPECT_NE(refusal("args['a'] && args['b']").find("write 'and'"), std::string::npos);
  EXPECT_NE(refusal("a and b", HeuristicDialect::C).find("write '&&'"), std::string::npos);
  EXPECT_NE(refusal("a // 2", HeuristicDialect::C).find("'//'"), std::string::npos);
  EXPECT_NE(refusal("args['a'] +").find("column"), std::string::npos);
}

TEST(HeuristicExpr, EvaluatesWithPythonSemantics) {
  EXPECT_EQ(eval("args['a'] // 2", {{"a", I(-7)}}), I(-4));
  EXPECT_EQ(eval("args['a'] % 4", {{"a", I(-7)}}), I(1));
  EXPECT_EQ(eval("triton.next_power_of_2(args['a'])", {{"a", I(1000)}}), I(1024));
  EXPECT_EQ(eval("triton.next_power_of_2(args['a'])", {{"a", I(1024)}}), I(1024));
  EXPECT_EQ(eval("triton.next_power_of_2(args['a'])", {{"a", I(1)}}), I(1));
  EXPECT_EQ(eval("min(triton.next_power_of_2(args['a']), 8192)", {{"a", I(100000)}}), I(8192));
  EXPECT_EQ(eval("triton.cdiv(args['a'], 128)", {{"a", I(129)}}), I(2));
  EXPECT_EQ(eval("max(args['a'], 3, 2)", {{"a", I(1)}}), I(3));
  EXPECT_EQ(eval("abs(args['a'])", {{"a", I(-5)}}), I(5));
  EXPECT_EQ(eval("args['a'] is not None", {{"a", None()}}), B(false));
  EXPECT_EQ(eval("args['a'] is None", {{"a", None()}}), B(true));
  EXPECT_EQ(eval("1 if args['a'] > 2 else 0", {{"a", I(3)}}), I(1));
  EXPECT_EQ(eval("args['a'] > 2 and args['b']", {{"a", I(3)}, {"b", B(true)}}), B(true));
  EXPECT_EQ(eval("0 < args['a'] < 10", {{"a", I(10)}}), B(false));
  EXPECT_EQ(eval("not args['a']", {{"a", I(0)}}), B(true));
  auto missing = evaluateHeuristic(py("args['n'] > 1"), {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("'n' has no value at build time"), std::string::npos);
  auto zero = evaluateHeuristic(py("args['n'] % args['m']"), {{"n", I(1)}, {"m", I(0)}});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("division by zero"), std::string::npos);
}

HeuristicValue F(double v) { return {HeuristicValue::Kind::Float, 0, v}; }

std::string evalError(const std::string &text, const std::map<std::string, HeuristicValue> &env);

TEST(HeuristicExpr, TrueDivisionIsAFloatSpelledFdivInC) {
  // Python's a / b: a float whatever the operands (FlagGems: num_blocks / NUM_SMS > 1).
  HeuristicExpr e = py("args['m'] * triton.cdiv(args['k'], 4) / 132 > 1");
  EXPECT_EQ(formatHeuristic(e), "fdiv(m * cdiv(k, 4), 132) > 1");
  auto back = parseHeuristic(formatHeuristic(e), HeuristicDialect::C);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(formatHeuristic(*back), formatHeuristic(e));
  EXPECT_EQ(eval("args['a'] / 2", {{"a", I(7)}}), F(3.5));
  EXPECT_EQ(eval("args['a'] / 2", {{"a", I(8)}}), F(4.0));
  EXPECT_EQ(eval("args['a'] * 33 / 132 > 1", {{"a", I(4)}}), B(false));   // exactly 1.0
  EXPECT_EQ(eval("args['a'] * 33 / 132 > 1", {{"a", I(5)}}), B(true));
  EXPECT_NE(evalError("args['a'] / args['b']", {{"a", I(1)}, {"b", I(0)}}).find("division by zero"),
            std::string::npos);
}

std::string evalError(const std::string &text, const std::map<std::string, HeuristicValue> &env) {
  auto v = evaluateHeuristic(py(text), env);
  EXPECT_FALSE(v) << text << " evaluated to " << (v ? formatHeuristicValue(*v) : "");
  return v ? std::string() : v.error().message;
}

TEST(HeuristicExpr, ConversionsFollowPython) {
  // bool() of a number is != 0 (and of None False); int() truncates toward zero.
  EXPECT_EQ(eval("bool(args['a'])", {{"a", I(0)}}), B(false));
  EXPECT_EQ(eval("bool(args['a'])", {{"a", I(-3)}}), B(true));
  EXPECT_EQ(eval("bool(args['a'])", {{"a", F(0.0)}}), B(false));
  EXPECT_EQ(eval("bool(args['a'])", {{"a", F(0.25)}}), B(true));
  EXPECT_EQ(eval("bool(args['a'])", {{"a", None()}}), B(false));
  EXPECT_EQ(eval("bool(args['a'])", {{"a", B(true)}}), B(true));
  EXPECT_EQ(eval("int(args['a'])", {{"a", F(2.7)}}), I(2));
  EXPECT_EQ(eval("int(args['a'])", {{"a", F(-2.7)}}), I(-2));
  EXPECT_EQ(eval("int(args['a'])", {{"a", B(true)}}), I(1));
  EXPECT_EQ(eval("int(args['a'] * 1.5)", {{"a", I(3)}}), I(4));
  EXPECT_EQ(eval("float(args['a'])", {{"a", I(3)}}), F(3.0));
  EXPECT_EQ(eval("float(args['a']) * 2", {{"a", B(true)}}), F(2.0));
  EXPECT_TRUE(isBoolValued(py("bool(args['a'])")));
  EXPECT_FALSE(isBoolValued(py("int(args['a'] > 1)")));
  EXPECT_NE(evalError("int(args['a'])", {{"a", F(1e300)}}).find("integer overflow in 'int'"),
            std::string::npos);
  EXPECT_NE(evalError("int(args['a'])", {{"a", F(HUGE_VAL)}}).find("int() of inf"),
            std::string::npos);
  EXPECT_NE(evalError("float(args['a'])", {{"a", None()}}).find("float() of None"),
            std::string::npos);
}

TEST(HeuristicExpr, PowersFollowPython) {
  // int ** non-negative int is an exact int; a negative exponent or a float operand gives a float.
  EXPECT_EQ(eval("2 ** 10", {}), I(1024));
  EXPECT_EQ(eval("args['a'] ** 2", {{"a", I(-12)}}), I(144));
  EXPECT_EQ(eval("args['a'] ** 3", {{"a", I(-2)}}), I(-8));
  EXPECT_EQ(eval("-2 ** 2", {}), I(-4));
  EXPECT_EQ(eval("(-2) ** 2", {}), I(4));
  EXPECT_EQ(eval("2 ** 3 ** 2", {}), I(512));
  EXPECT_EQ(eval("args['a'] ** 0", {{"a", I(0)}}), I(1));
  EXPECT_EQ(eval("True ** 5", {}), I(1));
  EXPECT_EQ(eval("2 ** -1", {}), F(0.5));
  EXPECT_EQ(eval("2.0 ** 3", {}), F(8.0));
  EXPECT_EQ(eval("4 ** 0.5", {}), F(2.0));
  EXPECT_EQ(eval("2 ** 62", {}), I(std::int64_t(1) << 62));
  EXPECT_EQ(eval("(-2) ** 63", {}), I(INT64_MIN));
  EXPECT_NE(evalError("2 ** 63", {}).find("integer overflow in '**'"), std::string::npos);
  EXPECT_NE(evalError("args['a'] ** 40", {{"a", I(3)}}).find("integer overflow in '**'"),
            std::string::npos);
  EXPECT_NE(evalError("0 ** -1", {}).find("division by zero"), std::string::npos);
  EXPECT_NE(evalError("(-8) ** 0.5", {}).find("complex"), std::string::npos);
  EXPECT_NE(evalError("10.0 ** 400", {}).find("float overflow in '**'"), std::string::npos);
  EXPECT_NE(evalError("args['a'] ** 2", {{"a", None()}}).find("'**' on None"), std::string::npos);
}

TEST(HeuristicExpr, NamesReadAsValuesLeaveOutTestsAgainstNone) {
  EXPECT_EQ(namesReadAsValues(py("args['a'] is not None and args['b'] > 1")),
            (std::set<std::string>{"b"}));
  EXPECT_EQ(namesReadAsValues(py("args['a'] is None or args['a'] > 1")),
            (std::set<std::string>{"a"}));
  EXPECT_EQ(namesReadAsValues(py("(args['a'] if args['c'] else args['b']) is None")),
            (std::set<std::string>{"a", "b", "c"}));
}

TEST(HeuristicExpr, IntegerOverflowIsAnErrorNotUndefinedBehaviour) {
  // Found by fuzz_heuristic_expr: + - * // unary minus, abs, cdiv and next_power_of_2 wrapped
  // (signed overflow, undefined behaviour under UBSan) where Python's integers are exact.
  for (const char *text : {"args['a'] + 1", "args['b'] - 1", "args['a'] * 2", "args['b'] // -1",
                           "-args['b']", "abs(args['b'])", "triton.cdiv(args['a'], 2)",
                           "triton.next_power_of_2(args['a'])"}) {
    auto v = evaluateHeuristic(py(text), {{"a", I(INT64_MAX)}, {"b", I(INT64_MIN)}});
    ASSERT_FALSE(v) << text;
    EXPECT_NE(v.error().message.find("integer overflow in '"), std::string::npos) << text;
  }
  auto folded = emitHeuristicC(py("9223372036854775807 + 1 > args['n']"), resolve);
  ASSERT_FALSE(folded);
  EXPECT_NE(folded.error().message.find("integer overflow in '+'"), std::string::npos);
  EXPECT_EQ(eval("args['b'] % -1", {{"b", I(INT64_MIN)}}), I(0));
  EXPECT_EQ(eval("triton.cdiv(args['b'], 1)", {{"b", I(INT64_MIN)}}), I(INT64_MIN));
  EXPECT_EQ(eval("triton.next_power_of_2(args['a'])", {{"a", I(std::int64_t(1) << 62)}}),
            I(std::int64_t(1) << 62));
}

TEST(HeuristicExpr, DeepNestingAndLongTextAreRefusedNotAStackOverflow) {
  // Found by fuzz_heuristics: 380 nested parentheses overflowed the stack (AddressSanitizer).
  const std::string deep = std::string(161, '(') + "args['n']" + std::string(161, ')');
  EXPECT_NE(refusal(deep).find("nests deeper than 160 levels"), std::string::npos);
  EXPECT_NE(refusal(std::string(161, '!') + "n", HeuristicDialect::C).find("nests deeper"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(161, '-') + "n", HeuristicDialect::C).find("nests deeper"),
            std::string::npos);
  EXPECT_EQ(formatHeuristic(py(std::string(150, '(') + "args['n']" + std::string(150, ')'))), "n");
  // Found by fuzz_heuristic_expr's round trip: 40 '!' parse, but their C form "(!(!(...)))"
  // nests twice as deep; the linker reads that form back, so it is held to the limits too.
  const std::string notNot = refusal(std::string(100, '!') + "n", HeuristicDialect::C);
  EXPECT_NE(notNot.find("the expression's C form: "), std::string::npos) << notNot;
  EXPECT_NE(notNot.find("nests deeper than 160 levels"), std::string::npos) << notNot;
  std::string terms = "n";
  for (int i = 0; i < 1800; ++i)
    terms += "+n";   // 3,601 characters; "n + n + n ..." is twice as long
  EXPECT_NE(refusal(terms, HeuristicDialect::C)
                .find("the expression's C form is longer than 6000 characters"),
            std::string::npos);
  std::string chain = "n";
  while (chain.size() <= 6000)
    chain += "+n";
  EXPECT_NE(refusal(chain, HeuristicDialect::C).find("longer than 6000 characters"),
            std::string::npos);
}

TEST(HeuristicExpr, EmitsCOverRuntimeArgumentsAndFoldsConstexprs) {
  EXPECT_EQ(c("args['n'] % args['BLOCK'] == 0"), "(((int64_t)n % 128) == 0)");
  EXPECT_EQ(c("args['p'] is not None"), "(p != NULL)");
  EXPECT_EQ(c("args['BLOCK'] // 2"), "64");
  EXPECT_EQ(c("args['s'] > 0.5"), "((double)s > 0.5)");
  EXPECT_EQ(c("args['n'] if args['BLOCK'] > 64 else args['m']"), "(int64_t)n");
  EXPECT_EQ(c("not args['p']"), "(p == NULL)");
  EXPECT_EQ(c("triton.cdiv(args['n'], args['BLOCK'])"), "(((int64_t)n + 128 - 1) / 128)");
  EXPECT_EQ(c("min(args['n'], 8192)"), "(8192 < (int64_t)n ? 8192 : (int64_t)n)");
  EXPECT_EQ(c("args['n'] > 3000000000"), "((int64_t)n > INT64_C(3000000000))");
  std::set<std::string> helpers;
  EXPECT_EQ(c("triton.next_power_of_2(args['n'])", &helpers), "tta_next_power_of_2((int64_t)n)");
  EXPECT_EQ(helpers, (std::set<std::string>{kHeuristicNextPow2}));
  EXPECT_NE(heuristicHelperDefinition(kHeuristicNextPow2).find("static int64_t tta_next_power_of_2"),
            std::string::npos);
}

TEST(HeuristicExpr, EmitsConversionsAndPowersWithPythonTypes) {
  std::set<std::string> helpers;
  EXPECT_EQ(c("bool(args['n'])", &helpers), "((int64_t)n != 0)");
  EXPECT_EQ(c("bool(args['s'])", &helpers), "((double)s != 0)");
  EXPECT_EQ(c("bool(args['n'] > 3)", &helpers), "((int64_t)n > 3)");
  EXPECT_EQ(c("int(args['n'])", &helpers), "(int64_t)n");
  EXPECT_EQ(c("int(args['n'] > 3) + 1", &helpers), "((int64_t)((int64_t)n > 3) + 1)");
  EXPECT_EQ(c("float(args['n']) > 0.5", &helpers), "((double)(int64_t)n > 0.5)");
  EXPECT_EQ(c("bool(args['BLOCK'])", &helpers), "1");
  EXPECT_EQ(c("int(args['BLOCK'] * 0.3)", &helpers), "38");
  EXPECT_EQ(c("args['n'] ** 0", &helpers), "1");
  EXPECT_EQ(c("args['n'] ** 1 > 3", &helpers), "((int64_t)n > 3)");
  EXPECT_EQ(c("args['BLOCK'] ** 2", &helpers), "16384");
  EXPECT_TRUE(helpers.empty()) << *helpers.begin();

  EXPECT_EQ(c("args['n'] ** 2 >= 4096", &helpers), "(tta_pow_int((int64_t)n, 2) >= 4096)");
  EXPECT_EQ(helpers, (std::set<std::string>{kHeuristicPowInt}));
  helpers.clear();
  EXPECT_EQ(c("args['s'] ** 2", &helpers), "tta_pow_float((double)s, 2)");
  EXPECT_EQ(c("args['n'] ** -1", &helpers), "tta_pow_float((int64_t)n, (-1))");
  EXPECT_EQ(c("args['n'] ** 2.0", &helpers), "tta_pow_float((int64_t)n, 2)");
  // An int exponent read at launch may be negative (then Python's result is a float).
  EXPECT_EQ(c("2 ** args['m'] > args['n']", &helpers),
            "(tta_pow_float(2, (int64_t)m) > (int64_t)n)");
  EXPECT_EQ(helpers, (std::set<std::string>{kHeuristicPowFloat}));
  helpers.clear();
  EXPECT_EQ(c("int(args['s'] * 4)", &helpers), "tta_float_to_int(((double)s * 4))");
  EXPECT_EQ(helpers, (std::set<std::string>{kHeuristicFloatToInt}));
  for (const char *helper : {kHeuristicPowInt, kHeuristicPowFloat, kHeuristicFloatToInt}) {
    const std::string type = helper == kHeuristicPowFloat ? "double " : "int64_t ";
    EXPECT_NE(heuristicHelperDefinition(helper).find("static " + type + helper + "("),
              std::string::npos)
        << helper;
  }

  // Only the helpers of the text that is left: a branch folded away calls none.
  helpers.clear();
  EXPECT_EQ(c("triton.next_power_of_2(args['n']) if args['BLOCK'] > 1000 else args['m']", &helpers),
            "(int64_t)m");
  EXPECT_EQ(c("args['n'] ** 2 > 4 and False", &helpers), "0");
  EXPECT_TRUE(helpers.empty());

  for (const auto &[text, why] :
       std::vector<std::pair<std::string, std::string>>{
           {"args['n'] ** 0.5", "the fractional exponent 0.5"},
           {"args['n'] ** args['s']", "a float exponent read at launch"},
           {"bool(args['p'])", "bool() of a pointer"},
           {"int(args['p'])", "int() of a pointer"},
           {"args['s'] // 2", "'//' of a float"},
           {"args['s'] % 2", "'%' of a float"},
           {"args['n'] < None", "'<' with None"}}) {
    auto refused = emitHeuristicC(py(text), resolve);
    ASSERT_FALSE(refused) << text;
    EXPECT_NE(refused.error().message.find(why), std::string::npos)
        << text << ": " << refused.error().message;
  }
}

TEST(HeuristicExpr, AScalarIsNeverNoneSoItsTestsFold) {
  // A scalar argument of the C API is never None: no comparison whose result is known (gcc
  // and clang warn of those) and no `1 &&`.
  EXPECT_EQ(c("args['n'] is not None"), "1");
  EXPECT_EQ(c("args['s'] is None"), "0");
  EXPECT_EQ(c("args['n'] is not None and args['n'] > 4"), "((int64_t)n > 4)");
  EXPECT_EQ(c("args['s'] is None or args['n'] > 4"), "((int64_t)n > 4)");
  EXPECT_EQ(c("args['n'] > 4 and args['s'] is not None"), "((int64_t)n > 4)");
  EXPECT_EQ(c("args['n'] > 4 or args['s'] is not None"), "1");
  EXPECT_EQ(c("args['p'] is not None and args['n'] is not None"), "(p != NULL)");
  EXPECT_EQ(c("args['n'] if args['s'] is not None else 4"), "(int64_t)n");
  EXPECT_EQ(c("args['n'] is not None and args['n']"), "((int64_t)n != 0)");
  // A number as a truth value is compared with 0 (gcc: "'*' in boolean context").
  EXPECT_EQ(c("args['n'] * args['m'] and args['p'] is None"),
            "((((int64_t)n * (int64_t)m) != 0) && (p == NULL))");
  EXPECT_EQ(c("not args['n']"), "((int64_t)n == 0)");
  EXPECT_EQ(c("args['n'] if args['m'] else 4"), "(((int64_t)m != 0) ? (int64_t)n : 4)");
}

TEST(HeuristicExpr, EmitRefusesPointersInArithmeticAndUnknownNames) {
  auto arith = emitHeuristicC(py("args['p'] + 1 > 0"), resolve);
  ASSERT_FALSE(arith);
  EXPECT_NE(arith.error().message.find("pointer"), std::string::npos);
  auto compared = emitHeuristicC(py("args['p'] == args['n']"), resolve);
  ASSERT_FALSE(compared);
  EXPECT_NE(compared.error().message.find("only be compared with None"), std::string::npos);
  auto unknown = emitHeuristicC(py("args['q'] > 1"), resolve);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("'q' is not a parameter"), std::string::npos);
}

TEST(HeuristicExpr, ArbitraryTextNeverCrashesTheParser) {
  // A small deterministic fuzz: every prefix and every single-character mutation of real
  // heuristics either parses (and then formats into text that parses back the same) or fails.
  const std::vector<std::string> seeds = {
      "min(triton.next_power_of_2(args['n_cols']), 8192)",
      "args['N'] % args['BLOCK_N'] == 0 and args['bias'] is not None",
      "1 if args['a'] > 2 else -args['b'] // 3"};
  const std::string alphabet = "()[],'\"+-*/%<>=!?:. aNn0129_";
  for (const std::string &seed : seeds)
    for (std::size_t i = 0; i <= seed.size(); ++i)
      for (std::size_t k = 0; k < alphabet.size() + 1; ++k) {
        std::string text = k == alphabet.size() ? seed.substr(0, i) : seed;
        if (k < alphabet.size() && i < seed.size())
          text[i] = alphabet[k];
        for (HeuristicDialect d : {HeuristicDialect::Python, HeuristicDialect::C}) {
          auto e = parseHeuristic(text, d, "args");
          if (!e)
            continue;
          auto back = parseHeuristic(formatHeuristic(*e), HeuristicDialect::C);
          ASSERT_TRUE(back) << text << " -> " << formatHeuristic(*e);
          EXPECT_EQ(formatHeuristic(*back), formatHeuristic(*e));
        }
      }
}

} // namespace
} // namespace tta
