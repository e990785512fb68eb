// fp16 C = A @ B (fp32 accumulation) on the GPU through the generated library matmul_kernels:
// every config (tile shape) on several matrix shapes with fresh random inputs, checked against
// a CPU reference. Without a GPU it prints the library's inventory instead.
#include "device.h"
#include "host_data.h"

#include <matmul_kernels.h>
#include <triton_aot/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

using examples::Device;
using examples::DeviceBuffer;

struct Shape {
  std::size_t m, n, k; // n and k multiples of 16: the kernel's strides are declared i32:16
};

/// \p count fp16 values uniform in [-1, 1).
std::vector<std::uint16_t> randomHalves(std::size_t count, std::uint32_t seed) {
  std::vector<std::uint16_t> halves;
  halves.reserve(count);
  for (float value : examples::randomFloats(count, seed))
    halves.push_back(triton_aot_fp16(value));
  return halves;
}

/// The exact product of the fp16 inputs, accumulated in double.
std::vector<double> reference(const std::vector<std::uint16_t> &a,
                              const std::vector<std::uint16_t> &b, const Shape &s) {
  std::vector<double> bValues(b.size());
  std::transform(b.begin(), b.end(), bValues.begin(), triton_aot_fp16_to_float);
  std::vector<double> c(s.m * s.n, 0.0);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t p = 0; p < s.k; ++p) {
      const double x = triton_aot_fp16_to_float(a[i * s.k + p]);
      for (std::size_t j = 0; j < s.n; ++j)
        c[i * s.n + j] += x * bValues[p * s.n + j];
    }
  return c;
}

/// Every config on one shape; prints each outcome, returns whether all matched.
bool run(const Device &device, const Shape &s, std::uint32_t seed) {
  const auto a = randomHalves(s.m * s.k, seed);
  const auto b = randomHalves(s.k * s.n, seed + 1);
  const std::vector<double> expected = reference(a, b, s);
  DeviceBuffer<std::uint16_t> da(device, a.size()), db(device, b.size()),
      dc(device, expected.size());
  da.upload(a);
  db.upload(b);

  bool allMatch = true;
  for (int config = 0; config < matmul_kernels_matmul_config_count(); ++config) {
    dc.upload(std::vector<std::uint16_t>(expected.size(), triton_aot_fp16(NAN)));
    const auto m = static_cast<std::int32_t>(s.m), n = static_cast<std::int32_t>(s.n),
               k = static_cast<std::int32_t>(s.k);
    // Row-major: the row strides of A, B and C are k, n and n.
    const triton_aot_status status = matmul_kernels_matmul_config(
        nullptr, config, da.get(), db.get(), dc.get(), m, n, k, k, n, n);
    if (status != TRITON_AOT_SUCCESS)
      throw std::runtime_error(std::string("matmul failed: ") + matmul_kernels_last_error());
    device.synchronize();

    const std::vector<std::uint16_t> c = dc.download(expected.size());
    double worst = 0;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const double error = std::fabs(triton_aot_fp16_to_float(c[i]) - expected[i]);
      worst = std::max(worst, error);
      // fp16 output: half a unit in the last place is 2^-11 relative; the GPU sums in fp32 in
      // another order. NaN (an element never written) fails the test.
      if (!(error <= 2e-2 + 4e-3 * std::fabs(expected[i])) && ++wrong <= 3)
        std::printf("  c[%zu] = %g, expected %g\n", i,
                    static_cast<double>(triton_aot_fp16_to_float(c[i])), expected[i]);
    }
    std::printf("%4zu x %4zu x %4zu config %-11s seed %u: max error %.2e: %s\n", s.m, s.n, s.k,
                matmul_kernels_matmul_config_name(config), seed, worst, wrong ? "MISMATCH" : "ok");
    allMatch = allMatch && wrong == 0;
  }
  return allMatch;
}

} // namespace

int main() {
  const Device device = Device::openOrShowInventory(matmul_kernels_inventory());
  if (!device.available())
    return 0;

  const Shape shapes[] = {{256, 256, 256}, {333, 240, 176}, {512, 384, 1024}};
  bool allMatch = true;
  try {
    std::uint32_t seed = 1;
    for (const Shape &shape : shapes) {
      allMatch = run(device, shape, seed) && allMatch;
      seed += 2;
    }
  } catch (const std::exception &error) {
    std::fprintf(stderr, "matmul: %s\n", error.what());
    return 1;
  }
  std::printf("%s\n", allMatch ? "matmul: all results match the CPU" : "matmul: MISMATCH");
  return allMatch ? 0 : 1;
}
