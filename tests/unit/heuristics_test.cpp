// Heuristics in triton-aot-cc: translation of describe's entries (refusals with the fix) and
// the variants one signature becomes (build-time values, bool pairs, listed integers).
#include "compiler/heuristics.h"

#include "compiler/frontend_client.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

/// scale_rows(x_ptr, bias_ptr, y_ptr, n_cols, BLOCK_N, EVEN_N, HAS_BIAS, HALF) as describe gives it.
nlohmann::json describeWith(nlohmann::json heuristics) {
  nlohmann::json params = nlohmann::json::array();
  for (const char *name : {"x_ptr", "bias_ptr", "y_ptr", "n_cols"})
    params.push_back({{"name", name}, {"constexpr", false}, {"annotation", nullptr}});
  for (const char *name : {"BLOCK_N", "EVEN_N", "HAS_BIAS", "HALF"})
    params.push_back({{"name", name}, {"constexpr", true}, {"annotation", "tl.constexpr"}});
  return {{"ok", true}, {"function", "scale_rows"}, {"params", params}, {"line", 3},
          {"heuristics", std::move(heuristics)}};
}

nlohmann::json lambda(const std::string &name, const std::string &expression, int line = 10) {
  return {{"name", name}, {"expression", expression}, {"arg", "args"}, {"file", "/k/rows.py"},
          {"line", line}, {"source", "    \"" + name + "\": lambda args: ..."}};
}

Signature sig(const std::string &text) {
  auto s = parseSignature(text);
  EXPECT_TRUE(s) << text;
  return s ? *s : Signature{};
}

std::vector<std::string> expand(const nlohmann::json &describe, const std::string &signature,
                                const HeuristicDeclarations &declared = {}) {
  auto heuristics = translateHeuristics(describe, declared, "scale_rows", "/k/rows.py");
  EXPECT_TRUE(heuristics) << (heuristics ? "" : heuristics.error().message);
  if (!heuristics)
    return {};
  auto variants = expandHeuristics(sig(signature), *heuristics, declared, describe, "scale_rows",
                                   "/k/rows.py");
  EXPECT_TRUE(variants) << (variants ? "" : variants.error().message);
  std::vector<std::string> out;
  for (const HeuristicAssignment &a : variants ? *variants : std::vector<HeuristicAssignment>{})
    out.push_back(formatSignature(a.signature));
  return out;
}

TEST(Heuristics, ConstexprOnlyValuesAreEvaluatedAtBuildTime) {
  auto d = describeWith({lambda("HALF", "args['BLOCK_N'] // 2"),
                         lambda("EVEN_N", "args['BLOCK_N'] % 64 == 0"),
                         lambda("HAS_BIAS", "args['bias_ptr'] is not None")});
  EXPECT_EQ(expand(d, "*fp32, None, *fp32, i32, BLOCK_N=256"),
            std::vector<std::string>{
                "*fp32, None, *fp32, i32, BLOCK_N=256, HALF=128, EVEN_N=True, HAS_BIAS=False"});
}

TEST(Heuristics, ASignatureNamingTheirParametersExpandsAsOneLeavingThemOut) {
  auto d = describeWith({lambda("EVEN_N", "args['n_cols'] % args['BLOCK_N'] == 0"),
                         lambda("HAS_BIAS", "args['bias_ptr'] is not None"),
                         lambda("HALF", "args['BLOCK_N'] // 2")});
  auto named = resolveKernelNames(sig("*fp32, *fp32, *fp32, i32, 128, EVEN_N, HAS_BIAS, HALF"), "",
                                  d, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(named) << named.error().message;
  auto heuristics = translateHeuristics(d, {}, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(heuristics);
  auto fromNamed = expandHeuristics(*named, *heuristics, {}, d, "scale_rows", "/k/rows.py");
  auto fromLeftOut = expandHeuristics(sig("*fp32, *fp32, *fp32, i32, 128"), *heuristics, {}, d,
                                      "scale_rows", "/k/rows.py");
  ASSERT_TRUE(fromNamed && fromLeftOut);
  ASSERT_EQ(fromNamed->size(), 4u);   // EVEN_N and HAS_BIAS both ways
  ASSERT_EQ(fromNamed->size(), fromLeftOut->size());
  for (std::size_t i = 0; i < fromNamed->size(); ++i) {
    EXPECT_EQ(formatSignature((*fromNamed)[i].signature), formatSignature((*fromLeftOut)[i].signature));
    EXPECT_EQ((*fromNamed)[i].record, (*fromLeftOut)[i].record);
  }
}

TEST(Heuristics, ABoolOverRuntimeArgumentsGivesBothVariants) {
  auto d = describeWith({lambda("EVEN_N", "args['n_cols'] % args['BLOCK_N'] == 0"),
                         lambda("HAS_BIAS", "args['bias_ptr'] is not None"),
                         lambda("HALF", "args['BLOCK_N'] // 2")});
  auto variants = expand(d, "*fp32, *fp32, *fp32, i32, BLOCK_N=128");
  EXPECT_EQ(variants, (std::vector<std::string>{
                          "*fp32, *fp32, *fp32, i32, BLOCK_N=128, EVEN_N=True, HAS_BIAS=True, HALF=64",
                          "*fp32, *fp32, *fp32, i32, BLOCK_N=128, EVEN_N=True, HAS_BIAS=False, HALF=64",
                          "*fp32, *fp32, *fp32, i32, BLOCK_N=128, EVEN_N=False, HAS_BIAS=True, HALF=64",
                          "*fp32, *fp32, *fp32, i32, BLOCK_N=128, EVEN_N=False, HAS_BIAS=False, HALF=64"}));
}

TEST(Heuristics, AnIntegerOverRuntimeArgumentsIsCompiledForTheListedValues) {
  auto d = describeWith({lambda("BLOCK_N", "min(triton.next_power_of_2(args['n_cols']), 4096)"),
                         lambda("EVEN_N", "args['BLOCK_N'] >= 1024"),
                         lambda("HAS_BIAS", "False"), lambda("HALF", "args['BLOCK_N'] // 2")});
  HeuristicDeclarations declared;
  ASSERT_TRUE(addHeuristicValues("BLOCK_N=512, 1024", declared));
  auto heuristics = translateHeuristics(d, declared, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(heuristics);
  auto variants = expandHeuristics(sig("*fp32, *fp32, *fp32, i32"), *heuristics, declared, d,
                                   "scale_rows", "/k/rows.py");
  ASSERT_TRUE(variants) << variants.error().message;
  ASSERT_EQ(variants->size(), 2u);
  EXPECT_EQ(formatSignature((*variants)[0].signature),
            "*fp32, *fp32, *fp32, i32, BLOCK_N=512, EVEN_N=False, HAS_BIAS=False, HALF=256");
  EXPECT_EQ(formatSignature((*variants)[1].signature),
            "*fp32, *fp32, *fp32, i32, BLOCK_N=1024, EVEN_N=True, HAS_BIAS=False, HALF=512");
  // The record: BLOCK_N is tested at launch; EVEN_N follows it (varies within the config).
  const nlohmann::json &record = (*variants)[1].record;
  EXPECT_EQ(record[0]["expression"], "min(next_power_of_2(n_cols), 4096)");
  EXPECT_EQ(record[0]["runtime"], true);
  EXPECT_EQ(record[0]["value"], 1024);
  EXPECT_EQ(record[1]["runtime"], true);
  EXPECT_EQ(record[2]["runtime"], false);

  auto unlisted = expandHeuristics(sig("*fp32, *fp32, *fp32, i32"), *heuristics, {}, d,
                                   "scale_rows", "/k/rows.py");
  ASSERT_FALSE(unlisted);
  EXPECT_NE(unlisted.error().message.find("computes an integer from runtime arguments (n_cols)"),
            std::string::npos);
  ASSERT_FALSE(unlisted.error().notes.empty());
  EXPECT_NE(unlisted.error().notes[0].find("--heuristic-values BLOCK_N="), std::string::npos);
}

TEST(Heuristics, AnUntranslatableLambdaNamesItselfAndShowsTheFix) {
  auto d = describeWith({lambda("EVEN_N", "args['x_ptr'].dtype.itemsize >= 4", 17)});
  auto heuristics = translateHeuristics(d, {}, "scale_rows", "/k/rows.py");
  ASSERT_FALSE(heuristics);
  const Diagnostic &diag = heuristics.error();
  EXPECT_EQ(diag.line, 17);
  EXPECT_NE(diag.message.find("heuristic 'EVEN_N' of 'scale_rows' cannot be translated to C"),
            std::string::npos);
  EXPECT_NE(diag.sourceLine.find("lambda args"), std::string::npos);
  ASSERT_EQ(diag.notes.size(), 2u);
  EXPECT_NE(diag.notes[1].find("--heuristic 'EVEN_N=<C expression over parameter names>'"),
            std::string::npos);

  HeuristicDeclarations declared;
  ASSERT_TRUE(addHeuristicOverride("EVEN_N=n_cols % BLOCK_N == 0", declared));
  auto manual = translateHeuristics(d, declared, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(manual) << manual.error().message;
  EXPECT_TRUE((*manual)[0].manual);
  EXPECT_EQ(formatHeuristic((*manual)[0].expr), "n_cols % BLOCK_N == 0");
}

TEST(Heuristics, RefusalsNameTheProblem) {
  auto notParam = translateHeuristics(describeWith({lambda("EVEN_N", "args['rows'] > 1")}), {},
                                      "scale_rows", "/k/rows.py");
  ASSERT_FALSE(notParam);
  EXPECT_NE(notParam.error().message.find("reads 'rows', which is not a parameter"), std::string::npos);
  auto runtimeTarget = translateHeuristics(describeWith({lambda("n_cols", "16")}), {},
                                           "scale_rows", "/k/rows.py");
  ASSERT_FALSE(runtimeTarget);
  EXPECT_NE(runtimeTarget.error().message.find("not a tl.constexpr parameter"), std::string::npos);
  HeuristicDeclarations stray;
  ASSERT_TRUE(addHeuristicValues("BLOCK=1,2", stray));
  auto unknown = translateHeuristics(describeWith(nlohmann::json::array()), stray, "scale_rows", "k.py");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("has no heuristic setting 'BLOCK'"), std::string::npos);
  HeuristicDeclarations bad;
  EXPECT_FALSE(addHeuristicValues("BLOCK=1,x", bad));
  EXPECT_FALSE(addHeuristicOverride("EVEN=a and b", bad));
  EXPECT_FALSE(addHeuristicOverride("=1", bad));

  // The signature must leave a heuristic's parameter out.
  auto d = describeWith({lambda("HALF", "args['BLOCK_N'] // 2"), lambda("EVEN_N", "True"),
                         lambda("HAS_BIAS", "True")});
  auto heuristics = translateHeuristics(d, {}, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(heuristics);
  auto given = expandHeuristics(sig("*fp32, *fp32, *fp32, i32, BLOCK_N=64, HALF=32"), *heuristics,
                                {}, d, "scale_rows", "/k/rows.py");
  ASSERT_FALSE(given);
  EXPECT_EQ(given.error().message,
            "the signature gives 'HALF' a value, but @triton.heuristics of 'scale_rows' sets it: "
            "write its name, HALF, in its place (the heuristic then gives the value), or leave it out");
}

} // namespace
} // namespace tta
