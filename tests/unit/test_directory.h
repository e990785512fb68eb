// A fresh directory per unit test, for tests that write files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace tta::testing_support {

/// <TTA_TEST_TMPDIR (set by CTest), else the system's temp dir / tta-unit-<pid>>/<suite>.<test>,
/// made afresh and empty.
inline std::filesystem::path freshTestDirectory() {
  namespace fs = std::filesystem;
  const char *base = std::getenv("TTA_TEST_TMPDIR");
  const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = (base ? fs::path(base)
                       : fs::temp_directory_path() / ("tta-unit-" + std::to_string(::getpid()))) /
                 (std::string(test->test_suite_name()) + "." + test->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// A fixture owning such a directory, dir_: kept when the test failed, for a look.
class TestDirectory : public ::testing::Test {
protected:
  void SetUp() override { dir_ = freshTestDirectory(); }
  void TearDown() override {
    if (!HasFailure())
      std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
};

} // namespace tta::testing_support
