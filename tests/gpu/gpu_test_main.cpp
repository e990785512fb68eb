// tta_gpu_tests: prints what it runs on (or why every test will skip), then runs the tests.
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda_driver.h"
#include "gpu_test_support.h"

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace tta::gpu;
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // CTest parses this listing
  const CudaDriver &driver = cudaDriver();
  if (!driver.available()) {
    std::printf("[ gpu      ] every GPU test skips: %s\n", driver.unavailable.c_str());
  } else {
    std::printf("[ gpu      ] CUDA driver %d.%d, %d device(s); seed %llu (rerun with "
                "TTA_GPU_TEST_SEED=%llu)\n",
                driver.driver_version / 1000, driver.driver_version % 1000 / 10,
                driver.device_count, static_cast<unsigned long long>(runSeed()),
                static_cast<unsigned long long>(runSeed()));
    for (int d = 0; d < driver.device_count; ++d) {
      DeviceInfo info;
      std::string error = queryDevice(d, &info);
      if (!error.empty())
        std::printf("[ gpu      ] device %d: %s\n", d, error.c_str());
      else
        std::printf("[ gpu      ] device %d: %s, sm_%d%d, %d SMs, %d bytes shared opt-in\n", d,
                    info.name.c_str(), info.major, info.minor, info.multiprocessors,
                    info.shared_optin);
    }
  }
  std::fflush(stdout);
  return RUN_ALL_TESTS();
}
