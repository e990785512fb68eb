// Host tensor descriptors on sm_90a: tests/kernels/matmul_tma.py takes A [M, K], B [N, K] and
// C [M, N] as TensorDescriptors, which the library takes as (base, shape, strides) and the
// runtime encodes into TMA maps per launch. C = A @ B^T is checked against a CPU reference from
// the same fp16 values; shapes that are no multiple of the 128 x 128 x 64 blocks check that TMA
// reads zeros and clips stores outside the shape (at 16-byte granularity, as Triton's own launch
// of the kernel does on the H100), and padded rows check the strides.
#include <gpu_hopper.h>

#include "gpu_test_support.h"
#include "matmul_run.h"

namespace tta::gpu {
namespace {

class TensorDescTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (device_.major != 9 || device_.minor != 0)
      GTEST_SKIP() << "matmul_tma is built for sm_90a only (TMA); this is sm_" << device_.major
                   << device_.minor;
  }

  // C = A @ B^T through descriptors: A rows of stride_am, B (N x K) rows of stride_bn, C rows of
  // stride_cm (runMatmul's B is K x N with stride_bk = 1: B^T).
  static MatmulKernel kernel(const MatmulShape &s) {
    return {[s](void *stream, const void *a, const void *b, const void *c) {
              return static_cast<int>(gpu_hopper_matmul_tma(
                  stream, a, s.M, s.K, s.stride_am, 1, b, s.N, s.K, s.stride_bn, 1, c, s.M, s.N,
                  s.stride_cm, 1, s.M, s.N, s.K));
            },
            gpu_hopper_last_error, /*row_write_slack=*/7};
  }

  void check(const MatmulShape &shape, const std::string &label) {
    Comparison c;
    ASSERT_EQ(runMatmul(kernel(shape), shape, stream_, random_, &c), "") << label;
    EXPECT_EQ(c.mismatches, 0u) << label << ": " << c.summary();
    figure(label, c.summary());
  }
};

// {M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn}; every row stride
// a multiple of 8 fp16 elements (16 bytes, TMA's rule).
TEST_F(TensorDescTest, MatmulThroughThreeDescriptorsMatchesTheReference) {
  check({256, 256, 128, 128, 1, 1, 128, 256, 1}, "256x256x128 block multiples");
  check({300, 260, 200, 200, 1, 1, 200, 264, 1}, "300x260x200 partial blocks, C rows padded");
  check({129, 77, 72, 80, 1, 1, 88, 136, 1}, "129x77x72 padded rows everywhere");
}

TEST_F(TensorDescTest, ADescriptorTmaCannotTakeIsRefusedBeforeTheLaunch) {
  DeviceBuffer a(4096), b(4096), c(4096);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  // A's rows of 100 elements are 200 bytes: not a multiple of 16.
  EXPECT_EQ(gpu_hopper_matmul_tma(stream_, a.at(), 16, 8, 100, 1, b.at(), 16, 8, 8, 1, c.at(), 16,
                                  16, 16, 1, 16, 16, 8),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpu_hopper_last_error())
                .find("gpu_hopper_matmul_tma: tensor descriptor a_desc has strides[0] = 100 "
                      "elements (200 bytes)"),
            std::string::npos)
      << gpu_hopper_last_error();
  // B's base 8 bytes into its buffer: not 16-byte aligned.
  EXPECT_EQ(gpu_hopper_matmul_tma(stream_, a.at(), 16, 8, 8, 1, b.at(8), 16, 8, 8, 1, c.at(), 16,
                                  16, 16, 1, 16, 16, 8),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpu_hopper_last_error()).find("b_desc has base"), std::string::npos)
      << gpu_hopper_last_error();
}

}  // namespace
}  // namespace tta::gpu
