// A program built against the installed package VectorAddKernels: one vector add on the GPU,
// checked against the CPU, or the library's inventory where there is no GPU.
#include "device.h"
#include "host_data.h"

#include <vector_add_kernels.h>

#include <cstdio>
#include <exception>

int main() {
  const examples::Device device =
      examples::Device::openOrShowInventory(vector_add_kernels_inventory());
  if (!device.available())
    return 0;
  try {
    const std::size_t n = 100000;
    const std::vector<float> x = examples::randomFloats(n, 7), y = examples::randomFloats(n, 8);
    examples::DeviceBuffer<float> dx(device, n), dy(device, n), dout(device, n);
    dx.upload(x);
    dy.upload(y);
    // The default config; the library picks the hint variant from the arguments.
    if (vector_add_kernels_vector_add(nullptr, dx.get(), dy.get(), dout.get(),
                                      static_cast<std::int32_t>(n)) != TRITON_AOT_SUCCESS) {
      std::fprintf(stderr, "consumer: vector_add failed: %s\n", vector_add_kernels_last_error());
      return 1;
    }
    device.synchronize();
    const std::vector<float> out = dout.download(n);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += out[i] != x[i] + y[i];
    std::printf("consumer: vector_add of %zu elements (config %s): %s\n", n,
                vector_add_kernels_vector_add_config_name(0), wrong ? "MISMATCH" : "ok");
    return wrong ? 1 : 0;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 1;
  }
}
