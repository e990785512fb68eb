#include "runtime_fixture.h"

namespace tta::test {

void unloadAllLibraries() {
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << rt_kernels_last_error();
  EXPECT_EQ(hop_unload(), TRITON_AOT_SUCCESS) << hop_last_error();
  EXPECT_EQ(shr_unload(), TRITON_AOT_SUCCESS) << shr_last_error();
  EXPECT_EQ(rth_unload(), TRITON_AOT_SUCCESS) << rth_last_error();
#ifdef TTA_RUNTIME_HAVE_RUBIN
  EXPECT_EQ(rub_unload(), TRITON_AOT_SUCCESS) << rub_last_error();
#endif
}

void RuntimeTest::useCudaDevices(const char *devices) {
  unloadAllLibraries();
  ASSERT_EQ(cuda.reset(devices), 0) << devices;
}

void RuntimeTest::useHipDevices(const char *devices) {
  unloadAllLibraries();
  ASSERT_EQ(hip.reset(devices), 0) << devices;
}

void RuntimeTest::TearDown() {
  unloadAllLibraries();
  EXPECT_EQ(cuda.misuseCount(), 0) << "the runtime misused the CUDA driver: " << cuda.firstMisuse();
  EXPECT_EQ(hip.misuseCount(), 0) << "the runtime misused the HIP runtime: " << hip.firstMisuse();
  EXPECT_EQ(cuda.liveModules(), 0) << "unload left modules or libraries loaded";
  EXPECT_EQ(hip.liveModules(), 0) << "unload left HIP modules loaded";
  EXPECT_EQ(cuda.liveAllocations(), 0) << "scratch buffers were not freed";
  EXPECT_EQ(hip.liveAllocations(), 0) << "scratch buffers were not freed";
  rt_kernels_set_allocator(nullptr);
  shr_set_allocator(nullptr);
}

tta_fake_launch RuntimeTest::onlyLaunch(const FakeDriver &driver) const {
  auto all = driver.launches();
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? tta_fake_launch{} : all.back();
}

} // namespace tta::test
