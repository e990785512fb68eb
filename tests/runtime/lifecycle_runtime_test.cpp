// Loading: once per device however many threads launch first at once, explicit preload, unload
// and reload, contexts (one module each; drivers without cuCtxGetId tell them apart by address),
// and the TRITON_AOT_LOG lines.
#include "runtime_fixture.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <thread>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

using Lifecycle = RuntimeTest;

// Starts `count` threads that each run `body(index)` at the same moment.
template <typename Body> void atOnce(int count, Body body) {
  std::atomic<int> waiting{count};
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) std::this_thread::yield();
      body(t);
    });
  for (auto &thread : threads) thread.join();
}

TEST_F(Lifecycle, ThirtyTwoThreadsLaunchingFirstAtOnceLoadOnce) {
  useCudaDevices("sm_90");
  std::atomic<int> failures{0};
  atOnce(32, [&](int) {
    if (rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096) != TRITON_AOT_SUCCESS) failures++;
  });
  EXPECT_EQ(failures.load(), 0);
  auto all = loads();
  ASSERT_EQ(all.size(), 1u) << "one load for one device";
  EXPECT_EQ(kernelsFiles().fileOf(all[0].hash),
            kernelsFiles().variant("vector_add", "cuda:90a", "b1024", true).binary);
  EXPECT_EQ(launches().size(), 32u);
  for (const auto &launch : launches()) EXPECT_EQ(launch.image_handle, all[0].handle);
}

TEST_F(Lifecycle, ThreadsAlternatingTwoDevicesLoadOncePerDevice) {
  useCudaDevices("sm_80,sm_90");
  std::atomic<int> failures{0};
  atOnce(32, [&](int t) {
    for (int round = 0; round < 4; ++round) {
      int device = (t + round) % 2;
      if (cuda.setCurrentDevice(device) != 0) failures++;
      if (rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096) != TRITON_AOT_SUCCESS) failures++;
    }
  });
  EXPECT_EQ(failures.load(), 0);
  auto all = loads();
  ASSERT_EQ(all.size(), 2u) << "one load per device";
  std::set<int> devices = {all[0].device, all[1].device};
  EXPECT_EQ(devices, (std::set<int>{0, 1}));
  auto launched = launches();
  ASSERT_EQ(launched.size(), 128u);
  for (const auto &launch : launched) {
    EXPECT_EQ(launch.result, 0);
    const tta_fake_load &load = all[0].device == launch.device ? all[0] : all[1];
    EXPECT_EQ(launch.image_handle, load.handle) << "device " << launch.device << " used its own load";
  }
  const auto &files = kernelsFiles();
  for (const auto &load : all)
    EXPECT_EQ(files.fileOf(load.hash),
              files.variant("vector_add", load.device == 0 ? "cuda:80" : "cuda:90a", "b1024", true).binary);
}

TEST_F(Lifecycle, ThreadsLaunchingKernelsWithScratchOnTwoDevicesEachGetTheirOwnBuffer) {
  useCudaDevices("sm_90,sm_90");
  std::atomic<int> failures{0};
  atOnce(32, [&](int t) {
    if (cuda.setCurrentDevice(t % 2) != 0) failures++;
    if (hop_tma_scale(streamHandle(0x1000 + t), kX, kOut, 64, 64, 1.0f) != TRITON_AOT_SUCCESS) failures++;
  });
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(loads().size(), 2u);
  auto memory = cuda.memory();
  ASSERT_EQ(memory.size(), 64u);
  std::map<uint64_t, tta_fake_memory> allocated;
  for (const auto &record : memory)
    if (std::string(record.api) == "cuMemAllocAsync") allocated[record.address] = record;
  EXPECT_EQ(allocated.size(), 32u) << "a buffer per launch";
  for (const auto &launch : launches()) {
    uint64_t scratch = 0;
    auto bytes = paramBytes(launch, 5);
    ASSERT_EQ(bytes.size(), sizeof scratch);
    std::memcpy(&scratch, bytes.data(), sizeof scratch);
    ASSERT_EQ(allocated.count(scratch), 1u);
    EXPECT_EQ(allocated[scratch].stream, launch.stream) << "allocated on the launch's stream";
    EXPECT_EQ(allocated[scratch].device, launch.device);
  }
}

TEST_F(Lifecycle, PreloadOfALibraryWithoutAnImageForTheDeviceFails) {
  useCudaDevices("sm_80");
  EXPECT_EQ(hop_preload(), TRITON_AOT_ERROR_NO_IMAGE);
  EXPECT_NE(std::string(hop_last_error()).find("sm_90a"), std::string::npos) << hop_last_error();
  EXPECT_TRUE(loads().empty());
}

TEST_F(Lifecycle, PreloadLoadsEveryKernelSoLaunchesLoadNothing) {
  useCudaDevices("sm_80");
  ASSERT_EQ(rt_kernels_preload(), TRITON_AOT_SUCCESS) << lastError();
  auto preloaded = loads();
  std::set<uint64_t> images;
  for (const auto &load : preloaded) {
    EXPECT_EQ(load.result, 0);
    EXPECT_EQ(load.kind, TTA_FAKE_IMAGE_CUBIN);
    images.insert(load.hash);
  }
  // Every variant of every kernel for sm_80: 4 vector_add, 1 scale_shift, 1 big_shared, 4 matmul.
  std::set<uint64_t> expected;
  for (const auto &variant : kernelsFiles().variants())
    if (variant.target == "cuda:80") expected.insert(kernelsFiles().hashOf(variant.binary));
  EXPECT_EQ(images, expected);
  EXPECT_EQ(preloaded.size(), expected.size()) << "each image once";
  EXPECT_TRUE(launches().empty()) << "preloading launches nothing";

  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, devicePointer(0x20004), kOut, 4095), TRITON_AOT_SUCCESS);
  ASSERT_EQ(rt_kernels_scale_shift(nullptr, kX, kOut, 1.0f, 0, 100, false), TRITON_AOT_SUCCESS);
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 128, 128, 128, 128, 128, 128), TRITON_AOT_SUCCESS);
  ASSERT_EQ(rt_kernels_matmul_config(nullptr, 1, kX, kY, kOut, 64, 64, 64, 64, 1, 64, 1, 64, 1),
            TRITON_AOT_SUCCESS);
  EXPECT_EQ(loads().size(), preloaded.size()) << "no launch loads after a preload";
  EXPECT_EQ(launches().size(), 5u);
}

TEST_F(Lifecycle, UnloadReleasesEverythingAndTheNextLaunchLoadsAgain) {
  useCudaDevices("sm_80,sm_90");
  for (int device : {0, 1}) {
    selectDevice(device);
    ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  }
  EXPECT_EQ(cuda.liveModules(), 2);
  ASSERT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.liveModules(), 0) << "unloaded from every device";
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  auto all = loads();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].hash, all[1].hash) << "device 1 loads its image again";
  EXPECT_EQ(launches().back().image_handle, all[2].handle) << "with the new handle";
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << "unloading twice is harmless";
}

TEST_F(Lifecycle, AThreadLaunchingEveryVariantInTurnGetsEachItsOwnFunctionEveryTime) {
  // The launch path remembers each thread's last functions (launch_memo.c): a launch of another
  // slot, or in another context, must never be served the remembered one.
  useCudaDevices("sm_90");
  selectDevice(0);
  const void *misaligned = devicePointer(0x30004);
  std::vector<std::string> expected;
  for (int round = 0; round < 3; ++round) {
    if (round == 2) {
      ASSERT_GE(cuda.createContext(0), 100) << "the last round in a new context";
    }
    for (int config : {0, 1})
      for (bool hinted : {true, false}) {
        ASSERT_EQ(rt_kernels_vector_add_config(nullptr, config, kX, kY, hinted ? kOut : misaligned,
                                               4096),
                  TRITON_AOT_SUCCESS)
            << lastError();
        expected.push_back(
            kernelsFiles().variant("vector_add", "cuda:90a", config ? "b256" : "b1024", hinted).binary);
      }
  }
  auto launched = launches();
  ASSERT_EQ(launched.size(), expected.size());
  for (size_t i = 0; i < launched.size(); ++i) {
    EXPECT_EQ(kernelsFiles().fileOf(launched[i].image_hash), expected[i]) << "launch " << i;
    EXPECT_EQ(launched[i].context, launched[i < 8 ? 0 : 8].context) << "launch " << i;
  }
  EXPECT_NE(launched[0].context, launched[8].context);
}

TEST_F(Lifecycle, EachContextOfTheDeviceLoadsItsOwnModule) {
  useCudaDevices("sm_90");
  selectDevice(0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_GE(cuda.createContext(0), 100);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  auto all = loads();
  ASSERT_EQ(all.size(), 2u) << "one module per context, loaded once";
  for (const auto &load : all) EXPECT_STREQ(load.api, "cuModuleLoadDataEx");
  EXPECT_NE(all[0].context, all[1].context);
  auto launched = launches();
  ASSERT_EQ(launched.size(), 3u);
  EXPECT_NE(launched[0].context, launched[1].context);
  EXPECT_EQ(launched[1].image_handle, all[1].handle) << "each context launches its own module's";
  EXPECT_EQ(launched[2].image_handle, all[1].handle);
  // The fake refuses a function from another context; the runtime must never hand it one.
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
}

TEST_F(Lifecycle, WithoutACurrentContextDeviceZerosPrimaryContextIsUsed) {
  useCudaDevices("sm_80,sm_90");
  ASSERT_EQ(cuda.setCurrentDevice(-1), 0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(onlyLaunch().device, 0);
}

TEST_F(Lifecycle, ASharedKernelLibraryExportsOnlyItsApi) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void *>(&shr_vector_add), &info), 0);
  void *library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr) << info.dli_fname;
  for (const char *name : {"shr_vector_add", "shr_vector_add_config", "shr_preload", "shr_unload",
                           "shr_manifest", "shr_last_error", "shr_set_allocator", "shr_version"})
    EXPECT_NE(dlsym(library, name), nullptr) << name;
  for (const char *name : {"triton_aot_launch", "triton_aot_last_error", "triton_aot_set_allocator",
                           "tta_cuda_driver", "rt_shared_tta_blob"})
    EXPECT_EQ(dlsym(library, name), nullptr) << name << " must be hidden";
  dlclose(library);
}

TEST_F(Lifecycle, TheManifestDescribesTheLibraryAtRunTime) {
  std::string text = rt_kernels_manifest();
  EXPECT_NE(text.find("\"vector_add\""), std::string::npos);
  EXPECT_NE(text.find("\"matmul\""), std::string::npos);
  EXPECT_NE(text.find("gfx942"), std::string::npos);
  EXPECT_STREQ(rt_kernels_version(), "0.1.0");
  EXPECT_NE(std::string(hop_manifest()).find("tma_scale"), std::string::npos);
}

// --- Drivers before 12.0 (no cuCtxGetId): still one module per context ------------------------

TEST(LifecycleOldDriver, ModulesAreLoadedPerContext) {
  ChildResult child = runChild("driver_11_8", "ChildOldDriver.ModulesPerContext",
                               {"TTA_FAKE_CUDA_VERSION=11080", "TTA_FAKE_CUDA_DEVICES=sm_80,sm_90"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildOldDriver, ModulesPerContext) {
  if (!childMode("driver_11_8")) GTEST_SKIP() << "runs in the child process LifecycleOldDriver starts";
  const FakeDriver &cuda = fakeCuda();
  std::atomic<int> failures{0};
  // Several threads in each of three contexts (two on device 0).
  int second = -1;
  cuda.setCurrentDevice(0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  second = cuda.createContext(0);
  ASSERT_GE(second, 100);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  atOnce(16, [&](int t) {
    cuda.setCurrentDevice(t % 2);
    if (rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096) != TRITON_AOT_SUCCESS) failures++;
  });
  EXPECT_EQ(failures.load(), 0);
  auto loads = cuda.loads();
  ASSERT_EQ(loads.size(), 3u) << "one module per context: two on device 0, one on device 1";
  for (const auto &load : loads) EXPECT_STREQ(load.api, "cuModuleLoadDataEx");
  std::set<int> contexts;
  for (const auto &load : loads) contexts.insert(load.context);
  EXPECT_EQ(contexts.size(), 3u);
  EXPECT_EQ(cuda.launches().size(), 18u);
  // The fake refuses a function from another context; the runtime must never hand it one.
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
  ASSERT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.liveModules(), 0);
}

TEST(LifecycleOldDriver, WithoutCuLaunchKernelExClusterKernelsFailClearly) {
  ChildResult child = runChild("driver_11_5", "ChildOldDriver.NoLaunchKernelEx",
                               {"TTA_FAKE_CUDA_VERSION=11050", "TTA_FAKE_CUDA_DEVICES=sm_90"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildOldDriver, NoLaunchKernelEx) {
  if (!childMode("driver_11_5")) GTEST_SKIP() << "runs in the child process LifecycleOldDriver starts";
  const FakeDriver &cuda = fakeCuda();
  EXPECT_EQ(hop_vector_add_config(nullptr, 0, kX, kY, kOut, 2048), TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = hop_last_error();
  EXPECT_NE(message.find("cuLaunchKernelEx"), std::string::npos) << message;
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(cuda.launches().size(), 1u);
  EXPECT_EQ(hop_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
}

// --- What a launch asks the driver: once the slot is loaded, one cuCtxGetId(NULL) names the
// context; a driver that does not answer for NULL costs cuCtxGetCurrent + cuCtxGetId. ---------

int launchesCallingOnlyCtxGetId(const FakeDriver &cuda, int launches) {
  const int current = cuda.callCount("cuCtxGetCurrent"), ids = cuda.callCount("cuCtxGetId");
  for (int i = 0; i < launches; ++i)
    if (rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096) != TRITON_AOT_SUCCESS) return -1;
  EXPECT_EQ(cuda.callCount("cuCtxGetId") - ids, launches) << "one id per launch";
  return cuda.callCount("cuCtxGetCurrent") - current;
}

TEST_F(Lifecycle, ALaunchAsksTheDriverOnceForItsContext) {
  useCudaDevices("sm_80,sm_90");
  cuda.setCurrentDevice(0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(launchesCallingOnlyCtxGetId(cuda, 10), 0) << "no cuCtxGetCurrent per launch";
  // Another context (device 1) misses the memo, loads its own module, then launches alike.
  cuda.setCurrentDevice(1);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(launchesCallingOnlyCtxGetId(cuda, 10), 0);
  std::set<int> contexts;
  for (const auto &launch : cuda.launches()) contexts.insert(launch.context);
  EXPECT_EQ(contexts.size(), 2u);
  EXPECT_EQ(cuda.loads().size(), 2u);
}

TEST(LifecycleDriverVariants, ADriverThatDoesNotNameTheContextForNullCostsTwoCalls) {
  ChildResult child = runChild("null_id", "ChildNullId.TwoCallsPerLaunch",
                               {"TTA_FAKE_CUDA_NULL_CONTEXT_ID=0", "TTA_FAKE_CUDA_DEVICES=sm_80"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildNullId, TwoCallsPerLaunch) {
  if (!childMode("null_id")) GTEST_SKIP() << "runs in the child process LifecycleDriverVariants starts";
  const FakeDriver &cuda = fakeCuda();
  cuda.setCurrentDevice(0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(launchesCallingOnlyCtxGetId(cuda, 10), 10) << "cuCtxGetCurrent + cuCtxGetId each";
  EXPECT_EQ(cuda.launches().size(), 11u);
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
}

// --- A 12.x driver whose cuGetProcAddress lacks the optional cuCtxGetId: contexts are told
// apart by their address, and each still gets its own module and attributes. ------------------

TEST(LifecycleDriverVariants, WithoutCuCtxGetIdContextsAreToldApartByAddress) {
  ChildResult child = runChild("hide", "ChildHide.ContextsByAddress",
                               {"TTA_FAKE_CUDA_HIDE=cuCtxGetId", "TTA_FAKE_CUDA_DEVICES=sm_80,sm_90"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildHide, ContextsByAddress) {
  if (!childMode("hide")) GTEST_SKIP() << "runs in the child process LifecycleDriverVariants starts";
  const FakeDriver &cuda = fakeCuda();
  cuda.setCurrentDevice(0);
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256), TRITON_AOT_SUCCESS)
      << lastError();
  ASSERT_GE(cuda.createContext(0), 100);
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256), TRITON_AOT_SUCCESS)
      << lastError();
  cuda.setCurrentDevice(1);
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256), TRITON_AOT_SUCCESS)
      << lastError();
  EXPECT_EQ(cuda.callCount("cuCtxGetId"), 0);
  EXPECT_EQ(cuda.loads().size(), 3u) << "one module per context";
  auto launches = cuda.launches();
  ASSERT_EQ(launches.size(), 3u);
  std::set<int> contexts;
  for (const auto &launch : launches) {
    EXPECT_EQ(launch.result, 0);
    contexts.insert(launch.context);
  }
  EXPECT_EQ(contexts.size(), 3u);
  int raised = 0;
  for (const auto &attribute : cuda.attributes())
    if (std::string(attribute.api) == "cuFuncSetAttribute" && attribute.result == 0) raised++;
  EXPECT_EQ(raised, 3) << "the shared-memory limit raised on each context's function";
  EXPECT_EQ(cuda.misuseCount(), 0) << cuda.firstMisuse();
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(cuda.liveModules(), 0);
}

// --- TRITON_AOT_LOG --------------------------------------------------------------------------

TEST(LifecycleLog, TritonAotLogWritesOneLinePerLoadDecision) {
  ChildResult child = runChild("log", "ChildLog.LaunchOnSm86",
                               {"TRITON_AOT_LOG=1", "TTA_FAKE_CUDA_DEVICES=sm_86"});
  ASSERT_TRUE(child.passedOne()) << child.describe();
  bool decision = false;
  std::size_t start = 0;
  while (start < child.err.size()) {
    std::size_t end = child.err.find('\n', start);
    std::string line = child.err.substr(start, end - start);
    start = end == std::string::npos ? child.err.size() : end + 1;
    if (line.empty()) continue;
    EXPECT_EQ(line.rfind("triton-aot: ", 0), 0u) << "every line is the runtime's: " << line;
    if (line.find("rt_kernels_vector_add") != std::string::npos && line.find("sm_86") != std::string::npos &&
        line.find("sm_80 cubin") != std::string::npos && line.find("device 0") != std::string::npos)
      decision = true;
  }
  EXPECT_TRUE(decision) << "a line says device 0 (sm_86) gets the sm_80 cubin, and why:\n" << child.err;
}

TEST(LifecycleLog, WithoutTritonAotLogTheRuntimePrintsNothing) {
  ChildResult child = runChild("log", "ChildLog.LaunchOnSm86", {"TTA_FAKE_CUDA_DEVICES=sm_86"},
                               {"TRITON_AOT_LOG"});
  ASSERT_TRUE(child.passedOne()) << child.describe();
  EXPECT_EQ(child.err, "");
}

TEST(ChildLog, LaunchOnSm86) {
  if (!childMode("log")) GTEST_SKIP() << "runs in the child process LifecycleLog starts";
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  // A failure is logged too, but never printed without TRITON_AOT_LOG.
  EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_NO_IMAGE);
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
}

} // namespace
} // namespace tta::test
