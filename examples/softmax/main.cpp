// Row-wise softmax on the GPU through the generated library softmax_kernels. Its configs are
// named after the widest row they hold ("cols4096"); for each matrix the program picks the
// narrowest config that fits from those names (softmax_kernels_softmax_config_name) and
// launches it with softmax_kernels_softmax_config, then checks against the CPU. Without a GPU
// it prints the library's inventory instead.
#include "device.h"
#include "host_data.h"

#include <softmax_kernels.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

using examples::Device;
using examples::DeviceBuffer;

/// The config for rows of \p cols values: the smallest "cols<N>" with N >= cols, or -1.
int configFor(std::size_t cols) {
  int best = -1;
  std::size_t bestWidth = 0;
  for (int config = 0; config < softmax_kernels_softmax_config_count(); ++config) {
    const char *name = softmax_kernels_softmax_config_name(config);
    if (std::strncmp(name, "cols", 4) != 0)
      continue;
    const std::size_t width = std::strtoul(name + 4, nullptr, 10);
    if (width >= cols && (best < 0 || width < bestWidth)) {
      best = config;
      bestWidth = width;
    }
  }
  return best;
}

/// The CPU reference, in double precision: each row's exp(x - max) / sum.
std::vector<double> softmaxRows(const std::vector<float> &in, std::size_t rows, std::size_t cols,
                                std::size_t pitch) {
  std::vector<double> out(in.size(), 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const float *row = &in[r * pitch];
    const double max = *std::max_element(row, row + cols);
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c)
      sum += std::exp(row[c] - max);
    for (std::size_t c = 0; c < cols; ++c)
      out[r * pitch + c] = std::exp(row[c] - max) / sum;
  }
  return out;
}

/// Softmax of a rows x cols matrix on fresh inputs; prints the outcome, returns whether it
/// matched.
bool run(const Device &device, std::size_t rows, std::size_t cols, std::uint32_t seed) {
  const int config = configFor(cols);
  if (config < 0)
    throw std::runtime_error("no config of softmax_kernels holds rows of " + std::to_string(cols) +
                             " values");
  // Rows start at multiples of 16 values: the kernel's strides are declared i32:16.
  const std::size_t pitch = (cols + 15) / 16 * 16;
  const std::size_t size = rows * pitch;
  const std::vector<float> in = examples::randomFloats(size, seed, -4.0f, 4.0f);
  DeviceBuffer<float> din(device, size), dout(device, size);
  din.upload(in);

  const auto stride = static_cast<std::int32_t>(pitch);
  const triton_aot_status status = softmax_kernels_softmax_config(
      nullptr, config, dout.get(), din.get(), stride, stride, static_cast<std::int32_t>(rows),
      static_cast<std::int32_t>(cols));
  if (status != TRITON_AOT_SUCCESS)
    throw std::runtime_error(std::string("softmax failed: ") + softmax_kernels_last_error());
  device.synchronize();

  const std::vector<float> out = dout.download(size);
  const std::vector<double> expected = softmaxRows(in, rows, cols, pitch);
  double worst = 0;
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t i = r * pitch + c;
      const double error = std::fabs(static_cast<double>(out[i]) - expected[i]);
      worst = std::max(worst, error);
      // The GPU's exp is an approximation; the sum is in a different order.
      if (!(error <= 1e-6 + 1e-4 * expected[i]) && ++wrong <= 3)
        std::printf("  out[%zu][%zu] = %g, expected %g\n", r, c, static_cast<double>(out[i]),
                    expected[i]);
    }
  std::printf("%5zu x %-5zu config %-9s seed %u: max error %.2e: %s\n", rows, cols,
              softmax_kernels_softmax_config_name(config), seed, worst, wrong ? "MISMATCH" : "ok");
  return wrong == 0;
}

} // namespace

int main() {
  const Device device = Device::openOrShowInventory(softmax_kernels_inventory());
  if (!device.available())
    return 0;

  const std::size_t shapes[][2] = {{256, 100}, {256, 1024}, {128, 3000},
                                   {64, 4096}, {64, 10000}, {32, 16384}};
  bool allMatch = true;
  try {
    std::uint32_t seed = 1;
    for (const auto &[rows, cols] : shapes)
      allMatch = run(device, rows, cols, seed++) && allMatch;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "softmax: %s\n", error.what());
    return 1;
  }
  std::printf("%s\n", allMatch ? "softmax: all results match the CPU" : "softmax: MISMATCH");
  return allMatch ? 0 : 1;
}
