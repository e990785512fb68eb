// Row normalizations on the GPU through kernel_package_kernels, whose kernels live in the Python
// package kernels/rownorm/: l2_normalize (an @triton.autotune'd kernel; every config of its
// decorator is run) and rms_norm (an @triton.heuristics kernel launched with the caller's grid,
// one program per row; rows that fill its block and rows that do not select the two EVEN_N
// variants). Each result is checked against the CPU. Without a GPU it prints the library's
// inventory instead.
#include "device.h"
#include "host_data.h"

#include <kernel_package_kernels.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

using examples::Device;
using examples::DeviceBuffer;

constexpr float kUntouched = -12345.0f; // fills each row's padding, which no kernel may write

struct Shape {
  std::size_t rows, cols, pitch; ///< pitch: values from one row to the next (>= cols)
};

void check(const char *api, triton_aot_status status) {
  if (status != TRITON_AOT_SUCCESS)
    throw std::runtime_error(std::string(api) + " failed: " + kernel_package_kernels_last_error());
}

/// Compares \p out with \p expected (rows x cols inside a pitch), the padding with kUntouched;
/// prints the outcome line and returns whether it matched.
bool compare(const std::vector<float> &out, const std::vector<double> &expected, const Shape &s,
             const std::string &what) {
  double worst = 0;
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < s.rows; ++r)
    for (std::size_t c = 0; c < s.pitch; ++c) {
      const std::size_t i = r * s.pitch + c;
      if (c >= s.cols) {
        if (out[i] != kUntouched && ++wrong <= 3)
          std::printf("  padding [%zu][%zu] = %g was written\n", r, c, static_cast<double>(out[i]));
        continue;
      }
      const double error = std::fabs(static_cast<double>(out[i]) - expected[i]);
      worst = std::max(worst, error);
      // fp32 sums in another order, and the GPU's sqrt and division.
      if (!(error <= 1e-5 + 1e-5 * std::fabs(expected[i])) && ++wrong <= 3)
        std::printf("  out[%zu][%zu] = %g, expected %g\n", r, c, static_cast<double>(out[i]),
                    expected[i]);
    }
  std::printf("%-48s max error %.2e: %s\n", what.c_str(), worst, wrong ? "MISMATCH" : "ok");
  return wrong == 0;
}

std::string shapeText(const Shape &s) {
  return std::to_string(s.rows) + " x " + std::to_string(s.cols) + " (pitch " +
         std::to_string(s.pitch) + ")";
}

/// l2_normalize with \p config on fresh inputs. The CPU reference: x / max(||x||, 1e-12) * 1.0
/// (`scale` kept its default).
bool runL2(const Device &device, int config, const Shape &s, std::uint32_t seed) {
  const std::size_t size = s.rows * s.pitch;
  const std::vector<float> x = examples::randomFloats(size, seed, -2.0f, 2.0f);
  DeviceBuffer<float> dx(device, size), dy(device, size);
  dx.upload(x);
  dy.upload(std::vector<float>(size, kUntouched));
  check("l2_normalize",
        kernel_package_kernels_l2_normalize_config(
            nullptr, config, dx.get(), dy.get(), static_cast<std::int32_t>(s.rows),
            static_cast<std::int32_t>(s.cols), static_cast<std::int32_t>(s.pitch)));
  device.synchronize();

  std::vector<double> expected(size, 0.0);
  for (std::size_t r = 0; r < s.rows; ++r) {
    double sumSq = 0;
    for (std::size_t c = 0; c < s.cols; ++c)
      sumSq += static_cast<double>(x[r * s.pitch + c]) * x[r * s.pitch + c];
    const double norm = std::max(std::sqrt(sumSq), 1e-12);
    for (std::size_t c = 0; c < s.cols; ++c)
      expected[r * s.pitch + c] = x[r * s.pitch + c] / norm;
  }
  return compare(dy.download(size), expected, s,
                 std::string("l2_normalize ") +
                     kernel_package_kernels_l2_normalize_config_name(config) + " " + shapeText(s) +
                     " seed " + std::to_string(seed));
}

/// rms_norm with \p config, one program per row (the caller's grid), on fresh inputs. The CPU
/// reference: x / sqrt(mean(x^2) + 1e-6) * w (`eps` and `HAS_WEIGHT` kept their defaults).
bool runRms(const Device &device, int config, const Shape &s, std::uint32_t seed) {
  const std::size_t size = s.rows * s.pitch;
  const std::vector<float> x = examples::randomFloats(size, seed, -2.0f, 2.0f);
  const std::vector<float> w = examples::randomFloats(s.cols, seed + 1, 0.5f, 1.5f);
  DeviceBuffer<float> dx(device, size), dw(device, s.cols), dy(device, size);
  dx.upload(x);
  dw.upload(w);
  dy.upload(std::vector<float>(size, kUntouched));
  check("rms_norm", kernel_package_kernels_rms_norm_config(
                        nullptr, config, static_cast<std::uint32_t>(s.rows), 1, 1, dx.get(),
                        dw.get(), dy.get(), static_cast<std::int32_t>(s.pitch),
                        static_cast<std::int32_t>(s.cols)));
  device.synchronize();

  std::vector<double> expected(size, 0.0);
  for (std::size_t r = 0; r < s.rows; ++r) {
    double sumSq = 0;
    for (std::size_t c = 0; c < s.cols; ++c)
      sumSq += static_cast<double>(x[r * s.pitch + c]) * x[r * s.pitch + c];
    const double inverse = 1.0 / std::sqrt(sumSq / static_cast<double>(s.cols) + 1e-6);
    for (std::size_t c = 0; c < s.cols; ++c)
      expected[r * s.pitch + c] = x[r * s.pitch + c] * inverse * w[c];
  }
  return compare(dy.download(size), expected, s,
                 std::string("rms_norm ") + kernel_package_kernels_rms_norm_config_name(config) +
                     " " + shapeText(s) + " seed " + std::to_string(seed));
}

} // namespace

int main() {
  const Device device = Device::openOrShowInventory(kernel_package_kernels_inventory());
  if (!device.available())
    return 0;

  bool allMatch = true;
  try {
    std::uint32_t seed = 1;
    // l2_normalize holds rows of up to 1024 values (BLOCK_N); a pitch of 16 values selects its
    // ":16" variant, an odd one the generic variant. Row counts that no BLOCK_R divides.
    const Shape l2Shapes[] = {{1000, 1024, 1024}, {333, 777, 781}, {7, 1, 3}};
    for (int config = 0; config < kernel_package_kernels_l2_normalize_config_count(); ++config)
      for (const Shape &s : l2Shapes) {
        allMatch = runL2(device, config, s, seed) && allMatch;
        seed += 1;
      }
    // rms_norm: a row that fills the block (EVEN_N true: no masks) and one that does not.
    const struct {
      int config;
      Shape shape;
    } rmsCases[] = {
        {kernel_package_kernels_rms_norm_CONFIG_cols1024, {256, 1024, 1024}},
        {kernel_package_kernels_rms_norm_CONFIG_cols1024, {100, 1000, 1003}},
        {kernel_package_kernels_rms_norm_CONFIG_cols4096, {64, 4096, 4096}},
        {kernel_package_kernels_rms_norm_CONFIG_cols4096, {50, 3000, 3010}},
    };
    for (const auto &c : rmsCases) {
      allMatch = runRms(device, c.config, c.shape, seed) && allMatch;
      seed += 2;
    }
  } catch (const std::exception &error) {
    std::fprintf(stderr, "kernel_package: %s\n", error.what());
    return 1;
  }
  std::printf("%s\n", allMatch ? "kernel_package: all results match the CPU"
                               : "kernel_package: MISMATCH");
  return allMatch ? 0 : 1;
}
