// Host tensor descriptors (tests/kernels/matmul_tma.py, in the persistent matmul tutorial's
// TMA style): a tensordesc<fp16[128, 64]> signature compiles for cuda:90a with every installed
// Triton; its metadata lists each descriptor's CUtensorMap (128 bytes) followed by the shape
// (i32) and stride (i64) arguments Triton's launcher passes, with the TMA facts Triton chose.
// Where Triton does not lower descriptors to TMA (cuda:80) the compile is refused. The linker
// makes each descriptor (base, shapes, strides) in C, and the result compiles.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::cCompilers;
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

void writeText(const fs::path &path, const std::string &text) { std::ofstream(path) << text; }

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

}

// Linked, a descriptor is (base, shape0, shape1, stride0, stride1) in C, the manifest says so
// for ctypes callers, and the library compiles warning-free and links into a program.
TEST(TensorDesc, TheKernelLinksIntoALibraryThatCompilesWithGccAndClang) {
  const fs::path dir = freshDir("tensordesc", "link");
  ASSERT_EQ(compileTma(dir, "cuda:90a").status, 0);
  RunResult linked = run(TTA_LINKER, {"--name", "mm", "-o", "lib", "index.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  const std::string header = readText(dir / "lib" / "mm.h");
  EXPECT_THAT(header, HasSubstr("triton_aot_status mm_matmul_tma_kernel(void *stream, const void "
                                "*a_desc_base,\n    int64_t a_desc_shape0, int64_t a_desc_shape1, "
                                "int64_t a_desc_stride0, int64_t a_desc_stride1,\n"));
  EXPECT_THAT(header, HasSubstr("int64_t c_desc_stride0, int64_t c_desc_stride1, int32_t M, "
                                "int32_t N, int32_t K);"));
  const nlohmann::json manifest = nlohmann::json::parse(readText(dir / "lib" / "mm.json"));
  const nlohmann::json &params = manifest["kernels"][0]["params"];
  ASSERT_EQ(params.size(), 3u * 5 + 3);
  EXPECT_EQ(params[0], nlohmann::json::parse(R"({"name": "a_desc", "kind": "tensordesc",
      "type": "tensordesc<fp16[128, 64]>", "c_type": "const void *", "c_name": "a_desc_base",
      "size": 8, "tensordesc": "a_desc", "written": false})"));
  EXPECT_EQ(params[2], nlohmann::json::parse(R"({"name": "a_desc.shape1",
      "kind": "tensordesc_shape", "type": "i64", "c_type": "int64_t", "c_name": "a_desc_shape1",
      "size": 8, "tensordesc": "a_desc", "dim": 1})"));
  EXPECT_EQ(params[13]["c_name"], "c_desc_stride0");
  EXPECT_EQ(params[13]["kind"], "tensordesc_stride");
  EXPECT_EQ(params[15]["kind"], "scalar");
  const nlohmann::json &function =
      manifest["kernels"][0]["configs"][0]["variants"][0]["functions"][0];
  ASSERT_EQ(function["tensor_maps"].size(), 3u);
  EXPECT_EQ(function["tensor_maps"][2], nlohmann::json::parse(R"({"param": "c_desc", "rank": 2,
      "data_type": 6, "elem_size": 2, "swizzle": 3, "box": [128, 64], "fp4_padded": false,
      "shape_args_padded": false})"));

  // A program that could launch it (it only does with an argument: no GPU needed here).
  writeText(dir / "main.c",
            "#include \"mm.h\"\n#include <stdio.h>\n"
            "int main(int argc, char **argv) {\n"
            "  (void)argv;\n"
            "  if (argc > 1)\n"
            "    return (int)mm_matmul_tma_kernel(NULL, NULL, 256, 64, 64, 1, NULL, 256, 64, 64, 1,\n"
            "                                     NULL, 256, 256, 256, 1, 256, 256, 64);\n"
            "  printf(\"%d %s\\n\", mm_matmul_tma_kernel_config_count(), "
            "mm_matmul_tma_kernel_config_name(0));\n"
            "  return 0;\n}\n");
  const std::vector<std::string> compilers = cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &cc : compilers) {
    SCOPED_TRACE(cc);
    RunResult built = run(cc, {"-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I",
                               "lib", "-I", TTA_RUNTIME_INCLUDE, "-o", "program", "main.c",
                               "lib/mm.c", "lib/mm.images.S", TTA_RUNTIME_LIBRARY, "-ldl",
                               "-lpthread"},
                          dir);
    ASSERT_EQ(built.status, 0) << built.err << built.out;
    EXPECT_EQ(built.err, "") << "warning-free";
    RunResult ran = run((dir / "program").string(), {}, dir);
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_EQ(ran.out, "1 BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,num_warps=8\n");
  }
}

// A tensordesc must be followed by exactly its rank's shape and stride entries: the launcher
// fills them by position, so a malformed metadata file is a link error that says so.
TEST(TensorDesc, MetadataWithoutTheDescriptorsShapeAndStrideEntriesIsALinkError) {
  const fs::path dir = freshDir("tensordesc", "malformed");
  ASSERT_EQ(compileTma(dir, "cuda:90a").status, 0);
  const nlohmann::json index = nlohmann::json::parse(readText(dir / "index.json"));
  const fs::path file = dir / index["metadata"][0].get<std::string>();
  nlohmann::json meta = nlohmann::json::parse(readText(file));
  meta["params"].erase(meta["params"].begin() + 2);   // a_desc.shape1
  writeText(file, meta.dump(2));
  RunResult linked = run(TTA_LINKER, {"--name", "mm", "-o", "lib", "index.json"}, dir);
  EXPECT_EQ(linked.status, 2);
  EXPECT_THAT(linked.err, HasSubstr("params[2]: expected 'a_desc.shape1' (tensordesc_shape, i32): "
                                    "the tensordesc 'a_desc' has rank 2, so exactly 2 "
                                    "tensordesc_shape, then 2 tensordesc_stride entries follow "
                                    "it; got 'a_desc.stride0' (tensordesc_stride, i64)"));
  EXPECT_FALSE(fs::exists(dir / "lib" / "mm.c"));
}

// The tutorial's autotuned TMA matmul: descriptors made with a dummy block, each config's
// pre_hook sets its tiles. The hook runs at build time, per config and per SPLIT_C value, and
// each variant is compiled with (and encodes its maps for) the block shapes it set.
TEST(TensorDesc, ABlockShapePreHookOfTheAutotunerRunsAtBuildTime) {
  const fs::path dir = freshDir("tensordesc", "pre_hook");
  RunResult r = run(TTA_COMPILER,
                    {std::string(TTA_KERNELS_DIR) + "/matmul_tma.py", "-n",
                     "matmul_tma_tuned_kernel", "-s",
                     "tensordesc<fp16[1, 1]>, tensordesc<fp16[1, 1]>, tensordesc<fp16[1, 1]>, "
                     "i32, i32, i32, SPLIT_C=False",
                     "-s",
                     "tensordesc<fp16[1, 1]>, tensordesc<fp16[1, 1]>, tensordesc<fp16[1, 1]>, "
                     "i32, i32, i32, SPLIT_C=True",
                     "-g", "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), 1", "-t", "cuda:90a", "-o", "out/",
                     "--index", "index.json", "--python", testPython(), "--cache-dir",
                     (testWorkDir() / "tensordesc" / "cache").string()},
                    dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("pre_hook")));
  const nlohmann::json index = nlohmann::json::parse(readText(dir / "index.json"));
  ASSERT_EQ(index["metadata"].size(), 4u);
  std::set<std::string> seen;
  for (const auto &entry : index["metadata"]) {
    auto meta = parseMetadata(nlohmann::json::parse(readText(dir / entry.get<std::string>())));
    ASSERT_TRUE(meta) << meta.error().message;
    const auto &values = meta->variant.constexprs;
    const int blockM = values.at("BLOCK_M").get<int>(), blockN = values.at("BLOCK_N").get<int>(),
              blockK = values.at("BLOCK_K").get<int>();
    const bool split = values.at("SPLIT_C").get<bool>();
    const std::vector<std::vector<int>> want = {
        {blockM, blockK}, {blockN, blockK}, {blockM, split ? blockN / 2 : blockN}};
    std::string shapes;
    for (std::size_t d = 0; d < 3; ++d) {
      const ParamInfo &desc = meta->params[d * 5];
      ASSERT_TRUE(desc.tensordesc) << desc.name;
      ASSERT_EQ(desc.tensordesc->box.size(), 2u);
      EXPECT_EQ(desc.tensordesc->box[0], want[d][0]) << desc.name;
      EXPECT_LE(desc.tensordesc->box[1], want[d][1]) << desc.name << ": at most 128 bytes wide";
      EXPECT_EQ(desc.type, "tensordesc<fp16[" + std::to_string(want[d][0]) + ", " +
                               std::to_string(want[d][1]) + "]>");
      shapes += desc.type + " ";
    }
    seen.insert(shapes);
  }
  EXPECT_EQ(seen.size(), 4u) << "two configs x SPLIT_C, each its own block shapes";

  // The configs' variants differ in block shape but not in element type or rank: one C
  // function (one SPLIT_C value: two signatures differing in a constexpr are two kernels).
  const nlohmann::json all = index;
  nlohmann::json unsplit = index;
  unsplit["metadata"] = nlohmann::json::array();
  for (const auto &entry : all["metadata"])
    if (!parseMetadata(nlohmann::json::parse(readText(dir / entry.get<std::string>())))
             ->variant.constexprs.at("SPLIT_C")
             .get<bool>())
      unsplit["metadata"].push_back(entry);
  ASSERT_EQ(unsplit["metadata"].size(), 2u);
  writeText(dir / "unsplit.json", unsplit.dump());
  RunResult linked = run(TTA_LINKER, {"--name", "mt", "-o", "lib", "unsplit.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  EXPECT_THAT(readText(dir / "lib" / "mt.h"),
              HasSubstr("triton_aot_status mt_matmul_tma_tuned_kernel(void *stream, const void "
                        "*a_desc_base,"));
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
