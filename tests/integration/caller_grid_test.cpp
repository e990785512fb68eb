// A kernel compiled without a grid (tests/kernels/rms_norm_rows.py, one program per row as
// Liger-Kernel launches with grid = (n_rows,)): no grid in its metadata, an entry point that
// takes grid_x, grid_y, grid_z after the stream, linked in one library with a kernel whose grid
// is computed; the generated C compiled with gcc and clang (-Wall -Wextra -Werror) and run
// without a GPU (an empty grid launches nothing; the config is still checked).
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::freshDir;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testWorkDir;

namespace tta {
namespace {

RunResult compileKernel(const fs::path &dir, std::vector<std::string> args) {
  args.insert(args.end(), {"--cache-dir", (testWorkDir() / "caller-grid" / "cache").string()});
  return runCompiler(args, dir);
}

const std::string kRows = std::string(TTA_KERNELS_DIR) + "/rms_norm_rows.py";
const std::string kRowsSignature = "*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, fp32, 1024";

TEST(CallerGrid, CompiledWithoutAGridLinkedWithAComputedGridAndBuiltWithGccAndClang) {
  const fs::path dir = freshDir("caller_grid", "library");
  RunResult rows = compileKernel(dir, {kRows, "-n", "rms_norm_rows_kernel", "-on", "rms_norm",
                                       "-s", kRowsSignature, "-t", "cuda:80", "-t", "hip:gfx942",
                                       "-o", "rows/", "--index", "rows.json"});
  ASSERT_EQ(rows.status, 0) << rows.err;
  RunResult add = compileKernel(
      dir, {std::string(TTA_KERNELS_DIR) + "/vector_add.py", "-n", "add_kernel", "-s",
            "*fp32, *fp32, *fp32, i32, 256", "-g", "cdiv(n_elements, 256), 1, 1", "-t", "cuda:80",
            "-t", "hip:gfx942", "-o", "add/", "--index", "add.json"});
  ASSERT_EQ(add.status, 0) << add.err;

  // No grid in the metadata: the caller's.
  std::size_t metadataFiles = 0;
  for (const auto &entry : fs::directory_iterator(dir / "rows"))
    if (entry.path().extension() == ".json") {
      ++metadataFiles;
      const nlohmann::json json = nlohmann::json::parse(readText(entry.path()));
      EXPECT_FALSE(json.contains("grid")) << entry.path();
      auto meta = parseMetadata(json);
      ASSERT_TRUE(meta) << meta.error().message;
      EXPECT_FALSE(meta->grid);
    }
  EXPECT_EQ(metadataFiles, 2u);

  const fs::path lib = dir / "lib";
  RunResult linked =
      run(TTA_LINKER, {"--name", "norm", "-o", lib.string(), "rows.json", "add.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  const nlohmann::json manifest = nlohmann::json::parse(readText(lib / "norm.json"));
  bool sawRows = false;
  for (const auto &kernel : manifest["kernels"])
    if (kernel["name"] == "rms_norm") {
      sawRows = true;
      EXPECT_TRUE(kernel["grid"].is_null());
    } else {
      EXPECT_EQ(kernel["grid"], nlohmann::json({"cdiv(n_elements, 256)", "1", "1"}));
    }
  EXPECT_TRUE(sawRows);
  const std::string header = std::regex_replace(readText(lib / "norm.h"), std::regex("\\s+"), " ");
  EXPECT_THAT(header, HasSubstr("triton_aot_status norm_rms_norm(void *stream, uint32_t grid_x, "
                                "uint32_t grid_y, uint32_t grid_z, const void *Y_ptr, int32_t "
                                "Y_row_stride,"));
  EXPECT_THAT(header, HasSubstr("norm_rms_norm_config(void *stream, int config, uint32_t grid_x, "
                                "uint32_t grid_y, uint32_t grid_z, const void *Y_ptr,"));
  EXPECT_THAT(header, HasSubstr("norm_add_kernel(void *stream, const void *x_ptr,"));

  const std::string program = R"(#include "norm.h"
#include <stdio.h>
int main(void) {
  static float rows[4 * 1024] __attribute__((aligned(16)));
  /* No GPU needed: a zero dimension launches nothing and succeeds. */
  printf("empty %d %d %d\n", (int)norm_rms_norm(NULL, 0, 1, 1, rows, 1024, rows, 1024, rows, 1000, 1e-6f),
         (int)norm_rms_norm(NULL, 4, 0, 1, rows, 1024, rows, 1024, rows, 1000, 1e-6f),
         (int)norm_rms_norm(NULL, 4, 1, 0, rows, 1024, rows, 1024, rows, 1000, 1e-6f));
  printf("config %d\n",
         (int)norm_rms_norm_config(NULL, 1, 4, 1, 1, rows, 1024, rows, 1024, rows, 1000, 1e-6f));
  printf("add %d\n", (int)norm_add_kernel(NULL, rows, rows, rows, 0));
  return 0;
}
)";
  std::ofstream(dir / "main.c") << program;
  const std::vector<std::string> compilers = tta::testing::cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &cc : compilers) {
    SCOPED_TRACE(cc);
    RunResult built = run(cc,
                          {"-std=c11", "-Wall", "-Wextra", "-Werror", "-I", lib.string(), "-I",
                           TTA_RUNTIME_INCLUDE, "main.c", (lib / "norm.c").string(),
                           (lib / "norm.images.S").string(), TTA_RUNTIME_LIBRARY, "-ldl",
                           "-lpthread", "-o", "program"},
                          dir);
    ASSERT_EQ(built.status, 0) << built.err << built.out;
    RunResult ran = run((dir / "program").string(), {}, dir);
    ASSERT_EQ(ran.status, 0) << ran.err;
    EXPECT_THAT(ran.out, HasSubstr("empty 0 0 0\n"));
    EXPECT_THAT(ran.out, HasSubstr("config 6\n")); // TRITON_AOT_ERROR_INVALID_ARGUMENT
    EXPECT_THAT(ran.out, HasSubstr("add 0\n"));
  }
}

TEST(CallerGrid, VariantsOfOneKernelMustAgreeOnHavingAGrid) {
  const fs::path dir = freshDir("caller_grid", "mixed");
  ASSERT_EQ(compileKernel(dir, {kRows, "-n", "rms_norm_rows_kernel", "-s", kRowsSignature, "-t",
                                "cuda:80", "-o", "caller/", "--index", "caller.json"})
                .status,
            0);
  RunResult computed = compileKernel(
      dir, {kRows, "-n", "rms_norm_rows_kernel", "-s",
            "*fp32, i32, *fp32, i32, *fp32, i32, fp32, 1024", "-g", "Y_row_stride, 1, 1", "-t",
            "cuda:80", "-o", "computed/", "--index", "computed.json"});
  ASSERT_EQ(computed.status, 0) << computed.err;
  RunResult linked = run(TTA_LINKER,
                         {"--name", "mixed", "-o", (dir / "lib").string(), "caller.json",
                          "computed.json"},
                         dir);
  EXPECT_NE(linked.status, 0);
  EXPECT_THAT(linked.err, HasSubstr("the grid of kernel 'rms_norm_rows_kernel'"));
  EXPECT_THAT(linked.err, HasSubstr("the caller's (no grid compiled in)"));
  EXPECT_FALSE(fs::exists(dir / "lib" / "mixed.c")) << "no partial outputs";
}

} // namespace
} // namespace tta
