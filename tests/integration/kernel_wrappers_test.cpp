// Kernels wrapped in a project's own objects (tests/kernels/libops, laid out as FlagGems lays out
// its kernels): a launch-caching KernelInterface outermost, an Autotuner subclass with its own
// decorator, a Heuristics subclass, a tracer and a tuner on no Triton class. Each builds as the
// @triton.jit function inside, with the configs, key and heuristics of its layers, for cuda:90a
// and hip:gfx942; a chain that ends in a plain function is refused, naming its layers.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using tta::testing::freshDir;
using tta::testing::listFiles;
using tta::testing::metadataIn;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

const std::string kOps = std::string(TTA_KERNELS_DIR) + "/libops/ops/";

RunResult compile(const std::string &file, std::vector<std::string> args, const fs::path &dir) {
  args.insert(args.begin(), kOps + file);
  args.insert(args.end(),
              {"-t", "cuda:90a", "-t", "hip:gfx942", "-o", "out/", "--index", "out/index.json"});
  return runCompiler(args, dir);
}

/// "config target heuristic=value ..." for each variant built.
std::multiset<std::string> variants(const std::vector<KernelMetadata> &metas) {
  std::multiset<std::string> out;
  for (const KernelMetadata &m : metas) {
    std::string line = m.variant.config + " " + m.target.spelling();
    for (const HeuristicRecord &h : m.variant.heuristics)
      line += " " + h.name + "=" + h.value.dump();
    out.insert(line);
  }
  return out;
}

TEST(KernelWrappers, ALibEntryOverTritonsHeuristicsBuildsTheHeuristicVariants) {
  fs::path dir = freshDir("wrappers", "libentry_heuristics");
  // One program per row: the caller passes the grid.
  const std::vector<std::string> args = {"-n", "rms_norm_kernel", "-s",
                                         "*fp16:16, *fp16:16, *fp16:16, i32, fp32",
                                         "--heuristic-values", "BLOCK_N=1024"};
  RunResult r = compile("rms_norm.py", args, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(variants(metas), (std::multiset<std::string>{" cuda:90a BLOCK_N=1024 EVEN_N=true",
                                                         " cuda:90a BLOCK_N=1024 EVEN_N=false",
                                                         " hip:gfx942 BLOCK_N=1024 EVEN_N=true",
                                                         " hip:gfx942 BLOCK_N=1024 EVEN_N=false"}));
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.function, "rms_norm_kernel");
    EXPECT_FALSE(m.variant.autotune);
    ASSERT_EQ(m.variant.heuristics.size(), 2u);
    EXPECT_EQ(m.variant.heuristics[0].expression, "next_power_of_2(n_cols)");
    EXPECT_EQ(m.variant.heuristics[1].expression, "n_cols == BLOCK_N");
    EXPECT_TRUE(m.variant.heuristics[1].runtime);
  }
  // A rerun is served from the cache (the description too), without starting Python.
  RunResult again = compile("rms_norm.py", args, dir);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("frontend:")));
  EXPECT_EQ(metadataIn(dir / "out").size(), 4u);
}

TEST(KernelWrappers, AnAutotunerSubclassIsTheAutotuneLayerAndAHeuristicsSubclassTheHeuristics) {
  // libentry() over libtuner() (an Autotuner subclass) over reporting_heuristics() (a Heuristics
  // subclass) over @triton.jit.
  fs::path dir = freshDir("wrappers", "libtuner");
  RunResult r = compile("scale.py",
                        {"-n", "scale_kernel", "-s", "*fp32:16, *fp32:16, i32, fp32", "-g",
                         "cdiv(n, BLOCK), 1, 1", "--no-cache"},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("warning"))); // the prune ran at build time
  auto metas = metadataIn(dir / "out");
  // The prune drops BLOCK=4096; each config is built with EVEN both ways, for both targets.
  std::multiset<std::string> expected;
  for (const char *config : {"BLOCK1024_w4_s3", "BLOCK256_w2_s3"})
    for (const char *target : {"cuda:90a", "hip:gfx942"})
      for (const char *even : {"true", "false"})
        expected.insert(std::string(config) + " " + target + " EVEN=" + even);
  EXPECT_EQ(variants(metas), expected);
  for (const KernelMetadata &m : metas) {
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_EQ(m.variant.autotune->configsFrom, "decorator");
    EXPECT_THAT(m.variant.autotune->key, ElementsAre("n"));
    EXPECT_THAT(m.variant.autotune->resetToZero, ElementsAre("out_ptr"));
    ASSERT_EQ(m.variant.heuristics.size(), 1u);
    EXPECT_EQ(m.variant.heuristics[0].expression, "n % BLOCK == 0");
    EXPECT_TRUE(m.variant.heuristics[0].runtime);
  }

  // Linked: the configs in the decorator's order, the key in the manifest.
  RunResult ld =
      run(TTA_LINKER,
          {"--name", "libops", "-o", (dir / "lib").string(), (dir / "out" / "index.json").string()},
          dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "libops.json"));
  const auto &kernel = manifest["kernels"][0];
  EXPECT_EQ(kernel["autotune"]["key"], nlohmann::json({"n"}));
  ASSERT_EQ(kernel["configs"].size(), 2u);
  EXPECT_EQ(kernel["configs"][0]["name"], "BLOCK1024_w4_s3");
  EXPECT_THAT(readText(dir / "lib" / "libops.h"),
              HasSubstr("libops_scale_kernel_CONFIG_BLOCK256_w2_s3 = 1"));
}

TEST(KernelWrappers, ObjectsOnNoTritonClassAreKnownByWhatTheyHold) {
  // traced (a plain object holding the kernel in fn) over shape_tune (a KernelInterface holding
  // triton.Configs: a tuner of the library's own) over @triton.jit.
  fs::path dir = freshDir("wrappers", "own_tuner");
  RunResult r = compile("axpy.py",
                        {"-n", "axpy_kernel", "-s", "*fp32:16, *fp32:16, i32, fp32", "-g",
                         "cdiv(n, BLOCK), 1, 1", "--no-cache"},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(variants(metas),
            (std::multiset<std::string>{"BLOCK512_w4_s3 cuda:90a", "BLOCK128_w1_s3 cuda:90a",
                                        "BLOCK512_w4_s3 hip:gfx942", "BLOCK128_w1_s3 hip:gfx942"}));
  for (const KernelMetadata &m : metas) {
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_THAT(m.variant.autotune->key, ElementsAre("n"));
    EXPECT_EQ(m.variant.constexprs.at("BLOCK"),
              m.variant.config.rfind("BLOCK512", 0) == 0 ? 512 : 128);
  }
}

TEST(KernelWrappers, TritonsAutotuneUnderAnEntryAppliedByAssignment) {
  // add_kernel = LibEntry(triton.autotune(...)(triton.jit(_add))): -n names the module's object.
  fs::path dir = freshDir("wrappers", "assigned");
  RunResult r = compile("axpy.py",
                        {"-n", "add_kernel", "-s", "*fp32:16, *fp32:16, *fp32:16, i32", "-g",
                         "cdiv(n, BLOCK), 1, 1", "--no-cache"},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(variants(metas),
            (std::multiset<std::string>{"BLOCK256_w2_s3 cuda:90a", "BLOCK256_w2_s3 hip:gfx942"}));
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.function, "add_kernel");
    EXPECT_EQ(m.launch.entry, "_add");
    ASSERT_TRUE(m.variant.autotune);
    EXPECT_THAT(m.variant.autotune->key, ElementsAre("n"));
  }
}

TEST(KernelWrappers, AChainThatEndsInAPlainFunctionIsRefusedNamingItsLayers) {
  fs::path dir = freshDir("wrappers", "unjitted");
  RunResult r = compile(
      "unjitted.py", {"-n", "copy_kernel", "-s", "*fp32, *fp32, i32, 256", "-g", "1, 1, 1"}, dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("unjitted.py:7: error: 'copy_kernel' in "));
  EXPECT_THAT(
      r.err, HasSubstr("wraps no @triton.jit function: it is a libops.utils.libentry.LibEntry over "
                       "the plain Python function copy_kernel"));
  EXPECT_THAT(r.err, HasSubstr("note: decorate copy_kernel with @triton.jit (or @gluon.jit)"));
  EXPECT_TRUE(listFiles(dir / "out", ".triton-aot-cache").empty());
}

} // namespace
} // namespace tta
