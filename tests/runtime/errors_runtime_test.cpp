// Every error status, with the message the runtime records for it (thread-local, with the
// driver's own error name and text where the driver reported the failure).
#include "cuda_api.h"
#include "runtime_fixture.h"

#include <dlfcn.h>

#include <thread>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

using Errors = RuntimeTest;

TEST_F(Errors, StatusNamesAreTheEnumeratorNames) {
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_SUCCESS), "TRITON_AOT_SUCCESS");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_NO_IMAGE), "TRITON_AOT_ERROR_NO_IMAGE");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_OUT_OF_MEMORY), "TRITON_AOT_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(triton_aot_status_name(42), "unknown status");
}

TEST_F(Errors, NoDeviceWhenTheDriverHasNone) {
  // The driver is opened (cuInit) once per process: open it while it has a device, so that a
  // failed cuInit is not what this test leaves to the others (ChildNoGpu covers that case).
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_SUCCESS) << lastError();
  useCudaDevices("");
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_NO_DEVICE);
  EXPECT_NE(lastError(), "");
  EXPECT_TRUE(loads().empty());
}

TEST_F(Errors, LoadFailedCarriesTheDriversErrorText) {
  useCudaDevices("sm_90");
  cuda.fail("cuModuleLoadDataEx", CUDA_ERROR_INVALID_IMAGE, 0, 1);
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_LOAD_FAILED);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "CUDA_ERROR_INVALID_IMAGE")) << message;
  EXPECT_TRUE(contains(message, "device kernel image is invalid")) << message;
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(launches().empty());
  // The failure is not remembered: the next launch loads and runs.
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(launches().size(), 1u);
}

TEST_F(Errors, AJitFailureIsLoadFailedWithTheDriversReason) {
  useCudaDevices("sm_100");
  cuda.setDriverVersion(12040); // its JIT predates the PTX ISA Triton writes (8.7 in 3.6, 8.8 in 3.9)
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_LOAD_FAILED);
  cuda.setDriverVersion(13000);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION")) << message;
  auto all = loads();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, TTA_FAKE_IMAGE_PTX);
}

TEST_F(Errors, LaunchFailedCarriesTheDriversErrorText) {
  useCudaDevices("sm_80");
  cuda.fail("cuLaunchKernel", 700, 0, 1); // CUDA_ERROR_ILLEGAL_ADDRESS
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "CUDA_ERROR_ILLEGAL_ADDRESS")) << message;
  EXPECT_TRUE(contains(message, "an illegal memory access was encountered")) << message;
  EXPECT_TRUE(contains(message, "cuLaunchKernel")) << message;
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_SUCCESS);
}

TEST_F(Errors, ConfigOutOfRangeIsInvalidArgument) {
  for (int config : {2, -1, 1000}) {
    EXPECT_EQ(rt_kernels_vector_add_config(nullptr, config, kX, kY, kOut, 1024),
              TRITON_AOT_ERROR_INVALID_ARGUMENT);
    std::string message = lastError();
    EXPECT_TRUE(contains(message, std::to_string(config))) << message;
    EXPECT_TRUE(contains(message, "2 configs")) << message;
  }
  EXPECT_TRUE(launches().empty());
}

TEST_F(Errors, NoVariantAcceptingTheArgumentsIsInvalidArgumentNamingThePromise) {
  // big_shared was declared for 16-byte aligned pointers only (no generic signature).
  EXPECT_EQ(rt_kernels_big_shared(nullptr, kX, devicePointer(0x20008), kOut, 256, 256, 128, 128, 256, 256),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "b_ptr")) << message;
  EXPECT_TRUE(contains(message, "16")) << message;
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(loads().empty());
}

TEST_F(Errors, AGridOutsideTheDeviceLimitsIsInvalidArgument) {
  // grid y = cdiv(N, 128) = 65536 blocks: one above the limit.
  EXPECT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 128, 65536 * 128, 128, 128, 256, 256),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "grid")) << lastError();
  // A negative dimension: cdiv(-1000, 128) in C is -6.
  EXPECT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, -1000, 256, 128, 128, 256, 256),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "negative")) << lastError();
  EXPECT_TRUE(launches().empty());
}

TEST_F(Errors, TheMessageBelongsToTheThreadThatFailed) {
  EXPECT_EQ(rt_kernels_vector_add_config(nullptr, 7, kX, kY, kOut, 1024), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  std::string other = "not read";
  std::thread([&] { other = rt_kernels_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_TRUE(contains(lastError(), "7")) << lastError();
  EXPECT_EQ(std::string(hop_last_error()), lastError()) << "one runtime copy, one message per thread";
}

// --- What the runtime decides once per process: in child processes -------------------------

TEST(ErrorsInAFreshProcess, NoDriverWhenLibcudaCannotBeFound) {
  ChildResult child = runChild("no_driver", "ChildNoDriver.*", {"LD_LIBRARY_PATH=/nonexistent"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildNoDriver, BothBackendsAreMissing) {
  if (!childMode("no_driver")) GTEST_SKIP() << "runs in the child process ErrorsInAFreshProcess starts";
  if (fakeCudaIsWhatDlopenFinds()) FAIL() << "the fake is still found";
  void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (real != nullptr) GTEST_SKIP() << "this machine has a CUDA driver";
  EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_NO_DRIVER);
  std::string cudaOnly = hop_last_error();
  EXPECT_TRUE(contains(cudaOnly, "libcuda.so.1")) << cudaOnly;
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_NO_DRIVER);
  std::string both = lastError();
  EXPECT_TRUE(contains(both, "libcuda.so.1")) << both;
  EXPECT_TRUE(contains(both, "libamdhip64")) << both;
}

TEST(ErrorsInAFreshProcess, NoDeviceWhenTheCudaDriverHasNoGpu) {
  ChildResult child = runChild("no_gpu", "ChildNoGpu.*", {"TTA_FAKE_CUDA_DEVICES="});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildNoGpu, CudaOnlyLibraryReportsNoDevice) {
  if (!childMode("no_gpu")) GTEST_SKIP() << "runs in the child process ErrorsInAFreshProcess starts";
  EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_NO_DEVICE);
  std::string message = hop_last_error();
  EXPECT_TRUE(contains(message, "CUDA_ERROR_NO_DEVICE")) << message;
}

TEST(ErrorsInAFreshProcess, TheToolkitsStubLibraryIsNoDriver) {
  ChildResult child = runChild("stub", "ChildStub.*", {"TTA_FAKE_CUDA_STUB=1"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildStub, StubIsNamed) {
  if (!childMode("stub")) GTEST_SKIP() << "runs in the child process ErrorsInAFreshProcess starts";
  EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 1024), TRITON_AOT_ERROR_NO_DRIVER);
  std::string message = hop_last_error();
  EXPECT_TRUE(contains(message, "stub")) << message;
}

} // namespace
} // namespace tta::test
