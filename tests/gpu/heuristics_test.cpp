// @triton.heuristics on the GPU: scale_rows (tests/kernels/fusedops/ops/heuristic_rows.py) with
// EVEN_N both ways (row lengths that are and are not a multiple of BLOCK_N), HAS_BIAS both ways
// (a bias pointer or NULL) and BLOCK_N from the row length (1024 and 4096 compiled), each
// checked against a CPU reference; the masked tail must not be written past the row.
#include <gpu_heuristics.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "gpu_test_support.h"

namespace tta::gpu {
namespace {

class HeuristicsTest : public GpuTest {};

TEST_F(HeuristicsTest, BoolAndIntegerHeuristicsPickTheRightVariant) {
  const int rows = 37;
  for (int cols : {1024, 1000, 4096, 3000}) {
    for (bool withBias : {true, false}) {
      const size_t count = static_cast<size_t>(rows) * static_cast<size_t>(cols);
      // One guard row after the output: a variant that ignores the mask would write into it.
      const size_t bytes = count * sizeof(float), outBytes = bytes + cols * sizeof(float);
      std::vector<float> x = uniformFloats(random_, count, -1.0f, 1.0f);
      std::vector<float> bias = uniformFloats(random_, static_cast<size_t>(cols), -1.0f, 1.0f);
      const float scale = 1.5f;
      DeviceBuffer dx(bytes), dbias(static_cast<size_t>(cols) * sizeof(float)), dout(outBytes);
      ASSERT_TRUE(dx.ok() && dbias.ok() && dout.ok()) << dx.error() << dbias.error() << dout.error();
      ASSERT_EQ(dx.upload(x.data(), bytes), "");
      ASSERT_EQ(dbias.upload(bias.data(), bias.size() * sizeof(float)), "");
      ASSERT_EQ(dout.fill(0xff), "");
      ASSERT_TTA(gpu_heuristics_scale_rows(stream_, dx.at(), withBias ? dbias.at() : nullptr,
                                           dout.at(), rows, cols, scale),
                 gpu_heuristics_last_error);
      ASSERT_CU(cudaDriver().cuStreamSynchronize(stream_));
      std::vector<float> out(count + static_cast<size_t>(cols));
      ASSERT_EQ(dout.download(out.data(), outBytes), "");
      std::vector<float> reference(count);
      for (size_t i = 0; i < count; ++i)
        reference[i] = x[i] * scale + (withBias ? bias[i % static_cast<size_t>(cols)] : 0.0f);
      std::vector<float> result(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count));
      Comparison c = compare(result, reference, 1e-6, 1e-6);
      EXPECT_EQ(c.mismatches, 0u) << "cols " << cols << ", bias " << withBias << ": " << c.summary();
      size_t touched = 0;
      for (size_t i = count; i < out.size(); ++i) {
        unsigned bits;
        std::memcpy(&bits, &out[i], sizeof bits);
        touched += bits != 0xffffffffu;
      }
      EXPECT_EQ(touched, 0u) << "cols " << cols << ": written past the last row";
      char key[64];
      std::snprintf(key, sizeof key, "cols%d_%s", cols, withBias ? "bias" : "nobias");
      figure(key, c.summary());
    }
  }
  // 100 columns: BLOCK_N would be 128, which was not compiled.
  DeviceBuffer small(4096);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(gpu_heuristics_scale_rows(stream_, small.at(), nullptr, small.at(), 1, 100, 1.0f),
            TRITON_AOT_ERROR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tta::gpu
