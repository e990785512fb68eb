// Tuned dispatch on a GPU (gpu_tuned: vector add whose table picks block256 below 16384
// elements and block1024 above, for cuda:80 and cuda:90a). The tuned entry asks the runtime for
// the device's target, and with it the context, which it hands to the launch: every launch is
// checked against the CPU sum, on one GPU and, with two, from one thread that switches between
// the devices' contexts, where a launch that kept the previous context's function or place
// would launch on the wrong device or be refused.
#include <gpu_tuned.h>

#include "gpu_test_support.h"
#include "vector_add_run.h"

namespace tta::gpu {
namespace {

AddKernel tunedAdd() {
  return {[](void *stream, const void *x, const void *y, const void *out, int32_t n) {
            return static_cast<int>(gpu_tuned_vector_add(stream, x, y, out, n));
          },
          gpu_tuned_last_error};
}

// The library's target spelling for a device: its cuda:90a image runs on sm_90 only.
std::string targetOf(const DeviceInfo &device) {
  return device.major == 9 && device.minor == 0 ? "cuda:90a" : "cuda:80";
}

class TunedGpuTest : public GpuTest {};

TEST_F(TunedGpuTest, TheTablePicksTheConfigAndEachTunedLaunchComputesTheSum) {
  const std::string target = targetOf(device_);
  struct Case {
    size_t n;
    int config;
  };
  const Case cases[] = {{1000, gpu_tuned_vector_add_CONFIG_block256},
                        {16000, gpu_tuned_vector_add_CONFIG_block256},
                        {16400, gpu_tuned_vector_add_CONFIG_block1024},
                        {size_t{1} << 20, gpu_tuned_vector_add_CONFIG_block1024}};
  for (const Case &c : cases) {
    SCOPED_TRACE("n = " + std::to_string(c.n));
    EXPECT_EQ(gpu_tuned_vector_add_select_config(target.c_str(), nullptr, nullptr, nullptr,
                                                 static_cast<int32_t>(c.n)),
              c.config);
    for (size_t offset : {size_t{0}, size_t{1}})   // the hinted variant, then the fallback
      EXPECT_EQ(runVectorAdd(tunedAdd(), stream_, c.n, offset, random_), "")
          << "offset " << offset;
  }
  figure("tuned", target + ": 1000, 16000 (block256), 16400, 1048576 (block1024), aligned and "
                           "not, exact");
}

TEST_F(TwoGpuTest, ATunedLaunchFollowsTheContextMadeCurrentBeforeIt) {
  const CudaDriver &cu = cudaDriver();
  CUcontext contexts[2] = {nullptr, nullptr};
  CUstream streams[2] = {nullptr, nullptr};
  for (int d = 0; d < 2; ++d) {
    ASSERT_EQ(primaryContext(d, &contexts[d]), "");
    ASSERT_EQ(cu.cuCtxSetCurrent(contexts[d]), CUDA_SUCCESS);
    ASSERT_EQ(cu.cuStreamCreate(&streams[d], CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  std::string error;
  const int rounds = 24;
  for (int round = 0; round < rounds && error.empty(); ++round) {
    const int d = round % 2;   // alternate, so every launch after the first switches context
    if (cu.cuCtxSetCurrent(contexts[d]) != CUDA_SUCCESS) {
      error = "cuCtxSetCurrent failed";
      break;
    }
    const size_t n = round % 4 < 2 ? 5000 : 70000;   // both configs on both devices
    error = runVectorAdd(tunedAdd(), streams[d], n, 0, random_);
    if (!error.empty()) error = "round " + std::to_string(round) + ", device " +
                                std::to_string(d) + ": " + error;
  }
  for (int d = 0; d < 2; ++d) {
    cu.cuCtxSetCurrent(contexts[d]);
    cu.cuStreamDestroy(streams[d]);
  }
  ASSERT_EQ(cu.cuCtxSetCurrent(contexts[0]), CUDA_SUCCESS);   // as GpuTest left it
  EXPECT_EQ(error, "");
  figure("devices", std::to_string(rounds) + " checked tuned launches, alternating devices");
}

}  // namespace
}  // namespace tta::gpu
