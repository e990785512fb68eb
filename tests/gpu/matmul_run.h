// One checked fp16 matmul C = A @ B (fp32 accumulation, fp16 result) against a CPU reference,
// shared by the matmul, large-shared-memory and cluster tests.
#ifndef TTA_TESTS_GPU_MATMUL_RUN_H
#define TTA_TESTS_GPU_MATMUL_RUN_H

#include <functional>
#include <random>
#include <string>

#include "cuda_driver.h"
#include "gpu_test_support.h"

namespace tta::gpu {

// Sizes and element strides of A (M x K), B (K x N) and C (M x N).
struct MatmulShape {
  int M, N, K;
  int stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn;
};

// Row-major A, B and C with rows padded to `row_pad` extra elements.
MatmulShape rowMajor(int M, int N, int K, int row_pad = 0);

struct MatmulKernel {
  // Launches on device pointers a, b, c; the shape is captured by the caller.
  std::function<int(void *stream, const void *a, const void *b, const void *c)> launch;
  const char *(*last_error)(void);
  // Elements past the end of each row of C the kernel may write: a TMA store clips at 16-byte
  // granularity (measured on the H100: Triton's own launch of matmul_tma writes C's row padding
  // up to the next 16 bytes), so a descriptor kernel gets 7 fp16 elements of slack.
  int row_write_slack = 0;
};

// Random fp16 inputs in [-1, 1) (padding between rows holds NaN, which a correct kernel never
// reads), launch, wait, compare C with the reference computed in double from the same fp16
// values, and check that padding in C is untouched. Returns "" and fills *result, or the
// problem (a launch error, a driver error, or padding that was written).
std::string runMatmul(const MatmulKernel &kernel, const MatmulShape &shape, CUstream stream,
                      std::mt19937_64 &random, Comparison *result);

}  // namespace tta::gpu

#endif  // TTA_TESTS_GPU_MATMUL_RUN_H
