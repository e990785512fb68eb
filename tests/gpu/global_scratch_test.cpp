// A kernel that needs global scratch: device-side tensor descriptors (tma_copy.py). On sm_90a
// Triton 3.6 asks for 256 bytes per program (its TMA descriptors live there); the runtime must
// allocate grid x num_ctas x that through the allocator and pass it as the trailing pointer.
// The sm_80 build of the same kernel needs none, and then the allocator must not be called.
#include <gpu_kernels.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "gpu_test_support.h"

namespace tta::gpu {
namespace {

// An allocator that records every call and frees nothing until the test has synchronised
// (release is called once the launch is enqueued, before the kernel has run).
struct RecordingAllocator {
  struct Allocation {
    size_t size;
    size_t align;
    void *stream;
    CUdeviceptr block;  // what cuMemAlloc returned
    void *pointer;      // the aligned pointer handed out
  };
  std::mutex mutex;
  std::vector<Allocation> allocations;
  std::vector<void *> released;

  static int allocate(void *user, size_t size, size_t align, void *stream, void **pointer) {
    auto *self = static_cast<RecordingAllocator *>(user);
    CUdeviceptr block = 0;
    if (cudaDriver().cuMemAlloc(&block, size + align) != CUDA_SUCCESS) return 1;
    CUdeviceptr aligned = (block + align - 1) & ~static_cast<CUdeviceptr>(align - 1);
    *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(aligned));
    std::lock_guard lock(self->mutex);
    self->allocations.push_back({size, align, stream, block, *pointer});
    return 0;
  }
  static void release(void *user, void *pointer, void *) {
    auto *self = static_cast<RecordingAllocator *>(user);
    std::lock_guard lock(self->mutex);
    self->released.push_back(pointer);
  }
  ~RecordingAllocator() {
    for (const Allocation &a : allocations) cudaDriver().cuMemFree(a.block);
  }
};

class GlobalScratchTest : public GpuTest {
 protected:
  void TearDown() override {
    gpu_kernels_set_allocator(nullptr);  // never leave the recording allocator installed
    GpuTest::TearDown();
  }
};

constexpr uint32_t kNaN = 0x7fc00000u;
constexpr uint32_t kSentinel = 0xffffffffu;

uint32_t bits(float value) {
  uint32_t b;
  std::memcpy(&b, &value, sizeof b);
  return b;
}

TEST_F(GlobalScratchTest, TensorDescriptorKernelGetsItsScratch) {
  // Partial tiles on both axes; rows padded to a stride of 208 floats (832 bytes, a multiple of
  // 16 as TMA needs); the padding of x holds NaN and must be neither read nor written.
  const int M = 300, N = 200, stride = 208;
  const int programs = ((M + 63) / 64) * ((N + 63) / 64);
  const size_t count = static_cast<size_t>(M) * stride, bytes = count * sizeof(float);
  std::vector<float> x = uniformFloats(random_, count, -10.0f, 10.0f);
  for (int m = 0; m < M; ++m)
    for (int n = N; n < stride; ++n) std::memcpy(&x[static_cast<size_t>(m) * stride + n], &kNaN, 4);
  const float scale = uniformFloats(random_, 1, -3.0f, 3.0f)[0];
  DeviceBuffer dx(bytes), dout(bytes);
  ASSERT_TRUE(dx.ok() && dout.ok()) << dx.error() << dout.error();
  ASSERT_EQ(dx.upload(x.data(), bytes), "");

  auto launchAndCheck = [&](const char *label) {
    ASSERT_EQ(dout.fill(0xff), "");
    ASSERT_TTA(gpu_kernels_tma_scale(stream_, dx.at(), dout.at(), M, N, stride, scale),
               gpu_kernels_last_error);
    ASSERT_CU(cudaDriver().cuStreamSynchronize(stream_));
    std::vector<float> out(count);
    ASSERT_EQ(dout.download(out.data(), bytes), "");
    size_t wrong = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < stride; ++n) {
        size_t i = static_cast<size_t>(m) * stride + n;
        // One multiply on both sides: exact.
        uint32_t expected = n < N ? bits(x[i] * scale) : kSentinel;
        if (bits(out[i]) != expected && wrong++ < 5)
          ADD_FAILURE() << label << ": out[" << m << "][" << n << "] = " << out[i];
      }
    EXPECT_EQ(wrong, 0u) << label;
    figure(label, std::to_string(M) + "x" + std::to_string(N) + " tiles of 64x64, " +
                      std::to_string(wrong) + " wrong elements");
  };

  RecordingAllocator recorder;
  triton_aot_allocator hook{RecordingAllocator::allocate, RecordingAllocator::release, &recorder};
  gpu_kernels_set_allocator(&hook);
  launchAndCheck("recording allocator");
  gpu_kernels_set_allocator(nullptr);
  if (HasFatalFailure()) return;

  const bool hopper = device_.major == 9 && device_.minor == 0;  // the sm_90a image runs
  if (hopper) {
    ASSERT_EQ(recorder.allocations.size(), 1u) << "the sm_90a kernel needs global scratch";
    const auto &a = recorder.allocations[0];
    EXPECT_GT(a.size, 0u);
    EXPECT_EQ(a.size % programs, 0u) << "scratch is sized per program (grid " << programs << ")";
    EXPECT_GE(a.align, 1u);
    EXPECT_EQ(a.align & (a.align - 1), 0u) << "alignment must be a power of two";
    EXPECT_EQ(a.stream, static_cast<void *>(stream_)) << "allocated for the launch stream";
    ASSERT_EQ(recorder.released.size(), 1u);
    EXPECT_EQ(recorder.released[0], a.pointer);
    char text[128];
    std::snprintf(text, sizeof text, "%zu bytes (%zu per program x %d programs), align %zu",
                  a.size, a.size / programs, programs, a.align);
    figure("global scratch per launch", text);
  } else {
    EXPECT_EQ(recorder.allocations.size(), 0u) << "the sm_80 kernel needs no scratch";
    figure("global scratch per launch", "none (sm_80 image)");
  }

  launchAndCheck("default stream-ordered allocator");
}

}  // namespace
}  // namespace tta::gpu
