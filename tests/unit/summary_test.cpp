// triton-aot-cc --summary: the variants' table, then their origins, what --specialize-for added
// and the run's time beside its floor (max(sum of compiles / workers, longest compile)).
#include "compiler/compiler.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

CompiledVariant variant(std::string signature, std::size_t bytes, std::optional<double> seconds,
                        std::string specializedFor = "") {
  CompiledVariant v;
  v.metadata.name = "matmul";
  v.metadata.target = *parseTarget("cuda:90a");
  v.metadata.imageArch = "sm_90a";
  v.metadata.variant.config = "big";
  v.metadata.variant.signature = std::move(signature);
  v.metadata.images.push_back({"cubin", "matmul.cubin", bytes, ""});
  v.origin = seconds ? CacheOrigin::Compiled : CacheOrigin::Local;
  v.compileSeconds = seconds;
  v.specializedFor = std::move(specializedFor);
  return v;
}

TEST(Summary, SaysWhatSpecializationCostsAndHowFarTheRunIsFromItsFloor) {
  CompileOutcome outcome;
  outcome.variants = {variant("*fp16, i32", 1000, 1.5), variant("*fp16:16, i32:1", 600, 0.5, "M=1"),
                      variant("*fp16:16, i32:16", 400, std::nullopt, "M=64")};
  outcome.seconds = 3.0;
  outcome.workers = 4;
  const std::string text = formatSummary(outcome);
  EXPECT_NE(text.find("3 variant(s): 2 compiled, 1 from the local cache"), std::string::npos) << text;
  EXPECT_NE(text.find("specialization: 2 of 3 images (1000 of 2000 bytes) are variants "
                      "--specialize-for added\n"),
            std::string::npos)
      << text;
  // Two compiles on (at most) two of the four workers: the longest, 1.5 s, is the floor.
  EXPECT_NE(text.find("time: 3.00 s; the floor with 2 worker(s) is 1.50 s (Triton's compiles: "
                      "2.00 s in all, the longest 1.50 s), so this run took 2.00x it\n"),
            std::string::npos)
      << text;
}

TEST(Summary, CompilesTheTargetRefusedCountInTheFloor) {
  // Triton compiled the refused config before its shared memory showed it too big: that time
  // was spent, and a build cannot be faster than the compiles it must run.
  CompileOutcome outcome;
  outcome.variants = {variant("*fp16, i32", 1000, 1.0)};
  outcome.refusedCompileSeconds = {2.0};
  outcome.seconds = 2.5;
  outcome.workers = 2;
  const std::string text = formatSummary(outcome);
  EXPECT_NE(text.find("time: 2.50 s; the floor with 2 worker(s) is 2.00 s (Triton's compiles: "
                      "3.00 s in all, 1 of them refused by the target, the longest 2.00 s), so "
                      "this run took 1.25x it\n"),
            std::string::npos)
      << text;
}

TEST(Summary, NothingCompiledHasNoFloorAndNothingSpecializedNoCost) {
  CompileOutcome outcome;
  outcome.variants = {variant("*fp16, i32", 1000, std::nullopt)};
  outcome.seconds = 0.1;
  outcome.workers = 2;
  const std::string text = formatSummary(outcome);
  EXPECT_EQ(text.find("time:"), std::string::npos) << text;
  EXPECT_EQ(text.find("specialization:"), std::string::npos) << text;
}

} // namespace
} // namespace tta
