// Vector add through the generated API: both hint variants (16-byte aligned pointers and a size
// divisible by 16, else the generic fallback), sizes that are not multiples of the block, every
// config, and an empty launch. A wrong dispatch shows as a failure: the hinted variant's 16-byte
// vector accesses fault on misaligned pointers, and its masks, which assume n % 16 == 0, can write
// past n into the guard that runVectorAdd() checks.
#include <gpu_kernels.h>

#include "gpu_test_support.h"
#include "vector_add_run.h"

namespace tta::gpu {
namespace {

class VectorAddTest : public GpuTest {
 protected:
  AddKernel defaultConfig() const {
    return {[](void *stream, const void *x, const void *y, const void *out, int32_t n) {
              return static_cast<int>(gpu_kernels_vector_add(stream, x, y, out, n));
            },
            gpu_kernels_last_error};
  }
  AddKernel config(int index) const {
    return {[index](void *stream, const void *x, const void *y, const void *out, int32_t n) {
              return static_cast<int>(gpu_kernels_vector_add_config(stream, index, x, y, out, n));
            },
            gpu_kernels_last_error};
  }
};

TEST_F(VectorAddTest, AlignedPointersAndSizeDivisibleBy16UseTheHintVariant) {
  const size_t n = 37 * 1024 + 80;  // divisible by 16, not by the block of 1024
  EXPECT_EQ(runVectorAdd(defaultConfig(), stream_, n, 0, random_), "");
  figure("elements", std::to_string(n) + " (aligned, n % 16 == 0), exact");
}

TEST_F(VectorAddTest, SizeNotDivisibleBy16FallsBackToTheGenericVariant) {
  for (size_t n : {size_t{1}, size_t{15}, size_t{1023}, size_t{100003}})
    EXPECT_EQ(runVectorAdd(defaultConfig(), stream_, n, 0, random_), "") << "n = " << n;
  figure("elements", "1, 15, 1023, 100003 (n % 16 != 0), exact");
}

TEST_F(VectorAddTest, MisalignedPointersFallBackToTheGenericVariant) {
  for (size_t n : {size_t{4096}, size_t{65536 + 7}})
    EXPECT_EQ(runVectorAdd(defaultConfig(), stream_, n, 1, random_), "") << "n = " << n;
  figure("elements", "4096, 65543 at pointers 4 bytes past 16-byte alignment, exact");
}

TEST_F(VectorAddTest, EveryConfigComputesTheSameSum) {
  ASSERT_EQ(gpu_kernels_vector_add_config_count(), 2);
  std::string names;
  for (int c = 0; c < gpu_kernels_vector_add_config_count(); ++c) {
    const char *name = gpu_kernels_vector_add_config_name(c);
    ASSERT_NE(name, nullptr);
    names += std::string(names.empty() ? "" : ", ") + name;
    EXPECT_EQ(runVectorAdd(config(c), stream_, 5000, 0, random_), "") << "config " << name;
    EXPECT_EQ(runVectorAdd(config(c), stream_, 4999, 1, random_), "") << "config " << name;
  }
  EXPECT_EQ(names, "block1024, block256");
  figure("configs", names);
}

TEST_F(VectorAddTest, EmptyGridLaunchesNothing) {
  EXPECT_EQ(runVectorAdd(defaultConfig(), stream_, 0, 0, random_), "");
}

}  // namespace
}  // namespace tta::gpu
