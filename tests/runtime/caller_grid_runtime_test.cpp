// A kernel compiled without a grid (rms_norm, one program per row in Liger-Kernel's style): the
// caller's grid reaches the driver as given; a zero dimension launches nothing and succeeds; a
// dimension above the limits every CUDA device has is refused before the driver, naming the
// device's own limit (asked of the driver then), and one the driver refuses below them (a device
// with less) is reported the same way. A first launch asks the driver for nothing but the
// compute capability: the name and the limits wait until a message or a grid needs them.
#include "cuda_api.h"
#include "runtime_fixture.h"

namespace tta::test {
namespace {

const void *kY = devicePointer(0x7f0000100000);
const void *kX = devicePointer(0x7f0000200000);
const void *kW = devicePointer(0x7f0000300000);

triton_aot_status rmsNorm(uint32_t x, uint32_t y, uint32_t z) {
  return rt_kernels_rms_norm(streamHandle(0x77), x, y, z, kY, 1000, kX, 1000, kW, 1000, 1e-6f);
}

using CallerGrid = RuntimeTest;

TEST_F(CallerGrid, TheCallersGridIsLaunchedWithTheArgumentsAfterIt) {
  useCudaDevices("sm_80");
  ASSERT_EQ(rmsNorm(4096, 1, 1), TRITON_AOT_SUCCESS) << lastError();
  const tta_fake_launch launch = onlyLaunch();
  EXPECT_EQ(launch.grid[0], 4096u) << "one program per row";
  EXPECT_EQ(launch.grid[1], 1u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.stream, 0x77u);
  ASSERT_EQ(launch.param_count, 9u) << "7 parameters (BLOCK_SIZE compiled in), two scratch";
  EXPECT_EQ(paramBytes(launch, 0), bytesOf(kY));
  EXPECT_EQ(paramBytes(launch, 1), bytesOf(int32_t{1000}));
  EXPECT_EQ(paramBytes(launch, 2), bytesOf(kX));
  EXPECT_EQ(paramBytes(launch, 4), bytesOf(kW));
  EXPECT_EQ(paramBytes(launch, 6), bytesOf(1e-6f));
}

TEST_F(CallerGrid, TheConfigVariantTakesTheGridAfterTheConfig) {
  useCudaDevices("sm_90");
  ASSERT_EQ(rt_kernels_rms_norm_config(nullptr, 0, 3, 2, 5, kY, 8, kX, 8, kW, 8, 0.5f),
            TRITON_AOT_SUCCESS)
      << lastError();
  const tta_fake_launch launch = onlyLaunch();
  EXPECT_EQ(launch.grid[0], 3u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.grid[2], 5u);
  EXPECT_EQ(rt_kernels_rms_norm_config(nullptr, 1, 3, 2, 5, kY, 8, kX, 8, kW, 8, 0.5f),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
}

TEST_F(CallerGrid, AZeroDimensionLaunchesNothingAndSucceeds) {
  useCudaDevices("sm_80");
  EXPECT_EQ(rmsNorm(0, 1, 1), TRITON_AOT_SUCCESS);
  EXPECT_EQ(rmsNorm(16, 0, 1), TRITON_AOT_SUCCESS);
  EXPECT_EQ(rmsNorm(16, 1, 0), TRITON_AOT_SUCCESS);
  EXPECT_EQ(lastError(), "");
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(loads().empty()) << "nothing to launch, nothing to load";
}

TEST_F(CallerGrid, ADimensionAboveTheDevicesLimitIsInvalidArgumentNamingItAndTheLimit) {
  useCudaDevices("sm_80");
  EXPECT_EQ(rmsNorm(16, 65536, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "rt_kernels_rms_norm: grid y is 65536, above the limit of 65535 "
                                "blocks on device 0"))
      << message;
  EXPECT_EQ(rmsNorm(0x80000000u, 1, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  message = lastError();
  EXPECT_TRUE(contains(message, "grid x is 2147483648, above the limit of 2147483647")) << message;
  EXPECT_EQ(rmsNorm(1, 1, 65536), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "grid z is 65536")) << lastError();
  EXPECT_TRUE(launches().empty());
  // At the limit it launches.
  ASSERT_EQ(rmsNorm(16, 65535, 1), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(onlyLaunch().grid[1], 65535u);
}

TEST_F(CallerGrid, TheLimitIsTheDevicesOwnAskedOnceAGridNeedsIt) {
  useCudaDevices("sm_80");
  ASSERT_EQ(cuda.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 1000), 0);
  const int queries = cuda.callCount("cuDeviceGetAttribute");
  EXPECT_EQ(rmsNorm(1001, 1, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "grid x is 1001, above the limit of 1000")) << lastError();
  ASSERT_EQ(rmsNorm(1000, 1, 1), TRITON_AOT_SUCCESS) << lastError();
  const int afterFirst = cuda.callCount("cuDeviceGetAttribute");
  EXPECT_GT(afterFirst, queries);
  ASSERT_EQ(rmsNorm(999, 1, 1), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.callCount("cuDeviceGetAttribute"), afterFirst) << "not queried per launch";
  // A computed grid is checked against the same limit.
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kW, kY, 1001 * 1024), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "rt_kernels_vector_add: grid x is 1001")) << lastError();
}

TEST_F(CallerGrid, AFirstLaunchAsksOnlyTheComputeCapability) {
  useCudaDevices("sm_80");
  const int attributes = cuda.callCount("cuDeviceGetAttribute");
  const int names = cuda.callCount("cuDeviceGetName");
  ASSERT_EQ(rmsNorm(4096, 1, 1), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.callCount("cuDeviceGetAttribute") - attributes, 2) << "major and minor only";
  EXPECT_EQ(cuda.callCount("cuDeviceGetName"), names) << "no message, no name";
  // A message names the device: asked then, and once.
  EXPECT_EQ(rmsNorm(16, 65536, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "on device 0 (Fake GPU sm_80)")) << lastError();
  EXPECT_EQ(rmsNorm(16, 65536, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(cuda.callCount("cuDeviceGetName"), names + 1);
  EXPECT_EQ(cuda.callCount("cuDeviceGetAttribute") - attributes, 5) << "and the grid limits once";
}

TEST_F(CallerGrid, ADeviceTheDriverWillNotNameIsAnUnnamedGpuUntilItAnswers) {
  useCudaDevices("sm_80");
  cuda.fail("cuDeviceGetName", CUDA_ERROR_INVALID_DEVICE, 0, -1);
  EXPECT_EQ(rmsNorm(16, 65536, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "grid y is 65536, above the limit of 65535 blocks on device 0 "
                                    "(unnamed GPU)"))
      << lastError();
  cuda.clearFailures("cuDeviceGetName");
  EXPECT_EQ(rmsNorm(16, 65536, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "on device 0 (Fake GPU sm_80)")) << lastError();
  ASSERT_EQ(rmsNorm(16, 1, 1), TRITON_AOT_SUCCESS) << lastError();
}

// --- HIP: its own limits (the fake HIP runtime reports 65536 blocks on y and z) --------------

TEST(HipCallerGrid, TheLimitComesFromTheDeviceProperties) {
  ChildResult child = runChild("hip", "ChildHipCallerGrid.*",
                               {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildHipCallerGrid, LimitsFromMaxGridSize) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipCallerGrid starts";
  const FakeDriver &hip = fakeHip();
  ASSERT_EQ(rmsNorm(7, 65536, 1), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(rmsNorm(7, 65537, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "grid y is 65537, above the limit of 65536")) << lastError();
  EXPECT_EQ(rmsNorm(7, 1, 0), TRITON_AOT_SUCCESS);
  auto launches = hip.launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].api, "hipModuleLaunchKernel");
  EXPECT_EQ(launches[0].grid[0], 7u);
  EXPECT_EQ(launches[0].grid[1], 65536u);
  EXPECT_EQ(launches[0].block[0], 256u) << "4 warps of 64 lanes";
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(hip.misuseCount(), 0) << hip.firstMisuse();
}

} // namespace
} // namespace tta::test
