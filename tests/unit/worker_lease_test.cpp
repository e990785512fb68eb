#include "compiler/worker_lease.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace tta {
namespace {

const std::string kScript = "/nonexistent/frontend/triton_aot_worker.py";

std::string socketFor(const std::vector<std::string> &env, const std::string &python = "/py",
                      const std::string &project = "source root /src/a") {
  return workerPoolSocket("/pools", project, python, kScript, env);
}

TEST(WorkerPoolSocket, OneEnvironmentOnePool) {
  std::string base = socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/x/ptxas"});
  EXPECT_EQ(base.rfind("/pools/pool-", 0), 0u) << base;
  EXPECT_EQ(base.substr(base.size() - 5), ".sock");
  // Order does not matter; bookkeeping and triton-aot's own variables do not either.
  EXPECT_EQ(base, socketFor({"TRITON_PTXAS_PATH=/x/ptxas", "PATH=/bin"}));
  EXPECT_EQ(base, socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/x/ptxas", "PWD=/a", "OLDPWD=/b",
                             "SHLVL=3", "_=/usr/bin/ninja", "MAKEFLAGS=-j8 --jobserver-auth=3,4",
                             "TRITON_AOT_CACHE_DIR=/c", "TRITON_AOT_WORKER_IDLE=5"}));
}

// CMake's configure, which prepares the pool, leaves LC_ALL= and LC_MESSAGES= set empty after
// probing the compilers; the build it generates runs without them.
TEST(WorkerPoolSocket, AVariableSetEmptyCountsAsUnset) {
  std::string base = socketFor({"PATH=/bin"});
  EXPECT_EQ(base, socketFor({"PATH=/bin", "LC_ALL=", "LC_MESSAGES="}));
  EXPECT_NE(base, socketFor({"PATH=/bin", "LC_ALL=C"}));
}

TEST(WorkerPoolSocket, WhatAWorkerSeesSeparatesPools) {
  std::string base = socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/x/ptxas"});
  EXPECT_NE(base, socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/y/ptxas"}));
  EXPECT_NE(base, socketFor({"PATH=/bin"}));
  EXPECT_NE(base, socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/x/ptxas", "PYTHONPATH=/p"}));
  EXPECT_NE(base, socketFor({"PATH=/bin", "TRITON_PTXAS_PATH=/x/ptxas"}, "/other/python"));
}

TEST(WorkerPoolSocket, EachProjectHasItsOwnPool) {
  const std::vector<std::string> env = {"PATH=/bin"};
  std::string base = socketFor(env);
  EXPECT_EQ(base, socketFor(env, "/py", "source root /src/a"));
  EXPECT_NE(base, socketFor(env, "/py", "source root /src/b"));
  EXPECT_NE(base, socketFor(env, "/py", "kernel directories\n/src/a"));
}

class WorkerPoolDirectory : public ::testing::Test {
protected:
  fs::path dir = fs::temp_directory_path() / ("tta_pool_dir_" + std::to_string(::getpid()));
  void SetUp() override { fs::remove_all(dir); }
  void TearDown() override {
    ::unsetenv("TRITON_AOT_WORKER_POOL_DIR");
    fs::remove_all(dir);
  }
};

TEST_F(WorkerPoolDirectory, IsMadeForThisUserAlone) {
  ::setenv("TRITON_AOT_WORKER_POOL_DIR", dir.c_str(), 1);
  auto made = workerPoolDirectory();
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(*made, dir.string());
  struct stat st{};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(WorkerPoolDirectory, OneOthersCanWriteIsRefused) {
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::all, fs::perm_options::replace);
  ::setenv("TRITON_AOT_WORKER_POOL_DIR", dir.c_str(), 1);
  auto made = workerPoolDirectory();
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("of this user's alone"), std::string::npos)
      << made.error().message;
}

TEST_F(WorkerPoolDirectory, AFileInTheWayIsRefused) {
  { std::ofstream(dir.string()) << "x"; }
  ::setenv("TRITON_AOT_WORKER_POOL_DIR", dir.c_str(), 1);
  EXPECT_FALSE(workerPoolDirectory());
}

} // namespace
} // namespace tta
