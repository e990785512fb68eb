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

/// rms_norm(X, n_cols, scale, GEMMA, BLOCK, SHIFTED) as describe gives it.
nlohmann::json describeFlags(nlohmann::json heuristics) {
  nlohmann::json params = nlohmann::json::array();
  for (const char *name : {"X", "n_cols", "scale"})
    params.push_back({{"name", name}, {"constexpr", false}, {"annotation", nullptr}});
  for (const char *name : {"GEMMA", "BLOCK", "SHIFTED"})
    params.push_back({{"name", name}, {"constexpr", true}, {"annotation", "tl.constexpr"}});
  return {{"ok", true}, {"function", "rms_norm"}, {"params", params}, {"line", 3},
          {"heuristics", std::move(heuristics)}};
}

struct Expanded {
  std::vector<std::string> signatures;
  nlohmann::json records = nlohmann::json::array();   // each variant's record
};

Expected<Expanded> expandFlags(const nlohmann::json &describe, const std::string &signature,
                               const HeuristicDeclarations &declared = {}) {
  auto heuristics = translateHeuristics(describe, declared, "rms_norm", "/k/rms.py");
  if (!heuristics)
    return heuristics.takeError();
  auto variants = expandHeuristics(sig(signature), *heuristics, declared, describe, "rms_norm",
                                   "/k/rms.py");
  if (!variants)
    return variants.takeError();
  Expanded out;
  for (const HeuristicAssignment &a : *variants) {
    out.signatures.push_back(formatSignature(a.signature));
    out.records.push_back(a.record);
  }
  return out;
}

TEST(Heuristics, AScalarArgumentIsNeverNone) {
  // A float argument of the C API cannot be None: `scale is not None` is decided at build time
  // (one variant), and so is the None test inside a heuristic that reads another argument.
  auto d = describeFlags({lambda("GEMMA", "args['scale'] is not None"),
                          lambda("SHIFTED", "args['scale'] is None or args['n_cols'] > 64")});
  auto e = expandFlags(d, "*fp32, i32, fp32, BLOCK=128");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->signatures,
            (std::vector<std::string>{"*fp32, i32, fp32, BLOCK=128, GEMMA=True, SHIFTED=True",
                                      "*fp32, i32, fp32, BLOCK=128, GEMMA=True, SHIFTED=False"}));
  EXPECT_EQ(e->records[0][0]["runtime"], false);
  EXPECT_EQ(e->records[0][1]["runtime"], true);
  // A pointer may be NULL: its test stays a launch-time one.
  auto pointer = expandFlags(describeFlags({lambda("GEMMA", "args['X'] is None")}),
                             "*fp32, i32, fp32, BLOCK=128, SHIFTED=False");
  ASSERT_TRUE(pointer) << pointer.error().message;
  EXPECT_EQ(pointer->signatures.size(), 2u);
}

TEST(Heuristics, AHeuristicSettingItsOwnParameterNormalisesTheCallersValue) {
  // unsloth: "GEMMA": lambda args: bool(args["GEMMA"]), the caller passing GEMMA=gemma.
  auto d = describeFlags({lambda("GEMMA", "bool(args['GEMMA'])"),
                          lambda("SHIFTED", "args['GEMMA'] and args['BLOCK'] >= 128")});

  // Left out: the C API takes it (a bool: the heuristic's value is one), and the heuristic's
  // value picks the variant; a later heuristic reads the value it computed.
  auto left = expandFlags(d, "*fp32, i32, fp32, BLOCK=128");
  ASSERT_TRUE(left) << left.error().message;
  EXPECT_EQ(left->signatures,
            (std::vector<std::string>{"*fp32, i32, fp32, BLOCK=128, GEMMA=True, SHIFTED=True",
                                      "*fp32, i32, fp32, BLOCK=128, GEMMA=False, SHIFTED=False"}));
  EXPECT_EQ(left->records[0][0]["input"], "i1");
  EXPECT_EQ(left->records[0][0]["runtime"], true);
  EXPECT_EQ(left->records[0][0]["expression"], "bool(GEMMA)");
  EXPECT_FALSE(left->records[0][1].contains("input"));
  EXPECT_EQ(left->records[0][1]["runtime"], true);   // varies with GEMMA

  // A type: the C API takes it as that type.
  auto typed = expandFlags(d, "*fp32, i32, fp32, GEMMA=i32, BLOCK=128");
  ASSERT_TRUE(typed) << typed.error().message;
  EXPECT_EQ(typed->signatures,
            (std::vector<std::string>{"*fp32, i32, fp32, GEMMA=True, BLOCK=128, SHIFTED=True",
                                      "*fp32, i32, fp32, GEMMA=False, BLOCK=128, SHIFTED=False"}));
  EXPECT_EQ(typed->records[1][0]["input"], "i32");

  // A value, by name or by position: normalised at build time, one variant, nothing to pass.
  for (const char *signature : {"*fp32, i32, fp32, GEMMA=2, BLOCK=64", "*fp32, i32, fp32, 2, 64"}) {
    auto valued = expandFlags(d, signature);
    ASSERT_TRUE(valued) << valued.error().message;
    ASSERT_EQ(valued->signatures.size(), 1u) << signature;
    EXPECT_EQ(valued->signatures[0], std::string(signature).find("GEMMA=") != std::string::npos
                                         ? "*fp32, i32, fp32, GEMMA=True, BLOCK=64, SHIFTED=False"
                                         : "*fp32, i32, fp32, True, 64, SHIFTED=False");
    EXPECT_EQ(valued->records[0][0]["runtime"], false);
    EXPECT_FALSE(valued->records[0][0].contains("input"));
  }

  // An integer computed from the caller's value: compiled for the listed values.
  auto rounded = describeFlags(
      {lambda("BLOCK", "min(triton.next_power_of_2(int(args['BLOCK'])), 2 ** 12)")});
  auto unlisted = expandFlags(rounded, "*fp32, i32, fp32, GEMMA=True, SHIFTED=False");
  ASSERT_FALSE(unlisted);
  EXPECT_NE(unlisted.error().message.find("computes an integer from runtime arguments (BLOCK)"),
            std::string::npos);
  HeuristicDeclarations declared;
  ASSERT_TRUE(addHeuristicValues("BLOCK=1024,4096", declared));
  auto listed = expandFlags(rounded, "*fp32, i32, fp32, GEMMA=True, SHIFTED=False", declared);
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_EQ(listed->signatures.size(), 2u);
  EXPECT_EQ(listed->records[1][0]["input"], "i64");
  EXPECT_EQ(listed->records[1][0]["value"], 4096);
  auto valued = expandFlags(rounded, "*fp32, i32, fp32, GEMMA=True, BLOCK=1000, SHIFTED=False");
  ASSERT_TRUE(valued) << valued.error().message;
  EXPECT_EQ(valued->signatures,
            std::vector<std::string>{"*fp32, i32, fp32, GEMMA=True, BLOCK=1024, SHIFTED=False"});

  // What the caller's value cannot be.
  for (const auto &[signature, why] : std::vector<std::pair<std::string, std::string>>{
           {"*fp32, i32, fp32, GEMMA=i32:16, BLOCK=64", "a hint (:16) means nothing for it"},
           {"*fp32, i32, fp32, GEMMA=fp16, BLOCK=64", "C has no arithmetic on fp16"},
           {"*fp32, i32, fp32, GEMMA=*fp32, BLOCK=64",
            "give a value (compiled in) or a scalar type"},
           {"*fp32, i32, fp32, GEMMA='ieee', BLOCK=64", "cannot be a string or a dtype"}}) {
    auto refused = expandFlags(d, signature);
    ASSERT_FALSE(refused) << signature;
    EXPECT_NE(refused.error().message.find("the signature gives 'GEMMA'"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find(why), std::string::npos) << refused.error().message;
    EXPECT_EQ(refused.error().line, 10);
  }
}

} // namespace
} // namespace tta

namespace tta {
namespace {

// FlagGems' "num_warps": lambda args: 8 sets a launch option, not a parameter: the variant's
// launchOptions take it and the signature has no entry for it.
TEST(Heuristics, ALaunchOptionHeuristicSetsTheVariantsOptionNotTheSignature) {
  HeuristicDeclarations declared;
  ASSERT_TRUE(addHeuristicValues("num_warps=2,4", declared));
  auto d = describeWith({lambda("num_warps", "2 if args['n_cols'] <= 1024 else 4"),
                         lambda("num_stages", "args['BLOCK_N'] // 128")});
  auto heuristics = translateHeuristics(d, declared, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(heuristics) << heuristics.error().message;
  auto variants = expandHeuristics(sig("*fp32, None, *fp32, i32, 256, True, False, 128"), *heuristics,
                                   declared, d, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(variants) << variants.error().message;
  ASSERT_EQ(variants->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const HeuristicAssignment &a = (*variants)[i];
    EXPECT_EQ(formatSignature(a.signature), "*fp32, None, *fp32, i32, 256, True, False, 128");
    EXPECT_EQ(a.launchOptions.at("num_warps"), i == 0 ? 2 : 4);
    EXPECT_EQ(a.launchOptions.at("num_stages"), 2);
    EXPECT_EQ(a.record[0]["runtime"], true);
    EXPECT_EQ(a.record[1]["runtime"], false);
  }
}

TEST(Heuristics, ALaunchOptionTritonWouldRefuseIsRefused) {
  auto other = translateHeuristics(describeWith({lambda("enable_fp_fusion", "False")}), {},
                                   "scale_rows", "/k/rows.py");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("sets 'enable_fp_fusion', which is not a parameter of "
                                       "'scale_rows' nor a launch option"),
            std::string::npos)
      << other.error().message;
  auto d = describeWith({lambda("num_warps", "args['BLOCK_N'] // 100")});
  auto heuristics = translateHeuristics(d, {}, "scale_rows", "/k/rows.py");
  ASSERT_TRUE(heuristics);
  auto variants = expandHeuristics(sig("*fp32, None, *fp32, i32, 300, True, False, 128"), *heuristics, {}, d,
                                   "scale_rows", "/k/rows.py");
  ASSERT_FALSE(variants);
  EXPECT_NE(variants.error().message.find("num_warps must be a power of two from 1 to 32"),
            std::string::npos)
      << variants.error().message;
  EXPECT_EQ(variants.error().line, 10);
}

} // namespace
} // namespace tta
