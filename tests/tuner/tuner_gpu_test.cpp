// triton-aot-tune on a real GPU (label gpu): tunes the test library (tune_kernels.json) and
// checks the table is sane: every config the device can run has a positive time, the others
// are null, the best is the fastest, the target is the device's. Skips without a CUDA driver or
// a device.
#include "tuner/cuda_session.h"
#include "tuner/tuner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace tta::tune {
namespace {

namespace fs = std::filesystem;

TEST(TunerOnGpu, TunesTheTestLibraryIntoASaneTable) {
  GpuDevice device;
  {
    auto session = CudaSession::open(0);
    if (!session)
      GTEST_SKIP() << session.error().message;
    device = (*session)->device();
  }

  fs::path dir = fs::path(TTA_TUNER_TEST_TMPDIR) / "gpu";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "tun.tune.json") << R"json({"schema": "triton-aot-tuning-spec",
    "version": 1, "kernels": [
    {"kernel": "vector_add", "key": ["n_elements"], "shapes": [[65536], [16777216]],
     "args": {"x_ptr": "n_elements", "y_ptr": "n_elements", "out_ptr": "n_elements"}},
    {"kernel": "rms_norm", "key": ["n_cols"], "shapes": [[1000]],
     "args": {"Y_ptr": "4096 * n_cols", "Y_row_stride": "n_cols", "X_ptr": "4096 * n_cols",
              "X_row_stride": "n_cols", "W_ptr": "n_cols", "eps": "1e-6"},
     "grid": ["4096", "1", "1"]}]})json";
  TuneOptions options;
  options.library = TTA_TUNER_TEST_LIBRARY;
  options.spec = (dir / "tun.tune.json").string();
  options.output = (dir / "tun.tuning.json").string();
  options.measure = {20, 5, 50};
  std::vector<std::string> progress;
  Status status = tuneAndWrite(options, [&](std::string_view line) {
    progress.emplace_back(line);
    std::printf("%s\n", progress.back().c_str());
  });
  ASSERT_TRUE(status) << formatDiagnostic(status.error());
  auto table = readTuningTable(options.output);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->kernels.size(), 2u);
  EXPECT_EQ(progress.size(), 2u * 3 + 1u * 2);
  for (const TunedKernel &kernel : table->kernels) {
    ASSERT_EQ(kernel.targets.size(), 1u);
    const TunedTarget &target = kernel.targets[0];
    EXPECT_EQ(target.device, device.name);
    EXPECT_EQ(target.target, targetForDevice(device.major, device.minor, {"cuda:80", "cuda:90a"}));
    for (const TunedShape &shape : target.shapes) {
      double fastest = INFINITY;
      for (const auto &[config, time] : shape.timesUs) {
        if (!time)
          continue;
        EXPECT_GT(*time, 0.5) << kernel.kernel << " " << config << ": a launch takes time";
        EXPECT_LT(*time, 1e5) << kernel.kernel << " " << config;
        fastest = std::min(fastest, *time);
      }
      ASSERT_TRUE(shape.timesUs.at(shape.best));
      EXPECT_EQ(*shape.timesUs.at(shape.best), fastest);
    }
  }
  const TunedShape &big = table->kernels[0].targets[0].shapes[1];
  EXPECT_FALSE(big.timesUs.at("blackwell")) << "built for no target";
  EXPECT_TRUE(big.timesUs.at("anywhere")) << "built for cuda:80 with PTX: runs everywhere";
  EXPECT_EQ(big.timesUs.at("hopper").has_value(), device.major == 9 && device.minor == 0);
  // 16 Mi floats in, 16 Mi floats out, 192 MiB: far slower than 64 Ki elements.
  EXPECT_GT(*big.timesUs.at("anywhere"),
            *table->kernels[0].targets[0].shapes[0].timesUs.at("anywhere"));
}

} // namespace
} // namespace tta::tune
