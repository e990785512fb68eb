// --specialize-for on a real kernel (the matmul tutorial's, declared with a generic signature):
// the variants the calls need, each argument with its own hint, the generic one kept, and the
// same through a spec file; the link's dispatcher tries them most specialised first.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::metadataIn;
using tta::testing::readText;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

const char *const kGeneric = "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32";
const std::set<std::string> kExpected = {
    // the generic one, as declared
    "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32",
    // M=1, N=K=4096: M is 1, the rest keep :16 (stride_ak, stride_bn, stride_cn are 1)
    "*fp16:16, *fp16:16, *fp16:16, i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, "
    "i32:1, 64, 64, 32",
    // M=64, N=K=4096: every integer keeps its hint
    "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, "
    "i32:1, 64, 64, 32",
    // M=64, N=3000, K=4096: M, K and stride_am keep theirs
    "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, i32:16, i32:16, i32:1, i32, i32:1, i32, "
    "i32:1, 64, 64, 32",
    // M=N=K=3000: only the unit strides and the pointers
    "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 64, 64, 32"};

std::set<std::string> signaturesIn(const fs::path &dir) {
  std::set<std::string> out;
  for (const KernelMetadata &meta : metadataIn(dir))
    out.insert(meta.variant.signature);
  return out;
}

TEST(Specialize, TheCallsVariantsBesideTheGenericOneChosenByAMaskBuiltWithGccAndClang) {
  fs::path dir = freshDir("specialize", "cli");
  RunResult r = runCompiler(
      {kernel("matmul_fp16.py"), "-n", "matmul_kernel", "-s", kGeneric, "-g",
       "cdiv(M, 64) * cdiv(N, 64), 1, 1", "-t", "cuda:90a", "-o", dir.string() + "/",
       "--no-ptx", "--summary", "--index", (dir / "index.json").string(),
       "--specialize-for", "M=1, N=4096, K=4096", "--specialize-for", "M=1, N=8192, K=8192",
       "--specialize-for", "M=64, N=4096, K=4096", "--specialize-for", "M=64, N=3000, K=4096",
       "--specialize-for", "M=3000, N=3000, K=3000", "--specialize-arg", "stride_am=K",
       "--specialize-arg", "stride_ak=1", "--specialize-arg", "stride_bk=N", "--specialize-arg",
       "stride_bn=1", "--specialize-arg", "stride_cm=N", "--specialize-arg", "stride_cn=1"},
      dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(signaturesIn(dir), kExpected);
  // The summary says what the specialization costs.
  EXPECT_NE(r.out.find("specialization: 4 of 5 images ("), std::string::npos) << r.out;

  // Five variants of one config: each argument's hints are tested once, into tta_hints, and
  // each variant asks for its mask (the runtime tests launch them: Specialized.*).
  RunResult link = tta::testing::run(TTA_LINKER, {"--name", "mm", "-o", (dir / "lib").string(),
                                                  (dir / "index.json").string()}, dir);
  ASSERT_EQ(link.status, 0) << link.err;
  const std::string c = readText(dir / "lib" / "mm.c");
  EXPECT_NE(c.find("(M == 1 ? UINT64_C("), std::string::npos) << c;
  EXPECT_NE(c.find("if ((tta_hints & UINT64_C("), std::string::npos) << c;
  for (const std::string &cc : tta::testing::cCompilers()) {
    SCOPED_TRACE(cc);
    RunResult built = tta::testing::run(
        cc, {"-std=c11", "-Wall", "-Wextra", "-Werror", "-I", (dir / "lib").string(), "-I",
             TTA_RUNTIME_INCLUDE, "-c", (dir / "lib" / "mm.c").string(), "-o", "mm.o"},
        dir);
    EXPECT_EQ(built.status, 0) << built.err << built.out;
  }
}

TEST(Specialize, TheSameFromASpecFile) {
  fs::path dir = freshDir("specialize", "spec");
  nlohmann::json spec = {
      {"targets", {"cuda:90a"}},
      {"kernels",
       {{{"source", kernel("matmul_fp16.py")},
         {"function", "matmul_kernel"},
         {"signatures", {kGeneric}},
         {"grid", "cdiv(M, 64) * cdiv(N, 64), 1, 1"},
         {"specialize_for",
          {"M=1, N=4096, K=4096", "M=64 N=4096 K=4096", "M=64, N=3000, K=4096",
           {{"M", 3000}, {"N", 3000}, {"K", 3000}}}},
         {"specialize_args",
          {"stride_am=K", "stride_ak=1", "stride_bk=N", "stride_bn=1", "stride_cm=N",
           "stride_cn=1"}}}}}};
  std::ofstream(dir / "spec.json") << spec.dump(2);
  RunResult r = runCompiler({"--spec", (dir / "spec.json").string(), "-o",
                             (dir / "out").string() + "/", "--no-ptx"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(signaturesIn(dir / "out"), kExpected);
}

} // namespace
} // namespace tta
