// @triton.autotune'd kernels built unedited: the decorator's configs (pruned at build time where
// the prune needs no argument values) with names derived from their values, the key and tuning
// facts in the metadata and manifest, the names in the generated header, pre_hooks refused or
// dropped, and declared configs replacing the decorator's.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::metadataIn;
using tta::testing::occurrences;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

const std::string kSource = std::string(TTA_KERNELS_DIR) + "/autotuned.py";

RunResult compile(std::vector<std::string> args, const fs::path &dir) {
  args.insert(args.begin(), kSource);
  args.insert(args.end(), {"-o", dir.string() + "/", "--index", (dir / "index.json").string(),
                           "--no-cache"});
  return runCompiler(args, dir);
}

std::vector<std::string> configNames(const std::vector<KernelMetadata> &metas) {
  std::vector<std::string> names;
  for (const KernelMetadata &m : metas)
    names.push_back(m.variant.config);
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string> kMatmulArgs = {
    "-n", "matmul_kernel", "-on", "matmul", "-s",
    "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1",
    "-g", "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), 1, 1", "-t", "cuda:90a"};

TEST(Autotune, MatmulTakesTheDecoratorsPrunedConfigsWithDerivedNames) {
  fs::path dir = freshDir("autotune", "matmul");
  RunResult r = compile(kMatmulArgs, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;   // the prune ran at build time
  auto metas = metadataIn(dir);
  // Six configs; _drop_wide_k drops the one with BLOCK_K=128.
  EXPECT_THAT(configNames(metas),
              ElementsAre("BLOCK_M128_BLOCK_N128_BLOCK_K32_GROUP_M8_w4_s4",
                          "BLOCK_M128_BLOCK_N256_BLOCK_K64_GROUP_M8_w8_s3",
                          "BLOCK_M128_BLOCK_N64_BLOCK_K32_GROUP_M8_w4_s4",
                          "BLOCK_M64_BLOCK_N256_BLOCK_K32_GROUP_M8_w4_s4",
                          "BLOCK_M64_BLOCK_N32_BLOCK_K32_GROUP_M8_w2_s5"));
  for (const KernelMetadata &m : metas) {
    SCOPED_TRACE(m.variant.config);
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_THAT(m.variant.autotune->key, ElementsAre("M", "N", "K"));
    EXPECT_EQ(m.variant.autotune->configsFrom, "decorator");
    EXPECT_TRUE(m.variant.autotune->resetToZero.empty());
    EXPECT_EQ(m.function, "matmul_kernel");
    EXPECT_EQ(m.variant.constexprs.at("GROUP_M"), 8);
    EXPECT_EQ(m.launch.numWarps, m.variant.numWarps);
  }

  // Linked: the manifest keeps the key, the header names each config's index, in the
  // decorator's order (the first is the default).
  RunResult ld = run(TTA_LINKER, {"--name", "tuned", "-o", (dir / "lib").string(),
                                  (dir / "index.json").string()},
                     dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "tuned.json"));
  const auto &kernel = manifest["kernels"][0];
  EXPECT_EQ(kernel["autotune"]["key"], nlohmann::json({"M", "N", "K"}));
  EXPECT_EQ(kernel["autotune"]["configs"], "decorator");
  EXPECT_EQ(kernel["configs"][0]["name"], "BLOCK_M128_BLOCK_N256_BLOCK_K64_GROUP_M8_w8_s3");
  const std::string header = readText(dir / "lib" / "tuned.h");
  EXPECT_THAT(header, HasSubstr("tuned_matmul_CONFIG_BLOCK_M128_BLOCK_N256_BLOCK_K64_GROUP_M8_w8_s3 = 0"));
  EXPECT_THAT(header, HasSubstr("tuned_matmul_CONFIG_BLOCK_M64_BLOCK_N32_BLOCK_K32_GROUP_M8_w2_s5 = 4"));
}

TEST(Autotune, AssignedDecoratorsAndAPruneThatNeedsArgumentsKeepEveryConfig) {
  fs::path dir = freshDir("autotune", "scale_rows");
  RunResult r = compile({"-n", "scale_rows", "-s", "*fp32:16, *fp32:16, i32, fp32", "-g", "n_cols, 1, 1",
               "-t", "cuda:80"},
              dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: early_config_prune autotuned._fits_rows needs argument "
                               "'n_cols'"),
            1u)
      << r.err;
  auto metas = metadataIn(dir);
  EXPECT_THAT(configNames(metas), ElementsAre("BLOCK1024_w4_s3", "BLOCK1024_w8_s3", "BLOCK256_w2_s3"));
  for (const KernelMetadata &m : metas) {
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_THAT(m.variant.autotune->key, ElementsAre("n_cols"));
    EXPECT_THAT(m.variant.autotune->resetToZero, ElementsAre("out_ptr"));
    EXPECT_EQ(m.name, "scale_rows");
  }
}

TEST(Autotune, APreHookIsRefusedUnlessTheDeclarationDropsIt) {
  fs::path dir = freshDir("autotune", "pre_hook");
  const std::vector<std::string> args = {"-n", "accumulate_kernel", "-s", "*fp32:16, *fp32:16, i32",
                                         "-g", "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80"};
  RunResult refused = compile(args, dir);
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("autotuned.py:85: error: config 1 (BLOCK512_w4_s3) of the "
                                     "@triton.autotune of 'accumulate_kernel' has the pre_hook "
                                     "autotuned._zero_output, which Triton runs in Python before "
                                     "every launch"));
  EXPECT_THAT(refused.err, HasSubstr("--drop-pre-hooks"));
  EXPECT_FALSE(fs::exists(dir / "index.json"));

  std::vector<std::string> dropping = args;
  dropping.push_back("--drop-pre-hooks");
  RunResult dropped = compile(dropping, dir);
  ASSERT_EQ(dropped.status, 0) << dropped.err;
  EXPECT_EQ(occurrences(dropped.err, "warning: dropped the pre_hook autotuned._zero_output"), 1u)
      << dropped.err;
  auto metas = metadataIn(dir);
  ASSERT_EQ(metas.size(), 2u);
  for (const KernelMetadata &m : metas) {
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_THAT(m.variant.autotune->droppedPreHooks, ElementsAre("autotuned._zero_output"));
  }
}

TEST(Autotune, StackedOverHeuristicsEachConfigGetsItsHeuristicVariants) {
  fs::path dir = freshDir("autotune", "over_heuristics");
  RunResult r = runCompiler({kernel("autotuned_heuristics.py"), "-n", "even_scale_kernel", "-s",
                             "*fp32:16, *fp32:16, i32", "-g", "cdiv(n, BLOCK), 1, 1", "-t",
                             "cuda:80", "-o", dir.string() + "/", "--index",
                             (dir / "index.json").string(), "--no-cache"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir);
  ASSERT_EQ(metas.size(), 4u);   // two decorator configs x EVEN True/False
  EXPECT_THAT(configNames(metas), ElementsAre("BLOCK1024_w4_s3", "BLOCK1024_w4_s3",
                                              "BLOCK256_w2_s3", "BLOCK256_w2_s3"));
  std::set<std::pair<std::string, bool>> variants;
  for (const KernelMetadata &m : metas) {
    ASSERT_EQ(m.variant.heuristics.size(), 1u);
    EXPECT_EQ(m.variant.heuristics[0].name, "EVEN");
    EXPECT_TRUE(m.variant.heuristics[0].runtime);
    variants.emplace(m.variant.config, m.variant.heuristics[0].value.get<bool>());
  }
  EXPECT_EQ(variants.size(), 4u);

  RunResult ld = run(TTA_LINKER, {"--name", "even", "-o", (dir / "lib").string(),
                                  (dir / "index.json").string()},
                     dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "even.json"));
  EXPECT_EQ(manifest["kernels"][0]["configs"].size(), 2u);
  // The header and --inspect tell the two variants of a config apart by the heuristic's value.
  const std::string header = readText(dir / "lib" / "even.h");
  EXPECT_THAT(header, HasSubstr("EVEN=true")) << header;
  EXPECT_THAT(header, HasSubstr("EVEN=false")) << header;
  RunResult inspect = run(TTA_LINKER, {"--inspect", (dir / "lib" / "even.json").string()}, dir);
  ASSERT_EQ(inspect.status, 0) << inspect.err;
  EXPECT_THAT(inspect.out, HasSubstr("EVEN=false")) << inspect.out;
}

TEST(Autotune, DeclaredConfigsReplaceTheDecorators) {
  fs::path dir = freshDir("autotune", "declared");
  RunResult r = compile({"-n", "accumulate_kernel", "-s", "*fp32:16, *fp32:16, i32, BLOCK", "-g",
                         "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80", "--config",
                         "name=small BLOCK=128 num_warps=2"},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;   // the decorator's pre_hooks go with its configs
  auto metas = metadataIn(dir);
  ASSERT_EQ(metas.size(), 1u);
  EXPECT_EQ(metas[0].variant.config, "small");
  ASSERT_TRUE(metas[0].variant.autotune);
  EXPECT_EQ(metas[0].variant.autotune->configsFrom, "declaration");
  EXPECT_THAT(metas[0].variant.autotune->key, ElementsAre("n_elements"));
}

TEST(Autotune, ASignatureValueForATunedParameterIsAConflict) {
  fs::path dir = freshDir("autotune", "conflict");
  RunResult r = compile({"-n", "accumulate_kernel", "-s", "*fp32:16, *fp32:16, i32, 256", "-g",
                         "cdiv(n_elements, 256), 1, 1", "-t", "cuda:80", "--drop-pre-hooks"},
                        dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gives 'BLOCK' a value, but the @triton.autotune configs of "
                               "'accumulate_kernel' set it"));
}

} // namespace
} // namespace tta
