// Decorator configs: names derived from values, made unique, pre_hooks passed on or dropped,
// prune notes passed on, and the signature completed with the values the configs set.
#include "compiler/autotune_configs.h"

#include "parse_expect.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tta {
namespace {

using nlohmann::json;

/// A decorator config as describe reports it: [key, value] pairs in order (built explicitly, as
/// a braced list of pairs would make a JSON object).
json config(std::initializer_list<std::pair<const char *, const char *>> values,
            json preHook = nullptr) {
  json pairs = json::array();
  for (const auto &[key, value] : values)
    pairs.push_back(json::array({key, value}));
  return {{"values", std::move(pairs)}, {"kwargs", json::array()}, {"pre_hook", std::move(preHook)}};
}

// def matmul(a_ptr, b_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr)
json described() {
  json params = json::array();
  for (const char *name : {"a_ptr", "b_ptr", "M", "N", "BLOCK_M", "BLOCK_N"})
    params.push_back({{"name", name}, {"constexpr", std::string(name).rfind("BLOCK", 0) == 0}});
  return {{"function", "matmul"}, {"params", params}};
}

json autotune(json configs, json notes = json::array()) {
  return {{"configs", std::move(configs)}, {"key", {"M", "N"}}, {"notes", std::move(notes)}};
}

Signature signature(const char *text) { return expectParsed(parseSignature(text), text); }

TEST(DerivedConfigName, KwargsInOrderThenWarpsStagesCtasRegisters) {
  EXPECT_EQ(derivedConfigName({{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"num_warps", "4"},
                               {"num_ctas", "1"}, {"num_stages", "3"}}),
            "BLOCK_M128_BLOCK_N64_w4_s3");
  EXPECT_EQ(derivedConfigName({{"BLOCK", "256"}, {"maxnreg", "128"}, {"num_ctas", "2"},
                               {"num_stages", "2"}, {"num_warps", "8"}}),
            "BLOCK256_w8_s2_c2_r128");
}

TEST(DerivedConfigName, ValuesBecomeIdentifierCharacters) {
  EXPECT_EQ(derivedConfigName({{"SCALE", "-0.5"}, {"DT", "tl.float16"}, {"MODE", "'fast-x'"},
                               {"EVEN", "True"}, {"waves_per_eu", "2"}}),
            "SCALEm0p5_DTfloat16_MODEfastmx_EVENTrue_waves_per_eu2");
  EXPECT_EQ(derivedConfigName({{"num_warps", "4"}, {"num_stages", "3"}}), "w4_s3");
  EXPECT_EQ(derivedConfigName({}), "config_");
}

TEST(MakeNamesUnique, LaterDuplicatesGetNumbersThatAreFree) {
  std::vector<std::string> names = {"A", "B", "A", "A_2", "A"};
  makeNamesUnique(names);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "A_3", "A_2", "A_4"}));
}

TEST(ConfigsFromDecorator, NamesConfigsAndCompletesTheSignature) {
  json facts = autotune({config({{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"num_warps", "4"},
                                 {"num_ctas", "1"}, {"num_stages", "3"}}),
                         config({{"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"num_warps", "4"},
                                 {"num_ctas", "1"}, {"num_stages", "3"}}),
                         config({{"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"num_warps", "4"},
                                 {"num_ctas", "1"}, {"num_stages", "3"}})},
                        {"early_config_prune p needs argument 'M'"});
  auto adopted = configsFromDecorator(facts, {signature("*fp16:16, *fp16:16, i32, i32")},
                                      described(), "matmul", false);
  ASSERT_TRUE(adopted) << adopted.error().message;
  ASSERT_EQ(adopted->configs.size(), 3u);
  EXPECT_EQ(adopted->configs[0].name, "BLOCK_M128_BLOCK_N64_w4_s3");
  EXPECT_EQ(adopted->configs[1].name, "BLOCK_M64_BLOCK_N64_w4_s3");
  EXPECT_EQ(adopted->configs[2].name, "BLOCK_M64_BLOCK_N64_w4_s3_2");
  EXPECT_EQ(adopted->configs[0].constexprs.at("BLOCK_M").intValue, 128);
  EXPECT_EQ(adopted->configs[0].numWarps, 4);
  EXPECT_EQ(adopted->configs[0].numCtas, 1);
  ASSERT_EQ(adopted->signatures.size(), 1u);
  EXPECT_EQ(formatSignature(adopted->signatures[0]),
            "*fp16:16, *fp16:16, i32, i32, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N");
  EXPECT_EQ(adopted->warnings, (std::vector<std::string>{"early_config_prune p needs argument 'M'"}));
}

TEST(ConfigsFromDecorator, AnEntryTheSignatureGivesIsKept) {
  json facts = autotune({config({{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"num_warps", "4"}})});
  auto adopted = configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32, BLOCK_M")},
                                      described(), "matmul", false);
  ASSERT_TRUE(adopted) << adopted.error().message;
  EXPECT_EQ(formatSignature(adopted->signatures[0]), "*fp16, *fp16, i32, i32, BLOCK_M, BLOCK_N=BLOCK_N");
}

TEST(ConfigsFromDecorator, APreHookGoesToTheCompileWithItsPlaceInTheDecoratorsList) {
  // The frontend runs it when compiling the config (only a hook that sets tensor descriptors'
  // block shapes builds), so the config keeps its place in the decorator's list.
  json hook = {{"name", "ops.set_block_shapes"}, {"file", "/src/ops.py"}, {"line", 12},
               {"source_line", "def set_block_shapes(nargs):"}, {"config", 3}};
  json facts = autotune({config({{"BLOCK_M", "64"}, {"num_warps", "4"}}),
                         config({{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"num_warps", "4"}}, hook)});
  auto kept = configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32")}, described(),
                                   "matmul", false);
  ASSERT_TRUE(kept) << kept.error().message;
  ASSERT_EQ(kept->configs.size(), 2u);
  EXPECT_EQ(kept->configs[0].preHook, -1);
  EXPECT_EQ(kept->configs[1].preHook, 3);
  EXPECT_TRUE(kept->warnings.empty());

  auto dropped = configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32")}, described(),
                                      "matmul", true);
  ASSERT_TRUE(dropped) << dropped.error().message;
  EXPECT_EQ(dropped->configs[1].preHook, -1);
  ASSERT_EQ(dropped->warnings.size(), 1u);
  EXPECT_NE(dropped->warnings[0].find("dropped the pre_hook ops.set_block_shapes"), std::string::npos);
}

TEST(ConfigsFromDecorator, APreHookWithoutItsPlaceIsAnInternalError) {
  json hook = {{"name", "ops.set_block_shapes"}, {"file", "/src/ops.py"}, {"line", 12}};
  json facts = autotune({config({{"BLOCK_M", "128"}, {"num_warps", "4"}}, hook)});
  auto refused = configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32")}, described(),
                                      "matmul", false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ExitCode::InternalError);
  EXPECT_NE(refused.error().message.find("ops.set_block_shapes"), std::string::npos);
}

TEST(ConfigsFromDecorator, AValueOutsideTheConfigGrammarNamesTheConfig) {
  json facts = autotune({config({{"BLOCK_M", "128"}, {"num_warps", "3"}})});
  Diagnostic diag = expectUsageError(
      configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32")}, described(), "matmul", false),
      "num_warps=3");
  EXPECT_NE(diag.message.find("config 1 of the @triton.autotune of 'matmul'"), std::string::npos)
      << diag.message;
  EXPECT_NE(diag.message.find("power of two"), std::string::npos) << diag.message;
}

TEST(ConfigsFromDecorator, AValueTheConfigsSetMayNotBeFixedBySignature) {
  json facts = autotune({config({{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"num_warps", "4"}})});
  Diagnostic diag = expectUsageError(
      configsFromDecorator(facts, {signature("*fp16, *fp16, i32, i32, 64")}, described(), "matmul", false),
      "BLOCK_M fixed");
  EXPECT_NE(diag.message.find("gives 'BLOCK_M' a value, but the @triton.autotune configs"),
            std::string::npos)
      << diag.message;
}

TEST(ConfigsFromDecorator, NoConfigIsAnError) {
  expectUsageError(configsFromDecorator(autotune(json::array()), {}, described(), "matmul", false),
                   "no configs");
}

} // namespace
} // namespace tta
