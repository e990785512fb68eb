// Signatures as upstream compile.py's users write them, naming every parameter: a name in the
// place of a parameter that @triton.heuristics sets takes the heuristic's value (per launch), one
// in the place of a parameter with a default takes the default, one an autotune config sets takes
// each config's value; the same variants as a declaration that leaves them out. Names that cannot
// build fail with what is wrong and how to fix it.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::listFiles;
using tta::testing::metadataIn;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

const std::string kFull = "*fp32:16, *fp32:16, i32, fp32, BLOCK_N, EVEN_N, MODE";

RunResult compileScale(const fs::path &dir, const std::string &signature,
                       std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {kernel("scale_modes.py"), "-n", "scale_kernel", "-s", signature,
                                   "-g", "cdiv(n_elements, BLOCK_N), 1, 1", "-o", "out/",
                                   "--index", "out/index.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

/// One line per variant: target, config, the complete signature, the constexprs and each
/// heuristic's value and whether the dispatcher decides it.
std::set<std::string> variants(const std::vector<KernelMetadata> &metas) {
  std::set<std::string> out;
  for (const KernelMetadata &m : metas) {
    std::string line = m.target.spelling() + " " + m.variant.config + " [" + m.variant.signature + "]";
    for (const auto &[name, value] : m.variant.constexprs)
      line += " " + name + "=" + value.dump();
    for (const HeuristicRecord &h : m.variant.heuristics)
      line += " heuristic " + h.name + (h.runtime ? " at launch" : " at build");
    out.insert(line);
  }
  return out;
}

TEST(FullSignature, EveryParameterNamedBuildsWhatLeavingThemOutBuilds) {
  fs::path dir = freshDir("full_signature", "named");
  const std::vector<std::string> targets = {"-t", "cuda:80", "-t", "hip:gfx942",
                                            "--config", "name=wide BLOCK_N=1024"};
  RunResult r = compileScale(dir, kFull, targets);
  ASSERT_EQ(r.status, 0) << r.err;
  auto named = metadataIn(dir / "out");
  ASSERT_EQ(named.size(), 4u);   // EVEN_N both ways, two targets
  for (const KernelMetadata &m : named) {
    EXPECT_EQ(m.variant.constexprs.at("MODE"), "scale");   // the default
    EXPECT_EQ(m.variant.constexprs.at("BLOCK_N"), 1024);   // the config
    ASSERT_EQ(m.variant.heuristics.size(), 1u);
    EXPECT_EQ(m.variant.heuristics[0].name, "EVEN_N");
    EXPECT_TRUE(m.variant.heuristics[0].runtime);           // decided per launch
    EXPECT_EQ(m.variant.heuristics[0].expression, "n_elements % BLOCK_N == 0");
  }

  fs::path shortDir = freshDir("full_signature", "left_out");
  RunResult leftOut = compileScale(shortDir, "*fp32:16, *fp32:16, i32, fp32, BLOCK_N", targets);
  ASSERT_EQ(leftOut.status, 0) << leftOut.err;
  auto shorter = metadataIn(shortDir / "out");
  EXPECT_EQ(variants(named), variants(shorter));
  std::set<std::string> namedHashes, shortHashes;
  for (const KernelMetadata &m : named)
    namedHashes.insert(m.tritonHash);
  for (const KernelMetadata &m : shorter)
    shortHashes.insert(m.tritonHash);
  EXPECT_EQ(namedHashes, shortHashes);   // Triton compiled the same kernels

  // Linked: EVEN_N and MODE are compiled in, not the C function's; the dispatcher computes
  // EVEN_N from the arguments.
  RunResult ld = run(TTA_LINKER, {"--name", "full", "-o", "lib", "out/index.json"}, dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  const std::string header = readText(dir / "lib/full.h");
  EXPECT_THAT(header, HasSubstr("full_scale_kernel(void *stream, const void *x_ptr,\n    const void "
                                "*y_ptr, int32_t n_elements, float factor);"));
  EXPECT_THAT(header, HasSubstr("compiled in: BLOCK_N (constexpr), EVEN_N (constexpr), MODE (constexpr)"));
  EXPECT_THAT(header, HasSubstr("EVEN_N=true; x_ptr:16 y_ptr:16 EVEN_N=false"));
}

TEST(FullSignature, ValuesAfterAHeuristicsNameKeepTheirParameters) {
  fs::path dir = freshDir("full_signature", "values");
  RunResult r = compileScale(dir, "*fp32:16, *fp32:16, i32, fp32, 256, EVEN_N, 'shift'",
                             {"-t", "cuda:80"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  ASSERT_EQ(metas.size(), 2u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.variant.constexprs.at("MODE"), "shift");
    EXPECT_EQ(m.variant.constexprs.at("BLOCK_N"), 256);
  }
  // By name: EVEN_N=EVEN_N and MODE=MODE say the same as the names in their places.
  fs::path byName = freshDir("full_signature", "by_name");
  r = compileScale(byName, "*fp32:16, *fp32:16, i32, fp32, BLOCK_N=256, EVEN_N=EVEN_N, MODE=MODE",
                   {"-t", "cuda:80"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const KernelMetadata &m : metadataIn(byName / "out"))
    EXPECT_EQ(m.variant.constexprs.at("MODE"), "scale");
}

TEST(FullSignature, AnAutotunedKernelTakesEachConfigsValueAndItsHeuristics) {
  fs::path dir = freshDir("full_signature", "autotuned");
  RunResult r = runCompiler({kernel("autotuned_heuristics.py"), "-n", "even_scale_kernel", "-s",
                             "*fp32:16, *fp32:16, i32, BLOCK, EVEN", "-g", "cdiv(n, BLOCK), 1, 1",
                             "-t", "cuda:80", "-o", "out/"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::string> got;
  for (const KernelMetadata &m : metadataIn(dir / "out")) {
    ASSERT_EQ(m.variant.heuristics.size(), 1u);
    got.insert(m.variant.config + " BLOCK=" + m.variant.constexprs.at("BLOCK").dump() +
               " EVEN=" + m.variant.heuristics[0].value.dump());
  }
  EXPECT_EQ(got, (std::set<std::string>{"BLOCK1024_w4_s3 BLOCK=1024 EVEN=true",
                                        "BLOCK1024_w4_s3 BLOCK=1024 EVEN=false",
                                        "BLOCK256_w2_s3 BLOCK=256 EVEN=true",
                                        "BLOCK256_w2_s3 BLOCK=256 EVEN=false"}));
}

TEST(FullSignature, NamesThatCannotBuildSayWhyAndHowToFixIt) {
  fs::path dir = freshDir("full_signature", "errors");
  // Not a parameter: the parameters are listed.
  RunResult r = compileScale(dir, "*fp32:16, *fp32:16, i32, fp32, BLOKC_N, EVEN_N, MODE",
                             {"-t", "cuda:80"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("scale_modes.py:11: error: signature entry 5 'BLOKC_N' has no value: "
                               "no config gives BLOKC_N a value, and 'scale_kernel' has no parameter "
                               "BLOKC_N (its parameters: x_ptr, y_ptr, n_elements, factor, BLOCK_N, "
                               "EVEN_N, MODE); did you mean BLOCK_N?"));
  // A constexpr with no default, no heuristic and no config value: how to give one.
  r = compileScale(dir, kFull, {"-t", "cuda:80"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("signature entry 5 'BLOCK_N' has no value: no config gives BLOCK_N "
                               "a value, and 'scale_kernel' has no default or @triton.heuristics "
                               "for BLOCK_N"));
  EXPECT_THAT(r.err, HasSubstr("note: give it a value in the signature (BLOCK_N=128, or 128 in its "
                               "place) or in each config (--config 'BLOCK_N=<value> ...'; CMake: "
                               "CONFIG \"BLOCK_N=<value> ...\")"));
  // One config of two leaves it out: that config is named.
  r = compileScale(dir, kFull, {"-t", "cuda:80", "--config", "name=wide BLOCK_N=1024",
                                "--config", "name=narrow num_warps=2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("config narrow gives BLOCK_N no value"));
  // A literal where the heuristic decides.
  r = compileScale(dir, "*fp32:16, *fp32:16, i32, fp32, 128, True", {"-t", "cuda:80"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("the signature gives 'EVEN_N' a value, but @triton.heuristics of "
                               "'scale_kernel' sets it: write its name, EVEN_N, in its place"));
  EXPECT_TRUE(listFiles(dir / "out", ".triton-aot-cache").empty());
}

} // namespace
} // namespace tta
