// A generated kernel library called from CUDA runtime code. The library needs nothing from the
// runtime API: it launches through the driver on whatever context is current, which for a
// runtime program is the device's primary context, the one cudaSetDevice() makes current.
#include <cuda_runtime.h>
#include <cuda_runtime_kernels.h>

#include <cstdio>
#include <vector>

namespace {

// A failed runtime call: its name and message, and the program's exit status.
int failed(const char *what, cudaError_t error) {
  std::fprintf(stderr, "cuda_runtime: %s: %s\n", what, cudaGetErrorString(error));
  return 1;
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    // No GPU (or no driver): what the library would run, and a clean exit, as the other examples.
    std::printf("no GPU: %s\n%s", cudaGetErrorString(cudaGetDeviceCount(&devices)),
                cuda_runtime_kernels_inventory());
    return 0;
  }
  if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess)
    return failed("cudaSetDevice", e);

  const int n = 1 << 20;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.5f;
    y[i] = static_cast<float>(i % 7);
  }
  float *dx = nullptr, *dy = nullptr, *dout = nullptr;
  cudaStream_t stream = nullptr;
  for (float **buffer : {&dx, &dy, &dout})
    if (cudaError_t e = cudaMalloc(buffer, n * sizeof(float)); e != cudaSuccess)
      return failed("cudaMalloc", e);
  if (cudaError_t e = cudaStreamCreate(&stream); e != cudaSuccess)
    return failed("cudaStreamCreate", e);

  // Copies and launches go on one stream, in order: the kernel reads what the copies wrote,
  // and the copy back reads what the kernel wrote, with no synchronisation between them.
  cudaMemcpyAsync(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);
  // The cudaStream_t as is. The call returns once the launch is enqueued: its status says
  // whether it could be launched (an image for this GPU, valid arguments), not how it ran.
  if (cuda_runtime_kernels_vector_add(stream, dx, dy, dout, n) != TRITON_AOT_SUCCESS) {
    std::fprintf(stderr, "cuda_runtime: vector_add: %s\n", cuda_runtime_kernels_last_error());
    return 1;
  }
  cudaMemcpyAsync(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  // Errors of the kernel's execution surface here, as for any asynchronous work.
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return failed("cudaStreamSynchronize", e);

  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += out[i] != x[i] + y[i];
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  std::printf("cuda_runtime: vector_add of %d elements on %s: %s\n", n, properties.name,
              wrong ? "MISMATCH" : "ok");
  cudaStreamDestroy(stream);
  for (float *buffer : {dx, dy, dout})
    cudaFree(buffer);
  return wrong ? 1 : 0;
}
