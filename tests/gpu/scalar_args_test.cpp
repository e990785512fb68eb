// Scalars at their exact widths: out = x * alpha (+ beta if use_beta), with alpha fp32,
// beta fp16 (passed as its 16-bit pattern), n_elements i64 and use_beta i1.
#include <gpu_kernels.h>

#include <cmath>
#include <cstdio>

#include "gpu_test_support.h"

namespace tta::gpu {
namespace {

class ScaleShiftTest : public GpuTest {};

TEST_F(ScaleShiftTest, Fp32AndFp16ScalarsI64SizeAndI1Flag) {
  const int64_t n = 1000003;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  std::vector<float> x = uniformFloats(random_, static_cast<size_t>(n), -1.0f, 1.0f);
  const float alpha = uniformFloats(random_, 1, -4.0f, 4.0f)[0];
  // |beta| >= 0.25, so a beta read at the wrong width or offset cannot hide in the tolerance.
  float magnitude = uniformFloats(random_, 1, 0.25f, 2.0f)[0];
  const uint16_t beta = floatToHalf(random_() & 1 ? magnitude : -magnitude);
  DeviceBuffer dx(bytes), dout(bytes);
  ASSERT_TRUE(dx.ok() && dout.ok()) << dx.error() << dout.error();
  ASSERT_EQ(dx.upload(x.data(), bytes), "");

  for (bool use_beta : {true, false}) {
    ASSERT_EQ(dout.fill(0xff), "");
    ASSERT_TTA(gpu_kernels_scale_shift(stream_, dx.at(), dout.at(), alpha, beta, n, use_beta),
               gpu_kernels_last_error);
    ASSERT_CU(cudaDriver().cuStreamSynchronize(stream_));
    std::vector<float> out(static_cast<size_t>(n));
    ASSERT_EQ(dout.download(out.data(), bytes), "");
    std::vector<float> reference(static_cast<size_t>(n));
    for (size_t i = 0; i < reference.size(); ++i)
      reference[i] = x[i] * alpha + (use_beta ? halfToFloat(beta) : 0.0f);
    // The GPU may fuse the multiply-add (one rounding instead of two): a few ulp of |y| <= 6.
    Comparison c = compare(out, reference, 4e-6, 1e-6);
    EXPECT_EQ(c.mismatches, 0u) << c.summary();
    char text[160];
    std::snprintf(text, sizeof text, "alpha %.6g, beta %.6g (fp16 0x%04x), use_beta %d: %s",
                  alpha, halfToFloat(beta), beta, use_beta, c.summary().c_str());
    figure(use_beta ? "with_beta" : "without_beta", text);
  }
}

}  // namespace
}  // namespace tta::gpu
