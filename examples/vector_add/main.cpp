// out = x + y on the GPU through the generated library vector_add_kernels: every config, each
// with aligned arguments (the ":16" hint variant) and with a misaligned pointer and a length
// that is no multiple of 16 (the generic variant), checked against the CPU. Without a GPU it
// prints the library's inventory instead.
#include "device.h"
#include "host_data.h"

#include <vector_add_kernels.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

using examples::Device;
using examples::DeviceBuffer;

struct Case {
  const char *what;   ///< which variant the arguments select
  std::size_t n;      ///< elements
  std::size_t offset; ///< elements past a 16-byte aligned allocation
};

constexpr float kUntouched = -12345.0f; // fills out around the range the kernel may write

/// One launch of \p config on fresh inputs; prints the outcome, returns whether it matched.
bool run(const Device &device, int config, const Case &c, std::uint32_t seed) {
  const std::vector<float> x = examples::randomFloats(c.n, seed);
  const std::vector<float> y = examples::randomFloats(c.n, seed + 1);
  const std::size_t padded = c.offset + c.n + 16;
  DeviceBuffer<float> dx(device, padded), dy(device, padded), dout(device, padded);
  dx.upload(x, c.offset);
  dy.upload(y, c.offset);
  dout.upload(std::vector<float>(padded, kUntouched));

  const triton_aot_status status =
      vector_add_kernels_vector_add_config(nullptr, config, dx.at(c.offset), dy.at(c.offset),
                                           dout.at(c.offset), static_cast<std::int32_t>(c.n));
  if (status != TRITON_AOT_SUCCESS)
    throw std::runtime_error(std::string("vector_add failed: ") + vector_add_kernels_last_error());
  device.synchronize();

  const std::vector<float> out = dout.download(padded);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < padded; ++i) {
    const bool inside = i >= c.offset && i < c.offset + c.n;
    // The same IEEE addition on both sides: the results are equal, not just close.
    const float expected = inside ? x[i - c.offset] + y[i - c.offset] : kUntouched;
    if (out[i] != expected && ++wrong <= 3)
      std::printf("  out[%zu] = %g, expected %g\n", i, static_cast<double>(out[i]),
                  static_cast<double>(expected));
  }
  std::printf("config %-9s %-42s n = %-8zu seed %u: %s\n",
              vector_add_kernels_vector_add_config_name(config), c.what, c.n, seed,
              wrong ? "MISMATCH" : "ok");
  return wrong == 0;
}

} // namespace

int main() {
  const Device device = Device::openOrShowInventory(vector_add_kernels_inventory());
  if (!device.available())
    return 0;

  const Case cases[] = {
      {"aligned, n % 16 == 0 (hint variant :16)", 1u << 20, 0},
      {"misaligned, n % 16 != 0 (generic variant)", (1u << 20) - 3, 1},
  };
  bool allMatch = true;
  try {
    std::uint32_t seed = 1;
    for (int config = 0; config < vector_add_kernels_vector_add_config_count(); ++config)
      for (const Case &c : cases) {
        allMatch = run(device, config, c, seed) && allMatch;
        seed += 2;
      }
  } catch (const std::exception &error) {
    std::fprintf(stderr, "vector_add: %s\n", error.what());
    return 1;
  }
  std::printf("%s\n", allMatch ? "vector_add: all results match the CPU" : "vector_add: MISMATCH");
  return allMatch ? 0 : 1;
}
