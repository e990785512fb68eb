// triton-aot-tune end to end on a real linked library (tune_kernels.json: vector_add with a
// config built for every target, one for cuda:90a only and one for no target; rms_norm, which
// takes the caller's grid), launched through its config_argv entry points against the fake
// CUDA driver of tests/runtime. The fake's events read a virtual clock on which a kernel takes
// 1 ns per thread, so every time is known: vector_add's BLOCK=512 config runs twice the
// programs of BLOCK=1024.
#include "contract/sha256.h"
#include "fake_driver_handle.h"
#include "tuner/tuner.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tta::tune {
namespace {

namespace fs = std::filesystem;
using test::fakeCuda;

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const char *kSpec = R"json({"schema": "triton-aot-tuning-spec", "version": 1, "kernels": [
  {"kernel": "vector_add", "key": ["n_elements"], "shapes": [[4096], [1048576]],
   "args": {"x_ptr": "n_elements", "y_ptr": "n_elements", "out_ptr": "n_elements"}},
  {"kernel": "rms_norm", "key": ["n_cols"], "shapes": [[512], [1024]],
   "args": {"Y_ptr": "8 * n_cols", "Y_row_stride": "n_cols", "X_ptr": "8 * n_cols",
            "X_row_stride": "n_cols", "W_ptr": "n_cols", "eps": "1e-5"},
   "grid": ["cdiv(8 * n_cols, BLOCK_SIZE)", "1", "1"]}]})json";

class TunerOnFakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    if (!test::fakeCudaIsWhatDlopenFinds())
      GTEST_SKIP() << "dlopen(\"libcuda.so.1\") does not find the fake driver: run through CTest "
                      "or with LD_LIBRARY_PATH=" TTA_FAKE_DRIVER_DIR;
    dir_ = fs::path(TTA_TUNER_TEST_TMPDIR) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "tun.tune.json") << kSpec;
    options_.library = TTA_TUNER_TEST_LIBRARY;   // libtun.so: the prefix "tun" from the name
    options_.spec = (dir_ / "tun.tune.json").string();
    options_.output = (dir_ / "tun.tuning.json").string();
    options_.measure = {5, 0.01, 200};
    ASSERT_EQ(fakeCuda().reset("sm_90"), 0);
  }

  void TearDown() override {
    if (!test::fakeCudaIsWhatDlopenFinds())
      return;
    EXPECT_EQ(fakeCuda().misuseCount(), 0) << fakeCuda().firstMisuse();
    EXPECT_EQ(fakeCuda().liveAllocations(), 0) << "the tuner frees every buffer";
    EXPECT_EQ(fakeCuda().liveModules(), 0) << "the tuner unloads the library's images";
    auto live = reinterpret_cast<tta_fake_live_streams_and_events_fn>(
        fakeCuda().symbol("tta_fake_live_streams_and_events"));
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live(), 0) << "the tuner destroys its stream and events";
  }

  Status run() {
    return tuneAndWrite(options_, [&](std::string_view line) { progress_.emplace_back(line); });
  }

  fs::path dir_;
  TuneOptions options_;
  std::vector<std::string> progress_;
};

const TunedShape &shapeOf(const TunedTarget &target, std::int64_t key) {
  for (const TunedShape &shape : target.shapes)
    if (shape.key.front() == key)
      return shape;
  ADD_FAILURE() << "no shape " << key;
  return target.shapes.front();
}

TEST_F(TunerOnFakeDriver, TimesEveryConfigOfEveryShapeAndWritesTheTable) {
  Status status = run();
  ASSERT_TRUE(status) << formatDiagnostic(status.error());
  auto table = readTuningTable(options_.output);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->kernels.size(), 2u);

  const TunedKernel &add = table->kernels[0];
  EXPECT_EQ(add.kernel, "vector_add");
  EXPECT_EQ(add.key, std::vector<std::string>{"n_elements"});
  ASSERT_EQ(add.targets.size(), 1u);
  const TunedTarget &target = add.targets[0];
  EXPECT_EQ(target.target, "cuda:90a");
  EXPECT_EQ(target.device, "Fake GPU sm_90");
  EXPECT_EQ(target.library, "tune_kernels");
  EXPECT_FALSE(target.tritonVersion.empty());
  std::string manifest = readText(TTA_TUNER_TEST_MANIFEST);   // <lib>.json ends in a newline
  EXPECT_EQ(target.libraryHash, sha256Hex(manifest.substr(0, manifest.size() - 1)));
  EXPECT_EQ(target.source, "triton-aot-tune");
  EXPECT_EQ(target.method["repetitions"], 5);
  EXPECT_EQ(target.method["statistic"], "median");
  EXPECT_EQ(target.method["l2_flush"], true);
  ASSERT_EQ(target.shapes.size(), 2u);
  for (std::int64_t n : {4096, 1048576}) {
    const TunedShape &shape = shapeOf(target, n);
    ASSERT_EQ(shape.timesUs.size(), 3u) << "a time per config, refused ones null";
    ASSERT_TRUE(shape.timesUs.at("anywhere"));
    ASSERT_TRUE(shape.timesUs.at("hopper"));
    EXPECT_FALSE(shape.timesUs.at("blackwell")) << "built for no target: refused";
    // 128 threads per program, 1 ns each: n / 512 and n / 1024 programs.
    EXPECT_NEAR(*shape.timesUs.at("anywhere"), double(n) / 512 * 128 / 1000, 1e-3);
    EXPECT_NEAR(*shape.timesUs.at("hopper"), double(n) / 1024 * 128 / 1000, 1e-3);
    EXPECT_EQ(shape.best, "hopper");
  }

  const TunedKernel &rms = table->kernels[1];
  EXPECT_EQ(rms.kernel, "rms_norm");
  const TunedShape &rows = shapeOf(rms.targets.at(0), 1024);
  // The caller's grid cdiv(8 * n_cols, BLOCK_SIZE): 8 programs of 256 threads (wide) against
  // 16 of 64 (narrow).
  EXPECT_NEAR(*rows.timesUs.at("wide"), 8 * 256 / 1000.0, 1e-3);
  EXPECT_NEAR(*rows.timesUs.at("narrow"), 16 * 64 / 1000.0, 1e-3);
  EXPECT_EQ(rows.best, "narrow");
  bool sawCallerGrid = false;
  for (const tta_fake_launch &launch : fakeCuda().launches())
    sawCallerGrid |= std::string(launch.function).find("rms_norm") != std::string::npos &&
                     launch.grid[0] == 16 && launch.grid[1] == 1;
  EXPECT_TRUE(sawCallerGrid);

  ASSERT_EQ(progress_.size(), 10u);   // 2 shapes x 3 configs + 2 shapes x 2 configs
  // Declaration order (the library's indices), though hopper is built for one target only and
  // blackwell for none.
  EXPECT_EQ(progress_[0], "[1/10] vector_add n_elements=4096 hopper: 0.51 us");
  EXPECT_EQ(progress_[1].rfind("[2/10] vector_add n_elements=4096 blackwell: refused on this "
                               "device (", 0), 0u) << progress_[1];
  EXPECT_EQ(progress_[2], "[3/10] vector_add n_elements=4096 anywhere: 1.02 us");
}

TEST_F(TunerOnFakeDriver, LaunchesAsDoBenchDoes) {
  // On the virtual clock a 256 MiB flush takes 262.144 us and vector_add(4096) with BLOCK=512
  // 1.024 us: an estimate of 263.168 us per flushed launch. So: 1 first launch, 5 to estimate,
  // ceil(1 ms / 263.168 us) = 4 to warm up, and floor(0.6 ms / 263.168 us) = 2 timed (fewer
  // than the 5 repetitions).
  options_.kernels = {"vector_add"};
  options_.measure = {5, 1.0, 0.6};
  ASSERT_TRUE(run());
  int launches = 0;
  for (const tta_fake_launch &launch : fakeCuda().launches())
    launches += launch.result == 0 && launch.grid[0] == 4096 / 512;
  EXPECT_EQ(launches, 1 + 5 + 4 + 2);
}

TEST_F(TunerOnFakeDriver, TheLinkerTakesTheTable) {
  // The round trip of docs/tuning.md: the table the tuner wrote, linked into the same library
  // (every kernel, key, config and target name must match, or triton-aot-ld refuses it).
  ASSERT_TRUE(run());
  fs::path linked = dir_ / "linked";
  std::string command = "'" TTA_TUNER_TEST_LINKER "' --name tune_kernels --prefix tun -o '" +
                        linked.string() + "' '" TTA_TUNER_TEST_CC_INDEX "' --tuning '" +
                        options_.output + "' > '" + (dir_ / "link.log").string() + "' 2>&1";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << readText(dir_ / "link.log");
  std::string source = readText(linked / "tune_kernels.c");
  EXPECT_NE(source.find("_vector_add_tuned_config"), std::string::npos);
  EXPECT_NE(source.find("_rms_norm_tuned_config"), std::string::npos);
}

TEST_F(TunerOnFakeDriver, OnAnOlderGpuTheConfigsItCannotRunAreNull) {
  ASSERT_EQ(fakeCuda().reset("sm_80"), 0);
  options_.kernels = {"vector_add"};
  ASSERT_TRUE(run());
  auto table = readTuningTable(options_.output);
  ASSERT_TRUE(table);
  ASSERT_EQ(table->kernels.size(), 1u);
  const TunedTarget &target = table->kernels[0].targets.at(0);
  EXPECT_EQ(target.target, "cuda:80");
  const TunedShape &shape = shapeOf(target, 4096);
  EXPECT_FALSE(shape.timesUs.at("hopper"));
  EXPECT_FALSE(shape.timesUs.at("blackwell"));
  EXPECT_EQ(shape.best, "anywhere");
}

TEST_F(TunerOnFakeDriver, MergesIntoTheTableThatIsThere) {
  options_.kernels = {"vector_add"};
  ASSERT_TRUE(run());
  ASSERT_EQ(fakeCuda().reset("sm_80"), 0);
  ASSERT_TRUE(run());
  auto table = readTuningTable(options_.output);
  ASSERT_TRUE(table);
  ASSERT_EQ(table->kernels.size(), 1u);
  ASSERT_EQ(table->kernels[0].targets.size(), 2u) << "cuda:90a from the first run, cuda:80 now";
}

TEST_F(TunerOnFakeDriver, NoDeviceIsAnEnvironmentErrorAndWritesNothing) {
  ASSERT_EQ(fakeCuda().reset(""), 0);
  Status status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::EnvironmentError);
  EXPECT_NE(status.error().message.find("no usable device"), std::string::npos)
      << status.error().message;
  EXPECT_FALSE(fs::exists(options_.output));
}

TEST_F(TunerOnFakeDriver, AFailedLaunchFailsTheRunWithTheLibrarysMessage) {
  fakeCuda().fail("cuLaunchKernel", 700, 3, -1);   // CUDA_ERROR_ILLEGAL_ADDRESS after three launches
  Status status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::KernelError);
  EXPECT_NE(status.error().message.find("kernel vector_add, config "), std::string::npos)
      << status.error().message;
  EXPECT_NE(status.error().message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos)
      << status.error().message;
  EXPECT_FALSE(fs::exists(options_.output));
}

TEST_F(TunerOnFakeDriver, AKernelFaultSaysWhichKernelRan) {
  fakeCuda().fail("cuStreamSynchronize", 700, 0, -1);   // as a fault surfaces: at the next sync
  Status status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::KernelError);
  EXPECT_EQ(status.error().message, "kernel vector_add, config hopper, n_elements=4096: "
                                    "cuStreamSynchronize failed on device 0: "
                                    "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_FALSE(fs::exists(options_.output));
}

TEST_F(TunerOnFakeDriver, SpecErrorsAgainstTheLibraryNameTheFix) {
  std::ofstream(options_.spec) << R"json({"schema": "triton-aot-tuning-spec", "version": 1,
    "kernels": [{"kernel": "softmax", "key": ["n"], "shapes": [[1]], "args": {}}]})json";
  Status status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "kernel 'softmax' is not in library tune_kernels");
  ASSERT_EQ(status.error().notes.size(), 1u);
  EXPECT_EQ(status.error().notes[0], "its kernels are vector_add, rms_norm");

  options_.kernels = {"matmul"};
  status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "--kernel matmul: the spec has no kernel of that name");
  options_.kernels.clear();

  options_.prefix = "nope";
  status = run();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "the library exports no nope_manifest() and "
                                    "nope_last_error(): not a triton-aot library of prefix 'nope'");
  EXPECT_FALSE(fs::exists(options_.output));
}

} // namespace
} // namespace tta::tune
