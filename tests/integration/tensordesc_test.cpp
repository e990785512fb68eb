// Host tensor descriptors (tests/kernels/matmul_tma.py, in the persistent matmul tutorial's
// TMA style): a tensordesc<fp16[128, 64]> signature compiles for cuda:90a with every installed
// Triton; its metadata lists each descriptor's CUtensorMap (128 bytes) followed by the shape
// (i32) and stride (i64) arguments Triton's launcher passes, with the TMA facts Triton chose.
// Where Triton does not lower descriptors to TMA (cuda:80) the compile is refused; the linker
// refuses them until it can generate their launch.
#include "cli_runner.h"
#include "compiler/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::freshDir;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testWorkDir;

namespace tta {
namespace {

const std::string kSignature = "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, "
                               "tensordesc<fp16[128, 128]>, i32, i32, i32, 128, 128, 64";

RunResult compileTma(const fs::path &dir, const std::string &target) {
  return run(TTA_COMPILER,
             {std::string(TTA_KERNELS_DIR) + "/matmul_tma.py", "-n", "matmul_tma_kernel", "-s",
              kSignature, "-g", "cdiv(M, 128), cdiv(N, 128), 1", "-w", "8", "-t", target, "-o",
              "out/", "--index", "index.json", "--python", testPython(), "--cache-dir",
              (testWorkDir() / "tensordesc" / "cache").string()},
             dir);
}

TEST(TensorDesc, ThePersistentMatmulStyleKernelCompilesForHopperWithItsTmaFacts) {
  const fs::path dir = freshDir("tensordesc", "hopper");
  RunResult r = compileTma(dir, "cuda:90a");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json index = nlohmann::json::parse(readText(dir / "index.json"));
  ASSERT_EQ(index["metadata"].size(), 1u);
  const fs::path file = dir / index["metadata"][0].get<std::string>();
  auto meta = parseMetadata(nlohmann::json::parse(readText(file)));
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->variant.signature, kSignature);
  // Three descriptors of 1 + 2 + 2 arguments, M, N, K, three constexprs, two scratch pointers.
  ASSERT_EQ(meta->params.size(), 3u * 5 + 3 + 3 + 2);
  for (std::size_t d = 0; d < 3; ++d) {
    const std::string name = std::string(1, "abc"[d]) + "_desc";
    SCOPED_TRACE(name);
    const ParamInfo &desc = meta->params[d * 5];
    EXPECT_EQ(desc.name, name);
    EXPECT_EQ(desc.kind, ParamInfo::Kind::TensorDesc);
    EXPECT_EQ(desc.size, 128u);
    ASSERT_TRUE(desc.tensordesc);
    EXPECT_EQ(desc.tensordesc->rank, 2);
    EXPECT_EQ(desc.tensordesc->dataType, 6) << "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    EXPECT_EQ(desc.tensordesc->elemSize, 2);
    EXPECT_EQ(desc.tensordesc->swizzle, 3) << "128-byte swizzle for 64 fp16 columns";
    ASSERT_EQ(desc.tensordesc->box.size(), 2u);
    EXPECT_EQ(desc.tensordesc->box[0], 128);
    EXPECT_EQ(desc.tensordesc->box[1], 64) << "Triton's box, not the signature's (c: 128 wide)";
    EXPECT_FALSE(desc.tensordesc->fp4Padded);
    EXPECT_EQ(meta->params[d * 5 + 1].name, name + ".shape0");
    EXPECT_EQ(meta->params[d * 5 + 1].kind, ParamInfo::Kind::TensorDescShape);
    EXPECT_EQ(meta->params[d * 5 + 2].size, 4u);
    EXPECT_EQ(meta->params[d * 5 + 3].name, name + ".stride0");
    EXPECT_EQ(meta->params[d * 5 + 3].kind, ParamInfo::Kind::TensorDescStride);
    EXPECT_EQ(meta->params[d * 5 + 4].size, 8u);
  }
  EXPECT_EQ(meta->params[15].name, "M");
  // The PTX declares exactly these arguments: a 64-byte aligned 128-byte one per descriptor.
  std::string ptx;
  for (const ImageFile &image : meta->images)
    if (image.kind == "ptx")
      ptx = readText(file.parent_path() / image.file);
  EXPECT_THAT(ptx, HasSubstr(".param .align 64 .b8 matmul_tma_kernel_param_0[128]"));
  EXPECT_THAT(ptx, HasSubstr(".param .align 64 .b8 matmul_tma_kernel_param_10[128]"));
  EXPECT_THAT(ptx, HasSubstr(".param .u64 matmul_tma_kernel_param_14"));

  // The linker refuses it, saying why, and writes nothing.
  RunResult linked = run(TTA_LINKER, {"--name", "mm", "-o", "lib", "index.json"}, dir);
  EXPECT_NE(linked.status, 0);
  EXPECT_THAT(linked.err, HasSubstr("takes the host tensor descriptor 'a_desc' "
                                    "(tensordesc<fp16[128, 64]>)"));
  EXPECT_FALSE(fs::exists(dir / "lib" / "mm.c"));
}

TEST(TensorDesc, ATargetWithoutTmaIsRefused) {
  const fs::path dir = freshDir("tensordesc", "ampere");
  RunResult r = compileTma(dir, "cuda:80");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("a_desc, b_desc, c_desc: Triton did not lower these host tensor "
                               "descriptors to TMA for this target"));
  EXPECT_FALSE(fs::exists(dir / "index.json"));
}

} // namespace
} // namespace tta
