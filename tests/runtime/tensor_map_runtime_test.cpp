// Host tensor descriptors: the runtime encodes a tensordesc parameter's CUtensorMap through the
// dlopen'd driver's cuTensorMapEncodeTiled with Triton's arguments (dimensions innermost first,
// byte strides, the metadata's box, swizzle and element type), and names the call when the
// driver refuses.
#include "runtime_fixture.h"
#include "tensor_map.h"

#include <dlfcn.h>

namespace tta::test {
namespace {

class TensorMap : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    triton_aot_status status = TRITON_AOT_SUCCESS;
    cuda_ = tta_cuda_driver(&status);
    ASSERT_NE(cuda_, nullptr) << lastError();
    last_ = reinterpret_cast<tta_fake_last_tensor_map_fn>(cuda.symbol("tta_fake_last_tensor_map"));
    ASSERT_NE(last_, nullptr);
  }
  tta_fake_tensor_map last() const {
    tta_fake_tensor_map record{};
    EXPECT_EQ(last_(&record), 0) << "no cuTensorMapEncodeTiled call";
    return record;
  }
  const tta_cuda *cuda_ = nullptr;
  tta_fake_last_tensor_map_fn last_ = nullptr;
};

// The persistent matmul tutorial's A operand: fp16 [M, K] row-major, block [128, 64].
const triton_aot_tensor_map kFp16Block = {2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                                          CU_TENSOR_MAP_SWIZZLE_128B, 0, {128, 64, 0, 0, 0}};

TEST_F(TensorMap, EncodesAsTritonsLauncherDoes) {
  const triton_aot_tensor_arg a = {devicePointer(0x7f0000100000), {1000, 512}, {520, 1}};
  CUtensorMap map;
  ASSERT_EQ(tta_cuda_encode_tensor_map(cuda_, &kFp16Block, &a, "k", "a_desc", &map),
            TRITON_AOT_SUCCESS)
      << lastError();
  const tta_fake_tensor_map call = last();
  EXPECT_EQ(call.data_type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(call.rank, 2u);
  EXPECT_EQ(call.address, 0x7f0000100000u);
  EXPECT_EQ(call.dims[0], 512u) << "innermost first";
  EXPECT_EQ(call.dims[1], 1000u);
  EXPECT_EQ(call.strides[0], 520u * 2) << "bytes of the outer dimension's stride";
  EXPECT_EQ(call.box[0], 64u);
  EXPECT_EQ(call.box[1], 128u);
  EXPECT_EQ(call.element_strides[0], 1u);
  EXPECT_EQ(call.element_strides[1], 1u);
  EXPECT_EQ(call.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(call.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(call.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(call.oob_fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) << "out of bounds reads zero";
  EXPECT_EQ(map.opaque[0], 0x7e50u) << "the driver wrote the caller's map";
  EXPECT_EQ(map.opaque[1], 0x7f0000100000u);
}

TEST_F(TensorMap, ThreeDimensionsAndFp4PaddingDoubleTheInnermost) {
  const triton_aot_tensor_map fp4 = {3, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, CU_TENSOR_MAP_SWIZZLE_64B,
                                     TRITON_AOT_TENSOR_FP4_PADDED, {2, 64, 128, 0, 0}};
  const triton_aot_tensor_arg b = {devicePointer(0x10000), {4, 96, 64}, {96 * 64, 64, 1}};
  CUtensorMap map;
  ASSERT_EQ(tta_cuda_encode_tensor_map(cuda_, &fp4, &b, "k", "b_desc", &map), TRITON_AOT_SUCCESS)
      << lastError();
  const tta_fake_tensor_map call = last();
  EXPECT_EQ(call.rank, 3u);
  EXPECT_EQ(call.dims[0], 128u) << "64 packed bytes hold 128 fp4 values";
  EXPECT_EQ(call.dims[1], 96u);
  EXPECT_EQ(call.dims[2], 4u);
  EXPECT_EQ(call.strides[0], 64u);
  EXPECT_EQ(call.strides[1], 96u * 64);
  EXPECT_EQ(call.box[0], 128u);
  EXPECT_EQ(call.box[2], 2u);
}

TEST_F(TensorMap, AnInnermostStrideOtherThanOneIsInvalidArgumentWithoutADriverCall) {
  const triton_aot_tensor_arg a = {devicePointer(0x10000), {64, 64}, {1, 64}};
  const int before = cuda.callCount("cuTensorMapEncodeTiled");
  CUtensorMap map;
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &kFp16Block, &a, "p_mm", "a_desc", &map),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "p_mm: tensor descriptor a_desc has innermost stride 64; it "
                                    "must be 1"))
      << lastError();
  EXPECT_EQ(cuda.callCount("cuTensorMapEncodeTiled"), before);
}

TEST_F(TensorMap, TheDriversRefusalNamesTheCallAndItsError) {
  // A box entry of 0 (no metadata says so; the fake driver refuses it as the real one does).
  triton_aot_tensor_map zeroBox = kFp16Block;
  zeroBox.box[1] = 0;
  const triton_aot_tensor_arg a = {devicePointer(0x10000), {64, 128}, {128, 1}};
  CUtensorMap map;
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &zeroBox, &a, "p_mm", "a_desc", &map),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  const std::string message = lastError();
  EXPECT_TRUE(contains(message, "p_mm: tensor descriptor a_desc: cuTensorMapEncodeTiled failed: "
                                "CUDA_ERROR_INVALID_VALUE"))
      << message;
  EXPECT_EQ(last().result, CUDA_ERROR_INVALID_VALUE);
  // An injected failure is reported the same way.
  cuda.fail("cuTensorMapEncodeTiled", CUDA_ERROR_NOT_SUPPORTED, 0, 1);
  const triton_aot_tensor_arg good = {devicePointer(0x10000), {64, 128}, {128, 1}};
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &kFp16Block, &good, "p_mm", "a_desc", &map),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "cuTensorMapEncodeTiled failed: CUDA_ERROR_NOT_SUPPORTED"))
      << lastError();
}

// TMA's rules, checked before the driver so the message names the value, the rule and the fix.
TEST_F(TensorMap, MisalignedBaseOrStridesAndEmptyOrHugeShapesAreRefusedWithoutADriverCall) {
  struct Case {
    triton_aot_tensor_arg arg;
    const char *message;
  };
  const Case cases[] = {
      {{devicePointer(0x10008), {64, 128}, {128, 1}},
       "p_mm: tensor descriptor a_desc has base 0x10008, not 16-byte aligned; TMA needs a "
       "16-byte aligned base address"},
      {{devicePointer(0x10000), {64, 100}, {100, 1}},
       "p_mm: tensor descriptor a_desc has strides[0] = 100 elements (200 bytes); TMA needs every "
       "stride but the innermost to be a positive multiple of 16 bytes (pad the rows: e.g. a "
       "multiple of 8 elements of 2 bytes)"},
      {{devicePointer(0x10000), {0, 128}, {128, 1}},
       "p_mm: tensor descriptor a_desc has shape[0] = 0; each dimension must be 1 to 2147483647"},
      {{devicePointer(0x10000), {64, int64_t{1} << 31}, {int64_t{1} << 31, 1}},
       "p_mm: tensor descriptor a_desc has shape[1] = 2147483648; each dimension must be 1 to "
       "2147483647 (the kernel takes it as a 32-bit integer"},
  };
  const int before = cuda.callCount("cuTensorMapEncodeTiled");
  for (const Case &c : cases) {
    CUtensorMap map;
    EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &kFp16Block, &c.arg, "p_mm", "a_desc", &map),
              TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(lastError(), c.message)) << lastError();
  }
  EXPECT_EQ(cuda.callCount("cuTensorMapEncodeTiled"), before);
}

TEST_F(TensorMap, ARankOutsideOneToFiveIsInvalidArgument) {
  triton_aot_tensor_map bad = kFp16Block;
  bad.rank = 6;
  const triton_aot_tensor_arg a = {devicePointer(0x10000), {64, 64}, {64, 1}};
  CUtensorMap map;
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &bad, &a, "k", "d", &map),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "rank 6")) << lastError();
}

// --- Through a linked library: hop_matmul_tma (tests/kernels/matmul_tma.py, rt_hopper.json) takes
// a_desc, b_desc, c_desc as (base, shape0, shape1, stride0, stride1) each, then M, N, K. ------

class TensorDescLaunch : public RuntimeTest {
protected:
  const void *a = devicePointer(0x7f0000100000);
  const void *b = devicePointer(0x7f0000200000);
  const void *c = devicePointer(0x7f0000300000);

  /// M = 256, N = 192, K = 128; B's rows padded to 136 elements (272 bytes).
  triton_aot_status launch(const void *aBase, int64_t aStride0, int64_t bStride1, int64_t cShape0) {
    return hop_matmul_tma(streamHandle(0x77), aBase, 256, 128, aStride0, 1, b, 192, 128, 136,
                          bStride1, c, cShape0, 192, 192, 1, 256, 192, 128);
  }
};

/// The 128 bytes the fake driver writes for a map: {0x7e50, address, dims innermost first, 0...}.
std::vector<unsigned char> fakeMap(uint64_t address, uint64_t inner, uint64_t outer) {
  uint64_t words[16] = {0x7e50, address, inner, outer};
  return std::vector<unsigned char>(reinterpret_cast<unsigned char *>(words),
                                    reinterpret_cast<unsigned char *>(words) + sizeof words);
}

TEST_F(TensorDescLaunch, EachMapIsPassedByValueThenItsShapesAsI32AndStridesAsI64) {
  const int encodes = cuda.callCount("cuTensorMapEncodeTiled");
  ASSERT_EQ(launch(a, 128, 1, 256), TRITON_AOT_SUCCESS) << hop_last_error();
  EXPECT_EQ(cuda.callCount("cuTensorMapEncodeTiled"), encodes + 3) << "one encode per descriptor";
  const tta_fake_launch l = onlyLaunch();
  EXPECT_STREQ(l.function, "matmul_tma_kernel");
  EXPECT_EQ(l.stream, 0x77u);
  EXPECT_EQ(l.grid[0], 2u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(l.block[0], 256u) << "num_warps=8";
  // 3 x (map, 2 shapes, 2 strides), M, N, K, global and profile scratch.
  ASSERT_EQ(l.param_count, 20u);
  struct Desc {
    uint64_t address;
    int32_t shape[2];
    int64_t strides[2];
  };
  const Desc descs[3] = {{0x7f0000100000, {256, 128}, {128, 1}},
                         {0x7f0000200000, {192, 128}, {136, 1}},
                         {0x7f0000300000, {256, 192}, {192, 1}}};
  for (unsigned d = 0; d < 3; ++d) {
    SCOPED_TRACE("descriptor " + std::to_string(d));
    const unsigned at = 5 * d;
    EXPECT_EQ(l.param_size[at], 128u);
    EXPECT_EQ(paramBytes(l, at),
              fakeMap(descs[d].address, uint64_t(descs[d].shape[1]), uint64_t(descs[d].shape[0])))
        << "the map the driver encoded, by value";
    EXPECT_EQ(paramBytes(l, at + 1), bytesOf(descs[d].shape[0]));
    EXPECT_EQ(paramBytes(l, at + 2), bytesOf(descs[d].shape[1]));
    EXPECT_EQ(paramBytes(l, at + 3), bytesOf(descs[d].strides[0]));
    EXPECT_EQ(paramBytes(l, at + 4), bytesOf(descs[d].strides[1]));
  }
  EXPECT_EQ(paramBytes(l, 15), bytesOf(int32_t{256}));
  EXPECT_EQ(paramBytes(l, 16), bytesOf(int32_t{192}));
  EXPECT_EQ(paramBytes(l, 17), bytesOf(int32_t{128}));
  // The last encode is c_desc's, with the facts Triton recorded: fp16, 128-byte swizzle, and
  // the box Triton chose for its store ([128, 64], not the signature's [128, 128]).
  tta_fake_tensor_map last{};
  auto lastFn =
      reinterpret_cast<tta_fake_last_tensor_map_fn>(cuda.symbol("tta_fake_last_tensor_map"));
  ASSERT_EQ(lastFn(&last), 0);
  EXPECT_EQ(last.address, 0x7f0000300000u);
  EXPECT_EQ(last.data_type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(last.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(last.dims[0], 192u);
  EXPECT_EQ(last.dims[1], 256u);
  EXPECT_EQ(last.strides[0], 192u * 2);
  EXPECT_EQ(last.box[0], 64u);
  EXPECT_EQ(last.box[1], 128u);
}

TEST_F(TensorDescLaunch, BadDescriptorsAreInvalidArgumentNamingKernelAndParameterAndNothingLaunches) {
  struct Case {
    const void *aBase;
    int64_t aStride0, bStride1, cShape0;
    const char *message;
  };
  const Case cases[] = {
      {devicePointer(0x7f0000100004), 128, 1, 256,
       "hop_matmul_tma: tensor descriptor a_desc has base 0x7f0000100004, not 16-byte aligned"},
      {a, 100, 1, 256,
       "hop_matmul_tma: tensor descriptor a_desc has strides[0] = 100 elements (200 bytes)"},
      {a, 128, 2, 256,
       "hop_matmul_tma: tensor descriptor b_desc has innermost stride 2; it must be 1"},
      {a, 128, 1, 0, "hop_matmul_tma: tensor descriptor c_desc has shape[0] = 0"},
  };
  for (const Case &k : cases) {
    SCOPED_TRACE(k.message);
    EXPECT_EQ(launch(k.aBase, k.aStride0, k.bStride1, k.cShape0), TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(hop_last_error(), k.message)) << hop_last_error();
  }
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(cuda.memory().empty()) << "no scratch allocated for a launch that cannot happen";
  // A good call afterwards launches.
  ASSERT_EQ(launch(a, 128, 1, 256), TRITON_AOT_SUCCESS) << hop_last_error();
  EXPECT_EQ(launches().size(), 1u);
}

// A driver without cuTensorMapEncodeTiled (before CUDA 12.0): a clear error, no launch.
TEST(TensorDescDriverVariants, WithoutCuTensorMapEncodeTiledTheLaunchFailsSayingSo) {
  ChildResult child = runChild("notma", "ChildNoTma.LaunchFails",
                               {"TTA_FAKE_CUDA_HIDE=cuTensorMapEncodeTiled",
                                "TTA_FAKE_CUDA_DEVICES=sm_90"});
  EXPECT_TRUE(child.passedOne()) << child.describe();
}

TEST(ChildNoTma, LaunchFails) {
  if (!childMode("notma")) GTEST_SKIP() << "runs in the child process TensorDescDriverVariants starts";
  const FakeDriver &cuda = fakeCuda();
  cuda.setCurrentDevice(0);
  EXPECT_EQ(hop_matmul_tma(nullptr, devicePointer(0x10000), 128, 64, 64, 1, devicePointer(0x20000),
                           128, 64, 64, 1, devicePointer(0x30000), 128, 128, 128, 1, 128, 128, 64),
            TRITON_AOT_ERROR_LAUNCH_FAILED);
  EXPECT_TRUE(contains(hop_last_error(), "hop_matmul_tma takes the host tensor descriptor a_desc, "
                                         "and this CUDA driver has no cuTensorMapEncodeTiled"))
      << hop_last_error();
  EXPECT_TRUE(cuda.launches().empty());
  EXPECT_EQ(hop_unload(), TRITON_AOT_SUCCESS);
}

} // namespace
} // namespace tta::test
