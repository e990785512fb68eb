// Which image the runtime loads for each device, through the real load path (the fake driver
// refuses an image that does not run on the device, as a real one does).
#include "runtime_fixture.h"

#include <cstring>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

class ImageChoice : public RuntimeTest {
protected:
  // Launches vector_add (hinted variant of config b1024) on `device` and returns the load it
  // caused there.
  tta_fake_load loadFor(int device) {
    selectDevice(device);
    std::size_t before = loads().size();
    EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
    auto all = loads();
    EXPECT_EQ(all.size(), before + 1) << "one load on device " << device;
    return all.empty() ? tta_fake_load{} : all.back();
  }
  const CompiledVariant &vectorAdd(const char *target) {
    return kernelsFiles().variant("vector_add", target, "b1024", true);
  }
};

TEST_F(ImageChoice, EachDeviceGetsTheBestImageTheLibraryHasForIt) {
  useCudaDevices("sm_80,sm_86,sm_89,sm_90,sm_100");
  const auto &files = kernelsFiles();

  tta_fake_load sm80 = loadFor(0);
  EXPECT_EQ(files.fileOf(sm80.hash), vectorAdd("cuda:80").binary) << "sm_80: its exact cubin";
  EXPECT_EQ(sm80.kind, TTA_FAKE_IMAGE_CUBIN);
  EXPECT_EQ(sm80.device, 0);

  tta_fake_load sm86 = loadFor(1);
  EXPECT_EQ(files.fileOf(sm86.hash), vectorAdd("cuda:80").binary) << "sm_86: the sm_80 cubin";

  tta_fake_load sm89 = loadFor(2);
  EXPECT_EQ(files.fileOf(sm89.hash), vectorAdd("cuda:80").binary) << "sm_89: the sm_80 cubin";

  tta_fake_load sm90 = loadFor(3);
  EXPECT_EQ(files.fileOf(sm90.hash), vectorAdd("cuda:90a").binary) << "sm_90: the sm_90a cubin";
  EXPECT_STREQ(sm90.arch, "sm_90a");

  // No cubin runs on sm_100, and sm_90a PTX runs only on sm_90: JIT from the sm_80 PTX.
  tta_fake_load sm100 = loadFor(4);
  EXPECT_EQ(files.fileOf(sm100.hash), vectorAdd("cuda:80").ptx) << "sm_100: JIT of the sm_80 PTX";
  EXPECT_EQ(sm100.kind, TTA_FAKE_IMAGE_PTX);
  EXPECT_STREQ(sm100.arch, "sm_80");

  // Every launch went to its own device, with the function from that device's load.
  auto all = launches();
  ASSERT_EQ(all.size(), 5u);
  for (int device = 0; device < 5; ++device) {
    EXPECT_EQ(all[device].device, device);
    EXPECT_EQ(all[device].result, 0);
    EXPECT_STREQ(all[device].function, "add_kernel");
  }
  EXPECT_EQ(all[4].image_hash, sm100.hash);
}

TEST_F(ImageChoice, ALibraryWithoutAnImageForTheDeviceSaysWhatItHas) {
  useCudaDevices("sm_80,sm_100");
  for (int device : {0, 1}) {
    selectDevice(device);
    EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_NO_IMAGE);
    std::string message = hop_last_error();
    EXPECT_NE(message.find(device == 0 ? "sm_80" : "sm_100"), std::string::npos) << message;
    EXPECT_NE(message.find("sm_90a"), std::string::npos) << "lists the library's targets: " << message;
  }
  EXPECT_TRUE(loads().empty()) << "nothing is handed to the driver";
  EXPECT_TRUE(launches().empty());
}

TEST_F(ImageChoice, AnArchSpecificLibraryRunsOnItsExactChip) {
  useCudaDevices("sm_90");
  EXPECT_EQ(hop_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << hop_last_error();
  auto all = loads();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(hopperFiles().fileOf(all[0].hash),
            hopperFiles().variant("vector_add", "cuda:90a", "cta2", true).binary);
}

TEST_F(ImageChoice, HintVariantsAndConfigsLoadTheirOwnImages) {
  useCudaDevices("sm_80");
  const auto &files = kernelsFiles();
  const void *unaligned = devicePointer(0x20004);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, unaligned, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4095), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(rt_kernels_vector_add_config(nullptr, 1, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  auto all = launches();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(files.fileOf(all[0].image_hash), files.variant("vector_add", "cuda:80", "b1024", true).binary);
  EXPECT_EQ(files.fileOf(all[1].image_hash), files.variant("vector_add", "cuda:80", "b1024", false).binary)
      << "a pointer that is not 16-byte aligned takes the generic variant";
  EXPECT_EQ(files.fileOf(all[2].image_hash), files.variant("vector_add", "cuda:80", "b1024", false).binary)
      << "n_elements not divisible by 16 takes the generic variant";
  EXPECT_EQ(files.fileOf(all[3].image_hash), files.variant("vector_add", "cuda:80", "b256", true).binary);
  EXPECT_EQ(loads().size(), 3u) << "the generic variant was loaded once for both launches";
}

// --- HIP: in a child process whose CUDA driver has no device, so the runtime falls back to the
// HIP runtime for a library that has both (the CUDA driver is opened once per process).

const std::vector<std::string> kNoCudaDevice = {"TTA_FAKE_CUDA_DEVICES="};

TEST(HipImageChoice, Gfx942GetsItsCodeObject) {
  ChildResult child = runChild("hip", "ChildHip.Gfx942GetsItsCodeObject",
                               {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildHip, Gfx942GetsItsCodeObject) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipImageChoice starts";
  const FakeDriver &hip = fakeHip();
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  auto loads = hip.loads();
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_STREQ(loads[0].api, "hipModuleLoadData");
  EXPECT_EQ(loads[0].kind, TTA_FAKE_IMAGE_HSACO);
  EXPECT_EQ(kernelsFiles().fileOf(loads[0].hash),
            kernelsFiles().variant("vector_add", "hip:gfx942", "b1024", true).binary);
  auto launches = hip.launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].api, "hipModuleLaunchKernel");
  EXPECT_EQ(launches[0].block[0], 256u) << "4 warps of 64 lanes";
  EXPECT_EQ(launches[0].grid[0], 4u);
  EXPECT_EQ(launches[0].result, 0);
  EXPECT_EQ(fakeCuda().loads().size(), 0u);
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(hip.liveModules(), 0);
  EXPECT_EQ(hip.misuseCount(), 0) << hip.firstMisuse();
}

TEST(HipImageChoice, Gfx90aHasNoImageAndTheMessageListsTheTargets) {
  ChildResult child = runChild("hip", "ChildHip.Gfx90aHasNoImage",
                               {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx90a:sramecc+:xnack-"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildHip, Gfx90aHasNoImage) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipImageChoice starts";
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_NO_IMAGE);
  std::string message = lastError();
  for (const char *part : {"gfx90a", "sm_80", "sm_90a", "gfx942"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  EXPECT_TRUE(fakeHip().loads().empty());
}

TEST(HipImageChoice, ATargetIdWithXnackOnRunsOnlyWhereXnackIsOn) {
  ChildResult off = runChild("hip", "ChildHip.XnackOffDevice",
                             {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-"});
  EXPECT_TRUE(off.passedOne()) << off.describe();
  ChildResult on = runChild("hip", "ChildHip.XnackOnDevice",
                            {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack+"});
  EXPECT_TRUE(on.passedOne()) << on.describe();
}

// rt_shared is built for hip:gfx942:xnack+ (compressed): the image itself is built with xnack
// "any", so only the runtime's target-ID check can refuse it.
TEST(ChildHip, XnackOffDevice) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipImageChoice starts";
  EXPECT_EQ(shr_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_NO_IMAGE);
  std::string message = shr_last_error();
  EXPECT_NE(message.find("gfx942:xnack+"), std::string::npos) << message;
  EXPECT_TRUE(fakeHip().loads().empty());
}

TEST(ChildHip, XnackOnDevice) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipImageChoice starts";
  ASSERT_EQ(shr_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << shr_last_error();
  auto loads = fakeHip().loads();
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(sharedFiles().fileOf(loads[0].hash),
            sharedFiles().variant("vector_add", "hip:gfx942:xnack+", "", false).binary)
      << "decompressed before loading";
  EXPECT_EQ(fakeHip().launches().size(), 1u);
  EXPECT_EQ(shr_unload(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(fakeHip().liveModules(), 0);
}

TEST(HipImageChoice, ScalarsAndScratchPointersOnHip) {
  ChildResult child = runChild("hip", "ChildHip.ScalarsAndScratchPointers",
                               {"TTA_FAKE_CUDA_DEVICES=", "TTA_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildHip, ScalarsAndScratchPointers) {
  if (!childMode("hip")) GTEST_SKIP() << "runs in the child process HipImageChoice starts";
  const uint16_t beta = triton_aot_fp16(-2.5f);
  ASSERT_EQ(rt_kernels_scale_shift(streamHandle(0x5000), kX, kOut, 0.75f, beta, 1000, true),
            TRITON_AOT_SUCCESS)
      << lastError();
  auto launches = fakeHip().launches();
  ASSERT_EQ(launches.size(), 1u);
  const tta_fake_launch &launch = launches[0];
  ASSERT_EQ(launch.param_count, 8u) << "6 arguments and the two scratch pointers";
  EXPECT_EQ(paramBytes(launch, 2), bytesOf(0.75f));
  EXPECT_EQ(paramBytes(launch, 3), bytesOf(beta));
  EXPECT_EQ(paramBytes(launch, 4), bytesOf(int64_t{1000}));
  EXPECT_EQ(paramBytes(launch, 5), bytesOf(true));
  EXPECT_EQ(paramBytes(launch, 6), bytesOf(static_cast<void *>(nullptr)));
  EXPECT_EQ(paramBytes(launch, 7), bytesOf(static_cast<void *>(nullptr)));
  EXPECT_EQ(launch.stream, 0x5000u);
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_TRUE(fakeHip().memory().empty()) << "no scratch is allocated when none is asked for";
  EXPECT_EQ(rt_kernels_unload(), TRITON_AOT_SUCCESS);
}

} // namespace
} // namespace tta::test
