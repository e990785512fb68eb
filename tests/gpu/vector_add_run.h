// One checked vector-add launch (out = x + y), shared by every test that launches an add
// kernel: the single-GPU, cluster, library-lifetime and two-GPU tests.
#ifndef TTA_TESTS_GPU_VECTOR_ADD_RUN_H
#define TTA_TESTS_GPU_VECTOR_ADD_RUN_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "cuda_driver.h"

namespace tta::gpu {

// A generated entry point with the add kernel's C signature, and its library's last_error.
struct AddKernel {
  std::function<int(void *stream, const void *x, const void *y, const void *out, int32_t n)> launch;
  const char *(*last_error)(void);
};

// Launches `kernel` on `n` elements starting `offset` floats into fresh buffers of random
// inputs (offset 1 makes every pointer 4 bytes off 16-byte alignment), waits for `stream`,
// and checks every element exactly (fp32 addition is exact on both sides) and that nothing
// before or after the n elements was written. Returns "" on success, else the first problem.
std::string runVectorAdd(const AddKernel &kernel, CUstream stream, size_t n, size_t offset,
                         std::mt19937_64 &random);

}  // namespace tta::gpu

#endif  // TTA_TESTS_GPU_VECTOR_ADD_RUN_H
