// @triton.heuristics and do_not_specialize on real kernels written as FlagGems, vLLM and unsloth
// write them (tests/kernels/fusedops/ops/): stacked and assigned decorators, bool heuristics
// compiled both ways, integer ones for the listed values, constexpr-only ones evaluated at build
// time, the refusal of an untranslatable lambda with its fix; then linked, the generated C built
// with gcc and clang -Wall -Wextra -Werror and run (no GPU: the dispatcher's checks).
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using tta::testing::cCompilers;
using tta::testing::freshDir;
using tta::testing::keyedLines;
using tta::testing::listFiles;
using tta::testing::metadataIn;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

const std::string kOps = std::string(TTA_KERNELS_DIR) + "/fusedops/ops/";
const std::string kRowsSignature = "*fp32:16, *fp32:16, *fp32:16, i32, i32, fp32";

/// "BLOCK_N=1024 EVEN_N=True HAS_BIAS=False" for each variant.
std::set<std::string> heuristicValues(const std::vector<KernelMetadata> &metas) {
  std::set<std::string> out;
  for (const KernelMetadata &m : metas) {
    std::string line;
    for (const HeuristicRecord &h : m.variant.heuristics) {
      std::string value = h.value.is_boolean() ? (h.value.get<bool>() ? "True" : "False") : h.value.dump();
      line += (line.empty() ? "" : " ") + h.name + "=" + value;
      EXPECT_EQ(m.variant.constexprs.at(h.name), h.value) << h.name;
    }
    out.insert(line);
  }
  return out;
}

RunResult compileRows(const fs::path &dir, const std::string &signature,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {kOps + "heuristic_rows.py", "-n", "scale_rows_kernel", "-s",
                                   signature, "-g", "n_rows, 1, 1", "-t", "cuda:80", "-o", "out/",
                                   "--index", "out/index.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

TEST(HeuristicKernels, StackedBoolAndListedIntegerHeuristicsBecomeVariants) {
  fs::path dir = freshDir("heuristics", "stacked");
  RunResult r = compileRows(dir, kRowsSignature, {"--heuristic-values", "BLOCK_N=1024,4096"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(heuristicValues(metas),
            (std::set<std::string>{"BLOCK_N=1024 EVEN_N=True HAS_BIAS=True",
                                   "BLOCK_N=1024 EVEN_N=True HAS_BIAS=False",
                                   "BLOCK_N=1024 EVEN_N=False HAS_BIAS=True",
                                   "BLOCK_N=1024 EVEN_N=False HAS_BIAS=False",
                                   "BLOCK_N=4096 EVEN_N=True HAS_BIAS=True",
                                   "BLOCK_N=4096 EVEN_N=True HAS_BIAS=False",
                                   "BLOCK_N=4096 EVEN_N=False HAS_BIAS=True",
                                   "BLOCK_N=4096 EVEN_N=False HAS_BIAS=False"}));
  for (const KernelMetadata &m : metas) {
    ASSERT_EQ(m.variant.heuristics.size(), 3u);
    EXPECT_EQ(m.variant.heuristics[0].expression, "min(next_power_of_2(n_cols), 4096)");
    EXPECT_EQ(m.variant.heuristics[1].expression, "n_cols % BLOCK_N == 0");
    EXPECT_EQ(m.variant.heuristics[2].expression, "bias_ptr != NULL");
    for (const HeuristicRecord &h : m.variant.heuristics)
      EXPECT_TRUE(h.runtime) << h.name;
  }
}

TEST(HeuristicKernels, ANoneArgumentDecidesItsHeuristicAtBuildTime) {
  fs::path dir = freshDir("heuristics", "none");
  RunResult r = compileRows(dir, "*fp32:16, None, *fp32:16, i32, i32, fp32",
                            {"--heuristic-values", "BLOCK_N=1024"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(heuristicValues(metas), (std::set<std::string>{"BLOCK_N=1024 EVEN_N=True HAS_BIAS=False",
                                                           "BLOCK_N=1024 EVEN_N=False HAS_BIAS=False"}));
  for (const KernelMetadata &m : metas)
    EXPECT_FALSE(m.variant.heuristics[2].runtime);
}

TEST(HeuristicKernels, AnIntegerOverRuntimeArgumentsNeedsItsValues) {
  fs::path dir = freshDir("heuristics", "novalues");
  RunResult r = compileRows(dir, kRowsSignature);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("heuristic 'BLOCK_N' of 'scale_rows_kernel'"));
  EXPECT_THAT(r.err, HasSubstr("computes an integer from runtime arguments (n_cols)"));
  EXPECT_THAT(r.err, HasSubstr("--heuristic-values BLOCK_N="));
  EXPECT_THAT(r.err, HasSubstr("heuristic_rows.py:10:"));
  EXPECT_TRUE(listFiles(dir / "out", ".triton-aot-cache").empty());
}

TEST(HeuristicKernels, DecoratorsAppliedByAssignmentAndConstexprOnlyValues) {
  fs::path dir = freshDir("heuristics", "assigned");
  std::vector<std::string> args = {kOps + "heuristic_assigned.py", "-n", "clamp_kernel", "-s",
                                   "*fp32:16, *fp32:16, i32, fp32, fp32, BLOCK=1024", "-g",
                                   "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80", "-t",
                                   "hip:gfx942", "-o", "out/", "-v"};
  RunResult r = runCompiler(args, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(metas.size(), 4u);   // FULL_TILES both ways, two targets
  EXPECT_EQ(heuristicValues(metas),
            (std::set<std::string>{"HALF=512 FULL_TILES=True", "HALF=512 FULL_TILES=False"}));
  for (const KernelMetadata &m : metas) {
    EXPECT_FALSE(m.variant.heuristics[0].runtime);
    EXPECT_EQ(m.variant.heuristics[1].expression, "n_elements > 0 ? n_elements % BLOCK == 0 : false");
  }
  // A rerun is served from the cache, heuristics included, without starting Python.
  RunResult again = runCompiler(args, dir);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("frontend:")));
  EXPECT_EQ(metadataIn(dir / "out").size(), 4u);
}

TEST(HeuristicKernels, AnUntranslatableLambdaIsRefusedWithTheFix) {
  fs::path dir = freshDir("heuristics", "untranslatable");
  std::vector<std::string> args = {kOps + "heuristic_untranslatable.py", "-n", "copy_kernel", "-s",
                                   "*fp16:16, *fp16:16, i32, 256", "-g", "cdiv(n, 256), 1, 1",
                                   "-t", "cuda:80", "-o", "out/"};
  RunResult r = runCompiler(args, dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("heuristic_untranslatable.py:6:"));
  EXPECT_THAT(r.err, HasSubstr("heuristic 'USE_WIDE' of 'copy_kernel' cannot be translated to C"));
  EXPECT_THAT(r.err, HasSubstr("attribute access on an argument ('x_ptr.dtype')"));
  EXPECT_THAT(r.err, HasSubstr("lambda args: args[\"x_ptr\"].dtype.itemsize >= 4"));
  EXPECT_THAT(r.err, HasSubstr("--heuristic 'USE_WIDE=<C expression over parameter names>'"));
  EXPECT_TRUE(listFiles(dir / "out", ".triton-aot-cache").empty());

  // The fix it shows works: a C expression by hand (here over a runtime argument: two variants).
  args.insert(args.end(), {"--heuristic", "USE_WIDE=n >= 4096"});
  RunResult fixed = runCompiler(args, dir);
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(heuristicValues(metas), (std::set<std::string>{"USE_WIDE=True", "USE_WIDE=False"}));
  EXPECT_EQ(metas[0].variant.heuristics[0].written, "n >= 4096");
}

TEST(HeuristicKernels, DoNotSpecializeParametersGetNoHints) {
  fs::path dir = freshDir("heuristics", "dns");
  auto compileShift = [&](const std::string &signature) {
    return runCompiler({kOps + "no_specialize.py", "-n", "shift_kernel", "-s", signature, "-g",
               "cdiv(n_elements, 256), 1, 1", "-t", "cuda:80", "-o", "out/"},
              dir);
  };
  RunResult byName = compileShift("*fp32:16, *fp32, i32:16, fp32, 256");
  EXPECT_EQ(byName.status, 2);
  EXPECT_THAT(byName.err, HasSubstr("signature entry 3 'i32:16' asks for a :16 hint on 'n_elements'"));
  EXPECT_THAT(byName.err, HasSubstr("do_not_specialize=...)"));
  RunResult one = compileShift("*fp32:16, *fp32, i32:1, fp32, 256");
  EXPECT_EQ(one.status, 2);
  EXPECT_THAT(one.err, HasSubstr("asks for a :1 hint on 'n_elements'"));
  RunResult byIndex = compileShift("*fp32:16, *fp32:16, i32, fp32, 256");
  EXPECT_EQ(byIndex.status, 2);
  EXPECT_THAT(byIndex.err, HasSubstr("hint on 'y_ptr'"));
  EXPECT_THAT(byIndex.err, HasSubstr("do_not_specialize_on_alignment"));
  EXPECT_TRUE(listFiles(dir / "out", ".triton-aot-cache").empty());
  RunResult fine = compileShift("*fp32:16, *fp32, i32, fp32, 256");
  ASSERT_EQ(fine.status, 0) << fine.err;
  auto metas = metadataIn(dir / "out");
  ASSERT_EQ(metas.size(), 1u);
  for (const ParamInfo &p : metas[0].params) {
    if (p.name == "y_ptr" || p.name == "n_elements") {
      EXPECT_EQ(p.hint, 0) << p.name;
    }
  }
}

TEST(HeuristicKernels, LinkedDispatchersCompileWarningFreeAndCheckTheValues) {
  fs::path dir = freshDir("heuristics", "link");
  // The grid reads BLOCK_N, which the dispatcher decides: it is computed per variant (the
  // expression equals n_rows for every BLOCK_N).
  RunResult rows = runCompiler({kOps + "heuristic_rows.py", "-n", "scale_rows_kernel", "-s", kRowsSignature,
                       "-g", "cdiv(n_rows * BLOCK_N, BLOCK_N), 1, 1", "-t", "cuda:80", "-o", "out/",
                       "--index", "out/index.json", "--heuristic-values", "BLOCK_N=1024,4096"},
                      dir);
  ASSERT_EQ(rows.status, 0) << rows.err;
  RunResult clamp = runCompiler({kOps + "heuristic_assigned.py", "-n", "clamp_kernel", "-s",
                        "*fp32:16, *fp32:16, i32, fp32, fp32, BLOCK=1024", "-g",
                        "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80", "-o", "out/",
                        "--index", "out/clamp.json"},
                       dir);
  ASSERT_EQ(clamp.status, 0) << clamp.err;
  RunResult linked = run(TTA_LINKER, {"--name", "heur", "-o", "lib", "out/index.json", "out/clamp.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;

  // The heuristics' parameters are not the API's: they are computed from the arguments.
  const std::string header = readText(dir / "lib/heur.h");
  EXPECT_THAT(header, HasSubstr("heur_scale_rows_kernel("));
  EXPECT_THAT(header, Not(HasSubstr("EVEN_N,")));
  EXPECT_THAT(header, Not(HasSubstr("int64_t BLOCK_N")));
  const std::string source = readText(dir / "lib/heur.c");
  EXPECT_THAT(source, HasSubstr("tta_next_power_of_2"));
  EXPECT_THAT(source, HasSubstr("!= NULL"));
  const nlohmann::json manifest = nlohmann::json::parse(readText(dir / "lib/heur.json"));
  const nlohmann::json &kernel = manifest["kernels"][0];
  ASSERT_EQ(kernel["configs"].size(), 1u);   // one config, eight variants
  EXPECT_EQ(kernel["configs"][0]["variants"].size(), 8u);
  EXPECT_EQ(kernel["configs"][0]["variants"][0]["heuristics"][0]["name"], "BLOCK_N");

  const std::string program = R"(#include "heur.h"
#include <stdio.h>
int main(void) {
  static float buffer[64] __attribute__((aligned(16)));
  /* n_cols 100: BLOCK_N would be 128, which was not compiled. */
  int status = (int)heur_scale_rows_kernel(NULL, buffer, buffer, buffer, 0, 100, 1.0f);
  printf("unlisted %d %s\n", status, heur_last_error());
  /* n_cols 1000: BLOCK_N 1024 was compiled; no rows: nothing to launch. */
  printf("listed %d\n", (int)heur_scale_rows_kernel(NULL, buffer, NULL, buffer, 0, 1000, 1.0f));
  printf("clamp %d\n", (int)heur_clamp_kernel(NULL, buffer, buffer, 0, 0.0f, 1.0f));
  return 0;
}
)";
  std::ofstream(dir / "main.c") << program;
  const std::vector<std::string> compilers = cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &compiler : compilers) {
    SCOPED_TRACE(compiler);
    RunResult built = run(compiler, {"-std=c11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
                                     "-I", (dir / "lib").string(), "-I", TTA_RUNTIME_INCLUDE, "main.c",
                                     (dir / "lib/heur.c").string(), (dir / "lib/heur.images.S").string(),
                                     TTA_RUNTIME_LIBRARY, "-ldl", "-lpthread", "-o", "program"},
                          dir);
    ASSERT_EQ(built.status, 0) << built.err;
    RunResult ran = run((dir / "program").string(), {}, dir);
    ASSERT_EQ(ran.status, 0) << ran.err;
    auto got = keyedLines(ran.out);
    EXPECT_THAT(got["unlisted"], HasSubstr("6 "));   // TRITON_AOT_ERROR_INVALID_ARGUMENT
    EXPECT_THAT(got["unlisted"], HasSubstr("heuristic BLOCK_N is 128"));
    EXPECT_THAT(got["unlisted"], HasSubstr("1024, 4096"));
    EXPECT_EQ(got["listed"], "0");
    EXPECT_EQ(got["clamp"], "0");
  }
}

} // namespace
} // namespace tta
