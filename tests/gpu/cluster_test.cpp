// num_ctas = 2 kernels on sm_90a: each program is a cluster of two CTAs, so the runtime must
// launch through cuLaunchKernelEx with a cluster of [2, 1, 1] and twice the grid. A launch
// without the cluster, or with the grid not multiplied, leaves elements unwritten.
#include <gpu_hopper.h>

#include "gpu_test_support.h"
#include "matmul_run.h"
#include "vector_add_run.h"

namespace tta::gpu {
namespace {

class ClusterTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (device_.major != 9 || device_.minor != 0)
      GTEST_SKIP() << "the num_ctas=2 kernels are built for sm_90a only; this is sm_"
                   << device_.major << device_.minor;
  }
};

TEST_F(ClusterTest, VectorAddTwoCtaClusters) {
  AddKernel add{[](void *stream, const void *x, const void *y, const void *out, int32_t n) {
                  return static_cast<int>(gpu_hopper_vector_add_cluster(stream, x, y, out, n));
                },
                gpu_hopper_last_error};
  for (size_t n : {size_t{1} << 20, size_t{1000003}})
    EXPECT_EQ(runVectorAdd(add, stream_, n, 0, random_), "") << "n = " << n;
  EXPECT_EQ(runVectorAdd(add, stream_, 77777, 1, random_), "") << "misaligned";
  figure("elements", "1048576, 1000003, 77777 (misaligned), exact");
}

TEST_F(ClusterTest, MatmulTwoCtaClusters) {
  const MatmulShape shape = rowMajor(300, 260, 200);  // unit inner strides: `:1` in the spec
  MatmulKernel kernel{[shape](void *stream, const void *a, const void *b, const void *c) {
                        return static_cast<int>(gpu_hopper_matmul_cluster(
                            stream, a, b, c, shape.M, shape.N, shape.K, shape.stride_am,
                            shape.stride_bk, shape.stride_cm));
                      },
                      gpu_hopper_last_error};
  Comparison c;
  ASSERT_EQ(runMatmul(kernel, shape, stream_, random_, &c), "");
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  figure("matmul_cluster 300x260x200", c.summary());
}

}  // namespace
}  // namespace tta::gpu
