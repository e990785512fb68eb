// triton-aot-ld --tuning: a table is checked against the library before anything is written;
// every mismatch is an error naming the table and the fix; a target the library lacks is a
// warning.
#include "linker/tuning_link.h"
#include "test_libraries.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace tta::link::testing {
namespace {

class TuningLink : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tta-tuning-link-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Applies \p table to untunedLibrary(); the error message, or "" on success.
  std::string apply(const nlohmann::json &table, Library *out = nullptr) {
    const fs::path path = dir_ / "mm.tuning.json";
    std::ofstream(path) << table.dump();
    Library library = untunedLibrary();
    Status s = applyTuning(library, {path.string()}, [&](std::string_view line) {
      warnings_.emplace_back(line);
    });
    if (out)
      *out = library;
    if (s)
      return "";
    EXPECT_EQ(s.error().file, path.string());
    std::string message = s.error().message;
    for (const std::string &note : s.error().notes)
      message += " | " + note;
    return message;
  }

  fs::path dir_;
  std::vector<std::string> warnings_;
};

TEST_F(TuningLink, ATableSetsTheTunedTargetsDispatch) {
  Library library;
  ASSERT_EQ(apply(tunedTable(), &library), "");
  const Kernel &mm = library.kernels[0];
  ASSERT_TRUE(mm.tuning);
  EXPECT_EQ(mm.tuning->keyParams, (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(mm.tuning->targets.size(), 2u);
  EXPECT_FALSE(mm.tuning->targets[0]) << "cuda:80 is not tuned";
  ASSERT_TRUE(mm.tuning->targets[1]);
  EXPECT_EQ(mm.tuning->targets[1]->grid, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(mm.tuning->table, "mm.tuning.json");
}

TEST_F(TuningLink, EveryMismatchWithTheLibraryIsAnErrorWithTheFix) {
  nlohmann::json table = tunedTable();
  table["kernels"][0]["kernel"] = "matmul";
  EXPECT_EQ(apply(table), "kernel 'matmul' is tuned but not in the library | the library's kernels: "
                          "mm | remove it from the table, or link it");
  table = tunedTable();
  table["kernels"][0]["key"] = {"M", "BLOCK"};
  EXPECT_EQ(apply(table), "kernel 'mm' is tuned on 'BLOCK', which is not one of its runtime "
                          "parameters (a constexpr or a name it does not have) | its integer "
                          "runtime parameters: M, N, K");
  table["kernels"][0]["key"] = {"M", "a"};
  EXPECT_EQ(apply(table), "kernel 'mm' is tuned on 'a', a *fp16 parameter; the dispatch keys on "
                          "integer parameters");
  table = tunedTable();
  table["kernels"][0]["targets"][0]["shapes"][1]["best"] = "huge";
  table["kernels"][0]["targets"][0]["shapes"][1]["times_us"]["huge"] = 0.5;
  EXPECT_EQ(apply(table), "kernel 'mm' is tuned to run config 'huge' on cuda:90a, which the library "
                          "does not have | its configs: small, tall, wide, big | the configs "
                          "changed since it was tuned: tune it again");
  table = tunedTable();
  table["version"] = 7;
  EXPECT_EQ(apply(table), "version: expected 1, got 7; this triton-aot reads version 1");
}

TEST_F(TuningLink, ATargetTheLibraryLacksIsSkippedWithAWarning) {
  nlohmann::json table = tunedTable();
  table["kernels"][0]["targets"][0]["target"] = "cuda:100a";
  Library library;
  ASSERT_EQ(apply(table, &library), "");
  ASSERT_TRUE(library.kernels[0].tuning);
  EXPECT_FALSE(library.kernels[0].tuning->targets[0]);
  EXPECT_FALSE(library.kernels[0].tuning->targets[1]);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("the tuning of 'mm' for cuda:100a is not used: the library has no "
                              "image of it for that target"),
            std::string::npos)
      << warnings_[0];
}

TEST_F(TuningLink, AFileThatIsNotJsonNamesItself) {
  const fs::path path = dir_ / "broken.tuning.json";
  std::ofstream(path) << "{\"schema\": ";
  Library library = untunedLibrary();
  Status s = applyTuning(library, {path.string()}, {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().file, path.string());
  EXPECT_EQ(s.error().message, "the tuning table is not valid JSON");
}

} // namespace
} // namespace tta::link::testing
