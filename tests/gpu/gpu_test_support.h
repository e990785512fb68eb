// Shared pieces of the GPU tests: a fixture that skips without a GPU, device buffers, seeded
// random inputs, fp16 conversion, and the lines the tests print for the closing note.
#ifndef TTA_TESTS_GPU_GPU_TEST_SUPPORT_H
#define TTA_TESTS_GPU_GPU_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda_driver.h"

// Fails the current test with the driver's error text unless `call` succeeded.
#define ASSERT_CU(call)                                                                 \
  do {                                                                                  \
    ::tta::gpu::CUresult tta_cu_result_ = (call);                                       \
    ASSERT_EQ(tta_cu_result_, ::tta::gpu::CUDA_SUCCESS)                                 \
        << #call << ": " << ::tta::gpu::cudaDriver().describe(tta_cu_result_);          \
  } while (0)

// Fails the current test unless a generated API call returned TRITON_AOT_SUCCESS; `last_error`
// is the library's <prefix>_last_error function.
#define ASSERT_TTA(call, last_error)                                                    \
  do {                                                                                  \
    int tta_status_ = static_cast<int>(call);                                           \
    ASSERT_EQ(tta_status_, 0) << #call << ": " << ::tta::gpu::statusName(tta_status_)   \
                              << ": " << last_error();                                  \
  } while (0)

namespace tta::gpu {

const char *statusName(int status);

// The primary context of device `ordinal`, retained once for the life of the process (never
// released: the libraries under test keep per-device state that must outlive each test).
// Empty string on success, else why not.
std::string primaryContext(int ordinal, CUcontext *context);

// Device memory, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }
  CUdeviceptr address() const { return address_; }
  // The address `offset` bytes in, as the generated API takes pointers.
  const void *at(size_t offset = 0) const {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(address_ + offset));
  }
  // Synchronous: done when they return (the device side included), "" or the error.
  std::string upload(const void *host, size_t bytes, size_t offset = 0);
  std::string download(void *host, size_t bytes, size_t offset = 0) const;
  std::string fill(unsigned char byte);

 private:
  CUdeviceptr address_ = 0;
  size_t bytes_ = 0;
  std::string error_;
};

// GPU test fixture: skips unless the driver has a device; makes device 0's primary context
// current and gives each test its own non-blocking stream and a seeded random generator.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Prints "[ figure   ] <test>: <text>" and records it as a test property.
  void figure(const std::string &key, const std::string &value);

  DeviceInfo device_;
  CUstream stream_ = nullptr;
  std::mt19937_64 random_;
};

// GpuTest that also skips unless the driver reports at least two devices.
class TwoGpuTest : public GpuTest {
 protected:
  void SetUp() override;
};

// The seed of this run: TTA_GPU_TEST_SEED if set, else from std::random_device and the clock.
uint64_t runSeed();
// Per-test seed derived from the run seed and the test's name, so one test reruns alone.
uint64_t testSeed();

std::vector<float> uniformFloats(std::mt19937_64 &random, size_t count, float low, float high);
float halfToFloat(uint16_t half);
uint16_t floatToHalf(float value);
// Values drawn uniformly from [low, high) then rounded to fp16.
std::vector<uint16_t> uniformHalves(std::mt19937_64 &random, size_t count, float low, float high);

// The result of comparing a device result with the CPU reference: the worst element.
struct Comparison {
  double max_abs_error = 0;
  size_t worst_index = 0;
  size_t mismatches = 0;  // elements outside abs_tol + rel_tol * |reference|
  std::string summary() const;
};
Comparison compare(const std::vector<float> &result, const std::vector<float> &reference,
                   double abs_tol, double rel_tol);

}  // namespace tta::gpu

#endif  // TTA_TESTS_GPU_GPU_TEST_SUPPORT_H
