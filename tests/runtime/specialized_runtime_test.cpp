// --specialize-for's variants at launch (rt_specialized.json: the matmul tutorial's kernel with a
// generic signature and four calls, five variants of one config): the dispatcher, testing each
// argument's hints once into a mask, launches the most specialised variant whose hints the
// arguments meet, argument by argument, and the generic one otherwise.
#include "library_files.h"
#include "runtime_fixture.h"

#include <rt_specialized.h>

#include <string>

namespace tta::test {
namespace {

const void *kA = devicePointer(0x10000);
const void *kB = devicePointer(0x20000);
const void *kC = devicePointer(0x30000);

const LibraryFiles &specializedFiles() {
  static const LibraryFiles files(TTA_RUNTIME_SPECIALIZED_CC_INDEX);
  return files;
}

/// The image of the variant compiled for \p signature.
std::string imageOf(const std::string &signature) {
  for (const CompiledVariant &v : specializedFiles().variants())
    if (v.signature.find(signature) == 0)
      return v.binary;
  ADD_FAILURE() << "no variant " << signature;
  return {};
}

class Specialized : public RuntimeTest {
protected:
  void TearDown() override {
    EXPECT_EQ(spz_unload(), TRITON_AOT_SUCCESS) << spz_last_error();
    RuntimeTest::TearDown();
  }

  /// Launches a row-major M x K by K x N product and returns the image it ran.
  std::string launch(const void *a, int32_t m, int32_t n, int32_t k, int32_t strideAk = 1) {
    EXPECT_EQ(spz_matmul(nullptr, a, kB, kC, m, n, k, k, strideAk, n, 1, n, 1),
              TRITON_AOT_SUCCESS)
        << spz_last_error();
    auto all = launches();
    return all.empty() ? std::string() : specializedFiles().fileOf(all.back().image_hash);
  }
};

TEST_F(Specialized, EachCallRunsTheVariantItsArgumentsMeet) {
  useCudaDevices("sm_80");
  const std::string ptrs = "*fp16:16, *fp16:16, *fp16:16, ";
  EXPECT_EQ(launch(kA, 1, 4096, 4096),
            imageOf(ptrs + "i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"));
  EXPECT_EQ(launch(kA, 64, 4096, 4096),
            imageOf(ptrs + "i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"))
      << "M = 64 is :16: the M = 4096 call's variant";
  EXPECT_EQ(launch(kA, 1, 3000, 3000),
            imageOf(ptrs + "i32:1, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1"));
  EXPECT_EQ(launch(kA, 64, 3000, 3000),
            imageOf(ptrs + "i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1"))
      << "N and K not :16: the 3000 call's variant, whatever M is";
  const std::string generic = imageOf("*fp16, *fp16, *fp16, i32, i32");
  EXPECT_EQ(launch(devicePointer(0x10008), 1, 4096, 4096), generic) << "a is not 16-byte aligned";
  EXPECT_EQ(launch(kA, 1, 4096, 4096, 2), generic) << "stride_ak = 2 is no unit stride";
  EXPECT_EQ(launches().size(), 6u);
}

} // namespace
} // namespace tta::test
