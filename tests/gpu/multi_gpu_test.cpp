// Two GPUs: one library launches vector add on device 0 and device 1 from two threads at the
// same time, each thread with its own device's context current. The first launches race, so
// both devices load the library concurrently.
#include <gpu_kernels.h>

#include <latch>
#include <thread>

#include "gpu_test_support.h"
#include "vector_add_run.h"

namespace tta::gpu {
namespace {

// Launches `rounds` checked vector adds on device `ordinal` from the calling thread.
std::string launchOn(int ordinal, uint64_t seed, int rounds, std::latch *start) {
  CUcontext context = nullptr;
  std::string error = primaryContext(ordinal, &context);
  if (error.empty())
    if (CUresult r = cudaDriver().cuCtxSetCurrent(context); r != CUDA_SUCCESS)
      error = "cuCtxSetCurrent: " + cudaDriver().describe(r);
  CUstream stream = nullptr;
  if (error.empty())
    if (CUresult r = cudaDriver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS)
      error = "cuStreamCreate: " + cudaDriver().describe(r);
  start->arrive_and_wait();  // also when failing, so the other thread is not left waiting
  if (!error.empty()) return error;
  AddKernel add{[](void *s, const void *x, const void *y, const void *out, int32_t n) {
                  return static_cast<int>(gpu_kernels_vector_add(s, x, y, out, n));
                },
                gpu_kernels_last_error};
  std::mt19937_64 random(seed);
  for (int round = 0; round < rounds && error.empty(); ++round) {
    size_t n = 1000 + static_cast<size_t>(random() % 200000);
    error = runVectorAdd(add, stream, n, round % 2, random);
    if (!error.empty()) error = "round " + std::to_string(round) + ": " + error;
  }
  cudaDriver().cuStreamDestroy(stream);
  return error;
}

TEST_F(TwoGpuTest, SameLibraryOnTwoDevicesFromTwoThreads) {
  DeviceInfo second;
  ASSERT_EQ(queryDevice(1, &second), "");
  // Forget what earlier tests loaded, so both devices load for the first time at once.
  ASSERT_TTA(gpu_kernels_unload(), gpu_kernels_last_error);
  const int rounds = 20;
  std::latch start(2);
  std::string errors[2];
  uint64_t seed = testSeed();
  std::thread threads[2];
  for (int d = 0; d < 2; ++d)
    threads[d] = std::thread([&, d] { errors[d] = launchOn(d, seed + d, rounds, &start); });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(errors[0], "") << "device 0";
  EXPECT_EQ(errors[1], "") << "device 1";
  figure("devices", device_.name + " + " + second.name + ", " + std::to_string(rounds) +
                        " checked launches each, concurrently");
}

}  // namespace
}  // namespace tta::gpu
