// Per-target configs: a config a target cannot build or run (shared memory above its limit,
// blocks above its threads, num_ctas=2 before sm_90 and on HIP, launch_pdl=True before sm_90
// and on HIP) or one limited with archs= is left out for that target with one warning line and
// a refusal record; the linked library refuses it there with the reason, its configs in their
// declared order; a kernel left with no config for a target does not link. Options of the other
// backend only are ignored, as Triton's own launch ignores them.
#include "cli_runner.h"
#include "compiler/config.h"
#include "contract/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::occurrences;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::listFiles;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testTritonVersion;
using tta::testing::testWorkDir;

namespace tta {
namespace {

const std::string kSignature =
    "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1";

RunResult compile(std::vector<std::string> extra, const fs::path &dir,
                  const std::string &signature = kSignature) {
  std::vector<std::string> args = {kernel("per_target_matmul.py"), "-n",
                                   "matmul_kernel", "-on", "matmul", "-s", signature, "-g",
                                   "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), 1", "-t", "cuda:80", "-t",
                                   "cuda:90a", "-o", dir.string() + "/", "--index",
                                   (dir / "index.json").string(),
                                   "--cache-dir", (testWorkDir() / ("per_target-" + testTritonVersion()) / "cache").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

RunResult link(const fs::path &dir) {
  return run(TTA_LINKER, {"--name", "mm", "-o", (dir / "lib").string(), (dir / "index.json").string()},
             dir);
}

/// The index's files by schema: metadata and refusal records, each refusal record checked
/// against docs/refusal.schema.json (with the configured environment's jsonschema).
std::pair<int, std::vector<nlohmann::json>> indexed(const fs::path &dir) {
  int metadata = 0;
  std::vector<nlohmann::json> refusals;
  const nlohmann::json index = nlohmann::json::parse(readText(dir / "index.json"));
  for (const auto &file : index["metadata"]) {
    auto json = nlohmann::json::parse(readText(dir / file.get<std::string>()));
    if (json["schema"] != kRefusalSchema) {
      ++metadata;
      continue;
    }
    refusals.push_back(json);
    RunResult schema = run(TTA_PYTHON,
                           {"-c",
                            "import json, sys, jsonschema; "
                            "jsonschema.validate(json.load(open(sys.argv[1])), "
                            "json.load(open(sys.argv[2])))",
                            (dir / file.get<std::string>()).string(), TTA_REFUSAL_SCHEMA},
                           dir);
    EXPECT_EQ(schema.status, 0) << file << ": " << schema.err;
  }
  return {metadata, refusals};
}

const char *kBig = "BLOCK_M128_BLOCK_N256_BLOCK_K128_w8_s5";
const char *kCluster = "BLOCK_M128_BLOCK_N128_BLOCK_K32_w4_s3_c2";

TEST(PerTarget, OneWarningPerConfigAndTargetWhateverTheSignatures) {
  fs::path dir = freshDir("per_target", "one_warning");
  RunResult r = runCompiler({kernel("vector_add.py"), "-n", "add_kernel", "-s",
                             "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK", "-s",
                             "*fp32, *fp32, *fp32, i32, BLOCK", "-g", "cdiv(n_elements, BLOCK), 1, 1",
                             "--config", "name=wide BLOCK=1024", "--config",
                             "name=hopper BLOCK=2048 archs=90a", "-t", "cuda:80", "-t", "cuda:90a",
                             "-o", dir.string() + "/"},
                            dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config hopper of add_kernel is not built for cuda:80"), 1u)
      << r.err;
}

TEST(PerTarget, ConfigsSm80CannotBuildAreLeftOutForItAndRefusedByTheLibrary) {
  fs::path dir = freshDir("per_target", "matmul");
  RunResult r = compile({}, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config "), 2u) << r.err;
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kBig +
                               " of matmul is not built for cuda:80: it needs "));
  EXPECT_THAT(r.err, HasSubstr(" bytes of shared memory, more than the 163 KiB a block has on sm_80"));
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kCluster +
                               " of matmul is not built for cuda:80: num_ctas=2 needs thread "
                               "block clusters (sm_90 or newer)"));
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 4);   // three configs on sm_90a, one on sm_80
  ASSERT_EQ(refusals.size(), 2u);
  for (const auto &refusal : refusals) {
    EXPECT_EQ(refusal["target"]["spelling"], "cuda:80");
    EXPECT_EQ(refusal["kernel"]["name"], "matmul");
    EXPECT_TRUE(refusal["variant"]["config"] == kBig || refusal["variant"]["config"] == kCluster);
  }

  // Again from the cache: the same refusals, the same warnings.
  RunResult again = compile({}, dir);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(occurrences(again.err, "warning: config "), 2u) << again.err;

  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "mm.json"));
  const auto &configs = manifest["kernels"][0]["configs"];
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[1]["name"], kBig);
  int refused = 0;
  for (const auto &config : configs)
    for (const auto &function : config["variants"][0]["functions"])
      if (function.contains("refused")) {
        ++refused;
        EXPECT_EQ(function["target"], "cuda:80");
        EXPECT_THAT(function["refused"].get<std::string>(),
                    HasSubstr("is not built for cuda:80: "));
      }
  EXPECT_EQ(refused, 2);
  const std::string source = readText(dir / "lib" / "mm.c");
  EXPECT_THAT(source, HasSubstr(std::string("config ") + kBig +
                                " is not built for cuda:80: it needs "));
  EXPECT_THAT(source, HasSubstr("TRITON_AOT_NO_IMAGE, TRITON_AOT_NO_IMAGE"));
}

TEST(PerTarget, AConfigLimitedWithArchsAndAKernelLeftWithNoConfigForATarget) {
  fs::path dir = freshDir("per_target", "archs");
  RunResult r = compile({"--config", "name=big BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=90a",
                         "--config", "name=small BLOCK_M=32 BLOCK_N=32 BLOCK_K=32"},
                        dir, kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: config big of matmul is not built for cuda:80: the "
                               "config is limited to archs=90a"));
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 3);
  ASSERT_EQ(refusals.size(), 1u);
  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  EXPECT_THAT(readText(dir / "lib" / "mm.c"),
              HasSubstr("config big is not built for cuda:80: the config is limited to archs=90a"));

  // Only the limited config: nothing is left for sm_80, which the link refuses.
  fs::path lonely = freshDir("per_target", "lonely");
  r = compile({"--config", "name=big BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=90a"}, lonely,
              kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  RunResult failed = link(lonely);
  EXPECT_NE(failed.status, 0);
  EXPECT_THAT(failed.err, HasSubstr("kernel 'matmul' has no config built for cuda:80 (big: the "
                                    "config is limited to archs=90a)"));
  EXPECT_FALSE(fs::exists(lonely / "lib" / "mm.c"));
}

TEST(PerTarget, AConfigRefusedOnEveryTargetIsInTheLibraryRefusedEverywhere) {
  fs::path dir = freshDir("per_target", "everywhere");
  RunResult r = compile({"--config", "name=small BLOCK_M=32 BLOCK_N=32 BLOCK_K=32", "--config",
                         "name=wide BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 archs=100a"},
                        dir, kSignature + ", BLOCK_M, BLOCK_N, BLOCK_K");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config wide of matmul is not built for "), 2u) << r.err;
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 2);
  ASSERT_EQ(refusals.size(), 2u);

  RunResult ld = link(dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "mm.json"));
  const auto &configs = manifest["kernels"][0]["configs"];
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0]["name"], "small");
  EXPECT_EQ(configs[1]["name"], "wide");
  const auto &functions = configs[1]["variants"][0]["functions"];
  ASSERT_EQ(functions.size(), 2u);
  for (const auto &function : functions)
    EXPECT_EQ(function["refused"], "config wide is not built for " +
                                       function["target"].get<std::string>() +
                                       ": the config is limited to archs=100a");
  const std::string source = readText(dir / "lib" / "mm.c");
  EXPECT_THAT(source, HasSubstr("config wide is not built for cuda:80: the config is limited to "
                                "archs=100a"));
  EXPECT_THAT(source, HasSubstr("config wide is not built for cuda:90a: the config is limited "
                                "to archs=100a"));
  // The config has its index in the header, as every config does.
  EXPECT_THAT(readText(dir / "lib" / "mm.h"), HasSubstr("wide"));
}

TEST(PerTarget, ATypeTritonRefusesForTheTargetIsLeftOutNotAFailedBuild) {
  fs::path dir = freshDir("per_target", "fp8");
  RunResult r = runCompiler({kernel("fp8_cast.py"), "-n",
                     "to_fp8_kernel", "-s", "*fp32:16, *fp8e4nv:16, i32, BLOCK", "-g",
                     "cdiv(n_elements, BLOCK), 1, 1", "--config", "name=b256 BLOCK=256", "-t",
                     "cuda:80", "-t", "cuda:90a", "-o", dir.string() + "/", "--index",
                     (dir / "index.json").string(), "--no-cache"},
                    dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: config b256 of to_fp8_kernel is not built for cuda:80: "));
  EXPECT_THAT(r.err, HasSubstr("type fp8e4nv not supported in this architecture"));
  EXPECT_EQ(occurrences(r.err, "warning: "), 1u) << r.err;
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 1);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0]["target"]["spelling"], "cuda:80");
}

// tests/kernels/pdl_add.py: add_kernel's configs in declaration order, and what each target can
// run of them (num_warps=32 is 2048 threads on gfx942; launch_pdl=True needs CUDA sm_90).
const char *kPdl = "BLOCK_SIZE1024_USE_GDCTrue_launch_pdlTrue_w4_s3";
const char *kWide = "BLOCK_SIZE8192_USE_GDCFalse_w32_s3";
const char *kPlain = "BLOCK_SIZE1024_USE_GDCFalse_w4_s3";
const char *kAddSignature = "*fp32:16, *fp32:16, *fp32:16, i32";

RunResult compileAdd(const std::string &function, const std::vector<std::string> &targets,
                     const fs::path &out, const fs::path &index,
                     const std::vector<std::string> &extra = {},
                     const std::string &signature = kAddSignature) {
  std::vector<std::string> args = {kernel("pdl_add.py"), "-n", function, "-s", signature, "-g",
                                   "cdiv(n_elements, BLOCK_SIZE), 1, 1", "-o", out.string() + "/",
                                   "--index", index.string(), "--cache-dir",
                                   (testWorkDir() / ("per_target-" + testTritonVersion()) / "cache").string()};
  for (const std::string &target : targets) {
    args.push_back("-t");
    args.push_back(target);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, out.parent_path());
}

/// The kernel metadata files under \p dir (not the refusal records), read with the strict reader.
std::vector<KernelMetadata> builtIn(const fs::path &dir) {
  std::vector<KernelMetadata> all;
  for (const std::string &file : listFiles(dir, ".triton-aot-cache")) {
    if (fs::path(file).extension() != ".json")
      continue;
    auto json = nlohmann::json::parse(readText(dir / file));
    if (json["schema"] == kRefusalSchema)
      continue;
    auto meta = parseMetadata(json);
    EXPECT_TRUE(meta) << file << ": " << (meta ? "" : meta.error().message);
    if (meta)
      all.push_back(std::move(*meta));
  }
  return all;
}

/// Config name -> per target of the manifest's kernel (its "targets" order): built or not.
std::map<std::string, std::vector<bool>> builtOn(const nlohmann::json &kernel) {
  std::map<std::string, std::vector<bool>> out;
  for (const auto &config : kernel["configs"])
    for (const auto &function : config["variants"][0]["functions"])
      out[config["name"]].push_back(!function.contains("refused"));
  return out;
}

std::vector<std::string> configNames(const nlohmann::json &kernel) {
  std::vector<std::string> out;
  for (const auto &config : kernel["configs"])
    out.push_back(config["name"]);
  return out;
}

TEST(PerTarget, BlocksOverTheTargetsThreadsAndPdlOnHipAreLeftOutAndConfigsKeepTheirOrder) {
  fs::path dir = freshDir("per_target", "pdl_add");
  RunResult r = compileAdd("add_kernel", {"cuda:80", "cuda:90a", "hip:gfx942"}, dir / "out",
                           dir / "index.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: config "), 3u) << r.err;
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kPdl +
                               " of add_kernel is not built for cuda:80: launch_pdl=True needs "
                               "programmatic dependent launch (sm_90 or newer)"));
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kPdl +
                               " of add_kernel is not built for hip:gfx942: launch_pdl=True needs "
                               "programmatic dependent launch, which HIP does not have (CUDA "
                               "sm_90 or newer)"));
  EXPECT_THAT(r.err, HasSubstr(std::string("warning: config ") + kWide +
                               " of add_kernel is not built for hip:gfx942: num_warps=32 makes "
                               "blocks of 2048 threads (64 a wavefront on gfx942), more than the "
                               "1024 a block may have"));
  // Each target gets exactly the configs it can run; every file knows its config's place.
  std::map<std::string, std::set<std::string>> built;
  for (const KernelMetadata &meta : builtIn(dir / "out")) {
    built[meta.target.spelling()].insert(meta.variant.config);
    const std::map<std::string, int> declared = {{kPdl, 0}, {kWide, 1}, {kPlain, 2}};
    EXPECT_EQ(meta.variant.configIndex, declared.at(meta.variant.config));
    EXPECT_EQ(meta.launch.block[0], meta.launch.numWarps * meta.launch.warpSize);
    EXPECT_LE(meta.launch.block[0], 1024);
  }
  EXPECT_EQ(built["cuda:80"], (std::set<std::string>{kWide, kPlain}));
  EXPECT_EQ(built["cuda:90a"], (std::set<std::string>{kPdl, kWide, kPlain}));
  EXPECT_EQ(built["hip:gfx942"], (std::set<std::string>{kPlain}));
  auto [metadata, refusals] = indexed(dir);
  EXPECT_EQ(metadata, 6);
  ASSERT_EQ(refusals.size(), 3u);
  for (const auto &refusal : refusals)
    EXPECT_EQ(refusal["variant"]["config_index"], refusal["variant"]["config"] == kPdl ? 0 : 1);

  RunResult ld = run(TTA_LINKER, {"--name", "pdl", "-o", (dir / "lib").string(),
                                  (dir / "index.json").string()},
                     dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  // The first config runs on sm_90a only: the untuned entry point refuses elsewhere, said once.
  EXPECT_THAT(ld.err, HasSubstr(std::string("warning: kernel 'add_kernel': its first config, ") +
                                kPdl + ", is not built for cuda:80, hip:gfx942, so "
                                "pdl_add_kernel(), which runs the first config, returns "
                                "TRITON_AOT_ERROR_NO_IMAGE on such a device"));
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "pdl.json"));
  const auto &k = manifest["kernels"][0];
  ASSERT_EQ(k["targets"], nlohmann::json({"cuda:80", "cuda:90a", "hip:gfx942"}));
  EXPECT_EQ(configNames(k), (std::vector<std::string>{kPdl, kWide, kPlain}));
  for (std::size_t c = 0; c < k["configs"].size(); ++c)
    EXPECT_EQ(k["configs"][c]["index"], c);
  auto on = builtOn(k);
  EXPECT_EQ(on[kPdl], (std::vector<bool>{false, true, false}));
  EXPECT_EQ(on[kWide], (std::vector<bool>{true, true, false}));
  EXPECT_EQ(on[kPlain], (std::vector<bool>{true, true, true}));
  const std::string header = readText(dir / "lib" / "pdl.h");
  EXPECT_THAT(header, HasSubstr(std::string("pdl_add_kernel_CONFIG_") + kPdl + " = 0,"));
  EXPECT_THAT(header, HasSubstr(std::string("pdl_add_kernel_CONFIG_") + kWide + " = 1,"));
  EXPECT_THAT(header, HasSubstr(std::string("pdl_add_kernel_CONFIG_") + kPlain + " = 2"));
  EXPECT_THAT(readText(dir / "lib" / "pdl.c"),
              HasSubstr(std::string("config ") + kWide + " is not built for hip:gfx942: "
                        "num_warps=32 makes blocks of 2048 threads"));
}

// The CMake plugin compiles each architecture in a run of its own: the library still has the
// declared order, whatever order the indexes are given in, though the first config is built
// for one of them only.
TEST(PerTarget, OneRunPerTargetLinksTheConfigsInTheirDeclaredOrder) {
  fs::path dir = freshDir("per_target", "pdl_add_per_run");
  std::vector<std::string> indexes;
  for (const char *target : {"hip:gfx942", "cuda:80", "cuda:90a"}) {
    const std::string tag = fs::path(std::string(target).substr(std::string(target).find(':') + 1))
                                .string();
    RunResult r = compileAdd("add_kernel", {target}, dir / tag, dir / (tag + ".json"));
    ASSERT_EQ(r.status, 0) << r.err;
    indexes.push_back((dir / (tag + ".json")).string());
  }
  std::vector<std::string> args = {"--name", "pdl", "-o", (dir / "lib").string()};
  args.insert(args.end(), indexes.begin(), indexes.end());
  RunResult ld = run(TTA_LINKER, args, dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "pdl.json"));
  const auto &k = manifest["kernels"][0];
  EXPECT_EQ(configNames(k), (std::vector<std::string>{kPdl, kWide, kPlain}));
  auto on = builtOn(k);   // targets sorted: cuda:80, cuda:90a, hip:gfx942
  EXPECT_EQ(on[kPdl], (std::vector<bool>{false, true, false}));
  EXPECT_EQ(on[kWide], (std::vector<bool>{true, true, false}));
  EXPECT_EQ(on[kPlain], (std::vector<bool>{true, true, true}));
}

TEST(PerTarget, AnAutotunedKernelNoConfigOfWhichATargetCanRunDoesNotLinkForIt) {
  fs::path dir = freshDir("per_target", "pdl_only");
  RunResult r = compileAdd("pdl_add_kernel", {"cuda:90a", "hip:gfx942"}, dir / "out",
                           dir / "index.json");
  ASSERT_EQ(r.status, 0) << r.err;   // the compiler leaves them out; the link says what is left
  EXPECT_EQ(occurrences(r.err, "is not built for hip:gfx942: launch_pdl=True needs programmatic "
                               "dependent launch, which HIP does not have"),
            2u)
      << r.err;
  RunResult ld = run(TTA_LINKER, {"--name", "pdl", "-o", (dir / "lib").string(),
                                  (dir / "index.json").string()},
                     dir);
  EXPECT_EQ(ld.status, 2) << ld.err;
  EXPECT_THAT(ld.err, HasSubstr("error: kernel 'pdl_add_kernel' has no config built for "
                                "hip:gfx942 (BLOCK_SIZE1024_USE_GDCTrue_launch_pdlTrue_w4_s3: "
                                "launch_pdl=True needs programmatic dependent launch, which HIP "
                                "does not have (CUDA sm_90 or newer); "
                                "BLOCK_SIZE2048_USE_GDCTrue_launch_pdlTrue_w8_s3: "));
  EXPECT_THAT(ld.err, HasSubstr("give it a config that target can build, or leave hip:gfx942 "
                                "out of the library"));
  EXPECT_FALSE(fs::exists(dir / "lib" / "pdl.c"));
}

TEST(PerTarget, OptionsOfTheOtherBackendAreIgnoredAndClustersAreLeftOutOnHip) {
  fs::path dir = freshDir("per_target", "backend_options");
  RunResult r = compileAdd(
      "add_kernel", {"cuda:80", "hip:gfx942"}, dir / "out", dir / "index.json",
      {"--config",
       "name=hinted BLOCK_SIZE=1024 USE_GDC=False maxnreg=128 enable_reflect_ftz=False "
       "waves_per_eu=2 matrix_instr_nonkdim=16 kpack=2",
       "--config", "name=cluster BLOCK_SIZE=1024 USE_GDC=False num_ctas=2"},
      std::string(kAddSignature) + ", BLOCK_SIZE, USE_GDC");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "warning: "), 2u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: config cluster of add_kernel is not built for "
                               "hip:gfx942: num_ctas=2 needs thread block clusters, which "
                               "triton-aot launches on CUDA only (sm_90 or newer)"));
  EXPECT_THAT(r.err, HasSubstr("warning: config cluster of add_kernel is not built for cuda:80: "
                               "num_ctas=2 needs thread block clusters (sm_90 or newer)"));
  std::set<std::string> hinted;
  for (const KernelMetadata &meta : builtIn(dir / "out")) {
    EXPECT_EQ(meta.variant.config, "hinted");
    hinted.insert(meta.target.spelling());
    // The options as declared, on either backend (one config: the linker compares them).
    EXPECT_EQ(meta.variant.options, nlohmann::json({{"maxnreg", 128},
                                                     {"enable_reflect_ftz", false},
                                                     {"waves_per_eu", 2},
                                                     {"matrix_instr_nonkdim", 16},
                                                     {"kpack", 2}}));
  }
  EXPECT_EQ(hinted, (std::set<std::string>{"cuda:80", "hip:gfx942"}));
  RunResult ld = run(TTA_LINKER, {"--name", "hints", "-o", (dir / "lib").string(),
                                  (dir / "index.json").string()},
                     dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
}

// What the compiler takes for each backend's options is what this Triton's CUDAOptions and
// HIPOptions have: an option passed to the other backend's Triton would fail there.
TEST(PerTarget, EachBackendsOptionsAreItsTritonOptionsFields) {
  fs::path dir = freshDir("per_target", "option_fields");
  RunResult fields = run(testPython(),
                         {"-c",
                          "import dataclasses\n"
                          "from triton.backends.nvidia.compiler import CUDAOptions\n"
                          "from triton.backends.amd.compiler import HIPOptions\n"
                          "for name, options in (('cuda', CUDAOptions), ('hip', HIPOptions)):\n"
                          "    print(name, ' '.join(f.name for f in dataclasses.fields(options)))\n"},
                         dir);
  ASSERT_EQ(fields.status, 0) << fields.err;
  std::map<std::string, std::set<std::string>> known;
  std::istringstream lines(fields.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string backend, field;
    words >> backend;
    while (words >> field)
      known[backend].insert(field);
  }
  ASSERT_EQ(known.size(), 2u) << fields.out;
  for (std::string_view key :
       {"num_warps", "num_stages", "num_ctas", "maxnreg", "allow_flush_denorm", "debug",
        "default_dot_input_precision", "enable_fp_fusion", "enable_reflect_ftz", "kpack",
        "launch_cooperative_grid", "launch_pdl", "matrix_instr_nonkdim",
        "max_num_imprecise_acc_default", "ptx_options", "sanitize_overflow", "schedule_hint",
        "waves_per_eu"}) {
    ASSERT_TRUE(isTritonOption(key)) << key;
    EXPECT_EQ(backendHasOption(Backend::Cuda, key), known["cuda"].count(std::string(key)) > 0)
        << key;
    EXPECT_EQ(backendHasOption(Backend::Hip, key), known["hip"].count(std::string(key)) > 0)
        << key;
  }
}

} // namespace
} // namespace tta
