// fp16 matmul through the generated API (both configs; unit inner strides select the `:1`
// variant, a transposed B the generic one), and a kernel above 48 KiB of shared memory.
#include <gpu_kernels.h>

#include "gpu_test_support.h"
#include "matmul_run.h"

namespace tta::gpu {
namespace {

class MatmulTest : public GpuTest {
 protected:
  MatmulKernel matmul(int config, const MatmulShape &s) const {
    return {[config, s](void *stream, const void *a, const void *b, const void *c) {
              return static_cast<int>(gpu_kernels_matmul_fp16_config(
                  stream, config, a, b, c, s.M, s.N, s.K, s.stride_am, s.stride_ak, s.stride_bk,
                  s.stride_bn, s.stride_cm, s.stride_cn));
            },
            gpu_kernels_last_error};
  }

  void check(int config, const MatmulShape &shape, const std::string &label) {
    Comparison c;
    ASSERT_EQ(runMatmul(matmul(config, shape), shape, stream_, random_, &c), "") << label;
    EXPECT_EQ(c.mismatches, 0u) << label << ": " << c.summary();
    figure(label, c.summary());
  }
};

TEST_F(MatmulTest, Fp16EveryConfigUnitStridesAndTransposedB) {
  ASSERT_EQ(gpu_kernels_matmul_fp16_config_count(), 2);
  const int M = 257, N = 190, K = 143;  // no multiple of any block size
  MatmulShape transposed_b{M, N, K, K, 1, 1, K, N, 1};
  for (int config = 0; config < 2; ++config) {
    std::string name = gpu_kernels_matmul_fp16_config_name(config);
    check(config, rowMajor(M, N, K), name + " 257x190x143 row-major");
    check(config, rowMajor(M, N, K, 5), name + " 257x190x143 padded rows");
    check(config, transposed_b, name + " 257x190x143 B transposed (generic variant)");
  }
}

TEST_F(MatmulTest, SharedMemoryAbove48KiB) {
  // Needs 98304 bytes on sm_80 and 131072 on sm_90a (Triton 3.6), well above the default
  // 48 KiB: the runtime must raise the function's limit before the launch.
  const int needed = device_.major == 9 ? 131072 : 98304;
  if (device_.shared_optin < needed)
    GTEST_SKIP() << "the device allows " << device_.shared_optin << " bytes per block, the "
                 << "kernel needs " << needed;
  // M and N multiples of the 128 x 128 tile (the kernel masks only K); strides divisible by 16
  // as the signature promises; K = 300 leaves a partial last K tile; rows padded.
  MatmulShape shape{256, 384, 300, 320, 1, 400, 1, 400, 1};
  MatmulKernel kernel{[shape](void *stream, const void *a, const void *b, const void *c) {
                        return static_cast<int>(gpu_kernels_big_shared(
                            stream, a, b, c, shape.M, shape.N, shape.K, shape.stride_am,
                            shape.stride_bk, shape.stride_cm));
                      },
                      gpu_kernels_last_error};
  Comparison c;
  ASSERT_EQ(runMatmul(kernel, shape, stream_, random_, &c), "");
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  figure("big_shared 256x384x300", c.summary());
  figure("device shared opt-in bytes", std::to_string(device_.shared_optin));
}

}  // namespace
}  // namespace tta::gpu
