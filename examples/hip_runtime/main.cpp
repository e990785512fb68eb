// A generated kernel library called from HIP runtime code. The library loads its HSACO images
// through the HIP runtime's module API itself, on the device hipSetDevice() made current, so a
// HIP program passes its hipStream_t as is.
#include <hip/hip_runtime_api.h>
#include <hip_runtime_kernels.h>

#include <cstdio>
#include <vector>

namespace {

// A failed runtime call: its name and message, and the program's exit status.
int failed(const char *what, hipError_t error) {
  std::fprintf(stderr, "hip_runtime: %s: %s\n", what, hipGetErrorString(error));
  return 1;
}

} // namespace

int main() {
  int devices = 0;
  if (hipError_t e = hipGetDeviceCount(&devices); e != hipSuccess || devices == 0) {
    // No GPU (or no driver): what the library would run, and a clean exit, as the other examples.
    std::printf("no GPU: %s\n%s", e != hipSuccess ? hipGetErrorString(e) : "no device",
                hip_runtime_kernels_inventory());
    return 0;
  }
  if (hipError_t e = hipSetDevice(0); e != hipSuccess)
    return failed("hipSetDevice", e);

  const int n = 1 << 20;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.5f;
    y[i] = static_cast<float>(i % 7);
  }
  float *dx = nullptr, *dy = nullptr, *dout = nullptr;
  hipStream_t stream = nullptr;
  for (float **buffer : {&dx, &dy, &dout})
    if (hipError_t e = hipMalloc(reinterpret_cast<void **>(buffer), n * sizeof(float));
        e != hipSuccess)
      return failed("hipMalloc", e);
  if (hipError_t e = hipStreamCreate(&stream); e != hipSuccess)
    return failed("hipStreamCreate", e);

  // Copies and launches go on one stream, in order: the kernel reads what the copies wrote,
  // and the copy back reads what the kernel wrote, with no synchronisation between them.
  if (hipError_t e = hipMemcpyAsync(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice, stream);
      e != hipSuccess)
    return failed("hipMemcpyAsync", e);
  if (hipError_t e = hipMemcpyAsync(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice, stream);
      e != hipSuccess)
    return failed("hipMemcpyAsync", e);
  // The hipStream_t as is. The call returns once the launch is enqueued: its status says
  // whether it could be launched (an image for this GPU, valid arguments), not how it ran.
  if (hip_runtime_kernels_vector_add(stream, dx, dy, dout, n) != TRITON_AOT_SUCCESS) {
    std::fprintf(stderr, "hip_runtime: vector_add: %s\n", hip_runtime_kernels_last_error());
    return 1;
  }
  if (hipError_t e = hipMemcpyAsync(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost, stream);
      e != hipSuccess)
    return failed("hipMemcpyAsync", e);
  // Errors of the kernel's execution surface here, as for any asynchronous work.
  if (hipError_t e = hipStreamSynchronize(stream); e != hipSuccess)
    return failed("hipStreamSynchronize", e);

  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += out[i] != x[i] + y[i];
  hipDeviceProp_t properties{};
  if (hipGetDeviceProperties(&properties, 0) != hipSuccess)
    properties.name[0] = '\0';
  std::printf("hip_runtime: vector_add of %d elements on %s: %s\n", n, properties.name,
              wrong ? "MISMATCH" : "ok");
  if (hipError_t e = hipStreamDestroy(stream); e != hipSuccess)
    return failed("hipStreamDestroy", e);
  for (float *buffer : {dx, dy, dout})
    if (hipError_t e = hipFree(buffer); e != hipSuccess)
      return failed("hipFree", e);
  return wrong ? 1 : 0;
}
