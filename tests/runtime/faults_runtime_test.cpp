// Injected driver faults: every CUDA driver and HIP runtime entry point the runtime calls, made
// to fail (through the fakes' tta_fake_fail) with each error it can return. Each case checks
// the documented status, a message naming the call and the driver's error, that nothing stays
// loaded or allocated, and that the same call works once the fault is cleared. Then a context
// destroyed between calls, unload, and races of 64 threads over two libraries (phases of first
// launches, preloads and launches, with an unload between phases).
//
// Cases the main process cannot reach run in a child process each: the HIP runtime (the runtime
// picks it only where the CUDA driver has no device, once per process), drivers before 12.0
// (no cuCtxGetId: contexts told apart by address), and what the runtime does once per process
// (cuInit, device 0's primary context).
#include "cuda_api.h"
#include "hip_api.h"
#include "runtime_fixture.h"

#include <atomic>
#include <cctype>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

// CUresult / hipError_t values cuda_api.h and hip_api.h do not name.
enum : int {
  kCudaDeinitialized = 4,
  kCudaIllegalAddress = 700,
  kCudaLaunchOutOfResources = 701,
  kCudaContextIsDestroyed = 709,
  kCudaCooperativeLaunchTooLarge = 720,
  kHipInvalidContext = 201,
  kHipInvalidHandle = 400,
  kHipLaunchOutOfResources = 701,
  kHipLaunchFailure = 719,
};

/// What a fault case calls to reach the entry point.
enum class Trigger {
  Launch,          ///< first launch of rt_kernels vector_add: device facts, load, lookup, launch
  LaunchNoContext, ///< the same with no current context: device 0's primary context is made current
  Preload,         ///< rt_kernels_preload(): every kernel's image
  BigShared,       ///< rt_kernels big_shared (> 48 KiB): the function's shared memory attributes
  Scratch,         ///< hop tma_scale: global scratch (cuMemAllocAsync / cuMemFreeAsync)
  TensorMap,       ///< hop matmul_tma: three host tensor descriptors (cuTensorMapEncodeTiled)
  Cluster,         ///< hop vector_add with num_ctas=2: cuLaunchKernelEx
  Unload,          ///< rt_kernels_unload() after a launch
};

/// Where a case runs: the main process, or a child started for it.
enum class Where {
  Cuda,        ///< main process: CUDA 13.0 fake
  CudaModules, ///< child: TTA_FAKE_CUDA_VERSION=11080 (no cuCtxGetId)
  CudaFresh,   ///< child: nothing opened or retained before the fault
  Hip,         ///< child: the CUDA driver has no device, the HIP runtime a gfx942
};

struct Fault {
  const char *entry;      ///< the entry point made to fail
  int error;              ///< what it returns
  const char *errorName;  ///< its name, as the message must carry it
  Trigger trigger;
  triton_aot_status expected;
  Where where = Where::Cuda;
  int skip = 0;           ///< calls that succeed first
  bool sticky = false;    ///< the outcome is kept for the process (the driver's opening)
};

// gtest names a case by its entry point and error, not by its bytes.
void PrintTo(const Fault &fault, std::ostream *out) { *out << fault.entry << " -> " << fault.errorName; }

struct Outcome {
  triton_aot_status status;
  std::string message;
};

Outcome run(Trigger trigger) {
  switch (trigger) {
  case Trigger::Launch:
  case Trigger::LaunchNoContext:
    return {rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), rt_kernels_last_error()};
  case Trigger::Preload:
    return {rt_kernels_preload(), rt_kernels_last_error()};
  case Trigger::BigShared:
    return {rt_kernels_big_shared(nullptr, kX, kY, kOut, 128, 128, 128, 128, 128, 128),
            rt_kernels_last_error()};
  case Trigger::Scratch:
    return {hop_tma_scale(streamHandle(0x5), kX, kOut, 64, 64, 1.0f), hop_last_error()};
  case Trigger::TensorMap:
    return {hop_matmul_tma(streamHandle(0x77), devicePointer(0x7f0000100000), 256, 128, 128, 1,
                           devicePointer(0x7f0000200000), 192, 128, 136, 1,
                           devicePointer(0x7f0000300000), 256, 192, 192, 1, 256, 192, 128),
            hop_last_error()};
  case Trigger::Cluster:
    return {hop_vector_add(nullptr, kX, kY, kOut, 4096), hop_last_error()};
  case Trigger::Unload:
    return {rt_kernels_unload(), rt_kernels_last_error()};
  }
  return {TRITON_AOT_SUCCESS, ""};
}

const char *unloadEntry(const std::string &loadEntry) {
  if (loadEntry == "cuModuleLoadDataEx") return "cuModuleUnload";
  return "hipModuleUnload";
}

/// Loads that succeeded and unload calls must pair up; allocations and frees likewise.
void expectBalanced(const FakeDriver &driver, int refusedFrees) {
  std::map<std::string, int> loaded;
  for (const auto &load : driver.loads())
    if (load.result == 0) loaded[load.api]++;
  for (const auto &[api, count] : loaded)
    EXPECT_EQ(driver.callCount(unloadEntry(api)), count) << "every " << api << " unloaded";
  int allocated = 0, freed = 0;
  for (const auto &record : driver.memory()) {
    std::string api = record.api;
    if (record.result != 0) continue;
    if (api == "cuMemAllocAsync" || api == "hipMallocAsync") allocated++;
    if (api == "cuMemFreeAsync" || api == "hipFreeAsync") freed++;
  }
  EXPECT_EQ(freed + refusedFrees, allocated) << "every scratch buffer freed";
}

/// One case: fail, check, clear, work again, unload, nothing left.
void runFault(const FakeDriver &driver, const Fault &fault) {
  if (fault.trigger == Trigger::Unload) {
    ASSERT_EQ(run(Trigger::Launch).status, TRITON_AOT_SUCCESS) << rt_kernels_last_error();
  }
  const int before = driver.callCount(fault.entry);
  driver.fail(fault.entry, fault.error, fault.skip, -1);
  Outcome failed = run(fault.trigger);
  EXPECT_GT(driver.callCount(fault.entry), before) << "the path calls " << fault.entry;
  EXPECT_EQ(failed.status, fault.expected)
      << triton_aot_status_name(failed.status) << ": " << failed.message;
  if (fault.expected != TRITON_AOT_SUCCESS) {
    EXPECT_TRUE(contains(failed.message, fault.entry)) << failed.message;
    EXPECT_TRUE(contains(failed.message, fault.errorName)) << failed.message;
  }
  driver.clearFailures(fault.entry);

  // The fault is gone: the same call works (the driver's opening stays as it was).
  Outcome again = run(fault.trigger == Trigger::Unload ? Trigger::Launch : fault.trigger);
  if (fault.sticky) {
    EXPECT_EQ(again.status, fault.expected) << "kept for the process: " << again.message;
  } else {
    EXPECT_EQ(again.status, TRITON_AOT_SUCCESS) << again.message;
  }
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << rt_kernels_last_error();
  EXPECT_EQ(hop_unload(), TRITON_AOT_SUCCESS) << hop_last_error();

  // A free the driver refused stays the driver's: the runtime cannot undo the launch before it.
  const bool refusedFree = std::string(fault.entry) == "cuMemFreeAsync";
  const bool refusedUnload = fault.trigger == Trigger::Unload;
  expectBalanced(driver, refusedFree ? 1 : 0);
  EXPECT_EQ(driver.liveModules(), refusedUnload ? 1 : 0) << "nothing left loaded";
  EXPECT_EQ(driver.liveAllocations(), refusedFree ? 1 : 0) << "nothing left allocated";
  EXPECT_EQ(driver.misuseCount(), 0) << driver.firstMisuse();
}

std::string caseName(const ::testing::TestParamInfo<Fault> &info) {
  std::string name = std::string(info.param.entry) + "_" + info.param.errorName;
  static const char *const triggers[] = {"",          "_nocontext", "_preload",  "_bigshared",
                                         "_scratch",  "_tensormap", "_cluster", "_unload"};
  if (info.param.skip) name += "_after" + std::to_string(info.param.skip);
  name += triggers[static_cast<int>(info.param.trigger)];
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// --- The table ---------------------------------------------------------------------------------

using T = Trigger;
constexpr triton_aot_status kOk = TRITON_AOT_SUCCESS;
constexpr triton_aot_status kNoDevice = TRITON_AOT_ERROR_NO_DEVICE;
constexpr triton_aot_status kNoDriver = TRITON_AOT_ERROR_NO_DRIVER;
constexpr triton_aot_status kLoad = TRITON_AOT_ERROR_LOAD_FAILED;
constexpr triton_aot_status kLaunch = TRITON_AOT_ERROR_LAUNCH_FAILED;
constexpr triton_aot_status kInvalid = TRITON_AOT_ERROR_INVALID_ARGUMENT;
constexpr triton_aot_status kMemory = TRITON_AOT_ERROR_OUT_OF_MEMORY;

#define E(code) code, #code

// The main process: a CUDA 13.0 driver (cuCtxGetId).
const Fault kCudaFaults[] = {
    // The calling context (every launch).
    {"cuCtxGetCurrent", E(CUDA_ERROR_NOT_INITIALIZED), T::Launch, kNoDevice},
    {"cuCtxGetCurrent", kCudaDeinitialized, "CUDA_ERROR_DEINITIALIZED", T::Launch, kNoDevice},
    {"cuCtxGetId", E(CUDA_ERROR_INVALID_CONTEXT), T::Launch, kNoDevice},
    {"cuCtxGetId", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Launch, kNoDevice},
    {"cuCtxSetCurrent", E(CUDA_ERROR_INVALID_CONTEXT), T::LaunchNoContext, kNoDevice},
    {"cuCtxSetCurrent", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::LaunchNoContext, kNoDevice},
    // First launch in a context / on a device.
    {"cuCtxGetDevice", E(CUDA_ERROR_INVALID_CONTEXT), T::Launch, kNoDevice},
    {"cuCtxGetDevice", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Launch, kNoDevice},
    {"cuDeviceGetAttribute", E(CUDA_ERROR_INVALID_DEVICE), T::Launch, kNoDevice},
    {"cuDeviceGetAttribute", E(CUDA_ERROR_INVALID_VALUE), T::Launch, kNoDevice},
    // After the compute capability: the opt-in shared memory, asked for a block above 48 KiB;
    // refused, the block cannot have more (asked again next time).
    {"cuDeviceGetAttribute", E(CUDA_ERROR_INVALID_VALUE), T::BigShared, kLaunch, Where::Cuda, 2},
    // Loading, lookup: one module per context.
    {"cuModuleLoadDataEx", E(CUDA_ERROR_INVALID_IMAGE), T::Launch, kLoad},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_NO_BINARY_FOR_GPU), T::Launch, kLoad},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_INVALID_PTX), T::Launch, kLoad},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION), T::Launch, kLoad},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_OUT_OF_MEMORY), T::Launch, kLoad},
    {"cuModuleLoadDataEx", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Launch, kLoad},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_OUT_OF_MEMORY), T::Preload, kLoad},
    // The third image of a preload: the two before stay loaded until unload.
    {"cuModuleLoadDataEx", E(CUDA_ERROR_INVALID_IMAGE), T::Preload, kLoad, Where::Cuda, 2},
    {"cuModuleGetFunction", E(CUDA_ERROR_NOT_FOUND), T::Launch, kLoad},
    {"cuModuleGetFunction", E(CUDA_ERROR_INVALID_HANDLE), T::Launch, kLoad},
    {"cuModuleGetFunction", E(CUDA_ERROR_INVALID_CONTEXT), T::Launch, kLoad},
    {"cuModuleGetFunction", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Launch, kLoad},
    {"cuModuleGetFunction", E(CUDA_ERROR_NO_BINARY_FOR_GPU), T::Launch, kLoad},
    {"cuModuleGetFunction", E(CUDA_ERROR_OUT_OF_MEMORY), T::Launch, kLoad},
    // Attributes (shared memory above 48 KiB).
    {"cuFuncSetAttribute", E(CUDA_ERROR_INVALID_VALUE), T::BigShared, kLaunch},
    {"cuFuncSetAttribute", E(CUDA_ERROR_INVALID_HANDLE), T::BigShared, kLaunch},
    {"cuFuncSetAttribute", E(CUDA_ERROR_NOT_SUPPORTED), T::BigShared, kLaunch},
    // The static shared memory read: refused means none (what Triton's kernels have).
    {"cuFuncGetAttribute", E(CUDA_ERROR_INVALID_HANDLE), T::BigShared, kOk},
    // Launch.
    {"cuLaunchKernel", kCudaLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", T::Launch, kLaunch},
    {"cuLaunchKernel", E(CUDA_ERROR_INVALID_VALUE), T::Launch, kLaunch},
    {"cuLaunchKernel", kCudaIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS", T::Launch, kLaunch},
    {"cuLaunchKernel", E(CUDA_ERROR_INVALID_HANDLE), T::Launch, kLaunch},
    {"cuLaunchKernel", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Launch, kLaunch},
    {"cuLaunchKernel", E(CUDA_ERROR_OUT_OF_MEMORY), T::Launch, kLaunch},
    {"cuLaunchKernel", kCudaLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", T::Scratch, kLaunch},
    {"cuLaunchKernelEx", E(CUDA_ERROR_INVALID_CLUSTER_SIZE), T::Cluster, kLaunch},
    {"cuLaunchKernelEx", kCudaCooperativeLaunchTooLarge, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", T::Cluster, kLaunch},
    {"cuLaunchKernelEx", kCudaLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", T::Cluster, kLaunch},
    {"cuLaunchKernelEx", E(CUDA_ERROR_NOT_SUPPORTED), T::Cluster, kLaunch},
    // Scratch.
    {"cuMemAllocAsync", E(CUDA_ERROR_OUT_OF_MEMORY), T::Scratch, kMemory},
    {"cuMemAllocAsync", E(CUDA_ERROR_INVALID_VALUE), T::Scratch, kMemory},
    {"cuMemAllocAsync", E(CUDA_ERROR_NOT_SUPPORTED), T::Scratch, kMemory},
    // The launch was enqueued: it keeps its status; the refused free is logged.
    {"cuMemFreeAsync", E(CUDA_ERROR_INVALID_VALUE), T::Scratch, kOk},
    {"cuMemFreeAsync", kCudaIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS", T::Scratch, kOk},
    // Tensor maps: the first descriptor, and the second after the first was encoded.
    {"cuTensorMapEncodeTiled", E(CUDA_ERROR_INVALID_VALUE), T::TensorMap, kInvalid},
    {"cuTensorMapEncodeTiled", E(CUDA_ERROR_NOT_SUPPORTED), T::TensorMap, kInvalid},
    {"cuTensorMapEncodeTiled", E(CUDA_ERROR_OUT_OF_MEMORY), T::TensorMap, kInvalid},
    {"cuTensorMapEncodeTiled", E(CUDA_ERROR_INVALID_VALUE), T::TensorMap, kInvalid, Where::Cuda, 1},
    // Unload: everything is still forgotten; the first refusal is reported.
    {"cuModuleUnload", E(CUDA_ERROR_INVALID_HANDLE), T::Unload, kLoad},
    {"cuModuleUnload", kCudaContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", T::Unload, kLoad},
    {"cuModuleUnload", kCudaDeinitialized, "CUDA_ERROR_DEINITIALIZED", T::Unload, kLoad},
};

// Child processes: module per context, the driver's opening, the HIP runtime.
const Fault kChildFaults[] = {
    {"cuModuleLoadDataEx", E(CUDA_ERROR_INVALID_IMAGE), T::Launch, kLoad, Where::CudaModules},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_NO_BINARY_FOR_GPU), T::Launch, kLoad, Where::CudaModules},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_OUT_OF_MEMORY), T::Launch, kLoad, Where::CudaModules},
    {"cuModuleLoadDataEx", E(CUDA_ERROR_INVALID_CONTEXT), T::Launch, kLoad, Where::CudaModules},
    {"cuModuleGetFunction", E(CUDA_ERROR_NOT_FOUND), T::Launch, kLoad, Where::CudaModules},
    {"cuModuleGetFunction", E(CUDA_ERROR_INVALID_HANDLE), T::Launch, kLoad, Where::CudaModules},
    {"cuFuncSetAttribute", E(CUDA_ERROR_INVALID_VALUE), T::BigShared, kLaunch, Where::CudaModules},
    {"cuFuncGetAttribute", E(CUDA_ERROR_INVALID_HANDLE), T::BigShared, kOk, Where::CudaModules},
    {"cuModuleUnload", E(CUDA_ERROR_INVALID_HANDLE), T::Unload, kLoad, Where::CudaModules},
    {"cuModuleUnload", E(CUDA_ERROR_INVALID_CONTEXT), T::Unload, kLoad, Where::CudaModules},
    // Once per process: cuInit (kept; a CUDA-only library, so no HIP fallback), device 0's
    // primary context (retried until it works).
    {"cuInit", E(CUDA_ERROR_NO_DEVICE), T::Cluster, kNoDevice, Where::CudaFresh, 0, true},
    {"cuInit", E(CUDA_ERROR_NOT_INITIALIZED), T::Cluster, kNoDriver, Where::CudaFresh, 0, true},
    {"cuInit", E(CUDA_ERROR_UNKNOWN), T::Cluster, kNoDriver, Where::CudaFresh, 0, true},
    // With the entry points a first launch does not need (a cluster launch's cuLaunchKernelEx).
    {"cuDriverGetVersion", E(CUDA_ERROR_NOT_INITIALIZED), T::Cluster, kOk, Where::CudaFresh},
    {"cuDeviceGet", E(CUDA_ERROR_INVALID_DEVICE), T::LaunchNoContext, kNoDevice, Where::CudaFresh},
    {"cuDeviceGet", E(CUDA_ERROR_NOT_INITIALIZED), T::LaunchNoContext, kNoDevice, Where::CudaFresh},
    {"cuDevicePrimaryCtxRetain", E(CUDA_ERROR_OUT_OF_MEMORY), T::LaunchNoContext, kNoDevice, Where::CudaFresh},
    {"cuDevicePrimaryCtxRetain", E(CUDA_ERROR_INVALID_DEVICE), T::LaunchNoContext, kNoDevice, Where::CudaFresh},
    // HIP.
    {"hipGetDeviceCount", E(hipErrorNoDevice), T::Launch, kNoDevice, Where::Hip, 0, true},
    {"hipGetDeviceCount", E(hipErrorInsufficientDriver), T::Launch, kNoDevice, Where::Hip, 0, true},
    {"hipRuntimeGetVersion", E(hipErrorNotInitialized), T::Launch, kOk, Where::Hip},
    {"hipGetDevice", E(hipErrorNoDevice), T::Launch, kNoDevice, Where::Hip},
    {"hipGetDevice", E(hipErrorNotInitialized), T::Launch, kNoDevice, Where::Hip},
    {"hipGetDevice", kHipInvalidContext, "hipErrorInvalidContext", T::Launch, kNoDevice, Where::Hip},
    {"hipGetDevicePropertiesR0600", E(hipErrorInvalidDevice), T::Launch, kNoDevice, Where::Hip},
    {"hipGetDevicePropertiesR0600", E(hipErrorInvalidValue), T::Launch, kNoDevice, Where::Hip},
    {"hipModuleLoadData", E(hipErrorInvalidImage), T::Launch, kLoad, Where::Hip},
    {"hipModuleLoadData", E(hipErrorNoBinaryForGpu), T::Launch, kLoad, Where::Hip},
    {"hipModuleLoadData", E(hipErrorOutOfMemory), T::Launch, kLoad, Where::Hip},
    {"hipModuleLoadData", E(hipErrorSharedObjectInitFailed), T::Launch, kLoad, Where::Hip},
    {"hipModuleLoadData", E(hipErrorOutOfMemory), T::Preload, kLoad, Where::Hip, 1},
    {"hipModuleGetFunction", E(hipErrorNotFound), T::Launch, kLoad, Where::Hip},
    {"hipModuleGetFunction", kHipInvalidHandle, "hipErrorInvalidHandle", T::Launch, kLoad, Where::Hip},
    {"hipModuleGetFunction", E(hipErrorInvalidValue), T::Launch, kLoad, Where::Hip},
    {"hipModuleLaunchKernel", E(hipErrorInvalidValue), T::Launch, kLaunch, Where::Hip},
    {"hipModuleLaunchKernel", kHipLaunchOutOfResources, "hipErrorLaunchOutOfResources", T::Launch, kLaunch, Where::Hip},
    {"hipModuleLaunchKernel", kHipLaunchFailure, "hipErrorLaunchFailure", T::Launch, kLaunch, Where::Hip},
    {"hipModuleLaunchKernel", E(hipErrorOutOfMemory), T::Launch, kLaunch, Where::Hip},
    {"hipModuleUnload", kHipInvalidHandle, "hipErrorInvalidHandle", T::Unload, kLoad, Where::Hip},
    {"hipModuleUnload", E(hipErrorNotInitialized), T::Unload, kLoad, Where::Hip},
};

#undef E

// --- The main process --------------------------------------------------------------------------

class Faults : public RuntimeTest, public ::testing::WithParamInterface<Fault> {};

TEST_P(Faults, ReturnTheStatusNameTheCallLeakNothingAndClear) {
  const Fault &fault = GetParam();
  useCudaDevices("sm_90");
  if (fault.trigger != Trigger::LaunchNoContext) selectDevice(0);
  runFault(cuda, fault);
  // What a refused unload or free left with the driver is the driver's: forget it.
  useCudaDevices("sm_90");
}

INSTANTIATE_TEST_SUITE_P(Cuda, Faults, ::testing::ValuesIn(kCudaFaults), caseName);

// --- Child processes ---------------------------------------------------------------------------

std::vector<std::string> childEnvironment(Where where) {
  switch (where) {
  case Where::CudaModules:
    return {"TTA_FAKE_CUDA_VERSION=11080", "TTA_FAKE_CUDA_DEVICES=sm_90"};
  case Where::Hip:
    return {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-"};
  default:
    return {"TTA_FAKE_CUDA_DEVICES=sm_90"};
  }
}

class FaultsInAChild : public ::testing::TestWithParam<Fault> {};

TEST_P(FaultsInAChild, ReturnTheStatusNameTheCallLeakNothingAndClear) {
  const std::string name = caseName({GetParam(), 0});
  ChildResult child = runChild("faults", "ChildFaults/ChildFault.Injected/" + name,
                               childEnvironment(GetParam().where));
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

INSTANTIATE_TEST_SUITE_P(Spawned, FaultsInAChild, ::testing::ValuesIn(kChildFaults), caseName);

class ChildFault : public ::testing::TestWithParam<Fault> {};

TEST_P(ChildFault, Injected) {
  if (!childMode("faults")) GTEST_SKIP() << "runs in the child process FaultsInAChild starts";
  const Fault &fault = GetParam();
  const FakeDriver &cuda = fakeCuda();
  const FakeDriver &hip = fakeHip();
  // Nothing reaches the runtime before the fault is set: the libraries are not loaded yet.
  if (fault.where != Where::Hip) {
    ASSERT_EQ(cuda.setCurrentDevice(fault.trigger == Trigger::LaunchNoContext ? -1 : 0), 0);
  }
  runFault(fault.where == Where::Hip ? hip : cuda, fault);
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
  EXPECT_EQ(hip.misuseCount(), 0) << hip.firstMisuse();
}

INSTANTIATE_TEST_SUITE_P(ChildFaults, ChildFault, ::testing::ValuesIn(kChildFaults), caseName);

// --- A context destroyed between calls --------------------------------------------------------

using FaultsContext = RuntimeTest;

TEST_F(FaultsContext, ALaunchInADestroyedContextIsNoDeviceAndANewContextWorks) {
  useCudaDevices("sm_90");
  const int first = cuda.createContext(0);
  ASSERT_GE(first, 100);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  // Destroyed elsewhere: it stays this thread's current context, as with the driver.
  ASSERT_EQ(cuda.destroyContext(first), 0);
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_NO_DEVICE);
  EXPECT_TRUE(contains(lastError(), "cuCtxGetId failed: CUDA_ERROR_CONTEXT_IS_DESTROYED")) << lastError();
  EXPECT_EQ(rt_kernels_preload(), TRITON_AOT_ERROR_NO_DEVICE);
  // A new context on the same device loads its own module (the first went with its context).
  ASSERT_GE(cuda.createContext(0), 100);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(loads().size(), 2u) << "a module per context";
  auto launched = launches();
  ASSERT_EQ(launched.size(), 2u);
  EXPECT_NE(launched[0].context, launched[1].context);
  // Unload leaves the destroyed context's module alone: its handle is stale.
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.liveModules(), 0);
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
}

TEST(FaultsContextModules, ModulesOfADestroyedContextAreNotUnloadedAgain) {
  ChildResult child = runChild("faults_modules", "ChildFaultsContext.*",
                               {"TTA_FAKE_CUDA_VERSION=11080", "TTA_FAKE_CUDA_DEVICES=sm_90"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildFaultsContext, DestroyedContextModules) {
  if (!childMode("faults_modules")) GTEST_SKIP() << "runs in the child process FaultsContextModules starts";
  const FakeDriver &cuda = fakeCuda();
  ASSERT_EQ(cuda.setCurrentDevice(0), 0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  const int context = cuda.createContext(0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.liveModules(), 2) << "a module per context";
  ASSERT_EQ(cuda.destroyContext(context), 0);
  EXPECT_EQ(cuda.liveModules(), 1) << "the context's module went with it";
  // Without cuCtxGetId a context is known by its address: the launch reaches the driver, which
  // refuses it.
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_LAUNCH_FAILED);
  EXPECT_TRUE(contains(lastError(), "CUDA_ERROR_CONTEXT_IS_DESTROYED")) << lastError();
  ASSERT_EQ(cuda.setCurrentDevice(0), 0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  // Unload skips the destroyed context's module: its handle is stale.
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.liveModules(), 0);
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
}

// --- The driver cannot name its error -----------------------------------------------------------

using FaultsMessages = RuntimeTest;

TEST_F(FaultsMessages, AnErrorTheDriverCannotNameIsGivenByNumber) {
  useCudaDevices("sm_90");
  selectDevice(0);
  cuda.fail("cuGetErrorName", CUDA_ERROR_INVALID_VALUE, 0, -1);
  cuda.fail("cuModuleLoadDataEx", CUDA_ERROR_INVALID_IMAGE, 0, 1);
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_LOAD_FAILED);
  EXPECT_TRUE(contains(lastError(), "cuModuleLoadDataEx failed: CUresult 200")) << lastError();
  cuda.clearFailures(nullptr);
  cuda.fail("cuGetErrorString", CUDA_ERROR_INVALID_VALUE, 0, -1);
  cuda.fail("cuModuleLoadDataEx", CUDA_ERROR_INVALID_IMAGE, 0, 1);
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_LOAD_FAILED);
  EXPECT_TRUE(contains(lastError(), "CUDA_ERROR_INVALID_IMAGE (no description)")) << lastError();
  cuda.clearFailures("");
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
}

// --- Unload racing nothing ---------------------------------------------------------------------

using FaultsUnload = RuntimeTest;

TEST_F(FaultsUnload, UnloadWithNothingRunningReleasesEverythingEveryTime) {
  useCudaDevices("sm_80,sm_90");
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << "never used";
  for (int round = 0; round < 3; ++round) {
    for (int device : {0, 1}) {
      selectDevice(device);
      ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
      ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 128, 128, 128, 128, 128, 128),
                TRITON_AOT_SUCCESS)
          << lastError();
    }
    EXPECT_EQ(cuda.liveModules(), 4);
    EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
    EXPECT_EQ(cuda.liveModules(), 0);
    EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << "twice";
  }
  EXPECT_EQ(static_cast<int>(loads().size()), cuda.callCount("cuModuleUnload"));
}

TEST_F(FaultsUnload, ARefusedUnloadStillUnloadsTheRestAndReportsTheFirst) {
  useCudaDevices("sm_80,sm_90");
  for (int device : {0, 1}) {
    selectDevice(device);
    ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  }
  cuda.fail("cuModuleUnload", CUDA_ERROR_INVALID_HANDLE, 0, 1);
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_ERROR_LOAD_FAILED);
  EXPECT_TRUE(contains(lastError(), "unloading library rt_kernels")) << lastError();
  EXPECT_TRUE(contains(lastError(), "cuModuleUnload failed: CUDA_ERROR_INVALID_HANDLE")) << lastError();
  EXPECT_EQ(cuda.callCount("cuModuleUnload"), 2) << "the other device's image is still unloaded";
  EXPECT_EQ(cuda.liveModules(), 1) << "the refused one is the driver's";
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << "the state was forgotten";
  useCudaDevices("sm_90");
}

// --- Races: 64 threads over two libraries, phase by phase ---------------------------------------

template <typename Body> void atOnce(int count, Body body) {
  std::atomic<int> waiting{count};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(count));
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) std::this_thread::yield();
      body(t);
    });
  for (auto &thread : threads) thread.join();
}

constexpr int kThreads = 64;

using FaultsRace = RuntimeTest;

// rt_kernels (static: this program's runtime copy) and rt_shared (a shared library with its own
// runtime copy) on two devices; after each phase both are unloaded with nothing running.
TEST_F(FaultsRace, SixtyFourThreadsTwoLibrariesFirstLaunchesPreloadsAndUnloadsBetweenPhases) {
  useCudaDevices("sm_80,sm_86");
  std::atomic<int> failures{0};
  std::string firstFailure;
  std::mutex failureMutex;
  auto check = [&](triton_aot_status status, const char *message) {
    if (status == TRITON_AOT_SUCCESS) return;
    if (failures++ == 0) {
      std::lock_guard<std::mutex> lock(failureMutex);
      firstFailure = message;
    }
  };
  auto unloadBoth = [&] {
    EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
    EXPECT_EQ(shr_unload(), TRITON_AOT_SUCCESS) << shr_last_error();
    EXPECT_EQ(cuda.liveModules(), 0) << "unloaded between phases";
  };
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Phase 1: first launches of both libraries on both devices at once.
    int loadsBefore = cuda.loadCount();
    atOnce(kThreads, [&](int t) {
      if (cuda.setCurrentDevice(t % 2) != 0) failures++;
      if (t % 4 < 2) {
        check(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), rt_kernels_last_error());
      } else {
        check(shr_vector_add(nullptr, kX, kY, kOut, 4096), shr_last_error());
      }
    });
    EXPECT_EQ(failures.load(), 0) << firstFailure;
    EXPECT_EQ(cuda.loadCount() - loadsBefore, 4) << "each library's image once per device";
    unloadBoth();

    // Phase 2: preloads racing launches, both libraries, both devices.
    const int phase2 = cuda.loadCount();
    atOnce(kThreads, [&](int t) {
      if (cuda.setCurrentDevice(t % 2) != 0) failures++;
      switch (t % 4) {
      case 0: check(rt_kernels_preload(), rt_kernels_last_error()); break;
      case 1: check(shr_preload(), shr_last_error()); break;
      case 2:
        check(rt_kernels_matmul(nullptr, kX, kY, kOut, 64, 64, 64, 64, 1, 64, 1, 64, 1),
              rt_kernels_last_error());
        break;
      default: check(shr_vector_add(nullptr, kX, kY, kOut, 4096), shr_last_error()); break;
      }
    });
    EXPECT_EQ(failures.load(), 0) << firstFailure;
    std::set<std::pair<int, uint64_t>> perDevice;
    auto all = cuda.loads();
    for (std::size_t i = static_cast<std::size_t>(phase2); i < all.size(); ++i) {
      EXPECT_EQ(all[i].result, 0);
      EXPECT_TRUE(perDevice.insert({all[i].device, all[i].hash}).second)
          << "each image once per device";
    }
    unloadBoth();

    // Phase 3: launches only, after a preload on the main thread: nothing loads.
    selectDevice(0);
    ASSERT_EQ(rt_kernels_preload(), TRITON_AOT_SUCCESS) << lastError();
    ASSERT_EQ(shr_preload(), TRITON_AOT_SUCCESS) << shr_last_error();
    const int preloaded = cuda.loadCount();
    atOnce(kThreads, [&](int t) {
      if (cuda.setCurrentDevice(0) != 0) failures++;
      if (t % 2) check(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), rt_kernels_last_error());
      else check(shr_vector_add(nullptr, kX, kY, kOut, 4096), shr_last_error());
    });
    EXPECT_EQ(failures.load(), 0) << firstFailure;
    EXPECT_EQ(cuda.loadCount(), preloaded) << "preloaded: the launches load nothing";
    unloadBoth();
    useCudaDevices("sm_80,sm_86");
  }
}

// The same on the HIP runtime (a child process: the CUDA driver has no device there), whose
// launches find their device record by hipGetDevice instead of a context.
TEST(FaultsRaceHip, SixtyFourThreadsTwoLibrariesFirstLaunchesPreloadsAndUnloadsBetweenPhases) {
  ChildResult child = runChild("faults_race_hip", "ChildFaultsRaceHip.*",
                               {"TTA_FAKE_CUDA_DEVICES=",
                                "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack+,gfx942:sramecc+:xnack+"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildFaultsRaceHip, PhasesOnTwoDevices) {
  if (!childMode("faults_race_hip")) GTEST_SKIP() << "runs in the child process FaultsRaceHip starts";
  const FakeDriver &hip = fakeHip();
  std::atomic<int> failures{0};
  auto check = [&](triton_aot_status status) {
    if (status != TRITON_AOT_SUCCESS) failures++;
  };
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int before = hip.loadCount();
    atOnce(kThreads, [&](int t) {
      if (hip.setCurrentDevice(t % 2) != 0) failures++;
      check(t % 4 < 2 ? rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096)
                      : shr_vector_add(nullptr, kX, kY, kOut, 4096));
    });
    EXPECT_EQ(failures.load(), 0) << lastError();
    EXPECT_EQ(hip.loadCount() - before, 4) << "each library's image once per device";
    EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
    EXPECT_EQ(shr_unload(), TRITON_AOT_SUCCESS) << shr_last_error();
    EXPECT_EQ(hip.liveModules(), 0);

    const int phase2 = hip.loadCount();
    atOnce(kThreads, [&](int t) {
      if (hip.setCurrentDevice(t % 2) != 0) failures++;
      switch (t % 4) {
      case 0: check(rt_kernels_preload()); break;
      case 1: check(shr_preload()); break;
      case 2: check(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096)); break;
      default: check(shr_vector_add(nullptr, kX, kY, kOut, 4096)); break;
      }
    });
    EXPECT_EQ(failures.load(), 0);
    std::set<std::pair<int, uint64_t>> perDevice;
    auto all = hip.loads();
    for (std::size_t i = static_cast<std::size_t>(phase2); i < all.size(); ++i) {
      EXPECT_EQ(all[i].result, 0);
      EXPECT_TRUE(perDevice.insert({all[i].device, all[i].hash}).second)
          << "each image once per device";
    }
    EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
    EXPECT_EQ(shr_unload(), TRITON_AOT_SUCCESS) << shr_last_error();
    EXPECT_EQ(hip.liveModules(), 0);
  }
  EXPECT_EQ(hip.misuseCount(), 0) << hip.firstMisuse();
}

} // namespace
} // namespace tta::test
