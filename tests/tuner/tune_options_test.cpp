// The command line of triton-aot-tune and the target a device's table is filed under.
#include "tuner/tune_options.h"

#include <gtest/gtest.h>

namespace tta::tune {
namespace {

std::string usageError(const std::vector<std::string> &args) {
  auto parsed = parseTuneCommandLine(args);
  EXPECT_FALSE(parsed);
  if (parsed)
    return "";
  EXPECT_EQ(parsed.error().code, ExitCode::UsageError);
  return parsed.error().message;
}

TEST(TuneOptions, ParsesEveryOption) {
  auto parsed = parseTuneCommandLine({"--library", "build/libmm.so", "--spec", "mm.tune.json",
                                      "--output", "mm.tuning.json", "--prefix", "p", "--device",
                                      "1", "--kernel", "a", "--kernel", "b", "--repetitions", "7",
                                      "--warmup-ms", "2.5", "--max-ms-per-measurement", "50"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  const TuneOptions &o = parsed->options;
  EXPECT_EQ(o.library, "build/libmm.so");
  EXPECT_EQ(o.spec, "mm.tune.json");
  EXPECT_EQ(o.output, "mm.tuning.json");
  EXPECT_EQ(o.prefix, "p");
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(o.kernels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.measure.repetitions, 7);
  EXPECT_DOUBLE_EQ(o.measure.warmupMs, 2.5);
  EXPECT_DOUBLE_EQ(o.measure.maxMsPerMeasurement, 50);

  auto defaults = parseTuneCommandLine({"--library", "l.so", "--spec", "s", "--output", "o"});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->options.device, 0);
  EXPECT_EQ(defaults->options.measure.repetitions, 100);
  EXPECT_DOUBLE_EQ(defaults->options.measure.warmupMs, 25);
  EXPECT_DOUBLE_EQ(defaults->options.measure.maxMsPerMeasurement, 200);
}

TEST(TuneOptions, HelpAndVersionExitEarly) {
  auto help = parseTuneCommandLine({"--help"});
  ASSERT_TRUE(help);
  EXPECT_NE(help->earlyExitText.find("--max-ms-per-measurement"), std::string::npos);
  auto version = parseTuneCommandLine({"--version"});
  ASSERT_TRUE(version);
  EXPECT_EQ(version->earlyExitText.rfind("triton-aot-tune ", 0), 0u);
}

TEST(TuneOptions, UsageErrorsSayWhatIsMissing) {
  const std::vector<std::string> base = {"--library", "l.so", "--spec", "s", "--output", "o"};
  auto plus = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  EXPECT_EQ(usageError({"--spec", "s", "--output", "o"}),
            "missing --library: the shared library to tune (built by triton-aot)");
  EXPECT_EQ(usageError({"--library", "l", "--output", "o"}),
            "missing --spec: the tuning spec naming the kernels, key, shapes and args "
            "(docs/tuning.md)");
  EXPECT_EQ(usageError({"--library", "l", "--spec", "s"}),
            "missing --output: the tuning table to write (e.g. mm.tuning.json)");
  EXPECT_EQ(usageError(plus({"--device", "-1"})),
            "--device -1 is negative: a CUDA ordinal is 0 or more");
  EXPECT_EQ(usageError(plus({"--repetitions", "0"})), "--repetitions 0 must be at least 1");
  EXPECT_EQ(usageError(plus({"--warmup-ms", "-1"})), "--warmup-ms must not be negative");
  EXPECT_EQ(usageError(plus({"--max-ms-per-measurement", "0"})),
            "--max-ms-per-measurement must be positive");
  EXPECT_NE(usageError(plus({"--bogus"})).find("--bogus"), std::string::npos);
}

TEST(TuneTarget, SpelledAsTritonBuildsForTheDeviceAndAsTheLibraryHasIt) {
  EXPECT_EQ(targetForDevice(9, 0, {}), "cuda:90a");
  EXPECT_EQ(targetForDevice(10, 0, {}), "cuda:100a");
  EXPECT_EQ(targetForDevice(8, 0, {}), "cuda:80");
  EXPECT_EQ(targetForDevice(8, 6, {"cuda:80"}), "cuda:86");
  EXPECT_EQ(targetForDevice(12, 0, {}), "cuda:120");
  EXPECT_EQ(targetForDevice(9, 0, {"cuda:80", "cuda:90a"}), "cuda:90a");
  EXPECT_EQ(targetForDevice(9, 0, {"cuda:80", "cuda:90"}), "cuda:90");
  EXPECT_EQ(targetForDevice(9, 0, {"cuda:90", "cuda:90a"}), "cuda:90a");
  EXPECT_EQ(targetForDevice(10, 0, {"cuda:100f"}), "cuda:100f");
}

} // namespace
} // namespace tta::tune

namespace tta::tune {
namespace {

// --import-triton-cache makes the tool the importer (tuner/import): its --kernel and --output
// are the tuner's own; --library and --spec, which only timing reads, are refused.
TEST(TuneOptionsImport, TheImportTakesTheKernelsAndOutputOfTheTuner) {
  auto parsed = parseTuneCommandLine({"--import-triton-cache", "cache", "--manifest", "mm.json",
                                      "--kernel", "mm", "--kernel", "bmm", "--target", "cuda:90a",
                                      "--output", "mm.tuning.json"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(importRequested(parsed->import));
  EXPECT_EQ(parsed->import.kernels, (std::vector<std::string>{"mm", "bmm"}));
  EXPECT_EQ(parsed->import.output, "mm.tuning.json");
  EXPECT_EQ(parsed->import.target, "cuda:90a");

  auto mixed = parseTuneCommandLine({"--import-triton-cache", "cache", "--manifest", "mm.json",
                                     "--library", "libmm.so", "--output", "t.json"});
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.error().message.find("takes no --library or --spec"), std::string::npos)
      << mixed.error().message;
}

} // namespace
} // namespace tta::tune
