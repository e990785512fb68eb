// A library linked with a tuning table (rt_tuned.tuning.json: vector_add tuned for cuda:80 only)
// through the real runtime and the fake driver: on a device that runs the sm_80 cubin, p_K runs
// the config the table gives n_elements; on sm_90, whose cubin is the untuned 90a one, the
// first config. TRITON_AOT_LOG names the config each launch picked.
#include "child_process.h"
#include "runtime_fixture.h"

#include <rt_tuned.h>

#include <string>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

class TunedRuntime : public RuntimeTest {
protected:
  void TearDown() override {
    EXPECT_EQ(rtt_unload(), TRITON_AOT_SUCCESS) << rtt_last_error();
    RuntimeTest::TearDown();
  }
  /// The block size of each launch: 64 threads is b256 (2 warps), 128 is b1024 (4 warps).
  std::vector<unsigned> blocks() const {
    std::vector<unsigned> out;
    for (const auto &launch : launches())
      out.push_back(launch.block[0]);
    return out;
  }
};

TEST_F(TunedRuntime, TheDevicesTargetPicksTheTableAndTheSizePicksTheConfig) {
  useCudaDevices("sm_86,sm_90");
  selectDevice(0);   // sm_86 runs the sm_80 cubin: tuned
  for (std::int32_t n : {16, 1024, 32752, 32768, 1 << 20})
    ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, n), TRITON_AOT_SUCCESS) << rtt_last_error();
  // The boundary between 1024 and 1048576 is their geometric mean, 32768.
  EXPECT_EQ(blocks(), (std::vector<unsigned>{64, 64, 64, 128, 128}));
  EXPECT_EQ(rtt_vector_add_select_config("cuda:80", kX, kY, kOut, 16), rtt_vector_add_CONFIG_b256);
  EXPECT_EQ(rtt_vector_add_select_config("cuda:90a", kX, kY, kOut, 16), rtt_vector_add_CONFIG_b1024);

  selectDevice(1);   // sm_90 runs the 90a cubin: not tuned, the first config
  ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, 16), TRITON_AOT_SUCCESS) << rtt_last_error();
  EXPECT_EQ(blocks().back(), 128u);
  EXPECT_EQ(launches().back().device, 1);
}

// The tuned entry asks the driver for the context once: its target query's answer goes to the
// launch. Asked anew on each call, so a launch after another context is made current goes there.
TEST_F(TunedRuntime, ATunedLaunchAsksTheDriverOnceForItsContext) {
  useCudaDevices("sm_86,sm_90");
  for (int device : {0, 1, 0}) {
    SCOPED_TRACE("device " + std::to_string(device));
    selectDevice(device);
    ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, 16), TRITON_AOT_SUCCESS) << rtt_last_error();
    const int ids = cuda.callCount("cuCtxGetId"), current = cuda.callCount("cuCtxGetCurrent");
    const std::size_t before = launches().size();
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, 16), TRITON_AOT_SUCCESS) << rtt_last_error();
    EXPECT_EQ(cuda.callCount("cuCtxGetId") - ids, 10) << "one context id per tuned launch";
    EXPECT_EQ(cuda.callCount("cuCtxGetCurrent") - current, 0);
    const std::vector<tta_fake_launch> all = launches();
    ASSERT_EQ(all.size(), before + 10);
    for (std::size_t i = before; i < all.size(); ++i) EXPECT_EQ(all[i].device, device);
  }
  // _config has no target query: its launch asks for the context itself, once (after its
  // first launch in the context, which loads).
  for (int i = 0; i < 2; ++i) {
    const int ids = cuda.callCount("cuCtxGetId");
    ASSERT_EQ(rtt_vector_add_config(nullptr, rtt_vector_add_CONFIG_b1024, kX, kY, kOut, 16),
              TRITON_AOT_SUCCESS)
        << rtt_last_error();
    if (i == 1) {
      EXPECT_EQ(cuda.callCount("cuCtxGetId") - ids, 1);
    }
    EXPECT_EQ(launches().back().device, 0);
  }
}

TEST(TunedRuntimeLog, TritonAotLogNamesTheConfigEachLaunchPicked) {
  ChildResult child = runChild("tuned-log", "ChildTunedLog.TwoDevices",
                               {"TRITON_AOT_LOG=1", "TTA_FAKE_CUDA_DEVICES=sm_86,sm_90"});
  ASSERT_TRUE(child.passedOne()) << child.describe();
  EXPECT_NE(child.err.find("triton-aot: rtt_vector_add: config 1 (b256), tuned for sm_80\n"),
            std::string::npos)
      << child.err;
  EXPECT_NE(child.err.find("triton-aot: rtt_vector_add: config 0 (b1024), the default: no tuning "
                           "for this device's target\n"),
            std::string::npos)
      << child.err;
}

TEST(ChildTunedLog, TwoDevices) {
  if (!childMode("tuned-log")) GTEST_SKIP() << "runs in the child process TunedRuntimeLog starts";
  ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, 16), TRITON_AOT_SUCCESS) << rtt_last_error();
  ASSERT_EQ(fakeCuda().setCurrentDevice(1), 0);
  ASSERT_EQ(rtt_vector_add(nullptr, kX, kY, kOut, 16), TRITON_AOT_SUCCESS) << rtt_last_error();
  EXPECT_EQ(rtt_unload(), TRITON_AOT_SUCCESS);
}

} // namespace
} // namespace tta::test
