#include "gpu_test_support.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include <triton_aot/runtime.h>

namespace tta::gpu {

const char *statusName(int status) {
  static const char *const names[] = {
      "TRITON_AOT_SUCCESS",           "TRITON_AOT_ERROR_NO_DRIVER",
      "TRITON_AOT_ERROR_NO_DEVICE",   "TRITON_AOT_ERROR_NO_IMAGE",
      "TRITON_AOT_ERROR_LOAD_FAILED", "TRITON_AOT_ERROR_LAUNCH_FAILED",
      "TRITON_AOT_ERROR_INVALID_ARGUMENT", "TRITON_AOT_ERROR_OUT_OF_MEMORY"};
  return status >= 0 && status < 8 ? names[status] : "unknown status";
}

std::string primaryContext(int ordinal, CUcontext *context) {
  static std::mutex mutex;
  static std::vector<CUcontext> contexts;
  const CudaDriver &d = cudaDriver();
  if (!d.available()) return d.unavailable;
  if (ordinal < 0 || ordinal >= d.device_count) return "no device " + std::to_string(ordinal);
  std::lock_guard lock(mutex);
  contexts.resize(static_cast<size_t>(d.device_count));
  CUcontext &cached = contexts[static_cast<size_t>(ordinal)];
  if (!cached) {
    CUdevice device = 0;
    if (CUresult r = d.cuDeviceGet(&device, ordinal); r != CUDA_SUCCESS)
      return "cuDeviceGet: " + d.describe(r);
    if (CUresult r = d.cuDevicePrimaryCtxRetain(&cached, device); r != CUDA_SUCCESS)
      return "cuDevicePrimaryCtxRetain: " + d.describe(r);
  }
  *context = cached;
  return {};
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (CUresult r = cudaDriver().cuMemAlloc(&address_, bytes); r != CUDA_SUCCESS) {
    error_ = "cuMemAlloc(" + std::to_string(bytes) + "): " + cudaDriver().describe(r);
    address_ = 0;
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (address_) cudaDriver().cuMemFree(address_);
}

namespace {

// Copies and memsets run on the legacy default stream, which the tests' non-blocking streams
// do not wait for: finish them before anything is launched.
std::string finishLegacyStream(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS) result = cudaDriver().cuStreamSynchronize(nullptr);
  return result == CUDA_SUCCESS ? std::string() : what + (": " + cudaDriver().describe(result));
}

}  // namespace

std::string DeviceBuffer::upload(const void *host, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_) return "upload past the end of the buffer";
  return finishLegacyStream(cudaDriver().cuMemcpyHtoD(address_ + offset, host, bytes),
                            "cuMemcpyHtoD");
}

std::string DeviceBuffer::download(void *host, size_t bytes, size_t offset) const {
  if (offset + bytes > bytes_) return "download past the end of the buffer";
  CUresult r = cudaDriver().cuMemcpyDtoH(host, address_ + offset, bytes);
  return r == CUDA_SUCCESS ? std::string() : "cuMemcpyDtoH: " + cudaDriver().describe(r);
}

std::string DeviceBuffer::fill(unsigned char byte) {
  return finishLegacyStream(cudaDriver().cuMemsetD8(address_, byte, bytes_), "cuMemsetD8");
}

void GpuTest::SetUp() {
  const CudaDriver &d = cudaDriver();
  if (!d.available()) GTEST_SKIP() << d.unavailable;
  CUcontext context = nullptr;
  std::string error = primaryContext(0, &context);
  ASSERT_EQ(error, "");
  ASSERT_CU(d.cuCtxSetCurrent(context));
  ASSERT_EQ(queryDevice(0, &device_), "");
  ASSERT_CU(d.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
  uint64_t seed = testSeed();
  random_.seed(seed);
  const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[ gpu test ] %s.%s on %s (sm_%d%d), seed %llu\n", test->test_suite_name(),
              test->name(), device_.name.c_str(), device_.major, device_.minor,
              static_cast<unsigned long long>(seed));
}

void TwoGpuTest::SetUp() {
  GpuTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  if (cudaDriver().device_count < 2)
    GTEST_SKIP() << "needs two GPUs; the driver reports " << cudaDriver().device_count;
}

void GpuTest::TearDown() {
  if (stream_) cudaDriver().cuStreamDestroy(stream_);
  stream_ = nullptr;
}

void GpuTest::figure(const std::string &key, const std::string &value) {
  const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[ figure   ] %s.%s: %s = %s\n", test->test_suite_name(), test->name(),
              key.c_str(), value.c_str());
  RecordProperty(key, value);
}

uint64_t runSeed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char *text = std::getenv("TTA_GPU_TEST_SEED"); text && *text)
      return static_cast<uint64_t>(std::strtoull(text, nullptr, 0));
    std::random_device device;
    uint64_t clock = static_cast<uint64_t>(
        std::chrono::high_resolution_clock::now().time_since_epoch().count());
    return ((static_cast<uint64_t>(device()) << 32) ^ device() ^ clock) & 0xffffffffffffull;
  }();
  return seed;
}

uint64_t testSeed() {
  const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(test->test_suite_name()) + "." + test->name();
  // FNV-1a, so the per-test seed does not depend on the standard library's hash.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : name) hash = (hash ^ c) * 0x100000001b3ull;
  return runSeed() ^ hash;
}

std::vector<float> uniformFloats(std::mt19937_64 &random, size_t count, float low, float high) {
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float &v : values) v = distribution(random);
  return values;
}

float halfToFloat(uint16_t half) { return triton_aot_fp16_to_float(half); }

uint16_t floatToHalf(float value) { return triton_aot_fp16(value); }

std::vector<uint16_t> uniformHalves(std::mt19937_64 &random, size_t count, float low, float high) {
  std::vector<uint16_t> values(count);
  for (uint16_t &v : values) v = floatToHalf(std::uniform_real_distribution<float>(low, high)(random));
  return values;
}

std::string Comparison::summary() const {
  char text[160];
  std::snprintf(text, sizeof text, "max abs error %.3g at element %zu, %zu outside tolerance",
                max_abs_error, worst_index, mismatches);
  return text;
}

Comparison compare(const std::vector<float> &result, const std::vector<float> &reference,
                   double abs_tol, double rel_tol) {
  Comparison c;
  for (size_t i = 0; i < reference.size() && i < result.size(); ++i) {
    double error = std::fabs(static_cast<double>(result[i]) - reference[i]);
    if (std::isnan(error)) error = INFINITY;  // NaN must never pass
    if (error > c.max_abs_error) {
      c.max_abs_error = error;
      c.worst_index = i;
    }
    if (error > abs_tol + rel_tol * std::fabs(reference[i])) ++c.mismatches;
  }
  if (result.size() != reference.size()) c.mismatches += 1;
  return c;
}

}  // namespace tta::gpu
