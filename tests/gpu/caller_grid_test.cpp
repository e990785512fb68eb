// A kernel compiled without a grid, launched as Liger-Kernel launches its row-wise kernels:
// grid (n_rows, 1, 1), one program per row of an RMS normalisation, checked against a CPU
// reference; a zero row count launches nothing and leaves the output as it was.
#include <gpu_kernels.h>

#include <cmath>
#include <cstdio>

#include "gpu_test_support.h"

namespace tta::gpu {
namespace {

class CallerGridTest : public GpuTest {};

std::vector<float> rmsNormReference(const std::vector<float> &x, const std::vector<float> &w,
                                    size_t rows, size_t cols, size_t stride, float eps) {
  std::vector<float> y(rows * stride, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    double square = 0;
    for (size_t c = 0; c < cols; ++c)
      square += static_cast<double>(x[r * stride + c]) * x[r * stride + c];
    const double rstd = 1.0 / std::sqrt(square / static_cast<double>(cols) + eps);
    for (size_t c = 0; c < cols; ++c)
      y[r * stride + c] = static_cast<float>(x[r * stride + c] * rstd * w[c]);
  }
  return y;
}

TEST_F(CallerGridTest, RowWiseRmsNormWithOneProgramPerRow) {
  const size_t rows = 3001, cols = 1000, stride = 1024;  // stride > cols: padding untouched
  const float eps = 1e-6f;
  const size_t bytes = rows * stride * sizeof(float);
  std::vector<float> x = uniformFloats(random_, rows * stride, -2.0f, 2.0f);
  std::vector<float> w = uniformFloats(random_, stride, 0.5f, 1.5f);
  DeviceBuffer dx(bytes), dy(bytes), dw(stride * sizeof(float));
  ASSERT_TRUE(dx.ok() && dy.ok() && dw.ok()) << dx.error() << dy.error() << dw.error();
  ASSERT_EQ(dx.upload(x.data(), bytes), "");
  ASSERT_EQ(dw.upload(w.data(), stride * sizeof(float)), "");
  ASSERT_EQ(dy.fill(0), "");

  // The grid is (n_rows,): none of the kernel's arguments.
  ASSERT_TTA(gpu_kernels_rms_norm(stream_, static_cast<uint32_t>(rows), 1, 1, dy.at(),
                                  static_cast<int32_t>(stride), dx.at(),
                                  static_cast<int32_t>(stride), dw.at(),
                                  static_cast<int32_t>(cols), eps),
             gpu_kernels_last_error);
  ASSERT_CU(cudaDriver().cuStreamSynchronize(stream_));
  std::vector<float> y(rows * stride);
  ASSERT_EQ(dy.download(y.data(), bytes), "");
  const std::vector<float> reference = rmsNormReference(x, w, rows, cols, stride, eps);
  Comparison c = compare(y, reference, 1e-5, 1e-5);
  EXPECT_EQ(c.mismatches, 0u) << c.summary();
  figure("rms_norm", std::to_string(rows) + " rows of " + std::to_string(cols) + ": " +
                         c.summary());

  // Zero rows: nothing launches, the output stays.
  ASSERT_EQ(dy.fill(0x7f), "");
  ASSERT_TTA(gpu_kernels_rms_norm(stream_, 0, 1, 1, dy.at(), static_cast<int32_t>(stride),
                                  dx.at(), static_cast<int32_t>(stride), dw.at(),
                                  static_cast<int32_t>(cols), eps),
             gpu_kernels_last_error);
  ASSERT_CU(cudaDriver().cuStreamSynchronize(stream_));
  std::vector<unsigned char> untouched(bytes);
  ASSERT_EQ(dy.download(untouched.data(), bytes), "");
  size_t changed = 0;
  for (unsigned char byte : untouched)
    changed += byte != 0x7f;
  EXPECT_EQ(changed, 0u);

  // Above the device's limit on y: refused before the driver, naming the dimension.
  EXPECT_EQ(gpu_kernels_rms_norm(stream_, 1, 65536, 1, dy.at(), 0, dx.at(), 0, dw.at(), 1, eps),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpu_kernels_last_error()).find("grid y is 65536"), std::string::npos)
      << gpu_kernels_last_error();
}

}  // namespace
}  // namespace tta::gpu
