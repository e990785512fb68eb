// Host tensor descriptors: the runtime encodes a tensordesc parameter's CUtensorMap through the
// dlopen'd driver's cuTensorMapEncodeTiled with Triton's arguments (dimensions innermost first,
// byte strides, the metadata's box, swizzle and element type), and names the call when the
// driver refuses.
#include "runtime_fixture.h"
#include "tensor_map.h"

#include <dlfcn.h>

namespace tta::test {
namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

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
  // Rows of 100 fp16 elements: 200 bytes, not a multiple of 16.
  const triton_aot_tensor_arg a = {devicePointer(0x10000), {64, 100}, {100, 1}};
  CUtensorMap map;
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &kFp16Block, &a, "p_mm", "a_desc", &map),
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

TEST_F(TensorMap, ARankOutsideOneToFiveIsInvalidArgument) {
  triton_aot_tensor_map bad = kFp16Block;
  bad.rank = 6;
  const triton_aot_tensor_arg a = {devicePointer(0x10000), {64, 64}, {64, 1}};
  CUtensorMap map;
  EXPECT_EQ(tta_cuda_encode_tensor_map(cuda_, &bad, &a, "k", "d", &map),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(lastError(), "rank 6")) << lastError();
}

} // namespace
} // namespace tta::test
