// What launch_overhead and first_launch share beyond bench_support.h: the embedded cubin the
// library's runtime would pick for a device, and failing on a driver error.
#pragma once

#include "bench_support.h"
#include "cuda_driver.h"
#include "launch_overhead_images.h"

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

inline void check(gpu::CUresult result, const char *what) {
  if (result != gpu::CUDA_SUCCESS)
    fail(std::string(what) + ": " + gpu::cudaDriver().describe(result));
}

} // namespace tta::bench
