// The triton-aot-tune program: exit statuses, what it prints, and the file it writes, run as a
// user runs it (against the fake CUDA driver, which LD_LIBRARY_PATH names).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct ToolRun {
  int status = -1;
  std::string output;   // stdout and stderr
};

ToolRun runTool(const std::string &arguments, const std::string &environment = "") {
  std::string command = environment + " '" TTA_TUNER_TEST_TOOL "' " + arguments + " 2>&1";
  ToolRun run;
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return run;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    run.output.append(buffer.data(), n);
  int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class TuneCommand : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::path(TTA_TUNER_TEST_TMPDIR) / "command" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "tun.tune.json") << R"json({"schema": "triton-aot-tuning-spec",
      "version": 1, "kernels": [{"kernel": "vector_add", "key": ["n_elements"],
      "shapes": [[4096]], "args": {"x_ptr": "n_elements", "y_ptr": "n_elements",
      "out_ptr": "n_elements"}}]})json";
    args_ = "--library '" TTA_TUNER_TEST_LIBRARY "' --spec '" + (dir_ / "tun.tune.json").string() +
            "' --output '" + (dir_ / "tun.tuning.json").string() + "' --repetitions 3";
  }
  fs::path dir_;
  std::string args_;
};

TEST_F(TuneCommand, WritesTheTableAndSaysWhatItTimed) {
  ToolRun run = runTool(args_, "TTA_FAKE_CUDA_DEVICES=sm_90");
  EXPECT_EQ(run.status, 0) << run.output;
  // In declaration order: hopper (not built for cuda:80) and blackwell (built for no target)
  // keep their places before anywhere, and each time is its own config's.
  EXPECT_EQ(run.output.rfind("[1/3] vector_add n_elements=4096 hopper: 0.51 us\n"
                             "[2/3] vector_add n_elements=4096 blackwell: refused on this device",
                             0),
            0u)
      << run.output;
  EXPECT_NE(run.output.find("[3/3] vector_add n_elements=4096 anywhere: 1.02 us\n"),
            std::string::npos)
      << run.output;
  EXPECT_TRUE(fs::exists(dir_ / "tun.tuning.json"));
}

TEST_F(TuneCommand, TheImportRunsInsteadOfTimingAndNeedsNoGpu) {
  ToolRun run = runTool("--import-triton-cache '" + dir_.string() + "' --manifest '" +
                            (dir_ / "missing.json").string() + "' --kernel vector_add --target " +
                            "cuda:90a --output '" + (dir_ / "tun.tuning.json").string() + "'",
                        "TTA_FAKE_CUDA_DEVICES=");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("missing.json"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(dir_ / "tun.tuning.json"));
}

TEST_F(TuneCommand, UsageErrorsExitWith2) {
  ToolRun run = runTool("");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.output, "triton-aot-tune: error: missing --library: the shared library to tune "
                        "(built by triton-aot)\nnote: run 'triton-aot-tune --help' for the options\n");
  std::ofstream(dir_ / "tun.tune.json") << "{}";
  run = runTool(args_);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.output, (dir_ / "tun.tune.json").string() +
                            ": error: schema must be \"triton-aot-tuning-spec\"\nnote: the tuning "
                            "spec's format is in docs/tuning.md, \"The tuning spec\"\n");
  EXPECT_FALSE(fs::exists(dir_ / "tun.tuning.json"));
}

TEST_F(TuneCommand, NoDeviceExitsWith3AndWritesNothing) {
  ToolRun run = runTool(args_, "TTA_FAKE_CUDA_DEVICES=");
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.output.rfind("triton-aot-tune: error: the CUDA driver has no usable device: cuInit "
                             "failed on device 0: CUDA_ERROR_NO_DEVICE\n", 0),
            0u)
      << run.output;
  EXPECT_FALSE(fs::exists(dir_ / "tun.tuning.json"));
}

} // namespace
