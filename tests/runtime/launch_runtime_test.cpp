// What a launch hands the driver: grid, block, shared memory, launch attributes and every
// argument's exact bytes, as the fake read them through kernelParams at the sizes the image
// declares (cubin .nv.info / PTX .param / HSACO metadata).
#include "cuda_api.h"
#include "runtime_fixture.h"

#include <climits>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x7f0000100000);
const void *kY = devicePointer(0x7f0000200000);
const void *kOut = devicePointer(0x7f0000300000);
const void *kNull = nullptr;

using Launch = RuntimeTest;

TEST_F(Launch, ScalarsArePassedAtTheirExactWidth) {
  useCudaDevices("sm_80");
  const uint16_t beta = triton_aot_fp16(0.5f);
  const int64_t n = (INT64_C(1) << 33) + 5; // above 32 bits: an i64 must not be truncated
  ASSERT_EQ(rt_kernels_scale_shift(streamHandle(0xabc), kX, kOut, 1.5f, beta, n, true),
            TRITON_AOT_SUCCESS)
      << lastError();
  ASSERT_EQ(rt_kernels_scale_shift(streamHandle(0xabc), kX, kOut, -3.25f, triton_aot_fp16(-0.0f),
                                   256, false),
            TRITON_AOT_SUCCESS)
      << lastError();
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  const tta_fake_launch &first = all[0];
  ASSERT_EQ(first.param_count, 8u) << "x, out, alpha, beta, n, use_beta, two scratch pointers";
  const unsigned sizes[] = {8, 8, 4, 2, 8, 1, 8, 8};
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(first.param_size[i], sizes[i]) << "parameter " << i;
  EXPECT_EQ(paramBytes(first, 0), bytesOf(kX));
  EXPECT_EQ(paramBytes(first, 1), bytesOf(kOut));
  EXPECT_EQ(paramBytes(first, 2), bytesOf(1.5f)) << "fp32 as 4 bytes, not a double";
  EXPECT_EQ(paramBytes(first, 3), (std::vector<unsigned char>{0x00, 0x38})) << "fp16 0.5 = 0x3800";
  EXPECT_EQ(paramBytes(first, 4), bytesOf(n));
  EXPECT_EQ(paramBytes(first, 5), std::vector<unsigned char>{1});
  EXPECT_EQ(paramBytes(first, 6), bytesOf(kNull)) << "no global scratch: NULL";
  EXPECT_EQ(paramBytes(first, 7), bytesOf(kNull)) << "no profile scratch: NULL";
  EXPECT_EQ(first.grid[0], static_cast<unsigned>((n + 255) / 256));
  EXPECT_EQ(first.block[0], 128u);
  EXPECT_EQ(first.stream, 0xabcu);

  const tta_fake_launch &second = all[1];
  EXPECT_EQ(paramBytes(second, 2), bytesOf(-3.25f));
  EXPECT_EQ(paramBytes(second, 3), (std::vector<unsigned char>{0x00, 0x80})) << "fp16 -0.0";
  EXPECT_EQ(paramBytes(second, 4), bytesOf(int64_t{256}));
  EXPECT_EQ(paramBytes(second, 5), std::vector<unsigned char>{0});
  EXPECT_EQ(second.grid[0], 1u);
}

TEST_F(Launch, GridBlockAndArgumentsComeFromTheMetadataAndTheChosenConfig) {
  useCudaDevices("sm_90");
  ASSERT_EQ(rt_kernels_vector_add_config_count(), 2);
  EXPECT_STREQ(rt_kernels_vector_add_config_name(0), "b1024");
  EXPECT_STREQ(rt_kernels_vector_add_config_name(1), "b256");
  EXPECT_EQ(rt_kernels_vector_add_config_name(2), nullptr);
  EXPECT_EQ(rt_kernels_vector_add_config_name(-1), nullptr);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 5000), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(rt_kernels_vector_add_config(nullptr, 1, kX, kY, kOut, 5000), TRITON_AOT_SUCCESS) << lastError();
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_STREQ(all[0].api, "cuLaunchKernel") << "a plain kernel needs no cuLaunchKernelEx";
  EXPECT_EQ(all[0].grid[0], 5u) << "cdiv(5000, 1024)";
  EXPECT_EQ(all[0].grid[1], 1u);
  EXPECT_EQ(all[0].grid[2], 1u);
  EXPECT_EQ(all[0].block[0], 128u) << "4 warps";
  EXPECT_EQ(all[0].shared, 0u);
  EXPECT_EQ(all[0].num_attrs, 0u);
  EXPECT_EQ(all[1].grid[0], 20u) << "cdiv(5000, 256)";
  EXPECT_EQ(all[1].block[0], 64u) << "2 warps";
  for (const auto &launch : all) {
    ASSERT_EQ(launch.param_count, 6u);
    EXPECT_EQ(paramBytes(launch, 0), bytesOf(kX));
    EXPECT_EQ(paramBytes(launch, 1), bytesOf(kY));
    EXPECT_EQ(paramBytes(launch, 2), bytesOf(kOut));
    EXPECT_EQ(paramBytes(launch, 3), bytesOf(int32_t{5000}));
    EXPECT_EQ(paramBytes(launch, 4), bytesOf(kNull));
    EXPECT_EQ(paramBytes(launch, 5), bytesOf(kNull));
  }
}

TEST_F(Launch, ParametersSpecialisedToOneLeaveTheArgumentList) {
  useCudaDevices("sm_80");
  const auto &files = kernelsFiles();
  // Row-major fp16 matrices: the unit strides select the variant compiled with them as 1.
  ASSERT_EQ(rt_kernels_matmul(nullptr, kX, kY, kOut, 64, 96, 128, 128, 1, 96, 1, 96, 1),
            TRITON_AOT_SUCCESS)
      << lastError();
  ASSERT_EQ(rt_kernels_matmul(nullptr, kX, kY, kOut, 64, 96, 128, 1, 64, 96, 1, 96, 1),
            TRITON_AOT_SUCCESS)
      << lastError();
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(files.fileOf(all[0].image_hash), files.variant("matmul", "cuda:80", "small", true).binary);
  ASSERT_EQ(all[0].param_count, 11u) << "9 arguments (3 strides compiled in) and 2 scratch pointers";
  const int32_t specialised[] = {64, 96, 128, 128, 96, 96};
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(paramBytes(all[0], 3 + i), bytesOf(specialised[i])) << i;
  EXPECT_EQ(all[0].grid[0], 2u);
  EXPECT_EQ(all[0].grid[1], 3u);

  EXPECT_EQ(files.fileOf(all[1].image_hash), files.variant("matmul", "cuda:80", "small", false).binary)
      << "stride_ak = 64 is not 1: the generic variant";
  ASSERT_EQ(all[1].param_count, 14u);
  const int32_t generic[] = {64, 96, 128, 1, 64, 96, 1, 96, 1};
  for (unsigned i = 0; i < 9; ++i) EXPECT_EQ(paramBytes(all[1], 3 + i), bytesOf(generic[i])) << i;
}

TEST_F(Launch, AnEmptyGridLaunchesNothingAndSucceeds) {
  useCudaDevices("sm_90");
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 0), TRITON_AOT_SUCCESS);
  EXPECT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 0, 64, 64, 256, 256), TRITON_AOT_SUCCESS);
  EXPECT_EQ(lastError(), "");
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(cuda.memory().empty());
}

TEST_F(Launch, SharedMemoryAbove48KiBRaisesTheKernelsLimitFirst) {
  useCudaDevices("sm_80,sm_90");
  for (int device : {0, 1}) {
    selectDevice(device);
    ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256),
              TRITON_AOT_SUCCESS)
        << lastError();
  }
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  auto attributes = cuda.attributes();
  for (int device : {0, 1}) {
    const tta_fake_launch &launch = all[device];
    EXPECT_GT(launch.shared, 49152u) << "big_shared needs more than 48 KiB";
    EXPECT_EQ(launch.result, 0) << "the fake refuses more than the kernel's limit";
    EXPECT_EQ(launch.block[0], 256u) << "8 warps";
    EXPECT_EQ(launch.grid[0], 2u);
    EXPECT_EQ(launch.grid[1], 2u);
    bool raised = false;
    for (const auto &attribute : attributes)
      if (attribute.device == device &&
          attribute.attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
          attribute.result == 0 && attribute.value >= static_cast<int>(launch.shared))
        raised = true;
    EXPECT_TRUE(raised) << "device " << device;
  }
  // Once per device, not per launch.
  std::size_t before = cuda.attributes().size();
  selectDevice(0);
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256), TRITON_AOT_SUCCESS);
  EXPECT_EQ(cuda.attributes().size(), before);
}

TEST_F(Launch, SharedMemoryAboveTheDevicesOptInFailsClearly) {
  useCudaDevices("sm_86");
  ASSERT_EQ(cuda.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 60000), 0);
  EXPECT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256),
            TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = lastError();
  EXPECT_NE(message.find("60000"), std::string::npos) << message;
  EXPECT_NE(message.find("big_shared"), std::string::npos) << message;
  EXPECT_TRUE(launches().empty()) << "nothing the device cannot run reaches the driver";
}

// The fake's opt-in maximum of H100, B200 and Rubin, and the static shared memory every sm_90+
// image of big_shared reserves (its CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).
constexpr int kOptIn = 232448;
constexpr int kStaticShared = 1024;

// Every function attribute set so far must be MAX_DYNAMIC_SHARED_SIZE_BYTES raised to the opt-in
// maximum less the static part, and succeed: what the runtime did before Rubin.
void expectOnlyTheOptInLimitWasSet(const FakeDriver &cuda) {
  auto attributes = cuda.attributes();
  ASSERT_FALSE(attributes.empty());
  for (const auto &attribute : attributes) {
    EXPECT_EQ(attribute.attribute, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) << attribute.api;
    EXPECT_EQ(attribute.value, kOptIn - kStaticShared) << attribute.api;
    EXPECT_EQ(attribute.result, 0) << attribute.api;
  }
}

TEST_F(Launch, SharedMemoryUpTo228KiBKeepsTheOptInPath) {
  useCudaDevices("sm_90");
  ASSERT_EQ(rt_kernels_big_shared(nullptr, kX, kY, kOut, 256, 256, 128, 128, 256, 256), TRITON_AOT_SUCCESS)
      << lastError();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_GT(launch.shared, 49152u);
  EXPECT_LE(launch.shared, 228u * 1024u);
  EXPECT_STREQ(launch.api, "cuLaunchKernel");
  EXPECT_EQ(launch.num_attrs, 0u);
  EXPECT_EQ(launch.shared_mode, -1);
  expectOnlyTheOptInLimitWasSet(cuda);
}

#ifdef TTA_RUNTIME_HAVE_RUBIN
// rub_big_shared configs (rt_rubin.json) and their shared memory with Triton 3.9.
constexpr int kOversized256K = 0;   // 262160 bytes
constexpr int kEveryAttribute = 1;  // 245776 bytes, 2 CTAs, PDL, cooperative
constexpr int kOversized288K = 2;   // 294928 bytes
constexpr int kFits = 3;            // 196624 bytes: within the opt-in maximum

triton_aot_status rubinBigShared(int config) {
  return rub_big_shared_config(nullptr, config, kX, kY, kOut, 256, 256, 128, 128, 256, 256);
}

// Rubin (CC 10.7, Triton 3.9): a block above 228 KiB needs the function's shared memory mode
// and the launch attribute both set to "allow oversized", within the device's oversized maximum.
TEST_F(Launch, OversizedSharedMemoryOnRubinSetsTheModeAndTheLaunchAttribute) {
  useCudaDevices("sm_107");
  ASSERT_EQ(rubinBigShared(kOversized256K), TRITON_AOT_SUCCESS) << rub_last_error();
  ASSERT_EQ(rubinBigShared(kOversized288K), TRITON_AOT_SUCCESS) << rub_last_error();
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_GT(all[0].shared, 256u * 1024u);
  EXPECT_GT(all[1].shared, 288u * 1024u);
  for (const auto &launch : all) {
    EXPECT_EQ(launch.result, 0) << "the fake refuses an oversized block without both settings";
    EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
    EXPECT_EQ(launch.num_attrs, 1u);
    EXPECT_EQ(launch.shared_mode, CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
    EXPECT_EQ(launch.cluster_policy, -1) << "no cluster, no scheduling policy (as Triton)";
  }
  auto attributes = cuda.attributes();
  ASSERT_FALSE(attributes.empty());
  for (const auto &attribute : attributes) {
    EXPECT_EQ(attribute.attribute, CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE) << attribute.api;
    EXPECT_EQ(attribute.value, CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
    EXPECT_EQ(attribute.result, 0);
  }
  // The mode is set once at load; every launch passes the attribute.
  ASSERT_EQ(rubinBigShared(kOversized288K), TRITON_AOT_SUCCESS) << rub_last_error();
  EXPECT_EQ(cuda.attributes().size(), attributes.size());
  EXPECT_EQ(launches().back().shared_mode, CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
}

// Within the opt-in maximum, Rubin takes the path every other device takes: the limit raised to
// the opt-in maximum (the driver refuses MAX_DYNAMIC_SHARED_SIZE_BYTES above it), no mode, no
// launch attribute.
TEST_F(Launch, SharedMemoryWithinTheOptInOnRubinKeepsTheOptInPath) {
  useCudaDevices("sm_107");
  ASSERT_EQ(rubinBigShared(kFits), TRITON_AOT_SUCCESS) << rub_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_GT(launch.shared, 49152u);
  EXPECT_LE(launch.shared, static_cast<unsigned>(kOptIn - kStaticShared));
  EXPECT_STREQ(launch.api, "cuLaunchKernel");
  EXPECT_EQ(launch.shared_mode, -1);
  expectOnlyTheOptInLimitWasSet(cuda);
}

// A CC 10.7 device whose oversized maximum is smaller than a kernel needs: the kernel fails
// before anything reaches the driver, the message naming both figures; a smaller one runs.
TEST_F(Launch, OversizedSharedMemoryAboveRubinsMaximumFailsClearly) {
  useCudaDevices("sm_107");
  ASSERT_EQ(cuda.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK, 290000), 0);
  EXPECT_EQ(rubinBigShared(kOversized288K), TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = rub_last_error();
  EXPECT_NE(message.find("rub_big_shared"), std::string::npos) << message;
  EXPECT_NE(message.find("needs 294928 bytes of shared memory; device 0 (Fake GPU sm_107) allows at most " +
                         std::to_string(290000 - kStaticShared)),
            std::string::npos)
      << message;
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(cuda.attributes().empty()) << "refused before any attribute is set";
  ASSERT_EQ(rubinBigShared(kOversized256K), TRITON_AOT_SUCCESS) << rub_last_error();
  EXPECT_EQ(onlyLaunch().shared_mode, CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
}

// A CC 10.7 device whose driver reports no oversized maximum (0): the opt-in maximum is the
// limit, as on every other device, and the mode is never asked for.
TEST_F(Launch, RubinWithoutAnOversizedMaximumKeepsTheOptInLimit) {
  useCudaDevices("sm_107");
  ASSERT_EQ(cuda.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK, 0), 0);
  EXPECT_EQ(rubinBigShared(kOversized256K), TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = rub_last_error();
  EXPECT_NE(message.find("needs 262160 bytes of shared memory; device 0 (Fake GPU sm_107) allows at most " +
                         std::to_string(kOptIn - kStaticShared)),
            std::string::npos)
      << message;
  ASSERT_EQ(rubinBigShared(kFits), TRITON_AOT_SUCCESS) << rub_last_error();
  EXPECT_STREQ(onlyLaunch().api, "cuLaunchKernel");
  expectOnlyTheOptInLimitWasSet(cuda);
}

TEST_F(Launch, EveryLaunchAttributeAtOnceFitsTheLaunch) {
  useCudaDevices("sm_107");
  // 2 programs of 2 CTAs each, cooperative, PDL and oversized: all five attributes, which
  // overflow upstream's launcher's array of four.
  ASSERT_EQ(rub_big_shared_config(nullptr, kEveryAttribute, kX, kY, kOut, 256, 128, 128, 128, 256, 256),
            TRITON_AOT_SUCCESS)
      << rub_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_EQ(launch.result, 0);
  EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
  EXPECT_EQ(launch.num_attrs, 5u);
  EXPECT_EQ(launch.cluster[0], 2u);
  EXPECT_EQ(launch.cluster[1], 1u);
  EXPECT_EQ(launch.cluster[2], 1u);
  EXPECT_EQ(launch.cluster_policy, CU_CLUSTER_SCHEDULING_POLICY_SPREAD);
  EXPECT_EQ(launch.pdl, 1);
  EXPECT_EQ(launch.cooperative, 1);
  EXPECT_EQ(launch.shared_mode, CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
  EXPECT_GT(launch.shared, 228u * 1024u);
  EXPECT_EQ(launch.grid[0], 4u);
}

// sm_107a is an "a" target: its cubin runs on CC 10.7 only, not on the other 10.x chips nor a
// later major, and (as an "a" target) its PTX does not either.
TEST_F(Launch, ARubinImageRunsOnlyOnRubin) {
  useCudaDevices("sm_100,sm_103,sm_110,sm_120,sm_107");
  for (int device : {0, 1, 2, 3}) {
    selectDevice(device);
    EXPECT_EQ(rubinBigShared(kOversized256K), TRITON_AOT_ERROR_NO_IMAGE) << "device " << device;
    std::string message = rub_last_error();
    EXPECT_NE(message.find("sm_107a"), std::string::npos) << message;
  }
  EXPECT_TRUE(loads().empty());
  EXPECT_TRUE(launches().empty());
  selectDevice(4);
  ASSERT_EQ(rubinBigShared(kOversized256K), TRITON_AOT_SUCCESS) << rub_last_error();
  auto all = loads();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].device, 4);
  EXPECT_STREQ(all[0].arch, "sm_107a");
  EXPECT_EQ(all[0].kind, TTA_FAKE_IMAGE_CUBIN);
}
#endif

TEST_F(Launch, ClusterKernelsLaunchWithTheirClusterAndAMultipliedGrid) {
  useCudaDevices("sm_90");
  // 3 programs of 2 CTAs each: the driver gets 6 blocks in clusters of 2.
  ASSERT_EQ(hop_vector_add_config(streamHandle(0x42), 0, kX, kY, kOut, 3 * 1024), TRITON_AOT_SUCCESS)
      << hop_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
  EXPECT_EQ(launch.grid[0], 6u);
  EXPECT_EQ(launch.cluster[0], 2u);
  EXPECT_EQ(launch.cluster[1], 1u);
  EXPECT_EQ(launch.cluster[2], 1u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.pdl, -1);
  EXPECT_EQ(launch.stream, 0x42u);
  EXPECT_EQ(launch.result, 0);
  ASSERT_EQ(launch.param_count, 6u);
  EXPECT_EQ(paramBytes(launch, 3), bytesOf(int32_t{3 * 1024}));
}

TEST_F(Launch, PdlKernelsLaunchWithProgrammaticStreamSerialization) {
  useCudaDevices("sm_90");
  ASSERT_EQ(hop_vector_add_config(nullptr, 1, kX, kY, kOut, 3 * 1024), TRITON_AOT_SUCCESS) << hop_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
  EXPECT_EQ(launch.pdl, 1);
  EXPECT_EQ(launch.grid[0], 3u);
  EXPECT_EQ(launch.cluster[0], 0u) << "no cluster attribute for a one-CTA kernel";
  EXPECT_EQ(launch.cooperative, -1);
}

TEST_F(Launch, GlobalScratchIsAllocatedPerLaunchOnTheLaunchStreamAndFreedAfter) {
  useCudaDevices("sm_90");
  const auto &metadata = hopperFiles().variant("tma_scale", "cuda:90a", "one", true).metadata;
  const uint64_t perProgram = metadata["launch"]["global_scratch"]["size"];
  ASSERT_GT(perProgram, 0u) << "a device-side tensor descriptor needs global scratch";
  // 128 x 192 with 64 x 64 tiles: 2 x 3 programs.
  ASSERT_EQ(hop_tma_scale(streamHandle(0x99), kX, kOut, 128, 192, 2.0f), TRITON_AOT_SUCCESS) << hop_last_error();
  tta_fake_launch launch = onlyLaunch();
  auto memory = cuda.memory();
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_STREQ(memory[0].api, "cuMemAllocAsync");
  EXPECT_EQ(memory[0].size, 6 * perProgram);
  EXPECT_EQ(memory[0].stream, 0x99u);
  EXPECT_STREQ(memory[1].api, "cuMemFreeAsync");
  EXPECT_EQ(memory[1].address, memory[0].address);
  EXPECT_EQ(memory[1].stream, 0x99u);
  ASSERT_EQ(launch.param_count, 7u);
  EXPECT_EQ(paramBytes(launch, 4), bytesOf(2.0f));
  EXPECT_EQ(paramBytes(launch, 5), bytesOf(memory[0].address)) << "the scratch buffer";
  EXPECT_EQ(paramBytes(launch, 6), bytesOf(kNull)) << "no profile scratch";
  EXPECT_EQ(launch.grid[0], 2u);
  EXPECT_EQ(launch.grid[1], 3u);
  EXPECT_EQ(launch.shared, metadata["launch"]["shared"].get<unsigned>());
}

TEST_F(Launch, AFailedLaunchStillFreesItsScratch) {
  useCudaDevices("sm_90");
  cuda.fail("cuLaunchKernel", 701, 0, 1); // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
  EXPECT_EQ(hop_tma_scale(streamHandle(0x5), kX, kOut, 64, 64, 1.0f), TRITON_AOT_ERROR_LAUNCH_FAILED);
  EXPECT_NE(std::string(hop_last_error()).find("too many resources requested for launch"), std::string::npos)
      << hop_last_error();
  auto memory = cuda.memory();
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_STREQ(memory[1].api, "cuMemFreeAsync");
  EXPECT_EQ(memory[1].address, memory[0].address);
  EXPECT_EQ(cuda.liveAllocations(), 0);
}

TEST_F(Launch, ScratchOfAClusterKernelIsSizedPerCta) {
  useCudaDevices("sm_90");
  const auto &metadata = hopperFiles().variant("tma_scale", "cuda:90a", "cta2", true).metadata;
  const uint64_t perCta = metadata["launch"]["global_scratch"]["size"];
  ASSERT_EQ(metadata["launch"]["num_ctas"], 2);
  ASSERT_GT(perCta, 0u);
  ASSERT_EQ(hop_tma_scale_config(streamHandle(0x98), 1, kX, kOut, 128, 192, 0.5f), TRITON_AOT_SUCCESS)
      << hop_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
  EXPECT_EQ(launch.grid[0], 4u) << "2 programs of 2 CTAs";
  EXPECT_EQ(launch.grid[1], 3u);
  EXPECT_EQ(launch.cluster[0], 2u);
  auto memory = cuda.memory();
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[0].size, 2 * 3 * 2 * perCta) << "grid x * grid y * num_ctas * size";
  EXPECT_EQ(paramBytes(launch, 5), bytesOf(memory[0].address));
}

TEST_F(Launch, CooperativeKernelsLaunchWithTheCooperativeAttribute) {
  useCudaDevices("sm_90");
  ASSERT_EQ(hop_vector_add_config(nullptr, 2, kX, kY, kOut, 4 * 1024), TRITON_AOT_SUCCESS) << hop_last_error();
  tta_fake_launch launch = onlyLaunch();
  EXPECT_STREQ(launch.api, "cuLaunchKernelEx");
  EXPECT_EQ(launch.cooperative, 1);
  EXPECT_EQ(launch.pdl, -1);
  EXPECT_EQ(launch.grid[0], 4u);
  // More blocks than can be resident at once: the driver's refusal, with its text.
  EXPECT_EQ(hop_vector_add_config(nullptr, 2, kX, kY, kOut, 1 << 30), TRITON_AOT_ERROR_LAUNCH_FAILED);
  std::string message = hop_last_error();
  EXPECT_NE(message.find("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"), std::string::npos) << message;
  EXPECT_NE(message.find("too many blocks in cooperative launch"), std::string::npos) << message;
}

struct AllocatorLog {
  std::vector<std::size_t> sizes, aligns;
  std::vector<void *> streams, released, releaseStreams;
  int fail = 0;
};

int logAllocate(void *user, std::size_t size, std::size_t align, void *stream, void **pointer) {
  auto *log = static_cast<AllocatorLog *>(user);
  log->sizes.push_back(size);
  log->aligns.push_back(align);
  log->streams.push_back(stream);
  if (log->fail) return log->fail;
  *pointer = reinterpret_cast<void *>(0x5ca7c400 + 0x1000 * log->sizes.size());
  return 0;
}

void logRelease(void *user, void *pointer, void *stream) {
  auto *log = static_cast<AllocatorLog *>(user);
  log->released.push_back(pointer);
  log->releaseStreams.push_back(stream);
}

TEST_F(Launch, AReplacedAllocatorServesScratchForEveryLibraryOfThisRuntimeCopy) {
  useCudaDevices("sm_90");
  AllocatorLog log;
  triton_aot_allocator allocator = {logAllocate, logRelease, &log};
  rt_kernels_set_allocator(&allocator); // the same runtime copy serves hop
  const auto &metadata = hopperFiles().variant("tma_scale", "cuda:90a", "one", true).metadata;
  const uint64_t perProgram = metadata["launch"]["global_scratch"]["size"];
  const uint64_t align = metadata["launch"]["global_scratch"]["align"];
  ASSERT_EQ(hop_tma_scale(streamHandle(0x31), kX, kOut, 64, 64, 1.0f), TRITON_AOT_SUCCESS) << hop_last_error();
  ASSERT_EQ(log.sizes.size(), 1u);
  EXPECT_EQ(log.sizes[0], perProgram);
  EXPECT_EQ(log.aligns[0], align);
  EXPECT_EQ(log.streams[0], streamHandle(0x31));
  ASSERT_EQ(log.released.size(), 1u);
  EXPECT_EQ(log.released[0], reinterpret_cast<void *>(0x5ca7c400 + 0x1000));
  EXPECT_EQ(log.releaseStreams[0], streamHandle(0x31));
  EXPECT_EQ(paramBytes(onlyLaunch(), 5), bytesOf(log.released[0]));
  EXPECT_TRUE(cuda.memory().empty()) << "the default allocator is not used";

  // A failing allocator: out of memory, and nothing launched.
  log.fail = 3;
  EXPECT_EQ(hop_tma_scale(nullptr, kX, kOut, 64, 64, 1.0f), TRITON_AOT_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(hop_last_error()).find("tma_scale"), std::string::npos) << hop_last_error();
  EXPECT_EQ(launches().size(), 1u);
  EXPECT_EQ(log.released.size(), 1u);

  // NULL restores the stream-ordered default.
  rt_kernels_set_allocator(nullptr);
  ASSERT_EQ(hop_tma_scale(nullptr, kX, kOut, 64, 64, 1.0f), TRITON_AOT_SUCCESS) << hop_last_error();
  EXPECT_EQ(cuda.memory().size(), 2u);
}

TEST_F(Launch, TheDefaultAllocatorsFailureIsOutOfMemoryWithTheDriversText) {
  useCudaDevices("sm_90");
  cuda.fail("cuMemAllocAsync", CUDA_ERROR_OUT_OF_MEMORY, 0, 1);
  EXPECT_EQ(hop_tma_scale(nullptr, kX, kOut, 64, 64, 1.0f), TRITON_AOT_ERROR_OUT_OF_MEMORY);
  std::string message = hop_last_error();
  EXPECT_NE(message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << message;
  EXPECT_TRUE(launches().empty());
}

TEST_F(Launch, ASharedLibraryKeepsItsOwnRuntimeAndAllocator) {
  useCudaDevices("sm_80");
  AllocatorLog log;
  triton_aot_allocator allocator = {logAllocate, logRelease, &log};
  shr_set_allocator(&allocator);
  ASSERT_EQ(shr_vector_add(nullptr, kX, kY, kOut, 2048), TRITON_AOT_SUCCESS) << shr_last_error();
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 2048), TRITON_AOT_SUCCESS) << lastError();
  auto all = launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(sharedFiles().fileOf(all[0].image_hash),
            sharedFiles().variant("vector_add", "cuda:80", "", false).binary);
  EXPECT_EQ(all[0].grid[0], 4u) << "its own BLOCK=512";
  EXPECT_EQ(kernelsFiles().fileOf(all[1].image_hash),
            kernelsFiles().variant("vector_add", "cuda:80", "b1024", true).binary);
  auto loaded = loads();
  ASSERT_EQ(loaded.size(), 2u) << "same kernel name, two libraries, two images";
  EXPECT_EQ(sharedFiles().fileOf(loaded[0].hash),
            sharedFiles().variant("vector_add", "cuda:80", "", false).binary)
      << "the compressed image was decompressed before loading";
  EXPECT_TRUE(log.sizes.empty()) << "vector_add asks for no scratch";
}

TEST_F(Launch, ALibraryBuiltWithoutPtxHasNoImageForANewerGpu) {
  useCudaDevices("sm_100");
  EXPECT_EQ(shr_vector_add(nullptr, kX, kY, kOut, 2048), TRITON_AOT_ERROR_NO_IMAGE);
  EXPECT_NE(std::string(shr_last_error()).find("sm_100"), std::string::npos) << shr_last_error();
  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 2048), TRITON_AOT_SUCCESS) << lastError();
  EXPECT_EQ(onlyLaunch().kind, TTA_FAKE_IMAGE_PTX) << "the library with PTX runs through the JIT";
}

} // namespace
} // namespace tta::test
