// A build starts its longest compiles first: each compile's time is recorded in the cache by the
// job's name (not its sources' contents), and the next build of the same jobs, also after an
// edit, orders its compiles longest first (the floor of a build is max(sum / workers, longest):
// a long compile started last makes the run longer than that).
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::readText;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

/// dir/spec.json declaring a short compile (add.py) and a long one (mm.py: a dot, four
/// stages) for cuda:90a, the long one first when \p longFirst.
void writeShortAndLongSpec(const fs::path &dir, bool longFirst) {
  fs::copy_file(kernel("vector_add.py"), dir / "add.py");
  fs::copy_file(kernel("matmul_fp16.py"), dir / "mm.py");
  nlohmann::json add = {{"source", "add.py"}, {"function", "add_kernel"},
                        {"signatures", {"*fp32, *fp32, *fp32, i32, 64"}}};
  nlohmann::json mm = {
      {"source", "mm.py"}, {"function", "matmul_kernel"},
      {"signatures", {"*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, "
                      "i32, 128, 128, 64"}},
      {"configs", {"num_warps=8 num_stages=4"}}};
  nlohmann::json kernels = longFirst ? nlohmann::json{mm, add} : nlohmann::json{add, mm};
  std::ofstream(dir / "spec.json") << nlohmann::json{{"targets", {"cuda:90a"}},
                                                     {"kernels", kernels}}.dump(2);
}

TEST(BuildOrder, TheNextBuildCompilesTheLongestFirstEvenAfterAnEdit) {
  fs::path dir = freshDir("build_order", "edit");
  writeShortAndLongSpec(dir, false);   // the short compile declared first
  const std::vector<std::string> args = {"--spec",      (dir / "spec.json").string(),
                                         "-o",          (dir / "out").string() + "/",
                                         "--cache-dir", (dir / "cache").string(),
                                         "-j",          "1",
                                         "-v",          "--no-ptx"};
  RunResult first = runCompiler(args, dir);
  ASSERT_EQ(first.status, 0) << first.err;
  const std::size_t addFirst = first.err.find("compiled: add_kernel");
  ASSERT_NE(addFirst, std::string::npos) << first.err;
  EXPECT_LT(addFirst, first.err.find("compiled: matmul_kernel")) << "declaration order at first";

  for (const char *file : {"add.py", "mm.py"})
    std::ofstream(dir / file, std::ios::app) << "\n# edited\n";
  RunResult second = runCompiler(args, dir);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.err.find("compiling the longest first: 2 of 2 compile times known"),
            std::string::npos)
      << second.err;
  const std::size_t mm = second.err.find("compiled: matmul_kernel");
  ASSERT_NE(mm, std::string::npos) << second.err;
  EXPECT_LT(mm, second.err.find("compiled: add_kernel")) << second.err;
}

TEST(BuildOrder, AWorkerWithNothingLeftEndsWhileTheLongestCompiles) {
  // The run's last requests: once the queue is empty, an idle worker is told to end (EOF on its
  // stdin), so that workers do not all end together after the last compile.
  fs::path dir = freshDir("build_order", "release");
  writeShortAndLongSpec(dir, true);
  RunResult r = runCompiler({"--spec", (dir / "spec.json").string(), "-o",
                             (dir / "out").string() + "/", "-j", "2", "-v", "--no-ptx",
                             "--no-worker-pool"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t add = r.err.find("compiled: add_kernel");
  const std::size_t released = r.err.find("released: nothing was left for it");
  const std::size_t mm = r.err.find("compiled: matmul_kernel");
  ASSERT_NE(add, std::string::npos) << r.err;
  ASSERT_NE(mm, std::string::npos) << r.err;
  EXPECT_LT(add, released) << r.err;
  EXPECT_LT(released, mm) << "the add worker ended while the matmul compiled:\n" << r.err;
  EXPECT_TRUE(fs::exists(dir / "out")) << r.err;
}

} // namespace
} // namespace tta
