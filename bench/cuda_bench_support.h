// What launch_overhead and first_launch share beyond bench_support.h: the embedded cubin the
// library's runtime would pick for a device, failing on a driver error, and the vector add's
// buffers with the cubin's raw launch over them.
#pragma once

#include "bench_support.h"
#include "cuda_driver.h"
#include "launch_overhead_images.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tta::bench {

/// The cubin the library's runtime picks for \p device: exact, else same major and lower minor
/// (never an arch-specific one on another chip); nullptr when none runs there.
inline const BenchImage *imageFor(const gpu::DeviceInfo &device) {
  const BenchImage *best = nullptr;
  for (const BenchImage &image : kBenchImages) {
    if (image.major == device.major && image.minor == device.minor) return &image;
    if (!image.arch_specific && image.major == device.major && image.minor < device.minor &&
        (!best || image.minor > best->minor))
      best = &image;
  }
  return best;
}

/// The cubin to time on device \p ordinal, its facts in \p device; nullptr after printing
/// "<program>: skipped: <why>" when there is no driver or GPU, or no embedded cubin runs on the
/// device (the caller exits 77). A device the driver does not have fails.
inline const BenchImage *deviceImageOrSkip(int ordinal, gpu::DeviceInfo *device) {
  const gpu::CudaDriver &cu = gpu::cudaDriver();
  if (!cu.available()) {
    std::printf("%s: skipped: %s\n", program_invocation_short_name, cu.unavailable.c_str());
    return nullptr;
  }
  if (ordinal >= cu.device_count)
    fail("no device " + std::to_string(ordinal) + " (the driver reports " +
         std::to_string(cu.device_count) + ")");
  if (std::string error = gpu::queryDevice(ordinal, device); !error.empty()) fail(error);
  const BenchImage *image = imageFor(*device);
  if (!image)
    std::printf("%s: skipped: no embedded cubin runs on %s (sm_%d%d)\n",
                program_invocation_short_name, device->name.c_str(), device->major,
                device->minor);
  return image;
}

inline void check(gpu::CUresult result, const char *what) {
  if (result != gpu::CUDA_SUCCESS)
    fail(std::string(what) + ": " + gpu::cudaDriver().describe(result));
}

/// x, y and out: n floats each on the device, x[i] = i and y[i] = i / 2; and the cubin's raw
/// launch over them, with Triton's two trailing scratch pointers NULL.
struct VectorAddBuffers {
  const gpu::CudaDriver &cu = gpu::cudaDriver();
  const BenchImage *image = nullptr;
  int32_t n = 0;
  gpu::CUdeviceptr x = 0, y = 0, out = 0;
  std::vector<float> hx, hy;

  size_t bytes() const { return static_cast<size_t>(n) * sizeof(float); }

  /// Allocates and fills them (out is not cleared); waits for the copies.
  void allocate(const BenchImage &cubin, int32_t elements) {
    image = &cubin;
    n = elements;
    check(cu.cuMemAlloc(&x, bytes()), "cuMemAlloc");
    check(cu.cuMemAlloc(&y, bytes()), "cuMemAlloc");
    check(cu.cuMemAlloc(&out, bytes()), "cuMemAlloc");
    hx.resize(static_cast<size_t>(n));
    hy.resize(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) {
      hx[static_cast<size_t>(i)] = static_cast<float>(i);
      hy[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i);
    }
    check(cu.cuMemcpyHtoD(x, hx.data(), bytes()), "cuMemcpyHtoD");
    check(cu.cuMemcpyHtoD(y, hy.data(), bytes()), "cuMemcpyHtoD");
    check(cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  }

  void rawLaunch(gpu::CUfunction function, gpu::CUstream stream) const {
    gpu::CUdeviceptr global_scratch = 0, profile_scratch = 0, px = x, py = y, pout = out;
    int32_t count = n;
    void *params[] = {&px, &py, &pout, &count, &global_scratch, &profile_scratch};
    unsigned grid = static_cast<unsigned>((count + image->block - 1) / image->block);
    check(cu.cuLaunchKernel(function, grid, 1, 1, image->block_x, 1, 1, image->shared, stream,
                            params, nullptr),
          "cuLaunchKernel");
  }

  /// Fails unless out holds x + y (the launches are done).
  void checkSum(const std::string &method) const {
    std::vector<float> result(static_cast<size_t>(n));
    check(cu.cuMemcpyDtoH(result.data(), out, bytes()), "cuMemcpyDtoH");
    for (size_t i = 0; i < result.size(); ++i)
      if (result[i] != hx[i] + hy[i])
        fail(method + " computed a wrong sum at element " + std::to_string(i));
  }

  void release() const {
    cu.cuMemFree(x);
    cu.cuMemFree(y);
    cu.cuMemFree(out);
  }
};

} // namespace tta::bench
