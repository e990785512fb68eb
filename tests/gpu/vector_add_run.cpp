#include "vector_add_run.h"

#include <cstring>
#include <vector>

#include "gpu_test_support.h"

namespace tta::gpu {
namespace {

constexpr uint32_t kSentinel = 0xffffffffu;  // a NaN no addition produces
constexpr size_t kGuard = 256;                // floats after the range that must stay untouched

uint32_t bits(float value) {
  uint32_t b;
  std::memcpy(&b, &value, sizeof b);
  return b;
}

}  // namespace

std::string runVectorAdd(const AddKernel &kernel, CUstream stream, size_t n, size_t offset,
                         std::mt19937_64 &random) {
  const size_t total = offset + n + kGuard;
  const size_t bytes = total * sizeof(float);
  std::vector<float> x = uniformFloats(random, total, -100.0f, 100.0f);
  std::vector<float> y = uniformFloats(random, total, -100.0f, 100.0f);
  DeviceBuffer dx(bytes), dy(bytes), dout(bytes);
  for (const DeviceBuffer *b : {&dx, &dy, &dout})
    if (!b->ok()) return b->error();
  std::string error = dx.upload(x.data(), bytes);
  if (error.empty()) error = dy.upload(y.data(), bytes);
  if (error.empty()) error = dout.fill(0xff);
  if (!error.empty()) return error;

  const size_t at = offset * sizeof(float);
  int status = kernel.launch(stream, dx.at(at), dy.at(at), dout.at(at), static_cast<int32_t>(n));
  if (status != 0)
    return std::string("launch returned ") + statusName(status) + ": " + kernel.last_error();
  if (CUresult r = cudaDriver().cuStreamSynchronize(stream); r != CUDA_SUCCESS)
    return "cuStreamSynchronize after the launch: " + cudaDriver().describe(r);

  std::vector<float> out(total);
  if (error = dout.download(out.data(), bytes); !error.empty()) return error;
  for (size_t i = 0; i < total; ++i) {
    bool inside = i >= offset && i < offset + n;
    if (inside && bits(out[i]) != bits(x[i] + y[i]))
      return "element " + std::to_string(i - offset) + ": got " + std::to_string(out[i]) +
             ", expected " + std::to_string(x[i] + y[i]);
    if (!inside && bits(out[i]) != kSentinel)
      return "wrote outside the range: index " + std::to_string(i) + " of the buffer (range " +
             std::to_string(offset) + ".." + std::to_string(offset + n) + ")";
  }
  return {};
}

}  // namespace tta::gpu
