#include "contract/output_transaction.h"

#include "test_directory.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tta {
namespace {

class OutputTransactionTest : public testing_support::TestDirectory {
protected:
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    TestDirectory::TearDown();
  }

  static std::string read(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void write(const fs::path &path, std::string_view text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  /// Every file name under the test directory, sorted, relative to it.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const fs::directory_entry &entry : fs::recursive_directory_iterator(dir_))
      names.push_back(fs::relative(entry.path(), dir_).string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

using Names = std::vector<std::string>;

TEST_F(OutputTransactionTest, NothingAppearsBeforeCommit) {
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "k.cubin", "binary\0bytes"));
  EXPECT_FALSE(fs::exists(dir_ / "k.cubin"));
  ASSERT_EQ(listing().size(), 1u);
  // The temporary is hidden and named after its destination.
  EXPECT_EQ(listing()[0].rfind(".k.cubin.tmp." + std::to_string(::getpid()) + ".", 0), 0u)
      << listing()[0];
  ASSERT_TRUE(out.commit());
}

TEST_F(OutputTransactionTest, CommitRenamesEverythingIntoPlace) {
  const char bytes[] = {'\x7f', 'E', 'L', 'F', '\0', '\1'};
  {
    OutputTransaction out;
    ASSERT_TRUE(out.stage(dir_ / "k.cubin", std::span<const char>(bytes, sizeof bytes)));
    ASSERT_TRUE(out.stage(dir_ / "sub/dir/k.json", R"({"schema": "x"})"));
    ASSERT_TRUE(out.commit());
    EXPECT_EQ(out.destinations(), (std::vector<fs::path>{dir_ / "k.cubin", dir_ / "sub/dir/k.json"}));
  } // the destructor keeps committed outputs
  EXPECT_EQ(read(dir_ / "k.cubin"), std::string(bytes, sizeof bytes));
  EXPECT_EQ(read(dir_ / "sub/dir/k.json"), R"({"schema": "x"})");
  EXPECT_EQ(listing(), (Names{"k.cubin", "sub", "sub/dir", "sub/dir/k.json"}));
}

TEST_F(OutputTransactionTest, CommitReplacesOldOutputs) {
  write(dir_ / "k.json", "old");
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "k.json", "new"));
  EXPECT_EQ(read(dir_ / "k.json"), "old");
  ASSERT_TRUE(out.commit());
  EXPECT_EQ(read(dir_ / "k.json"), "new");
}

TEST_F(OutputTransactionTest, KeepIdenticalLeavesUnchangedDestinationsAsTheyAre) {
  write(dir_ / "same.h", "unchanged text");
  write(dir_ / "changed.c", "old text");
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(dir_ / "same.h", past);
  fs::last_write_time(dir_ / "changed.c", past);
  OutputTransaction out;
  out.keepIdenticalDestinations(true);
  ASSERT_TRUE(out.stage(dir_ / "same.h", "unchanged text"));
  ASSERT_TRUE(out.stage(dir_ / "changed.c", "new text"));
  ASSERT_TRUE(out.commit());
  EXPECT_EQ(fs::last_write_time(dir_ / "same.h"), past);   // what Ninja's restat looks at
  EXPECT_NE(fs::last_write_time(dir_ / "changed.c"), past);
  EXPECT_EQ(read(dir_ / "changed.c"), "new text");
  EXPECT_EQ(listing(), (Names{"changed.c", "same.h"}));     // no temporary left behind
  EXPECT_EQ(out.destinations().size(), 2u);                 // both are still this run's outputs
}

TEST_F(OutputTransactionTest, WithoutKeepIdenticalEveryDestinationIsRewritten) {
  write(dir_ / "same.h", "unchanged text");
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(dir_ / "same.h", past);
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "same.h", "unchanged text"));
  ASSERT_TRUE(out.commit());
  EXPECT_NE(fs::last_write_time(dir_ / "same.h"), past);
}

TEST_F(OutputTransactionTest, StagingAgainReplacesTheBytes) {
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "k.json", "first"));
  ASSERT_TRUE(out.stage(dir_ / "k.json", "second"));
  ASSERT_TRUE(out.commit());
  EXPECT_EQ(read(dir_ / "k.json"), "second");
  EXPECT_EQ(listing(), (Names{"k.json"}));
}

TEST_F(OutputTransactionTest, RollbackRemovesStaleOutputs) {
  write(dir_ / "k.cubin", "from an earlier run");
  write(dir_ / "unrelated.txt", "keep");
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "k.cubin", "new"));
  ASSERT_TRUE(out.stage(dir_ / "k.json", "new"));
  out.rollback();
  EXPECT_EQ(listing(), (Names{"unrelated.txt"}));
}

TEST_F(OutputTransactionTest, DestructorRollsBackWithoutCommit) {
  write(dir_ / "k.cubin", "from an earlier run");
  {
    OutputTransaction out;
    ASSERT_TRUE(out.stage(dir_ / "k.cubin", "new"));
  }
  EXPECT_EQ(listing(), Names{});
}

TEST_F(OutputTransactionTest, FailureMidCommitLeavesNothing) {
  fs::create_directories(dir_ / "b.json");   // a directory where an output should go
  write(dir_ / "c.json", "stale");
  OutputTransaction out;
  ASSERT_TRUE(out.stage(dir_ / "a.json", "a"));
  ASSERT_TRUE(out.stage(dir_ / "b.json", "b"));
  ASSERT_TRUE(out.stage(dir_ / "c.json", "c"));
  Status status = out.commit();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::OutputError);
  EXPECT_EQ(status.error().message, "cannot write '" + (dir_ / "b.json").string() + "': Is a directory");
  // a.json was renamed and is removed again, c.json's stale version goes, the directory stays.
  EXPECT_EQ(listing(), (Names{"b.json"}));
}

TEST_F(OutputTransactionTest, ParentIsAFile) {
  write(dir_ / "file", "");
  OutputTransaction out;
  Status status = out.stage(dir_ / "file/k.json", "x");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::OutputError);
  EXPECT_EQ(status.error().message.rfind("cannot create directory '" + (dir_ / "file").string() + "': ", 0), 0u)
      << status.error().message;
  EXPECT_EQ(listing(), (Names{"file"}));
}

TEST_F(OutputTransactionTest, UnwritableDirectory) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores directory permissions";
  fs::create_directories(dir_ / "ro");
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  OutputTransaction out;
  Status status = out.stage(dir_ / "ro/k.cubin", "x");
  fs::permissions(dir_ / "ro", fs::perms::owner_all);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::OutputError);
  EXPECT_EQ(status.error().message, "cannot write '" + (dir_ / "ro/k.cubin").string() + "': Permission denied");
  EXPECT_EQ(listing(), (Names{"ro"}));
}

} // namespace
} // namespace tta
