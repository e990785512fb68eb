// @triton.heuristics and do_not_specialize on real kernels written as FlagGems, vLLM and unsloth
// write them (tests/kernels/fusedops/ops/): stacked and assigned decorators, bool heuristics
// compiled both ways, integer ones for the listed values, constexpr-only ones evaluated at build
// time, bool()/int()/float(), powers, `is not None` on a scalar, a flag the caller passes that a
// heuristic setting the same parameter normalises, the refusal of an untranslatable lambda with
// its fix; then linked, the generated C built with gcc and clang -Wall -Wextra -Werror and run
// (no GPU: the dispatcher's checks, and with a recording runtime, the variant it launches).
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

/// \p dir/main.c with the library \p dir/lib/<name> and the recording fake runtime, warnings as
/// errors, into \p dir/program.
RunResult buildWithFakeRuntime(const fs::path &dir, const std::string &compiler,
                               const std::string &name) {
  const fs::path lib = dir / "lib";
  return run(compiler,
             {"-std=c11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-I", lib.string(),
              "-I", TTA_RUNTIME_INCLUDE, "-I", TTA_FAKE_RUNTIME_DIR, "main.c",
              (lib / (name + ".c")).string(), (lib / (name + ".images.S")).string(),
              std::string(TTA_FAKE_RUNTIME_DIR) + "/fake_runtime.c", "-o", "program"},
             dir);
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

  // A def of several statements: refused at the line that reads the attribute, not the def's.
  RunResult rows = runCompiler({kOps + "heuristic_untranslatable.py", "-n", "rows_copy_kernel", "-s",
                                "*fp16:16, *fp16:16, i32, 256", "-g", "cdiv(n, 256), 1, 1", "-t",
                                "cuda:80", "-o", "out_rows/"},
                               dir);
  EXPECT_EQ(rows.status, 2);
  EXPECT_THAT(rows.err, HasSubstr("heuristic_untranslatable.py:22: error: heuristic 'USE_WIDE' of "
                                  "'rows_copy_kernel' cannot be translated to C: attribute access "
                                  "on an argument ('args['x_ptr'].dtype') (def wide_rows, line 22)"));
  EXPECT_THAT(rows.err, HasSubstr("wide = args[\"x_ptr\"].dtype.itemsize >= 4"));

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

const std::string kFlagsSignature =
    "*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, fp32, fp32, BLOCK_SIZE=1000";

RunResult compileFlags(const fs::path &dir, const std::string &signature) {
  return runCompiler({kOps + "rms_norm_flags.py", "-n", "rms_norm_rows", "-s", signature, "-g",
                      "n_rows, 1, 1", "-t", "cuda:80", "-o", "out/", "--index", "out/index.json"},
                     dir);
}

TEST(HeuristicKernels, FlagsTheCallerPassesAreNormalisedAndPickTheVariant) {
  // unsloth's "GEMMA": lambda args: bool(args["GEMMA"]): left out of the signature, the C API
  // takes GEMMA and the heuristic's value picks the variant; `scale is not None` on a float is
  // decided at build time (a scalar of the C API is never None); the block size the signature
  // asks for is rounded by its heuristic (int(), next_power_of_2, a power).
  fs::path dir = freshDir("heuristics", "flags");
  RunResult r = compileFlags(dir, kFlagsSignature);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  std::set<std::string> expected;
  for (const char *gemma : {"True", "False"})
    for (const char *wide : {"True", "False"})
      for (const char *unit : {"True", "False"})
        expected.insert(std::string("GEMMA=") + gemma + " LONG_INDEXING=" + wide +
                        " HAS_SCALE=True UNIT_SCALE=" + unit + " BLOCK_SIZE=1024");
  EXPECT_EQ(heuristicValues(metas), expected);
  for (const KernelMetadata &m : metas) {
    ASSERT_EQ(m.variant.heuristics.size(), 5u);
    const std::vector<HeuristicRecord> &h = m.variant.heuristics;
    EXPECT_EQ(h[0].expression, "bool(GEMMA)");
    EXPECT_EQ(h[1].expression, "n_rows * Y_row_stride >= 2 ** 31");
    EXPECT_EQ(h[2].expression, "scale != NULL");
    EXPECT_EQ(h[3].expression, "float(scale) == 1.0");
    EXPECT_EQ(h[4].expression, "min(65536, next_power_of_2(int(BLOCK_SIZE)))");
    EXPECT_EQ(std::vector<bool>(
                  {h[0].runtime, h[1].runtime, h[2].runtime, h[3].runtime, h[4].runtime}),
              std::vector<bool>({true, true, false, true, false}));
    EXPECT_EQ(m.params[9].name, "GEMMA");
    EXPECT_EQ(m.params[9].kind, ParamInfo::Kind::HeuristicInput);
    EXPECT_EQ(m.params[9].type, "i1");
    EXPECT_EQ(m.params[9].size, 0u);
  }
  // Naming the heuristics' parameters in their places is leaving them out: the same variants.
  RunResult named = compileFlags(dir, "*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, fp32, "
                                      "fp32, GEMMA, LONG_INDEXING, HAS_SCALE, UNIT_SCALE, 1000");
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(heuristicValues(metadataIn(dir / "out")), expected);

  RunResult linked = run(TTA_LINKER, {"--name", "flags", "-o", "lib", "out/index.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  const std::string header = readText(dir / "lib/flags.h");
  EXPECT_THAT(header, HasSubstr("int32_t n_cols, float eps, float scale, bool GEMMA);"));
  EXPECT_THAT(header, HasSubstr("GEMMA = bool(GEMMA) by @triton.heuristics picks the variant"));
  const std::string source = readText(dir / "lib/flags.c");
  EXPECT_THAT(source, Not(HasSubstr("NULL)")));   // no test of the scale against NULL
  EXPECT_THAT(source, HasSubstr("((int64_t)GEMMA != 0)"));
  EXPECT_THAT(source, HasSubstr("INT64_C(2147483648)"));
  EXPECT_THAT(source, HasSubstr("void *args[9 + 2]"));   // GEMMA is not passed to the kernel
  const nlohmann::json manifest = nlohmann::json::parse(readText(dir / "lib/flags.json"));
  const nlohmann::json &kernel = manifest["kernels"][0];
  EXPECT_EQ(kernel["params"][9]["name"], "GEMMA");
  EXPECT_EQ(kernel["params"][9]["heuristic_input"], true);
  EXPECT_EQ(kernel["params"][9]["c_type"], "bool");
  // The variant each launch should get, as the manifest lists them (the dispatcher passes the
  // variant's row; one config, one argument list: the row is the index).
  const nlohmann::json &variants = kernel["configs"][0]["variants"];
  ASSERT_EQ(variants.size(), 8u);
  auto row = [&](bool gemma, bool wide, bool unit) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      std::map<std::string, nlohmann::json> values;
      for (const nlohmann::json &h : variants[v]["heuristics"])
        values[h["name"].get<std::string>()] = h["value"];
      if (values["GEMMA"] == gemma && values["LONG_INDEXING"] == wide &&
          values["UNIT_SCALE"] == unit)
        return std::to_string(v);
    }
    return std::string("none");
  };

  // A recording runtime in place of the real one: what the dispatcher launched.
  const std::string program = R"(#include "flags.h"
#include "fake_runtime.h"
#include <stdio.h>
static float buffer[64] __attribute__((aligned(16)));
static void launch(const char *name, int32_t rows, int32_t stride, float scale, int gemma) {
  fake_runtime *state = fake_runtime_state();
  state->launches = 0;
  triton_aot_status status = flags_rms_norm_rows(NULL, buffer, stride, buffer, stride, buffer,
                                                 rows, 48, 1e-6f, scale, gemma);
  printf("%s %d %d %u %u\n", name, (int)status, state->launches, (unsigned)state->variant,
         (unsigned)state->arg_count);
}
int main(void) {
  launch("plain", 4, 64, 0.5f, 0);
  launch("gemma", 4, 64, 0.5f, 1);
  launch("gemma_as_two", 4, 64, 0.5f, 2); /* any non-zero flag, as bool() takes it */
  launch("unit", 4, 64, 1.0f, 1);
  launch("long", 70000, 40000, 1.0f, 0);
  return 0;
}
)";
  std::ofstream(dir / "main.c") << program;
  const std::vector<std::string> compilers = cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &compiler : compilers) {
    SCOPED_TRACE(compiler);
    RunResult built = buildWithFakeRuntime(dir, compiler, "flags");
    ASSERT_EQ(built.status, 0) << built.err;
    EXPECT_EQ(built.err, "");
    RunResult ran = run((dir / "program").string(), {}, dir);
    ASSERT_EQ(ran.status, 0) << ran.err;
    auto got = keyedLines(ran.out);
    // status 0, one launch, the variant, 9 arguments (GEMMA is not one of them)
    EXPECT_EQ(got["plain"], "0 1 " + row(false, false, false) + " 9");
    EXPECT_EQ(got["gemma"], "0 1 " + row(true, false, false) + " 9");
    EXPECT_EQ(got["gemma_as_two"], "0 1 " + row(true, false, false) + " 9");
    EXPECT_EQ(got["unit"], "0 1 " + row(true, false, true) + " 9");
    EXPECT_EQ(got["long"], "0 1 " + row(false, true, true) + " 9");
  }
}

TEST(HeuristicKernels, AFlagTheSignatureGivesIsNormalisedAtBuildTime) {
  // The signature gives GEMMA's value: compiled in (normalised: 1 is True), not in the C API.
  fs::path dir = freshDir("heuristics", "flags_given");
  RunResult r = compileFlags(dir, "*fp32:16, i32, *fp32:16, i32, *fp32:16, i32, i32, fp32, fp32, "
                                  "GEMMA=1, BLOCK_SIZE=1000");
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  EXPECT_EQ(metas.size(), 4u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.variant.constexprs.at("GEMMA"), true);
    EXPECT_FALSE(m.variant.heuristics[0].runtime);
    EXPECT_EQ(m.params[9].kind, ParamInfo::Kind::Constexpr);
  }
  RunResult linked = run(TTA_LINKER, {"--name", "flags", "-o", "lib", "out/index.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  EXPECT_THAT(readText(dir / "lib/flags.h"), HasSubstr("float eps, float scale);"));
}

} // namespace
} // namespace tta

namespace tta {
namespace {

// FlagGems-style heuristics of several statements (tests/kernels/fusedops/ops/tile_heuristics.py):
// a while loop over the SM count torch gives for the target, an if/elif chain, a helper called
// by another, and num_warps set by a heuristic. Each target's library computes what Python computes with that target's answer.
RunResult compileTiledSum(const fs::path &dir, const std::string &target, const std::string &out) {
  const std::vector<std::string> env = {"PYTHONPATH=" + std::string(TTA_KERNELS_DIR) +
                                        "/site-packages"};
  return runCompiler({kOps + "tiled_sum.py", "-n", "tiled_sum_kernel", "-s",
                      "*fp32:16, *fp32:16, i32, i32, i32", "-g", "M, cdiv(K, TILE_K), 1", "-t",
                      target, "-o", out + "/", "--index", out + "/index.json",
                      "--heuristic-values", "TILE_K=1", "--heuristic-values", "TILE_N=64"},
                     dir, env);
}

TEST(HeuristicKernels, FunctionsOfSeveralStatementsComputeAsPythonPerTarget) {
  fs::path dir = freshDir("heuristics", "programs");
  for (const char *target : {"cuda:80", "cuda:90a"}) {
    RunResult r = compileTiledSum(dir, target, std::string("out_") + (target + 5));
    ASSERT_EQ(r.status, 0) << r.err;
  }
  // The loop's SM count is each target's representative device's: A100 108, H100 132.
  for (const auto &[out, sms] : {std::pair{"out_80", "108"}, std::pair{"out_90a", "132"}}) {
    for (const KernelMetadata &m : metadataIn(dir / out)) {
      const HeuristicRecord &k = m.variant.heuristics.at(0);
      EXPECT_EQ(k.name, "TILE_K");
      EXPECT_TRUE(k.runtime);
      EXPECT_THAT(k.expression, HasSubstr("fdiv(M * cdiv(K, 1), " + std::string(sms) + ") > 1"));
      EXPECT_THAT(m.variant.heuristics.at(1).expression, HasSubstr("next_power_of_2(N)"));
      // "num_warps": a launch option the heuristics set, from TILE_N (64): 2 warps, not the
      // default 4; recorded under its name with the launch's value (not a constexpr).
      EXPECT_EQ(m.launch.numWarps, 2);
      ASSERT_EQ(m.variant.heuristics.size(), 4u);
      EXPECT_EQ(m.variant.heuristics.at(3).name, "num_warps");
      EXPECT_EQ(m.variant.heuristics.at(3).value, 2);
      EXPECT_FALSE(m.variant.constexprs.count("num_warps"));
    }
  }
  // One library for both: refused, never computed with one target's answer on the other.
  RunResult both = run(TTA_LINKER, {"--name", "both", "-o", "lib_both", "out_80/index.json",
                                    "out_90a/index.json"}, dir);
  EXPECT_NE(both.status, 0);
  EXPECT_THAT(both.err, HasSubstr("heuristic 'TILE_K' of kernel 'tiled_sum_kernel' is computed "
                                  "differently for"));
  EXPECT_THAT(both.err, HasSubstr("build one library per target"));

  // Per target: the C dispatcher's value, read from the refusal of a value not compiled (only
  // TILE_K=1 is), against Python's: M=1, K=30000 doubles the tile while cdiv(K, tile) exceeds
  // the SM count: to 512 with 108 SMs, to 256 with 132; M=4, K=3 stays at 1.
  const std::string program = R"(#include "ts.h"
#include <stdio.h>
int main(void) {
  static float buffer[64] __attribute__((aligned(16)));
  int status = (int)ts_tiled_sum_kernel(NULL, buffer, buffer, 1, 64, 30000);
  printf("wide %d %s\n", status, ts_last_error());
  status = (int)ts_tiled_sum_kernel(NULL, buffer, buffer, 4, 64, 3);
  printf("narrow %d %s\n", status, ts_last_error());
  return 0;
}
)";
  for (const auto &[out, wide] : {std::pair{"out_80", "512"}, std::pair{"out_90a", "256"}}) {
    SCOPED_TRACE(out);
    const fs::path lib = dir / (std::string("lib_") + out);
    RunResult linked = run(TTA_LINKER, {"--name", "ts", "-o", lib.string(),
                                        (dir / out / "index.json").string()}, dir);
    ASSERT_EQ(linked.status, 0) << linked.err;
    std::ofstream(lib / "main.c") << program;
    for (const std::string &compiler : cCompilers()) {
      SCOPED_TRACE(compiler);
      RunResult built = run(compiler, {"-std=c11", "-Wall", "-Wextra", "-Werror", "-I", lib.string(),
                                       "-I", TTA_RUNTIME_INCLUDE, "main.c", "ts.c", "ts.images.S",
                                       TTA_RUNTIME_LIBRARY, "-ldl", "-lpthread", "-o", "program"},
                            lib);
      ASSERT_EQ(built.status, 0) << built.err;
      RunResult ran = run((lib / "program").string(), {}, lib);
      auto got = keyedLines(ran.out);
      EXPECT_THAT(got["wide"], HasSubstr("heuristic TILE_K is " + std::string(wide)));
      EXPECT_THAT(got["narrow"], Not(HasSubstr("heuristic TILE_K")));   // 1: compiled
    }
  }
}

} // namespace
} // namespace tta

// Heuristics that set launch options (tests/kernels/fusedops/ops/launch_options.py): FlagGems'
// "num_warps": lambda args: 8 sets the variant's num_warps; one over a runtime argument makes a
// variant per listed value, which the generated C picks; one over a constexpr overrides the
// autotune config's num_warps, as in Triton's launch.
namespace tta {
namespace {

const std::string kLaunchOptions = kOps + "launch_options.py";

RunResult compileLaunch(const fs::path &dir, const std::string &function, const std::string &signature,
                        const std::string &index, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {kLaunchOptions, "-n", function, "-s", signature, "-g",
                                   "cdiv(n_elements, BLOCK_SIZE), 1, 1", "-t", "cuda:80", "-o",
                                   "out/", "--index", index};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

const HeuristicRecord *recordOf(const KernelMetadata &m, const std::string &name) {
  for (const HeuristicRecord &h : m.variant.heuristics)
    if (h.name == name)
      return &h;
  return nullptr;
}

TEST(LaunchOptionHeuristics, AConstantNumWarpsSetsEveryVariantsLaunch) {
  fs::path dir = freshDir("heuristics", "launch_constant");
  RunResult r = compileLaunch(dir, "count_positive_kernel", "*fp32:16, *i32:16, i32", "count.json",
                              {"--heuristic-values", "BLOCK_SIZE=1024,4096"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = metadataIn(dir / "out");
  ASSERT_EQ(metas.size(), 2u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.launch.numWarps, 8);
    EXPECT_EQ(m.variant.numWarps, 8);
    const HeuristicRecord *warps = recordOf(m, "num_warps");
    ASSERT_NE(warps, nullptr);
    EXPECT_FALSE(warps->runtime);
    EXPECT_EQ(warps->value, 8);
    EXPECT_FALSE(m.variant.constexprs.count("num_warps"));   // not a parameter
  }
}

TEST(LaunchOptionHeuristics, AHeuristicOverAConstexprOverridesTheAutotuneConfig) {
  fs::path dir = freshDir("heuristics", "launch_autotune");
  RunResult r = compileLaunch(dir, "staged_copy_kernel", "*fp32:16, *fp32:16, i32", "staged.json");
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<int, int> warpsByBlock;
  for (const KernelMetadata &m : metadataIn(dir / "out")) {
    warpsByBlock[m.variant.constexprs.at("BLOCK_SIZE").get<int>()] = m.launch.numWarps;
    EXPECT_EQ(m.variant.numStages, 2);
    ASSERT_NE(recordOf(m, "num_stages"), nullptr);
  }
  // The configs ask for 2 warps; the heuristic gives 4 below 2048, 8 from there.
  EXPECT_EQ(warpsByBlock, (std::map<int, int>{{1024, 4}, {4096, 8}}));
}

TEST(LaunchOptionHeuristics, NumWarpsFromARuntimeArgumentPicksTheVariant) {
  fs::path dir = freshDir("heuristics", "launch_runtime");
  RunResult scale = compileLaunch(dir, "scale_kernel", "*fp32:16, *fp32:16, i32, fp32", "scale.json",
                                  {"--heuristic-values", "num_warps=2,4"});
  ASSERT_EQ(scale.status, 0) << scale.err;
  std::set<int> warps;
  for (const KernelMetadata &m : metadataIn(dir / "out")) {
    const HeuristicRecord *h = recordOf(m, "num_warps");
    ASSERT_NE(h, nullptr);
    EXPECT_TRUE(h->runtime);
    EXPECT_EQ(h->value, m.launch.numWarps);
    warps.insert(m.launch.numWarps);
  }
  EXPECT_EQ(warps, (std::set<int>{2, 4}));
  RunResult linked = run(TTA_LINKER, {"--name", "warps", "-o", "lib", "scale.json"}, dir);
  ASSERT_EQ(linked.status, 0) << linked.err;
  const nlohmann::json manifest = nlohmann::json::parse(readText(dir / "lib/warps.json"));
  const nlohmann::json &kernel = manifest["kernels"][0];
  ASSERT_EQ(kernel["configs"].size(), 1u);   // one config, a variant per num_warps
  const nlohmann::json &variants = kernel["configs"][0]["variants"];
  ASSERT_EQ(variants.size(), 2u);
  auto row = [&](int numWarps) {
    for (std::size_t v = 0; v < variants.size(); ++v)
      if (variants[v]["heuristics"][0]["value"] == numWarps)
        return std::to_string(v);
    return std::string("none");
  };

  const std::string program = R"(#include "warps.h"
#include "fake_runtime.h"
#include <stdio.h>
static float buffer[64] __attribute__((aligned(16)));
static void launch(const char *name, int32_t n) {
  fake_runtime *state = fake_runtime_state();
  state->launches = 0;
  triton_aot_status status = warps_scale_kernel(NULL, buffer, buffer, n, 2.0f);
  printf("%s %d %d %u\n", name, (int)status, state->launches, (unsigned)state->variant);
}
int main(void) {
  launch("small", 1000);
  launch("large", 100000);
  return 0;
}
)";
  std::ofstream(dir / "main.c") << program;
  const std::vector<std::string> compilers = cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &compiler : compilers) {
    SCOPED_TRACE(compiler);
    RunResult built = buildWithFakeRuntime(dir, compiler, "warps");
    ASSERT_EQ(built.status, 0) << built.err;
    EXPECT_EQ(built.err, "");
    RunResult ran = run((dir / "program").string(), {}, dir);
    ASSERT_EQ(ran.status, 0) << ran.err;
    auto got = keyedLines(ran.out);
    EXPECT_EQ(got["small"], "0 1 " + row(2));
    EXPECT_EQ(got["large"], "0 1 " + row(4));
  }
}

TEST(LaunchOptionHeuristics, UnlistedOrRefusedValuesAreErrors) {
  fs::path dir = freshDir("heuristics", "launch_refused");
  // Triton asserts num_warps is a power of two.
  RunResult odd = compileLaunch(dir, "odd_warps_kernel", "*fp32:16, i32", "odd.json");
  EXPECT_EQ(odd.status, 2);
  EXPECT_THAT(odd.err, HasSubstr("heuristic 'num_warps' of 'odd_warps_kernel'"));
  EXPECT_THAT(odd.err, HasSubstr("num_warps must be a power of two"));
  EXPECT_THAT(odd.err, HasSubstr("launch_options.py:"));
  RunResult listed = compileLaunch(dir, "scale_kernel", "*fp32:16, *fp32:16, i32, fp32", "scale.json",
                                   {"--heuristic-values", "num_warps=2,6"});
  EXPECT_EQ(listed.status, 2);
  EXPECT_THAT(listed.err, HasSubstr("--heuristic-values num_warps: 6"));
  RunResult unlisted = compileLaunch(dir, "scale_kernel", "*fp32:16, *fp32:16, i32, fp32", "scale.json");
  EXPECT_EQ(unlisted.status, 2);
  EXPECT_THAT(unlisted.err, HasSubstr("--heuristic-values num_warps="));
}

} // namespace
} // namespace tta
