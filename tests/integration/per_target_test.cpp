// Per-target configs: a config a target cannot build or run (shared memory above its limit,
// num_ctas=2 before sm_90) or one limited with archs= is left out for that target with one
// warning line and a refusal record; the linked library refuses it there with the reason; a
// kernel left with no config for a target does not link.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::occurrences;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testTritonVersion;
using tta::testing::testWorkDir;

namespace tta {
namespace {

const std::string kSignature =
    "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1";

RunResult compile(std::vector<std::string> extra, const fs::path &dir,
                  const std::string &signature = kSignature) {
  std::vector<std::string> args = {kernel("per_target_matmul.py"), "-n",
                                   "matmul_kernel", "-on", "matmul", "-s", signature, "-g",
                                   "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), 1", "-t", "cuda:80", "-t",
                                   "cuda:90a", "-o", dir.string() + "/", "--index",
                                   (dir / "index.json").string(),
                                   "--cache-dir", (testWorkDir() / ("per_target-" + testTritonVersion()) / "cache").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

RunResult link(const fs::path &dir) {
  return run(TTA_LINKER, {"--name", "mm", "-o", (dir / "lib").string(), (dir / "index.json").string()},
             dir);
}

/// The index's files by schema: metadata and refusal records, each refusal record checked
/// against docs/refusal.schema.json (with the configured environment's jsonschema).
std::pair<int, std::vector<nlohmann::json>> indexed(const fs::path &dir) {
  int metadata = 0;
  std::vector<nlohmann::json> refusals;
  const nlohmann::json index = nlohmann::json::parse(readText(dir / "index.json"));
  for (const auto &file : index["metadata"]) {
    auto json = nlohmann::json::parse(readText(dir / file.get<std::string>()));
    if (json["schema"] != kRefusalSchema) {
      ++metadata;
      continue;
    }
    refusals.push_back(json);
    RunResult schema = run(TTA_PYTHON,
                           {"-c",
                            "import json, sys, jsonschema; "
                            "jsonschema.validate(json.load(open(sys.argv[1])), "
                            "json.load(open(sys.argv[2])))",
                            (dir / file.get<std::string>()).string(), TTA_REFUSAL_SCHEMA},
                           dir);
    EXPECT_EQ(schema.status, 0) << file << ": " << schema.err;
  }
  return {metadata, refusals};
}

const char *kBig = "BLOCK_M128_BLOCK_N256_BLOCK_K128_w8_s5";
const char *kCluster = "BLOCK_M128_BLOCK_N128_BLOCK_K32_w4_s3_c2";

TEST(PerTarget, OneWarningPerConfigAndTargetWhateverTheSignatures) {
  fs::path dir = freshDir("per_target", "one_warning");
  RunResult r = runCompiler({kernel("vector_add.py"), "-n", "add_kernel", "-s",
                             "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK", "-s",
                             "*fp32, *fp32, *fp32, i32, BLOCK", "-g", "cdiv(n_elements, BLOCK), 1, 1",
                             "--config", "name=wide BLOCK=1024", "--config",
                             "name=hopper BLOCK=2048 archs=90a", "-t", "cuda:80", "-t", "cuda:90a",
                             "-o", dir.string() + "/"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config hopper of add_kernel is not built for cuda:80"), 1u)
      << r.err;
}

TEST(PerTarget, ConfigsSm80CannotBuildAreLeftOutForItAndRefusedByTheLibrary) {
  fs::path dir = freshDir("per_target", "matmul");
  RunResult r = compile({}, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config "), 2u) << r.err;
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kBig +
                               " of matmul is not built for cuda:80: it needs "));
  EXPECT_THAT(r.err, HasSubstr(" bytes of shared memory, more than the 163 KiB a block has on sm_80"));
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kCluster +
                               " of matmul is not built for cuda:80: num_ctas=2 needs thread "
                               "block clusters (sm_90 or newer)"));
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 4);   // three configs on sm_90a, one on sm_80
  ASSERT_EQ(refusals.size(), 2u);
  for (const auto &refusal : refusals) {
    EXPECT_EQ(refusal["target"]["spelling"], "cuda:80");
    EXPECT_EQ(refusal["kernel"]["name"], "matmul");
    EXPECT_TRUE(refusal["variant"]["config"] == kBig || refusal["variant"]["config"] == kCluster);
  }

  // Again from the cache: the same refusals, the same warnings.
  RunResult again = compile({}, dir);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(occurrences(again.err, "warning: config "), 2u) << again.err;

  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "mm.json"));
  const auto &configs = manifest["kernels"][0]["configs"];
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[1]["name"], kBig);
  int refused = 0;
  for (const auto &config : configs)
    for (const auto &function : config["variants"][0]["functions"])
      if (function.contains("refused")) {
        ++refused;
        EXPECT_EQ(function["target"], "cuda:80");
        EXPECT_THAT(function["refused"].get<std::string>(),
                    HasSubstr("is not built for cuda:80: "));
      }
  EXPECT_EQ(refused, 2);
  const std::string source = readText(dir / "lib" / "mm.c");
  EXPECT_THAT(source, HasSubstr(std::string("config ") + kBig +
                                " is not built for cuda:80: it needs "));
  EXPECT_THAT(source, HasSubstr("TRITON_AOT_NO_IMAGE, TRITON_AOT_NO_IMAGE"));
}

TEST(PerTarget, AConfigLimitedWithArchsAndAKernelLeftWithNoConfigForATarget) {
  fs::path dir = freshDir("per_target", "archs");
  RunResult r = compile({"--config", "name=big BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=90a",
                         "--config", "name=small BLOCK_M=32 BLOCK_N=32 BLOCK_K=32"},
                        dir, kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: config big of matmul is not built for cuda:80: the "
                               "config is limited to archs=90a"));
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 3);
  ASSERT_EQ(refusals.size(), 1u);
  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  EXPECT_THAT(readText(dir / "lib" / "mm.c"),
              HasSubstr("config big is not built for cuda:80: the config is limited to archs=90a"));

  // Only the limited config: nothing is left for sm_80, which the link refuses.
  fs::path lonely = freshDir("per_target", "lonely");
  r = compile({"--config", "name=big BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=90a"}, lonely,
              kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  RunResult failed = link(lonely);
  EXPECT_NE(failed.status, 0);
  EXPECT_THAT(failed.err, HasSubstr("kernel 'matmul' has no config built for cuda:80 (big: the "
                                    "config is limited to archs=90a)"));
  EXPECT_FALSE(fs::exists(lonely / "lib" / "mm.c"));
}

TEST(PerTarget, AConfigRefusedOnEveryTargetIsInTheLibraryRefusedEverywhere) {
  fs::path dir = freshDir("per_target", "everywhere");
  RunResult r = compile({"--config", "name=small BLOCK_M=32 BLOCK_N=32 BLOCK_K=32", "--config",
                         "name=wide BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=100a"},
                        dir, kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config wide of matmul is not built for "), 2u) << r.err;
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 2);
  ASSERT_EQ(refusals.size(), 2u);

  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "mm.json"));
  const auto &configs = manifest["kernels"][0]["configs"];
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0]["name"], "small");
  EXPECT_EQ(configs[1]["name"], "wide");
  const auto &functions = configs[1]["variants"][0]["functions"];
  ASSERT_EQ(functions.size(), 2u);
  for (const auto &function : functions)
    EXPECT_EQ(function["refused"], "config wide is not built for " +
                                       function["target"].get<std::string>() +
                                       ": the config is limited to archs=100a");
  const std::string source = readText(dir / "lib" / "mm.c");
  EXPECT_THAT(source, HasSubstr("config wide is not built for cuda:80: the config is limited to "
                                "archs=100a"));
  EXPECT_THAT(source, HasSubstr("config wide is not built for cuda:90a: the config is limited "
                                "to archs=100a"));
  // The config has its index in the header, as every config does.
  EXPECT_THAT(readText(dir / "lib" / "mm.h"), HasSubstr("wide"));
}

TEST(PerTarget, ATypeTritonRefusesForTheTargetIsLeftOutNotAFailedBuild) {
  fs::path dir = freshDir("per_target", "fp8");
  RunResult r = runCompiler({kernel("fp8_cast.py"), "-n",
                     "to_fp8_kernel", "-s", "*fp32:16, *fp8e4nv:16, i32, BLOCK", "-g",
                     "cdiv(n_elements, BLOCK), 1, 1", "--config", "name=b256 BLOCK=256", "-t",
                     "cuda:80", "-t", "cuda:90a", "-o", dir.string() + "/", "--index",
                     (dir / "index.json").string(), "--no-cache"},
                    dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: config b256 of to_fp8_kernel is not built for cuda:80: "));
  EXPECT_THAT(r.err, HasSubstr("type fp8e4nv not supported in this architecture"));
  EXPECT_EQ(occurrences(r.err, "warning: "), 1u) << r.err;
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 1);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0]["target"]["spelling"], "cuda:80");
}

} // namespace
} // namespace tta
