// The fake drivers on their own, called the way the runtime calls them (entry points from
// cuGetProcAddress_v2 / hipGetProcAddress): they must refuse what a real driver refuses, or the
// runtime tests built on them prove nothing.
#include "cuda_api.h"
#include "fake_driver_handle.h"
#include "hip_api.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace tta::test {
namespace {

const std::string kImages = TTA_TEST_IMAGES_DIR;

// A Triton-like PTX kernel built for a cluster of 2 and exactly 128 threads.
const char *kClusterPtx = R"(//
.version 8.7
.target sm_90a
.address_size 64
.visible .entry cluster_kernel(
	.param .u64 .ptr .global .align 1 cluster_kernel_param_0,
	.param .align 2 .b8 cluster_kernel_param_1[2],
	.param .u8 cluster_kernel_param_2,
	.param .u32 cluster_kernel_param_3
)
.reqntid 128
.explicitcluster
.reqnctapercluster 2
{
	ret;
}
)";

template <typename F> F resolve(const FakeDriver &driver, const char *name, int version) {
  auto *getProcAddress = reinterpret_cast<PFN_cuGetProcAddress_v2>(driver.symbol("cuGetProcAddress_v2"));
  void *pfn = nullptr;
  CUdriverProcAddressQueryResult status = -1;
  EXPECT_EQ(getProcAddress(name, &pfn, version, 0, &status), CUDA_SUCCESS) << name;
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS) << name;
  F function = nullptr;
  std::memcpy(&function, &pfn, sizeof pfn);
  return function;
}

class FakeCuda : public ::testing::Test {
protected:
  const FakeDriver &fake = fakeCuda();
  PFN_cuInit cuInit = resolve<PFN_cuInit>(fake, "cuInit", 2000);
  PFN_cuModuleLoadDataEx load = resolve<PFN_cuModuleLoadDataEx>(fake, "cuModuleLoadDataEx", 2010);
  PFN_cuModuleGetFunction getFunction = resolve<PFN_cuModuleGetFunction>(fake, "cuModuleGetFunction", 2000);
  PFN_cuModuleUnload unload = resolve<PFN_cuModuleUnload>(fake, "cuModuleUnload", 2000);
  PFN_cuLaunchKernel launch = resolve<PFN_cuLaunchKernel>(fake, "cuLaunchKernel", 4000);
  PFN_cuLaunchKernelEx launchEx = resolve<PFN_cuLaunchKernelEx>(fake, "cuLaunchKernelEx", 11060);
  PFN_cuFuncSetAttribute setAttribute = resolve<PFN_cuFuncSetAttribute>(fake, "cuFuncSetAttribute", 9000);
  PFN_cuLibraryLoadData loadLibrary = resolve<PFN_cuLibraryLoadData>(fake, "cuLibraryLoadData", 12000);
  PFN_cuLibraryGetKernel getKernel = resolve<PFN_cuLibraryGetKernel>(fake, "cuLibraryGetKernel", 12000);
  PFN_cuMemAllocAsync alloc = resolve<PFN_cuMemAllocAsync>(fake, "cuMemAllocAsync", 11020);
  PFN_cuMemFreeAsync freeAsync = resolve<PFN_cuMemFreeAsync>(fake, "cuMemFreeAsync", 11020);

  void SetUp() override {
    ASSERT_EQ(fake.reset("sm_80,sm_86,sm_90"), 0);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  }
  void TearDown() override {
    fake.setDriverVersion(13000);
    fake.reset("sm_90");
  }

  CUmodule loadOn(int device, const void *image, CUresult expected = CUDA_SUCCESS) {
    fake.setCurrentDevice(device);
    CUmodule module = nullptr;
    EXPECT_EQ(load(&module, image, 0, nullptr, nullptr), expected);
    return module;
  }
};

TEST_F(FakeCuda, ProcAddressHonoursRequestedAndDriverVersions) {
  auto *get = reinterpret_cast<PFN_cuGetProcAddress_v2>(fake.symbol("cuGetProcAddress_v2"));
  void *pfn = nullptr;
  CUdriverProcAddressQueryResult status = -1;
  EXPECT_EQ(get("cuLibraryLoadData", &pfn, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_NE(pfn, nullptr);
  EXPECT_EQ(get("cuLibraryLoadData", &pfn, 11080, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  EXPECT_EQ(pfn, nullptr);
  EXPECT_EQ(get("cuNoSuchEntryPoint", &pfn, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(get("cuLaunchKernel", &pfn, 99999, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(pfn, nullptr);

  // An 11.8 driver has no cuLibraryLoadData at all, but still cuLaunchKernelEx.
  fake.setDriverVersion(11080);
  EXPECT_EQ(get("cuLibraryLoadData", &pfn, 11080, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(get("cuLibraryLoadData", &pfn, 12000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(get("cuLaunchKernelEx", &pfn, 11060, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
}

TEST_F(FakeCuda, LoadsACubinOnlyOnTheSameMajorWithAnEqualOrHigherMinor) {
  auto sm80 = readFile(kImages + "/kernels.sm_80.cubin");          // CUDA 13 ABI V2
  auto sm90a = readFile(kImages + "/kernels.sm_90a.ptxas12.8.cubin"); // old ABI, "a" flag
  loadOn(0, sm80.data());
  loadOn(1, sm80.data());
  loadOn(2, sm80.data(), CUDA_ERROR_NO_BINARY_FOR_GPU);
  loadOn(2, sm90a.data());
  loadOn(1, sm90a.data(), CUDA_ERROR_NO_BINARY_FOR_GPU);

  auto loads = fake.loads();
  ASSERT_EQ(loads.size(), 5u);
  EXPECT_STREQ(loads[0].api, "cuModuleLoadDataEx");
  EXPECT_EQ(loads[0].kind, TTA_FAKE_IMAGE_CUBIN);
  EXPECT_STREQ(loads[0].arch, "sm_80");
  EXPECT_EQ(loads[0].size, sm80.size());
  EXPECT_EQ(loads[0].hash, tta_fake_hash(sm80.data(), sm80.size()));
  EXPECT_EQ(loads[1].device, 1);
  EXPECT_EQ(loads[2].result, CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_STREQ(loads[3].arch, "sm_90a");
  EXPECT_EQ(fake.liveModules(), 3);
  EXPECT_EQ(fake.misuseCount(), 0) << fake.firstMisuse();
}

TEST_F(FakeCuda, JitsPtxForAnyDeviceAtLeastItsTargetAndNotNewerThanTheDriver) {
  auto ptx = readFile(kImages + "/kernels.ptx");
  ptx.push_back(0);
  loadOn(0, ptx.data());
  loadOn(2, ptx.data());
  auto loads = fake.loads();
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].kind, TTA_FAKE_IMAGE_PTX);
  EXPECT_EQ(loads[0].size, ptx.size() - 1);
  EXPECT_EQ(loads[0].hash, tta_fake_hash(ptx.data(), ptx.size() - 1));

  loadOn(1, kClusterPtx, CUDA_ERROR_INVALID_PTX); // sm_90a PTX on sm_86
  fake.setDriverVersion(12040);                    // PTX ISA 8.4: too old for .version 8.7
  char log[256] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
  fake.setCurrentDevice(2);
  CUmodule module = nullptr;
  EXPECT_EQ(load(&module, kClusterPtx, 2, options, values), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  EXPECT_NE(std::string(log).find("PTX ISA version 8.7"), std::string::npos) << log;
}

TEST_F(FakeCuda, ReadsEachParameterAtTheSizeTheImageDeclares) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  CUmodule module = loadOn(0, cubin.data());
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "scale_shared"), CUDA_SUCCESS);
  EXPECT_EQ(getFunction(&function, module, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(getFunction(&function, module, "scale_shared"), CUDA_SUCCESS);
  void *out = reinterpret_cast<void *>(0x1000), *in = reinterpret_cast<void *>(0x2000);
  int n = 12345;
  void *params[] = {&out, &in, &n};
  ASSERT_EQ(launch(function, 2, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  auto launches = fake.launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "scale_shared");
  ASSERT_EQ(launches[0].param_count, 3u);
  EXPECT_EQ(paramBytes(launches[0], 0), bytesOf(out));
  EXPECT_EQ(paramBytes(launches[0], 1), bytesOf(in));
  EXPECT_EQ(paramBytes(launches[0], 2), bytesOf(n));
  EXPECT_EQ(launches[0].image_hash, tta_fake_hash(cubin.data(), cubin.size()));

  // PTX: fp16 as .b8[2], i1 as .u8.
  CUmodule clusterModule = loadOn(2, kClusterPtx);
  ASSERT_EQ(getFunction(&function, clusterModule, "cluster_kernel"), CUDA_SUCCESS);
  uint16_t half = 0x3c00;
  bool flag = true;
  int32_t count = -7;
  void *clusterParams[] = {&out, &half, &flag, &count};
  ASSERT_EQ(launch(function, 4, 1, 1, 128, 1, 1, 0, nullptr, clusterParams, nullptr), CUDA_SUCCESS);
  launches = fake.launches();
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_EQ(launches[1].param_count, 4u);
  EXPECT_EQ(launches[1].param_size[1], 2u);
  EXPECT_EQ(launches[1].param_size[2], 1u);
  EXPECT_EQ(paramBytes(launches[1], 1), bytesOf(half));
  EXPECT_EQ(paramBytes(launches[1], 2), bytesOf(flag));
  EXPECT_EQ(paramBytes(launches[1], 3), bytesOf(count));
}

TEST_F(FakeCuda, RefusesABlockOtherThanTheKernelsAndAGridTheClusterDoesNotDivide) {
  CUmodule module = loadOn(2, kClusterPtx);
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "cluster_kernel"), CUDA_SUCCESS);
  void *pointer = nullptr;
  uint16_t half = 0;
  bool flag = false;
  int32_t count = 0;
  void *params[] = {&pointer, &half, &flag, &count};
  EXPECT_EQ(launch(function, 4, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(fake.misuseCount(), 1);
  EXPECT_EQ(launch(function, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_CLUSTER_SIZE);

  CUlaunchAttribute attributes[2] = {};
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attributes[0].value.clusterDim.x = 2;
  attributes[0].value.clusterDim.y = 1;
  attributes[0].value.clusterDim.z = 1;
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attributes[1].value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = {};
  config.gridDimX = 4;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = reinterpret_cast<CUstream>(0x5151);
  config.attrs = attributes;
  config.numAttrs = 2;
  EXPECT_EQ(launchEx(&config, function, params, nullptr), CUDA_SUCCESS);
  attributes[0].value.clusterDim.x = 4; // not the shape the kernel was built for
  EXPECT_EQ(launchEx(&config, function, params, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  auto launches = fake.launches();
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_STREQ(launches[2].api, "cuLaunchKernelEx");
  EXPECT_EQ(launches[2].cluster[0], 2u);
  EXPECT_EQ(launches[2].pdl, 1);
  EXPECT_EQ(launches[2].cooperative, -1);
  EXPECT_EQ(launches[2].stream, 0x5151u);
}

TEST_F(FakeCuda, SharedMemoryAboveTheDefaultNeedsTheAttributeAndStaysUnderTheOptIn) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin"); // scale_shared: 4 KiB static
  CUmodule module = loadOn(0, cubin.data());
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "scale_shared"), CUDA_SUCCESS);
  void *pointer = nullptr;
  int n = 0;
  void *params[] = {&pointer, &pointer, &n};
  EXPECT_EQ(launch(function, 1, 1, 1, 128, 1, 1, 49152 - 4096, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(launch(function, 1, 1, 1, 128, 1, 1, 65536, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(setAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 166912 - 4096 + 1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(setAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536), CUDA_SUCCESS);
  EXPECT_EQ(launch(function, 1, 1, 1, 128, 1, 1, 65536, nullptr, params, nullptr), CUDA_SUCCESS);
  auto attributes = fake.attributes();
  ASSERT_EQ(attributes.size(), 2u);
  EXPECT_EQ(attributes[1].value, 65536);
  EXPECT_EQ(attributes[1].device, 0);
  EXPECT_STREQ(attributes[1].function, "scale_shared");
}

TEST_F(FakeCuda, LibraryKernelsLaunchOnlyOnDevicesTheirImageRunsOn) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  fake.setCurrentDevice(-1);
  CUlibrary library = nullptr;
  ASSERT_EQ(loadLibrary(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel kernel = nullptr;
  ASSERT_EQ(getKernel(&kernel, library, "local_array"), CUDA_SUCCESS);
  void *pointer = nullptr;
  void *params[] = {&pointer, &pointer, &pointer};
  fake.setCurrentDevice(1);
  EXPECT_EQ(launch(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  fake.setCurrentDevice(2);
  EXPECT_EQ(launch(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(fake.misuseCount(), 1);
  auto loads = fake.loads();
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_STREQ(loads[0].api, "cuLibraryLoadData");
  EXPECT_EQ(loads[0].device, -1);
}

TEST_F(FakeCuda, AKernelHasOneFunctionPerContextAndContextsHaveUniqueIds) {
  auto *kernelFunction = resolve<PFN_cuKernelGetFunction>(fake, "cuKernelGetFunction", 12000);
  auto *contextId = resolve<PFN_cuCtxGetId>(fake, "cuCtxGetId", 12000);
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  fake.setCurrentDevice(0);
  CUlibrary library = nullptr;
  ASSERT_EQ(loadLibrary(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel kernel = nullptr;
  ASSERT_EQ(getKernel(&kernel, library, "local_array"), CUDA_SUCCESS);
  CUfunction primary = nullptr, again = nullptr, other = nullptr;
  ASSERT_EQ(kernelFunction(&primary, kernel), CUDA_SUCCESS);
  ASSERT_EQ(kernelFunction(&again, kernel), CUDA_SUCCESS);
  EXPECT_EQ(primary, again);
  unsigned long long primaryId = 0, otherId = 0;
  ASSERT_EQ(contextId(nullptr, &primaryId), CUDA_SUCCESS);
  ASSERT_GE(fake.createContext(0), 100);
  ASSERT_EQ(contextId(nullptr, &otherId), CUDA_SUCCESS);
  EXPECT_NE(primaryId, otherId);
  ASSERT_EQ(kernelFunction(&other, kernel), CUDA_SUCCESS);
  EXPECT_NE(other, primary);
  void *pointer = nullptr;
  void *params[] = {&pointer, &pointer, &pointer};
  EXPECT_EQ(launch(other, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(launch(primary, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(fake.misuseCount(), 1) << "a function of another context";
  fake.setCurrentDevice(2); // sm_90: the sm_80 cubin cannot be loaded into its context
  EXPECT_EQ(kernelFunction(&other, kernel), CUDA_ERROR_NO_BINARY_FOR_GPU);
}

TEST_F(FakeCuda, ModuleFunctionsBelongToTheContextTheModuleWasLoadedIn) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  CUmodule module = loadOn(0, cubin.data());
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "local_array"), CUDA_SUCCESS);
  void *pointer = nullptr;
  void *params[] = {&pointer, &pointer, &pointer};
  EXPECT_GE(fake.createContext(0), 100);
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(fake.misuseCount(), 1);
  fake.setCurrentDevice(0);
  EXPECT_EQ(unload(module), CUDA_SUCCESS);
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(unload(module), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(fake.misuseCount(), 3);
  EXPECT_EQ(fake.liveModules(), 0);
}

TEST_F(FakeCuda, InjectedFailuresHitTheNamedCallsOnly) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  CUmodule module = loadOn(0, cubin.data());
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "local_array"), CUDA_SUCCESS);
  void *pointer = nullptr;
  void *params[] = {&pointer, &pointer, &pointer};
  fake.fail("cuLaunchKernel", 700, 1, 1);
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), 700);
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fake.callCount("cuLaunchKernel"), 3);
  EXPECT_EQ(fake.launches()[1].result, 700);
  auto *errorString = resolve<PFN_cuGetErrorString>(fake, "cuGetErrorString", 6000);
  const char *text = nullptr;
  EXPECT_EQ(errorString(700, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "an illegal memory access was encountered");
}

TEST_F(FakeCuda, EveryCallFromTheNthFailsUntilCleared) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  fake.fail("cuModuleLoadDataEx", CUDA_ERROR_OUT_OF_MEMORY, 1, -1);
  CUmodule first = loadOn(0, cubin.data());
  loadOn(0, cubin.data(), CUDA_ERROR_OUT_OF_MEMORY);
  loadOn(0, cubin.data(), CUDA_ERROR_OUT_OF_MEMORY);
  fake.clearFailures("cuLaunchKernel");
  loadOn(0, cubin.data(), CUDA_ERROR_OUT_OF_MEMORY);
  fake.clearFailures("cuModuleLoadDataEx");
  CUmodule second = loadOn(0, cubin.data());
  EXPECT_EQ(fake.callCount("cuModuleLoadDataEx"), 5);
  EXPECT_EQ(fake.liveModules(), 2) << "a failed call does nothing";
  fake.fail("cuModuleUnload", CUDA_ERROR_INVALID_HANDLE, 0, -1);
  EXPECT_EQ(unload(first), CUDA_ERROR_INVALID_HANDLE);
  fake.clearFailures(nullptr);
  EXPECT_EQ(unload(first), CUDA_SUCCESS);
  EXPECT_EQ(unload(second), CUDA_SUCCESS);
  EXPECT_EQ(fake.liveModules(), 0);
}

TEST_F(FakeCuda, ADestroyedContextTakesItsModulesAndRefusesEveryCall) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  auto *contextId = resolve<PFN_cuCtxGetId>(fake, "cuCtxGetId", 12000);
  auto *setCurrent = resolve<PFN_cuCtxSetCurrent>(fake, "cuCtxSetCurrent", 4000);
  auto *getCurrent = resolve<PFN_cuCtxGetCurrent>(fake, "cuCtxGetCurrent", 4000);
  const int id = fake.createContext(0);
  ASSERT_GE(id, 100);
  CUcontext context = nullptr;
  ASSERT_EQ(getCurrent(&context), CUDA_SUCCESS);
  CUmodule module = nullptr;
  ASSERT_EQ(load(&module, cubin.data(), 0, nullptr, nullptr), CUDA_SUCCESS);
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "local_array"), CUDA_SUCCESS);
  EXPECT_EQ(fake.liveModules(), 1);
  ASSERT_EQ(fake.destroyContext(id), 0);
  EXPECT_EQ(fake.destroyContext(id), -1) << "once";
  EXPECT_EQ(fake.liveModules(), 0) << "its module went with it";
  CUcontext still = nullptr;
  EXPECT_EQ(getCurrent(&still), CUDA_SUCCESS);
  EXPECT_EQ(still, context) << "still current on this thread";
  unsigned long long value = 0;
  EXPECT_EQ(contextId(nullptr, &value), 709);
  void *pointer = nullptr;
  void *params[] = {&pointer, &pointer, &pointer};
  EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), 709);
  CUmodule another = nullptr;
  EXPECT_EQ(load(&another, cubin.data(), 0, nullptr, nullptr), 709);
  EXPECT_EQ(setCurrent(context), 709);
  EXPECT_EQ(fake.misuseCount(), 0);
  EXPECT_EQ(unload(module), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(fake.misuseCount(), 1) << "unloading a module of a destroyed context";
}

TEST_F(FakeCuda, StreamOrderedAllocationsAreTrackedUntilFreed) {
  fake.setCurrentDevice(1);
  CUdeviceptr a = 0, b = 0;
  auto stream = reinterpret_cast<CUstream>(0x77);
  ASSERT_EQ(alloc(&a, 1000, stream), CUDA_SUCCESS);
  ASSERT_EQ(alloc(&b, 24, stream), CUDA_SUCCESS);
  EXPECT_EQ(a % 512, 0u);
  EXPECT_GE(b, a + 1000);
  EXPECT_EQ(fake.liveAllocations(), 2);
  EXPECT_EQ(freeAsync(a, stream), CUDA_SUCCESS);
  EXPECT_EQ(freeAsync(a, stream), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(fake.liveAllocations(), 1);
  EXPECT_EQ(fake.misuseCount(), 1);
  auto memory = fake.memory();
  ASSERT_EQ(memory.size(), 4u);
  EXPECT_EQ(memory[0].size, 1000u);
  EXPECT_EQ(memory[0].stream, 0x77u);
  EXPECT_EQ(memory[0].device, 1);
  EXPECT_STREQ(memory[2].api, "cuMemFreeAsync");
  EXPECT_EQ(memory[2].size, 1000u);
}

TEST_F(FakeCuda, ConcurrentLaunchesFromManyThreadsAreAllRecorded) {
  auto cubin = readFile(kImages + "/kernels.sm_80.cubin");
  CUmodule module = loadOn(0, cubin.data());
  CUfunction function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "local_array"), CUDA_SUCCESS);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      fake.setCurrentDevice(0);
      for (int i = 0; i < 50; ++i) {
        void *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(t * 1000 + i));
        void *params[] = {&pointer, &pointer, &pointer};
        EXPECT_EQ(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
      }
    });
  for (auto &thread : threads) thread.join();
  EXPECT_EQ(fake.launches().size(), 400u);
  EXPECT_EQ(fake.callCount("cuLaunchKernel"), 400);
}

// --- HIP ---------------------------------------------------------------------------------------

template <typename F> F resolveHip(const char *name) {
  auto *get = reinterpret_cast<PFN_hipGetProcAddress>(fakeHip().symbol("hipGetProcAddress"));
  void *pfn = nullptr;
  hipDriverProcAddressQueryResult status = -1;
  EXPECT_EQ(get(name, &pfn, TTA_HIP_PROC_VERSION, 0, &status), hipSuccess) << name;
  EXPECT_EQ(status, HIP_GET_PROC_ADDRESS_SUCCESS) << name;
  F function = nullptr;
  std::memcpy(&function, &pfn, sizeof pfn);
  return function;
}

class FakeHip : public ::testing::Test {
protected:
  const FakeDriver &fake = fakeHip();
  PFN_hipModuleLoadData load = resolveHip<PFN_hipModuleLoadData>("hipModuleLoadData");
  PFN_hipModuleGetFunction getFunction = resolveHip<PFN_hipModuleGetFunction>("hipModuleGetFunction");
  PFN_hipModuleLaunchKernel launch = resolveHip<PFN_hipModuleLaunchKernel>("hipModuleLaunchKernel");

  void SetUp() override { ASSERT_EQ(fake.reset("gfx90a:sramecc+:xnack-,gfx942:sramecc+:xnack-,gfx1100"), 0); }
  void TearDown() override { fake.reset("gfx942:sramecc+:xnack-"); }

  hipModule_t loadOn(int device, const std::string &file, hipError_t expected) {
    auto image = readFile(kImages + "/" + file);
    fake.setCurrentDevice(device);
    hipModule_t module = nullptr;
    EXPECT_EQ(load(&module, image.data()), expected) << file << " on device " << device;
    return module;
  }
};

TEST_F(FakeHip, LoadsACodeObjectOnlyWhereItsTargetIdFits) {
  loadOn(0, "kernels.gfx90a.hsaco", hipSuccess);                           // features "any"
  loadOn(0, "kernels.gfx90a_sramecc-_xnack+.hsaco", hipErrorNoBinaryForGpu); // device sramecc+ xnack-
  loadOn(1, "kernels.gfx942_xnack-.hsaco", hipSuccess);
  loadOn(0, "kernels.gfx942_xnack-.hsaco", hipErrorNoBinaryForGpu);
  loadOn(2, "kernels.gfx1100.hsaco", hipSuccess);
  loadOn(2, "kernels.sm_80.cubin", hipErrorInvalidImage);
  auto loads = fake.loads();
  ASSERT_EQ(loads.size(), 6u);
  EXPECT_STREQ(loads[0].arch, "gfx90a");
  EXPECT_STREQ(loads[1].arch, "gfx90a:sramecc-:xnack+");
  EXPECT_STREQ(loads[2].arch, "gfx942:xnack-");
  EXPECT_EQ(loads[2].device, 1);
  EXPECT_EQ(fake.liveModules(), 3);
}

TEST_F(FakeHip, ReportsDevicePropertiesAtTheR0600Offsets) {
  auto *properties = resolveHip<PFN_hipGetDevicePropertiesR0600>("hipGetDevicePropertiesR0600");
  std::vector<unsigned char> buffer(TTA_HIP_DEVICE_PROP_SIZE, 0xee);
  ASSERT_EQ(properties(buffer.data(), 1), hipSuccess);
  EXPECT_STREQ(reinterpret_cast<const char *>(buffer.data() + TTA_HIP_PROP_GCN_ARCH_NAME),
               "gfx942:sramecc+:xnack-");
  std::size_t shared = 0;
  std::memcpy(&shared, buffer.data() + TTA_HIP_PROP_SHARED_MEM_PER_BLOCK, sizeof shared);
  EXPECT_EQ(shared, 65536u);
  EXPECT_EQ(properties(buffer.data(), 3), hipErrorInvalidDevice);
}

TEST_F(FakeHip, LaunchesOnTheModulesDeviceWithTheMetadataArguments) {
  hipModule_t module = loadOn(1, "kernels.gfx942_xnack-.hsaco", hipSuccess);
  hipFunction_t function = nullptr;
  ASSERT_EQ(getFunction(&function, module, "private_array"), hipSuccess);
  EXPECT_EQ(getFunction(&function, module, "missing"), hipErrorNotFound);
  ASSERT_EQ(getFunction(&function, module, "private_array"), hipSuccess);
  void *out = reinterpret_cast<void *>(0x10), *in = reinterpret_cast<void *>(0x20);
  int32_t j = 5;
  void *params[] = {&out, &in, &j};
  auto stream = reinterpret_cast<hipStream_t>(0x99);
  ASSERT_EQ(launch(function, 3, 1, 1, 64, 1, 1, 0, stream, params, nullptr), hipSuccess);
  fake.setCurrentDevice(0);
  EXPECT_EQ(launch(function, 3, 1, 1, 64, 1, 1, 0, stream, params, nullptr), 98);
  auto launches = fake.launches();
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_EQ(launches[0].param_count, 3u);
  EXPECT_EQ(paramBytes(launches[0], 2), bytesOf(j));
  EXPECT_EQ(paramBytes(launches[0], 1), bytesOf(in));
  EXPECT_EQ(launches[0].device, 1);
  EXPECT_STREQ(launches[0].arch, "gfx942:xnack-");
  EXPECT_EQ(fake.misuseCount(), 1);
}

} // namespace
} // namespace tta::test
