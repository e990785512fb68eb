// The worker pool (compiler/frontend/worker_pool.py, compiler/worker_lease.h): runs of
// triton-aot-cc lease warm workers, so a kernel module is imported once per worker, not once
// per run; an edited module or an upgraded package is imported afresh; a pool that cannot be
// used costs nothing but the warm start.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testWorkDir;

namespace tta {
namespace {

/// A kernel module that notes every import of itself (and of `slowpkg`, a package that
/// stands for torch) in imports.log beside it.
constexpr const char *kKernelModule = R"(import os
import time

import slowpkg
import triton
import triton.language as tl

with open(os.path.join(os.path.dirname(__file__), "imports.log"), "a") as log:
    log.write("scaled.py\n")

SCALE = tl.constexpr(2.0)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)
)";

class WorkerPool : public ::testing::Test {
protected:
  fs::path dir, pools, packages;

  void SetUp() override {
    dir = testWorkDir() / ("pool_" + std::string(::testing::UnitTest::GetInstance()
                                                     ->current_test_info()
                                                     ->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "site-packages" / "slowpkg");
    pools = dir / "pools";
    fs::create_directory(pools);
    fs::permissions(pools, fs::perms::owner_all, fs::perm_options::replace);
    // A directory named site-packages on the path counts as installed, not as the project's.
    packages = dir / "site-packages";
    writePackage("VERSION = 1\n");
    std::ofstream(dir / "scaled.py") << kKernelModule;
  }

  void writePackage(const std::string &text) {
    std::ofstream(packages / "slowpkg" / "__init__.py")
        << "import os\n"
        << "with open(os.path.join(os.path.dirname(__file__), 'imports.log'), 'a') as log:\n"
        << "    log.write('slowpkg\\n')\n"
        << text;
  }

  /// One compile of a new specialization (BLOCK), so the cache never answers it.
  RunResult compileBlock(int block, std::vector<std::string> env = {},
                         const std::vector<std::string> &extraArgs = {}) {
    env.push_back("TRITON_AOT_WORKER_POOL_DIR=" + pools.string());
    env.push_back("TRITON_AOT_WORKER_IDLE=5");
    env.push_back("PYTHONPATH=" + packages.string());
    std::vector<std::string> args = {"--python", testPython(), "scaled.py", "-n", "scale_kernel",
                                     "-s", "*fp32:16, *fp32:16, i32, " + std::to_string(block),
                                     "-g", "cdiv(n, BLOCK)", "-t", "cuda:80", "-o", "out/",
                                     "-j", "1", "-v"};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    return run(TTA_COMPILER, args, dir, env);
  }

  static int lines(const fs::path &log) {
    std::ifstream in(log);
    int count = 0;
    for (std::string line; std::getline(in, line);)
      ++count;
    return count;
  }
  int moduleImports() { return lines(dir / "imports.log"); }
  int packageImports() { return lines(packages / "slowpkg" / "imports.log"); }
};

TEST_F(WorkerPool, ASecondRunUsesTheWorkerWithItsImports) {
  RunResult first = compileBlock(1024);
  ASSERT_EQ(first.status, 0) << first.err;
  RunResult second = compileBlock(512);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(moduleImports(), 1);
  EXPECT_EQ(packageImports(), 1);
  EXPECT_EQ(second.err.find("starting workers directly"), std::string::npos) << second.err;
}

TEST_F(WorkerPool, WithoutThePoolEveryRunImportsAgain) {
  ASSERT_EQ(compileBlock(1024, {"TRITON_AOT_WORKER_POOL=0"}).status, 0);
  RunResult second = compileBlock(512, {"TRITON_AOT_WORKER_POOL=0"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(moduleImports(), 2);
  EXPECT_EQ(packageImports(), 2);
  EXPECT_TRUE(fs::is_empty(pools));
}

TEST_F(WorkerPool, AnEditedKernelModuleIsImportedAgainAndCompiledAsEdited) {
  ASSERT_EQ(compileBlock(1024).status, 0);
  std::string text = readText(dir / "scaled.py");
  text.replace(text.find("SCALE = tl.constexpr(2.0)"), 25, "SCALE = tl.constexpr(3.0)  # edited");
  std::ofstream(dir / "scaled.py") << text;
  RunResult second = compileBlock(512, {}, {"--emit-ir", "ir"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(moduleImports(), 2);
  EXPECT_EQ(packageImports(), 1);   // the package did not change: still warm
  // The edited constant is what was compiled.
  std::string ttir;
  for (auto &entry : fs::recursive_directory_iterator(dir / "ir"))
    if (entry.path().extension() == ".ttir")
      ttir += readText(entry.path());
  EXPECT_NE(ttir.find("3.000000e+00"), std::string::npos) << ttir;
  EXPECT_EQ(ttir.find("2.000000e+00"), std::string::npos) << ttir;
}

TEST_F(WorkerPool, AnUpgradedPackageGetsAFreshWorker) {
  ASSERT_EQ(compileBlock(1024).status, 0);
  writePackage("VERSION = 2  # upgraded\n");
  RunResult second = compileBlock(512);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(packageImports(), 2);
  EXPECT_EQ(moduleImports(), 2);
}

TEST_F(WorkerPool, EachRunKeepsItsOwnTritonCache) {
  ASSERT_EQ(compileBlock(1024, {"TRITON_AOT_CACHE_DIR=" + (dir / "cache-a").string()}).status, 0);
  RunResult second =
      compileBlock(512, {"TRITON_AOT_CACHE_DIR=" + (dir / "cache-b").string()});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(moduleImports(), 1);
  for (const char *cache : {"cache-a", "cache-b"}) {
    SCOPED_TRACE(cache);
    ASSERT_TRUE(fs::is_directory(dir / cache / "triton"));
    EXPECT_FALSE(fs::is_empty(dir / cache / "triton"));
  }
}

TEST_F(WorkerPool, ADirectoryOthersCanWriteIsNotUsed) {
  fs::permissions(pools, fs::perms::owner_all | fs::perms::group_all | fs::perms::others_all,
                  fs::perm_options::replace);
  RunResult first = compileBlock(1024);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("must be a directory of this user's alone"), std::string::npos)
      << first.err;
  EXPECT_NE(first.err.find("starting workers directly"), std::string::npos) << first.err;
  EXPECT_TRUE(fs::is_empty(pools));
}

/// The pool sockets in the pool directory.
int socketCount(const fs::path &pools) {
  int count = 0;
  for (const auto &entry : fs::directory_iterator(pools))
    count += entry.path().extension() == ".sock";
  return count;
}

/// Waits (a minute at most) for a pool's log in \p pools to hold \p text.
bool poolLogSays(const fs::path &pools, const std::string &text) {
  for (int tries = 0; tries < 600; ++tries) {
    for (const auto &entry : fs::directory_iterator(pools))
      if (entry.path().extension() == ".log" &&
          readText(entry.path()).find(text) != std::string::npos)
        return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

/// Waits (a minute at most) for the installation record under \p cache.
bool installationRecorded(const fs::path &cache) {
  for (int tries = 0; tries < 600; ++tries) {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(cache / "installations", ec))
      if (entry.path().extension() == ".json")
        return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// What CMake's configure runs: the project's pool forks its workers before the first run, from
// a zygote that compiled for the target first, and the run leases one of them; the installation
// is learned meanwhile, so the first run recalls it.
TEST_F(WorkerPool, PreparedWorkersServeTheFirstRun) {
  const fs::path cache = dir / "cache";
  const std::vector<std::string> env = {"TRITON_AOT_WORKER_POOL_DIR=" + pools.string(),
                                        "TRITON_AOT_WORKER_IDLE=5",
                                        "PYTHONPATH=" + packages.string()};
  RunResult prepared = run(TTA_COMPILER,
                           {"--prepare-workers", "--source-root", dir.string(), "--python",
                            testPython(), "-t", "cuda:80", "-j", "1", "--cache-dir",
                            cache.string(), "-v"},
                           dir, env);
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  EXPECT_NE(prepared.err.find("prepares 1 worker(s)"), std::string::npos) << prepared.err;
  EXPECT_NE(prepared.err.find("learning the Python installation in the background"),
            std::string::npos)
      << prepared.err;
  EXPECT_EQ(socketCount(pools), 1);
  // Once its zygote has warmed up, the pool forks the workers and says so in its log; a run
  // before then would stop the warm-up (it waits for no more than one compile).
  ASSERT_TRUE(poolLogSays(pools, "1 worker(s) prepared")) << "the pool never said so";
  ASSERT_TRUE(installationRecorded(cache)) << "no installation record under " << cache;
  RunResult first = compileBlock(1024, {"TRITON_AOT_CACHE_DIR=" + cache.string()},
                                 {"--source-root", dir.string()});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("was prepared before the run, warmed up for cuda:80"),
            std::string::npos)
      << first.err;
  EXPECT_EQ(first.err.find("learning the Python installation"), std::string::npos) << first.err;
  EXPECT_EQ(socketCount(pools), 1);   // the run's pool is the one prepared
  EXPECT_EQ(moduleImports(), 1);
}

TEST_F(WorkerPool, PreparingWithoutACacheLearnsNothing) {
  RunResult prepared = run(TTA_COMPILER,
                           {"--prepare-workers", "--source-root", dir.string(), "--python",
                            testPython(), "-t", "cuda:80", "-j", "1", "-v"},
                           dir,
                           {"TRITON_AOT_WORKER_POOL_DIR=" + pools.string(),
                            "TRITON_AOT_WORKER_IDLE=5"});
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  EXPECT_EQ(prepared.err.find("learning"), std::string::npos) << prepared.err;
  EXPECT_FALSE(fs::exists(dir / ".triton-aot-cache"));
}

TEST_F(WorkerPool, AWorkerOfAPoolNotPreparedSaysNothingOfIt) {
  RunResult first = compileBlock(1024, {}, {"--source-root", dir.string()});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.err.find("was prepared"), std::string::npos) << first.err;
}

TEST_F(WorkerPool, PreparingWithoutThePoolDoesNothing) {
  RunResult prepared =
      run(TTA_COMPILER,
          {"--prepare-workers", "--source-root", dir.string(), "--python", testPython(), "-t",
           "cuda:80", "-v"},
          dir, {"TRITON_AOT_WORKER_POOL_DIR=" + pools.string(), "TRITON_AOT_WORKER_POOL=0"});
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  EXPECT_NE(prepared.err.find("no workers to prepare"), std::string::npos) << prepared.err;
  EXPECT_TRUE(fs::is_empty(pools));
}

TEST_F(WorkerPool, PreparingNeedsAProjectAndNoKernel) {
  RunResult noRoot = run(TTA_COMPILER, {"--prepare-workers", "-t", "cuda:80"}, dir);
  EXPECT_EQ(noRoot.status, 2);
  EXPECT_NE(noRoot.err.find("--prepare-workers needs --source-root"), std::string::npos)
      << noRoot.err;
  RunResult withKernel = run(TTA_COMPILER,
                             {"--prepare-workers", "--source-root", dir.string(), "scaled.py",
                              "-n", "scale_kernel", "-t", "cuda:80"},
                             dir);
  EXPECT_EQ(withKernel.status, 2);
  EXPECT_NE(withKernel.err.find("--prepare-workers compiles nothing"), std::string::npos)
      << withKernel.err;
}

} // namespace
} // namespace tta
