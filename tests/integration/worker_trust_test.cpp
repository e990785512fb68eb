// Workers and the code they run (docs/security.md, "Workers"): a warm worker that ran one
// project's kernel code never compiles another project's; a kernel whose import never returns
// is stopped after the time limit with an error naming it, and its worker does not outlive the
// run; a kernel module that ends its worker (os._exit, SIGKILL) is named as such, not as a
// crash of Triton. Each with the worker pool and without it.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testWorkDir;

namespace tta {
namespace {

/// A kernel module that runs \p atImport when it is imported (after noting the worker's pid in
/// pids.log beside it).
std::string kernelModule(const std::string &atImport) {
  return R"(import os
import signal
import time

import triton
import triton.language as tl

with open(os.path.join(os.path.dirname(__file__), "pids.log"), "a") as log:
    log.write(f"{os.getpid()}\n")
)" + atImport + R"(

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)
)";
}

/// The line of kernelModule()'s text at which \p atImport starts.
constexpr int kAtImportLine = 10;

std::vector<long> pidsIn(const fs::path &log) {
  std::vector<long> pids;
  std::ifstream in(log);
  for (long pid; in >> pid;)
    pids.push_back(pid);
  return pids;
}

/// Whether process \p pid has ended (gone, or a zombie its parent has not reaped yet), waiting up
/// to \p seconds for it.
bool ended(long pid, int seconds = 10) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  do {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text))
      return true;
    std::size_t close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

class WorkerTrust : public ::testing::Test {
protected:
  fs::path dir, pools;

  void SetUp() override {
    dir = testWorkDir() / ("trust_" + std::string(::testing::UnitTest::GetInstance()
                                                      ->current_test_info()
                                                      ->name()));
    fs::remove_all(dir);
    pools = dir / "pools";
    fs::create_directories(pools);
    fs::permissions(pools, fs::perms::owner_all, fs::perm_options::replace);
  }

  /// A project directory with the kernel module (kernels/scaled.py), which names the project in
  /// a comment: two projects' modules differ, so no cache answers one with the other's work.
  fs::path project(const std::string &name, const std::string &atImport = "") {
    fs::create_directories(dir / name / "kernels");
    std::ofstream(dir / name / "kernels" / "scaled.py") << kernelModule(atImport) << "# " << name
                                                        << "\n";
    return dir / name;
  }

  /// One compile of scaled.py in \p root (BLOCK: a new specialization each time, so the cache
  /// never answers), run in \p cwd, with the pool unless \p env says otherwise.
  RunResult compile(const fs::path &cwd, const fs::path &kernelFile, int block,
                    std::vector<std::string> args = {}, std::vector<std::string> env = {}) {
    env.push_back("TRITON_AOT_WORKER_POOL_DIR=" + pools.string());
    env.push_back("TRITON_AOT_WORKER_IDLE=60");   // outlives the slowest run between two
    std::vector<std::string> all = {"--python", testPython(), kernelFile.string(), "-n",
                                    "scale_kernel", "-s",
                                    "*fp32:16, *fp32:16, i32, " + std::to_string(block), "-g",
                                    "cdiv(n, BLOCK)", "-t", "cuda:80", "-o",
                                    (cwd / "out" / "").string(), "-j", "1"};
    all.insert(all.end(), args.begin(), args.end());
    return run(TTA_COMPILER, all, cwd, env);
  }
};

TEST_F(WorkerTrust, TwoProjectsBuiltOneAfterTheOtherNeverShareAWorker) {
  const fs::path a = project("project_a"), b = project("project_b");
  // As CMake builds them: each with its own --source-root.
  RunResult first = compile(a, a / "kernels" / "scaled.py", 1024, {"--source-root", a.string()});
  ASSERT_EQ(first.status, 0) << first.err;
  RunResult second = compile(b, b / "kernels" / "scaled.py", 1024, {"--source-root", b.string()});
  ASSERT_EQ(second.status, 0) << second.err;
  // Project A again, its module edited (so a warm worker imports it again): the pool does
  // keep A's worker for A, which is what a shared pool would have handed B.
  std::ofstream(a / "kernels" / "scaled.py", std::ios::app) << "# edited\n";
  RunResult third = compile(a, a / "kernels" / "scaled.py", 512, {"--source-root", a.string()});
  ASSERT_EQ(third.status, 0) << third.err;

  const std::vector<long> pidsA = pidsIn(a / "kernels" / "pids.log");
  const std::vector<long> pidsB = pidsIn(b / "kernels" / "pids.log");
  ASSERT_EQ(pidsA.size(), 2u);
  ASSERT_EQ(pidsB.size(), 1u);
  EXPECT_EQ(pidsA[0], pidsA[1]) << "project A's second run leased A's warm worker";
  EXPECT_NE(pidsB[0], pidsA[0]) << "project B got a worker that ran project A's code";
}

TEST_F(WorkerTrust, WithoutASourceRootTheKernelsDirectoryIsTheProject) {
  const fs::path a = project("project_a"), b = project("project_b");
  // Both runs from the same working directory, naming the kernel files only.
  ASSERT_EQ(compile(dir, a / "kernels" / "scaled.py", 1024).status, 0);
  RunResult second = compile(dir, b / "kernels" / "scaled.py", 512);
  ASSERT_EQ(second.status, 0) << second.err;
  const std::vector<long> pidsA = pidsIn(a / "kernels" / "pids.log");
  const std::vector<long> pidsB = pidsIn(b / "kernels" / "pids.log");
  ASSERT_EQ(pidsA.size(), 1u);
  ASSERT_EQ(pidsB.size(), 1u);
  EXPECT_NE(pidsA[0], pidsB[0]) << "the kernels of another directory ran in the same worker";
}

struct Mode {
  const char *name;
  std::vector<std::string> env;
};

const Mode kModes[] = {{"Pool", {}}, {"NoPool", {"TRITON_AOT_WORKER_POOL=0"}}};

class WorkerLimits : public WorkerTrust, public ::testing::WithParamInterface<Mode> {};

TEST_P(WorkerLimits, AnImportThatNeverReturnsIsStoppedAtTheLimitAndItsWorkerEnds) {
  const fs::path a = project("project", "while True:\n    time.sleep(0.05)\n");
  std::vector<std::string> env = GetParam().env;
  auto started = std::chrono::steady_clock::now();
  RunResult r = compile(a, a / "kernels" / "scaled.py", 1024, {"--compile-timeout", "3"}, env);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.status, 1) << r.err;   // a kernel error
  for (const char *part : {"kernels/scaled.py", "kernel 'scale_kernel'",
                           "did not finish within 3 s", "--compile-timeout",
                           "TRITON_AOT_COMPILE_TIMEOUT"})
    EXPECT_NE(r.err.find(part), std::string::npos) << "'" << part << "' in:\n" << r.err;
  // Located where it was stuck (the worker's stacks, asked before it was killed): the loop.
  EXPECT_TRUE(r.err.find("kernels/scaled.py:" + std::to_string(kAtImportLine) + ":") !=
                  std::string::npos ||
              r.err.find("kernels/scaled.py:" + std::to_string(kAtImportLine + 1) + ":") !=
                  std::string::npos)
      << r.err;
  EXPECT_LT(took, std::chrono::seconds(60)) << "the limit stopped it";
  const std::vector<long> pids = pidsIn(a / "kernels" / "pids.log");
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(ended(pids[0])) << "worker " << pids[0] << " is still running the stuck import";
}

TEST_P(WorkerLimits, AnInterruptedRunLeavesNoWorkerInAStuckImport) {
  const fs::path a = project("project", "time.sleep(3600)\n");
  std::vector<std::string> env = GetParam().env;
  env.push_back("TRITON_AOT_WORKER_POOL_DIR=" + pools.string());
  env.push_back("TRITON_AOT_WORKER_IDLE=60");
  const fs::path log = a / "kernels" / "pids.log";
  // Interrupted once the import is under way (it noted its worker's pid), as Ctrl-C would.
  RunResult r = tta::testing::runAndSignal(
      TTA_COMPILER,
      {"--python", testPython(), (a / "kernels" / "scaled.py").string(), "-n", "scale_kernel",
       "-s", "*fp32:16, *fp32:16, i32, 1024", "-g", "cdiv(n, BLOCK)", "-t", "cuda:80", "-o",
       (a / "out" / "").string(), "-j", "1"},
      a, SIGINT, [&] { return !pidsIn(log).empty(); }, env);
  EXPECT_EQ(r.status, 130) << r.err;
  const std::vector<long> pids = pidsIn(log);
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(ended(pids[0])) << "worker " << pids[0] << " still sleeps in the import";
}

TEST_P(WorkerLimits, TheEnvironmentSetsTheLimitAndABadValueIsAUsageError) {
  const fs::path a = project("project", "time.sleep(3600)\n");
  std::vector<std::string> env = GetParam().env;
  env.push_back("TRITON_AOT_COMPILE_TIMEOUT=2");
  RunResult r = compile(a, a / "kernels" / "scaled.py", 1024, {}, env);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("did not finish within 2 s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernels/scaled.py:" + std::to_string(kAtImportLine) + ":"),
            std::string::npos)
      << "at the sleep: " << r.err;
  const std::vector<long> pids = pidsIn(a / "kernels" / "pids.log");
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(ended(pids[0])) << "worker " << pids[0] << " outlived the run";

  env.back() = "TRITON_AOT_COMPILE_TIMEOUT=soon";
  RunResult bad = compile(a, a / "kernels" / "scaled.py", 1024, {}, env);
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("TRITON_AOT_COMPILE_TIMEOUT 'soon' is not a number of seconds"),
            std::string::npos)
      << bad.err;
  RunResult badOption = compile(a, a / "kernels" / "scaled.py", 1024, {"--compile-timeout", "-1"});
  EXPECT_EQ(badOption.status, 2) << badOption.err;
  EXPECT_NE(badOption.err.find("--compile-timeout '-1'"), std::string::npos) << badOption.err;
}

TEST_P(WorkerLimits, AModuleThatCallsOsExitIsNamedNotTriton) {
  const fs::path a = project("project", "os._exit(3)\n");
  RunResult r = compile(a, a / "kernels" / "scaled.py", 1024, {}, GetParam().env);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("kernels/scaled.py:" + std::to_string(kAtImportLine) + ":"),
            std::string::npos)
      << "points at the call: " << r.err;
  EXPECT_NE(r.err.find("ended the frontend worker with os._exit(3)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Triton crashed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("bug in triton-aot"), std::string::npos) << r.err;
}

TEST_P(WorkerLimits, AWorkerKilledBySigkillIsNamedAsSuchWithTheMemoryHint) {
  // What the out-of-memory killer does to a process.
  const fs::path a = project("project", "os.kill(os.getpid(), signal.SIGKILL)\n");
  RunResult r = compile(a, a / "kernels" / "scaled.py", 1024, {}, GetParam().env);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("was killed (SIGKILL)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out-of-memory killer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Triton crashed"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Workers, WorkerLimits, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<Mode> &param) {
                           return std::string(param.param.name);
                         });

} // namespace
} // namespace tta
