// Compiles the real kernels of tests/kernels for cuda:80, cuda:90a and hip:gfx942 through the
// triton-aot-cc binary, and checks every output: metadata against the reader and the JSON
// schema, every image with LLVM's Object library and (where the toolkit is here) cuobjdump.
#include "cli_runner.h"
#include "contract/image_info.h"
#include "contract/metadata.h"
#include "contract/sha256.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::listFiles;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testTritonVersion;

namespace tta {
namespace {

const std::vector<std::string> kTargets = {"-t", "cuda:80", "-t", "cuda:90a", "-t", "hip:gfx942"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

RunResult compile(const std::vector<std::string> &args, const fs::path &dir) {
  return runCompiler(args, dir);
}

/// Every metadata file in \p dir, parsed and checked against its images.
std::vector<KernelMetadata> checkOutputs(const fs::path &dir) {
  std::vector<KernelMetadata> all;
  for (const std::string &file : listFiles(dir, ".triton-aot-cache")) {
    if (fs::path(file).extension() != ".json" || file == "index.json")
      continue;
    SCOPED_TRACE(file);
    auto json = nlohmann::json::parse(readText(dir / file), nullptr, false);
    EXPECT_FALSE(json.is_discarded());
    auto meta = parseMetadata(json);
    EXPECT_TRUE(meta) << (meta ? "" : meta.error().message);
    if (!meta)
      continue;

    // JSON Schema, with the jsonschema package of the configured (development) environment:
    // the other Triton versions' environments have Triton alone.
    RunResult schema = run(TTA_PYTHON,
                           {"-c",
                            "import json, sys, jsonschema; "
                            "jsonschema.validate(json.load(open(sys.argv[1])), "
                            "json.load(open(sys.argv[2])))",
                            (dir / file).string(), TTA_SCHEMA},
                           dir);
    EXPECT_EQ(schema.status, 0) << schema.err;

    EXPECT_EQ(meta->launch.block[0], meta->launch.numWarps * meta->launch.warpSize);
    EXPECT_FALSE(meta->images.empty());
    for (const ImageFile &image : meta->images) {
      std::string bytes = readText(dir / image.file);
      EXPECT_EQ(bytes.size(), image.size) << image.file;
      EXPECT_EQ(sha256Hex(bytes), image.sha256) << image.file;
      if (image.kind == "ptx") {
        EXPECT_NE(bytes.find(".target " + meta->imageArch), std::string::npos);
        continue;
      }
      auto info = inspectImage(std::span(reinterpret_cast<const std::uint8_t *>(bytes.data()),
                                         bytes.size()));
      EXPECT_TRUE(info) << (info ? "" : info.error().message);
      if (!info)
        continue;
      EXPECT_EQ(info->machine, meta->target.backend == Backend::Cuda ? 190 : 224);
      Status matches = checkImageMatchesTarget(*info, meta->target);
      EXPECT_TRUE(matches) << (matches ? "" : matches.error().message);
      EXPECT_TRUE(info->kernels.count(meta->launch.entry)) << meta->launch.entry;

      std::string cuobjdump = TTA_CUOBJDUMP;
      if (image.kind == "cubin" && !cuobjdump.empty() && fs::exists(cuobjdump)) {
        RunResult elf = run(cuobjdump, {"-elf", (dir / image.file).string()}, dir);
        EXPECT_EQ(elf.status, 0) << elf.err;
        RunResult usage = run(cuobjdump, {"--dump-resource-usage", (dir / image.file).string()}, dir);
        EXPECT_EQ(usage.status, 0) << usage.err;
        std::smatch regs;
        bool found = std::regex_search(usage.out, regs, std::regex("REG:([0-9]+)"));
        EXPECT_TRUE(found) << usage.out;
        EXPECT_TRUE(meta->resources.registers.has_value());
        if (found && meta->resources.registers) {
          EXPECT_EQ(*meta->resources.registers, std::stoi(regs[1]));
        }
      }
    }
    all.push_back(std::move(*meta));
  }
  return all;
}

const ParamInfo &param(const KernelMetadata &meta, const std::string &name) {
  for (const ParamInfo &p : meta.params)
    if (p.name == name)
      return p;
  throw std::runtime_error("no parameter " + name);
}

TEST(Compile, VectorAddHintVariantsForThreeTargets) {
  fs::path dir = freshDir("compile", "vector_add");
  RunResult r = compile(concat({kernel("vector_add.py"), "-n", "add_kernel", "-s",
                                "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "-s",
                                "*fp32, *fp32, *fp32, i32, 1024", "-s",
                                "*fp32, *fp32, *fp32, i32:1, 1024", "-g",
                                "cdiv(n_elements, 1024), 1, 1", "-o", dir.string() + "/",
                                "--index", (dir / "index.json").string(), "--summary"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 9u);
  auto index = nlohmann::json::parse(readText(dir / "index.json"));
  EXPECT_EQ(index["metadata"].size(), 9u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.name, "add_kernel");
    EXPECT_EQ(m.tritonVersion, testTritonVersion());
    EXPECT_EQ(param(m, "x_ptr").kind, ParamInfo::Kind::Pointer);
    EXPECT_EQ(param(m, "x_ptr").size, 8u);
    EXPECT_EQ(param(m, "BLOCK").kind, ParamInfo::Kind::Constexpr);
    EXPECT_EQ(param(m, "BLOCK").value, 1024);
    const ParamInfo &n = param(m, "n_elements");
    if (n.hint == 1) {
      EXPECT_EQ(n.kind, ParamInfo::Kind::SpecializedToOne);
      EXPECT_EQ(n.size, 0u);
    } else {
      EXPECT_EQ(n.kind, ParamInfo::Kind::Scalar);
      EXPECT_EQ(n.size, 4u);
    }
    // Triton 3.5 and later append two scratch pointers to every kernel.
    ASSERT_GE(m.params.size(), 2u);
    EXPECT_EQ(m.params[m.params.size() - 2].kind, ParamInfo::Kind::GlobalScratch);
    EXPECT_EQ(m.params.back().kind, ParamInfo::Kind::ProfileScratch);
    ASSERT_TRUE(m.grid);
    EXPECT_EQ((*m.grid)[0], "cdiv(n_elements, 1024)");
    EXPECT_EQ(m.launch.numWarps, 4);
    EXPECT_EQ(m.launch.warpSize, m.target.backend == Backend::Cuda ? 32 : 64);
    EXPECT_EQ(m.images.size(), m.target.backend == Backend::Cuda ? 2u : 1u);
  }
  // The summary table lists every variant.
  EXPECT_NE(r.out.find("sm_90a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gfx942"), std::string::npos) << r.out;
}

TEST(Compile, ScalarArgumentsRecordTheirExactWidth) {
  fs::path dir = freshDir("compile", "scalar_args");
  RunResult r = compile(concat({kernel("scalar_args.py"), "-n", "scale_shift_kernel", "-s",
                                "*fp32:16, *fp32:16, fp32, fp16, i64, i1, 256", "-g",
                                "cdiv(n_elements, BLOCK), 1, 1", "-o", dir.string() + "/"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 3u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(param(m, "alpha").size, 4u);
    EXPECT_EQ(param(m, "alpha").type, "fp32");
    EXPECT_EQ(param(m, "beta").size, 2u);
    EXPECT_EQ(param(m, "beta").type, "fp16");
    EXPECT_EQ(param(m, "n_elements").size, 8u);
    EXPECT_EQ(param(m, "use_beta").size, 1u);
  }
}

TEST(Compile, Fp16MatmulWithDotAndConfigs) {
  fs::path dir = freshDir("compile", "matmul");
  RunResult r = compile(
      concat({kernel("matmul_fp16.py"), "-n", "matmul_kernel", "-on", "matmul", "-s",
              "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, "
              "i32:16, i32:1, BLOCK_M, BLOCK_N, BLOCK_K",
              "-g", "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), 1", "--config",
              "name=small BLOCK_M=64 BLOCK_N=64 BLOCK_K=32", "--config",
              "name=wide BLOCK_M=64 BLOCK_N=128 BLOCK_K=32 num_warps=8", "-o", dir.string() + "/"},
             kTargets),
      dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 6u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.name, "matmul");
    EXPECT_GT(m.launch.shared, 0u);
    EXPECT_TRUE(m.variant.config == "small" || m.variant.config == "wide");
    EXPECT_EQ(m.launch.numWarps, m.variant.config == "wide" ? 8 : 4);
    EXPECT_EQ(param(m, "stride_ak").kind, ParamInfo::Kind::SpecializedToOne);
  }
}

TEST(Compile, AConstexprNamedLikeAnOptionTakesTheOptionsValue) {
  fs::path dir = freshDir("compile", "softmax_stages");
  RunResult r = compile(concat({kernel("softmax_stages.py"), "-n", "softmax_stages_kernel", "-s",
                                "*fp32:16, *fp32:16, i32:16, i32, i32, BLOCK, num_stages", "-g",
                                "min(n_rows, 132), 1, 1", "--config", "BLOCK=1024 num_stages=4",
                                "--config", "BLOCK=1024 num_stages=1 num_warps=8", "-o",
                                dir.string() + "/"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 6u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(param(m, "num_stages").kind, ParamInfo::Kind::Constexpr);
    EXPECT_EQ(param(m, "num_stages").value, m.variant.numStages) << "the option and the constexpr agree";
    EXPECT_TRUE(m.variant.numStages == 4 || m.variant.numStages == 1);
  }
}

TEST(Compile, ParametersWithDefaultsMayBeLeftOutOrGivenByName) {
  fs::path dir = freshDir("compile", "defaults");
  // Left out: scale, BLOCK and ADD_ONE compile in as their defaults (2.0, 256, False).
  RunResult r = compile(concat({kernel("defaults.py"), "-n", "scale_rows_kernel", "-on", "left_out", "-s",
                                "*fp32:16, *fp32:16, i32", "-g", "1, 1, 1", "-o", dir.string() + "/"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  // By name, with a config value: scale stays a runtime argument.
  r = compile(concat({kernel("defaults.py"), "-n", "scale_rows_kernel", "-on", "by_name", "-s",
                      "*fp32:16, *fp32:16, i32, fp32, ADD_ONE=True, BLOCK=BLOCK", "--config", "BLOCK=512", "-g",
                      "1, 1, 1", "-o", dir.string() + "/"},
                     kTargets),
              dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 6u);
  for (const KernelMetadata &m : metas) {
    ASSERT_EQ(m.params.size(), 8u) << "six parameters and the two scratch pointers";
    if (m.name == "left_out") {
      EXPECT_EQ(m.variant.signature, "*fp32:16, *fp32:16, i32, 2.0, 256, False");
      EXPECT_EQ(param(m, "scale").kind, ParamInfo::Kind::Constexpr);
      EXPECT_EQ(param(m, "BLOCK").value, 256);
    } else {
      EXPECT_EQ(m.variant.signature, "*fp32:16, *fp32:16, i32, fp32, 512, True");
      EXPECT_EQ(param(m, "scale").kind, ParamInfo::Kind::Scalar);
      EXPECT_EQ(param(m, "ADD_ONE").value, true);
    }
  }
  // A served rerun gives the same metadata (the defaults come from the cached describe answer).
  r = compile(concat({kernel("defaults.py"), "-n", "scale_rows_kernel", "-on", "left_out", "-s",
                      "*fp32:16, *fp32:16, i32", "-g", "1, 1, 1", "-o", dir.string() + "/", "-v"},
                     kTargets),
              dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cache hit"), std::string::npos) << r.err;
  EXPECT_EQ(checkOutputs(dir).size(), 6u);
}

TEST(Compile, KernelAbove48KiBOfSharedMemory) {
  fs::path dir = freshDir("compile", "big_shared");
  RunResult r = compile(concat({kernel("big_shared.py"), "-n", "big_shared_kernel", "-s",
                                "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16",
                                "-g", "cdiv(M, 128), cdiv(N, 128), 1", "-w", "8", "-o",
                                dir.string() + "/"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 3u);
  for (const KernelMetadata &m : metas) {
    if (m.target.backend == Backend::Cuda) {
      EXPECT_GT(m.launch.shared, 48u * 1024) << m.target.spelling();
    }
  }
}

TEST(Compile, EveryConstexprKindAndTargetSpelling) {
  fs::path dir = freshDir("compile", "constexpr_kinds");
  RunResult r = compile({kernel("constexpr_kinds.py"), "-n", "constexpr_kinds_kernel", "-s",
                         "*fp32:16, *fp32:16, i32, tl.float16, True, -0.5, 'double', -3, 128",
                         "-g", "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80:32", "-t",
                         "hip:gfx90a:xnack-", "-o", dir.string() + "/"},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(dir);
  ASSERT_EQ(metas.size(), 2u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(param(m, "DTYPE").valueText, "tl.float16");
    EXPECT_EQ(param(m, "FLIP").value, true);
    EXPECT_EQ(param(m, "SCALE").value, -0.5);
    EXPECT_EQ(param(m, "MODE").value, "double");
    EXPECT_EQ(param(m, "MODE").valueText, "'double'");
    EXPECT_EQ(param(m, "OFFSET").value, -3);
    if (m.target.backend == Backend::Cuda) {
      EXPECT_EQ(m.target.spelling(), "cuda:80");   // upstream's warp-size field is dropped
    } else {
      EXPECT_EQ(m.target.spelling(), "hip:gfx90a:xnack-");
      EXPECT_EQ(m.imageArch, "gfx90a");
    }
  }
}

TEST(Compile, FrontendNeverImportsTorch) {
  // A torch that refuses to be imported: compiling must not notice it (upstream compile.py
  // spends most of its start-up importing torch, and needs a GPU driver).
  fs::path dir = freshDir("compile", "no_torch");
  fs::create_directories(dir / "poison/torch");
  std::ofstream(dir / "poison/torch/__init__.py")
      << "raise RuntimeError('triton-aot-cc must not import torch')\n";   // not even tried
  RunResult r = run(TTA_COMPILER,
                    concat({"--python", testPython(), kernel("vector_add.py"), "-n", "add_kernel",
                            "-s", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "-g",
                            "cdiv(n_elements, 1024), 1, 1", "--no-cache", "-o",
                            dir.string() + "/out/"},
                           kTargets),
                    dir, {"PYTHONPATH=" + (dir / "poison").string(), "CUDA_VISIBLE_DEVICES="});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(checkOutputs(dir / "out").size(), 3u);
}

/// Whether the Triton under test builds \p target, by release (what each wheel's ptxas knows),
/// written out here to check the frontend's own probing of ptxas against it.
bool tritonBuilds(const std::string &target) {
  const std::string &v = testTritonVersion();
  auto atLeast = [&](int minor) { return v.rfind("3.", 0) == 0 && std::stoi(v.substr(2)) >= minor; };
  if (target == "cuda:103a" || target == "cuda:121a" || target == "hip:gfx1250")
    return atLeast(6);
  if (target == "cuda:110a")
    return atLeast(7);
  if (target == "cuda:101a")
    return !atLeast(7);  // CUDA 13's ptxas calls it sm_110a
  if (target == "cuda:107a")
    return atLeast(9);
  return true;
}

TEST(Compile, NewestTargetsAsTheVersionAllows) {
  const std::vector<std::string> targets = {"cuda:100a", "cuda:101a", "cuda:103a", "cuda:107a",
                                            "cuda:110a", "cuda:120a", "cuda:121a", "hip:gfx950",
                                            "hip:gfx1200", "hip:gfx1201", "hip:gfx1250"};
  for (const std::string &target : targets) {
    SCOPED_TRACE(target + " with Triton " + testTritonVersion());
    fs::path dir = freshDir("compile", "newest/" + target.substr(target.find(':') + 1));
    RunResult r = compile({kernel("vector_add.py"), "-n", "add_kernel", "-s",
                           "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "-g",
                           "cdiv(n_elements, 1024), 1, 1", "-t", target, "-o", dir.string() + "/"},
                          dir);
    if (!tritonBuilds(target)) {
      EXPECT_EQ(r.status, 2) << r.err;
      EXPECT_NE(r.err.find("Triton " + testTritonVersion() + " cannot build " + target), std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("note: "), std::string::npos) << r.err;
      EXPECT_TRUE(listFiles(dir, ".triton-aot-cache").empty());   // no output; the cache may have learned
      continue;
    }
    ASSERT_EQ(r.status, 0) << r.err;
    auto metas = checkOutputs(dir);
    ASSERT_EQ(metas.size(), 1u);
    // The image, read with LLVM's Object library: machine, arch and features of the target.
    auto bytes = readText(dir / metas[0].images[0].file);
    auto info = inspectImage({reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size()});
    ASSERT_TRUE(info) << info.error().message;
    EXPECT_TRUE(checkImageMatchesTarget(*info, metas[0].target));
    if (target.rfind("cuda:", 0) == 0) {
      EXPECT_EQ(info->backend, Backend::Cuda);
      EXPECT_EQ(info->arch, "sm_" + target.substr(5));
      EXPECT_EQ(info->smVersion, std::stoi(target.substr(5)));
      EXPECT_TRUE(info->archSpecific);
      EXPECT_EQ(metas[0].imageArch, info->arch);
    } else {
      EXPECT_EQ(info->backend, Backend::Hip);
      EXPECT_EQ(info->arch, target.substr(4));
      EXPECT_EQ(info->xnack, 0);  // built for "any": runs with either setting
      EXPECT_EQ(metas[0].launch.warpSize, target.rfind("hip:gfx9", 0) == 0 ? 64 : 32);  // CDNA / RDNA
    }
  }
}

TEST(Compile, GluonKernel) {
  // Gluon is experimental and its language changes between releases: the kernel is written for
  // 3.6 and later (gl.num_warps() does not exist in 3.5).
  if (testTritonVersion().rfind("3.5.", 0) == 0)
    GTEST_SKIP() << "gluon_add.py uses gl.num_warps(), which Triton " << testTritonVersion()
                 << "'s Gluon lacks";
  fs::path dir = freshDir("compile", "gluon");
  RunResult cuda = compile({kernel("gluon_add.py"), "-n", "gluon_add_kernel", "-s",
                            "*fp32:16, *fp32:16, *fp32:16, i32, 1024, 32", "-g",
                            "cdiv(n_elements, BLOCK), 1, 1", "-t", "cuda:80", "-t", "cuda:90a",
                            "-o", dir.string() + "/"},
                           dir);
  ASSERT_EQ(cuda.status, 0) << cuda.err;
  // AMD's gfx9 wavefronts have 64 lanes, and a Gluon layout names the warp size.
  RunResult hip = compile({kernel("gluon_add.py"), "-n", "gluon_add_kernel", "-s",
                           "*fp32:16, *fp32:16, *fp32:16, i32, 1024, 64", "-g",
                           "cdiv(n_elements, BLOCK), 1, 1", "-t", "hip:gfx942", "-o",
                           dir.string() + "/"},
                          dir);
  ASSERT_EQ(hip.status, 0) << hip.err;
  EXPECT_EQ(checkOutputs(dir).size(), 3u);
}

TEST(Compile, TtgirAndTtirFilesFromEmitIr) {
  fs::path dir = freshDir("compile", "ttgir");
  fs::path ir = dir / "ir";
  RunResult first = compile(concat({kernel("vector_add.py"), "-n", "add_kernel", "-s",
                                    "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "-g",
                                    "cdiv(n_elements, 1024), 1, 1", "-o",
                                    (dir / "from_py").string() + "/", "--emit-ir", ir.string()},
                                   kTargets),
                            dir);
  ASSERT_EQ(first.status, 0) << first.err;
  for (const char *tag : {"sm80", "sm90a", "gfx942"}) {
    SCOPED_TRACE(tag);
    fs::path ttgir;
    for (const std::string &file : listFiles(ir))
      if (file.find(std::string(".") + tag + ".") != std::string::npos &&
          fs::path(file).extension() == ".ttgir")
        ttgir = ir / file;
    ASSERT_FALSE(ttgir.empty());
    std::string target = std::string(tag) == "gfx942" ? "hip:gfx942"
                         : std::string(tag) == "sm80" ? "cuda:80"
                                                      : "cuda:90a";
    fs::path out = dir / (std::string("from_ttgir_") + tag);
    RunResult r = compile({ttgir.string(), "-g", "cdiv(n_elements, 1024), 1, 1", "-t", target,
                           "-on", "add_ir", "-o", out.string() + "/"},
                          dir);
    ASSERT_EQ(r.status, 0) << r.err;
    auto metas = checkOutputs(out);
    ASSERT_EQ(metas.size(), 1u);
    EXPECT_EQ(metas[0].sourceKind, "ttgir");
    EXPECT_EQ(metas[0].name, "add_ir");
    EXPECT_EQ(param(metas[0], "n_elements").kind, ParamInfo::Kind::Scalar);
    EXPECT_EQ(param(metas[0], "x_ptr").hint, 16);
  }
  // A .ttir is target-neutral: one file compiles for every target.
  fs::path ttir;
  for (const std::string &file : listFiles(ir))
    if (fs::path(file).extension() == ".ttir")
      ttir = ir / file;
  ASSERT_FALSE(ttir.empty());
  fs::path out = dir / "from_ttir";
  RunResult r = compile(concat({ttir.string(), "-g", "cdiv(n_elements, 1024), 1, 1", "-w", "4",
                                "-o", out.string() + "/"},
                               kTargets),
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto metas = checkOutputs(out);
  ASSERT_EQ(metas.size(), 3u);
  for (const KernelMetadata &m : metas) {
    EXPECT_EQ(m.sourceKind, "ttir");
    EXPECT_EQ(m.name, "add_kernel");
    EXPECT_EQ(m.launch.numWarps, 4);
  }
  // A run of IR files only is cached like any other.
  RunResult again = compile(concat({ttir.string(), "-g", "cdiv(n_elements, 1024), 1, 1", "-w", "4",
                                    "-o", out.string() + "/", "-v"},
                                   kTargets),
                            dir);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(testing::occurrences(again.err, "cache hit: "), 3) << again.err;
}

TEST(Compile, UnchangedRerunComesFromTheCacheWithoutPython) {
  fs::path dir = freshDir("compile", "cache");
  fs::copy_file(kernel("vector_add.py"), dir / "vector_add.py");
  std::vector<std::string> args = concat({"vector_add.py", "-n", "add_kernel", "-s",
                                          "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "-g",
                                          "cdiv(n_elements, 1024), 1, 1", "-o", "out/", "-v"},
                                         kTargets);
  RunResult first = compile(args, dir);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("frontend: Triton " + testTritonVersion()), std::string::npos) << first.err;
  auto before = listFiles(dir / "out", ".triton-aot-cache");

  RunResult second = compile(args, dir);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.err.find("frontend:"), std::string::npos) << "started Python: " << second.err;
  EXPECT_NE(second.err.find("cache hit: add_kernel.sm90a."), std::string::npos) << second.err;
  EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache"), before);

  // Editing the kernel invalidates its entries.
  std::string text = readText(dir / "vector_add.py");
  std::ofstream(dir / "vector_add.py") << text << "\n# edited\n";
  RunResult third = compile(args, dir);
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_NE(third.err.find("frontend:"), std::string::npos) << third.err;
}

TEST(Compile, DepfileListsTheKernelAndItsProjectLocalImports) {
  fs::path dir = freshDir("compile", "depfile");
  RunResult r = compile({kernel("kernel_with_import.py"), "-n", "scale_kernel", "-s",
                         "*fp32:16, *fp32:16, i32, 256", "-g", "cdiv(n_elements, 256), 1, 1",
                         "-t", "cuda:80", "-o", dir.string() + "/", "--index",
                         (dir / "scale.index.json").string(), "--depfile",
                         (dir / "scale.d").string()},
                        dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string depfile = readText(dir / "scale.d");
  EXPECT_EQ(depfile.rfind((dir / "scale.index.json").string() + ":", 0), 0u) << depfile;
  EXPECT_NE(depfile.find(kernel("kernel_with_import.py")), std::string::npos) << depfile;
  EXPECT_NE(depfile.find(kernel("kernel_helpers.py")), std::string::npos) << depfile;
  EXPECT_EQ(depfile.find("site-packages"), std::string::npos) << depfile;
}

// A package pip installed with --target into a directory on PYTHONPATH (how a wheel is carried
// to a GPU machine) is installed code: not in the depfile, not re-imported per target; and a
// module registered with a relative __file__ (torch.ops' "_ops.py") names no file.
TEST(Compile, APackageInstalledWithTargetIsNotPartOfTheProject) {
  fs::path dir = freshDir("compile", "pip_target");
  fs::create_directories(dir / "pylib" / "heavypkg");
  fs::create_directories(dir / "pylib" / "heavypkg-1.0.dist-info");
  std::ofstream(dir / "pylib" / "heavypkg-1.0.dist-info" / "METADATA")
      << "Metadata-Version: 2.1\nName: heavypkg\nVersion: 1.0\n";
  std::ofstream(dir / "pylib" / "heavypkg" / "__init__.py")
      << "import sys\nimport types\n\nassert 'heavypkg_imported' not in sys.modules, 'imported twice'\n"
         "sys.modules['heavypkg_imported'] = types.ModuleType('heavypkg_imported')\n"
         "_ops = types.ModuleType('heavypkg._ops')\n_ops.__file__ = '_ops.py'\n"
         "sys.modules['heavypkg._ops'] = _ops\nSCALE = 2.0\n";
  std::ofstream(dir / "scaled.py") << "import triton\nimport triton.language as tl\n\nimport heavypkg\n\n\n"
                                      "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
  RunResult r = runCompiler({"scaled.py", "-n", "k", "-s", "*fp32", "-g", "1", "-t", "cuda:80", "-t",
                             "hip:gfx942", "-o", "out/", "--index", "out/index.json", "--depfile",
                             "out/scaled.d", "-j", "1"},
                            dir, {"PYTHONPATH=" + (dir / "pylib").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string depfile = readText(dir / "out" / "scaled.d");
  EXPECT_NE(depfile.find((dir / "scaled.py").string()), std::string::npos) << depfile;
  EXPECT_EQ(depfile.find("heavypkg"), std::string::npos) << depfile;
  EXPECT_EQ(depfile.find("_ops.py"), std::string::npos) << depfile;
}

TEST(Compile, AKernelInAPackageImportsAsItsModule) {
  fs::path dir = freshDir("compile", "package");
  RunResult r = compile(concat({kernel("fusedops/ops/swiglu.py"), "-n", "swiglu_fwd_kernel", "-s",
                                "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, 1024", "-g", "n_rows, 1, 1",
                                "-o", dir.string() + "/", "--depfile", (dir / "swiglu.d").string(),
                                "--index", (dir / "index.json").string()},
                               {"-t", "cuda:80"}),
                        dir);
  // n_rows is no parameter: the grid is checked once the function is known.
  ASSERT_NE(r.status, 0);
  EXPECT_EQ(r.err.find("relative import"), std::string::npos) << r.err;
  r = compile(concat({kernel("fusedops/ops/swiglu.py"), "-n", "swiglu_fwd_kernel", "-s",
                      "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, 1024", "-g", "1, 1, 1", "-o",
                      dir.string() + "/", "--depfile", (dir / "swiglu.d").string(), "--index",
                      (dir / "index.json").string()},
                     kTargets),
              dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(checkOutputs(dir).size(), 3u);
  // The depfile names the package's modules the kernel imported, and nothing installed.
  std::string depfile = readText(dir / "swiglu.d");
  for (const char *file : {"fusedops/ops/swiglu.py", "fusedops/ops/utils.py", "fusedops/__init__.py",
                           "fusedops/ops/__init__.py"})
    EXPECT_NE(depfile.find(kernel(file)), std::string::npos) << file << "\n" << depfile;
  EXPECT_EQ(depfile.find("site-packages"), std::string::npos) << depfile;
}

TEST(Compile, OutputsAndWarningsDoNotDependOnWhichCompileFinishesFirst) {
  // Outputs are staged as each answer arrives, in whatever order the workers finish; what the
  // run writes and says is collected in declaration order: a build at -j 1 and one at -j 3
  // write the same files, byte for byte, the same index and the same warnings (a config
  // gfx942 refuses once compiled, for its shared memory, among them).
  const fs::path dir = freshDir("compile", "finish_order");
  nlohmann::json spec = {{"targets", {"cuda:80", "cuda:90a", "hip:gfx942"}},
                         {"kernels", nlohmann::json::array()}};
  const char *matmul = "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16";
  spec["kernels"].push_back({{"source", kernel("big_shared.py")},
                             {"function", "big_shared_kernel"},
                             {"signatures", {matmul}},
                             {"configs", {"num_warps=8 num_stages=3", "num_warps=4 num_stages=2"}},
                             {"grid", "cdiv(M, 128), cdiv(N, 128), 1"}});
  spec["kernels"].push_back({{"source", kernel("kernel_with_import.py")},
                             {"function", "scale_kernel"},
                             {"signatures",
                              {"*fp32:16, *fp32:16, i32:16, 256", "*fp32, *fp32, i32, 256"}},
                             {"grid", "cdiv(n_elements, 256), 1, 1"}});
  std::ofstream(dir / "spec.json") << spec.dump(2);
  std::vector<std::string> stderrs;
  for (const char *jobs : {"1", "3"}) {
    const std::string out = std::string("out-j") + jobs;
    RunResult r = compile({"--spec", "spec.json", "-o", out + "/", "-j", jobs, "--no-cache",
                           "--index", out + "/index.json"},
                          dir);
    ASSERT_EQ(r.status, 0) << r.err;
    stderrs.push_back(r.err);
  }
  EXPECT_NE(stderrs[0].find("is not built for hip:gfx942"), std::string::npos) << stderrs[0];
  EXPECT_EQ(stderrs[0], stderrs[1]);
  const std::vector<std::string> files = listFiles(dir / "out-j1");
  ASSERT_EQ(files, listFiles(dir / "out-j3"));
  EXPECT_GT(files.size(), 12u);
  for (const std::string &file : files)
    EXPECT_EQ(readText(dir / "out-j1" / file), readText(dir / "out-j3" / file))
        << file << " differs";
}

TEST(Compile, TheSameBytesFromTwoCheckoutDirectories) {
  // A package kernel with a relative import and Triton's tl.sum (a @jit function of
  // triton/language/standard.py in the venv): no path of either copy, nor of the venv, in the
  // images' line information or the metadata (docs/reproducible.md).
  const fs::path work = freshDir("compile", "two_checkouts");
  std::vector<fs::path> outs;
  for (const fs::path &project : {work / "a" / "project", work / "checkout-b" / "project"}) {
    fs::create_directories(project / "kernels");
    std::ofstream(project / "kernels" / "__init__.py");
    std::ofstream(project / "kernels" / "helpers.py")
        << "import triton\n\n\n@triton.jit\ndef scaled(x, factor):\n    return x * factor\n";
    std::ofstream(project / "kernels" / "row_sum.py")
        << "import triton\nimport triton.language as tl\n\nfrom .helpers import scaled\n\n\n"
           "@triton.jit\ndef row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):\n"
           "    offsets = tl.arange(0, BLOCK)\n"
           "    x = tl.load(x_ptr + offsets, mask=offsets < n_cols, other=0.0)\n"
           "    tl.store(out_ptr, tl.sum(scaled(x, 2.0), axis=0))\n";
    // Files of another checkout have other times (Triton 3.6's ptxas recorded the time of each
    // source it could open from its working directory).
    if (outs.size() == 1)
      for (const char *file : {"kernels/row_sum.py", "kernels/helpers.py"})
        fs::last_write_time(project / file, fs::last_write_time(project / file) - std::chrono::hours(1));
    RunResult r = compile({"kernels/row_sum.py", "-n", "row_sum", "-s", "*fp32:16, *fp32:16, i32, 256",
                           "-g", "1", "-t", "cuda:90a", "-o", "out/", "--no-cache"},
                          project);
    ASSERT_EQ(r.status, 0) << r.err;
    outs.push_back(project / "out");
  }
  const std::vector<std::string> files = listFiles(outs[0]);
  ASSERT_EQ(files, listFiles(outs[1]));
  ASSERT_EQ(files.size(), 3u); // cubin, ptx, metadata
  std::string prefix = run(testPython(), {"-c", "import sys; print(sys.prefix, end='')"}, work).out;
  for (const std::string &file : files) {
    const std::string bytes = readText(outs[0] / file);
    EXPECT_EQ(bytes, readText(outs[1] / file)) << file << " differs";
    for (const std::string &path : {work.string(), prefix, fs::canonical(prefix).string()})
      EXPECT_EQ(bytes.find(path), std::string::npos) << file << " names " << path;
    if (file.ends_with(".ptx")) {
      EXPECT_NE(bytes.find("\"kernels/row_sum.py\""), std::string::npos) << bytes;
      EXPECT_NE(bytes.find("\"kernels/helpers.py\""), std::string::npos) << bytes;
      EXPECT_NE(bytes.find("\"triton/language/standard.py\""), std::string::npos) << bytes;
    }
    if (file.ends_with(".json")) {
      EXPECT_NE(bytes.find("\"source\": \"kernels/row_sum.py\""), std::string::npos) << bytes;
    }
  }

  // A map of the root: absolute names a profiler on another machine can open.
  const fs::path project = work / "a" / "project";
  RunResult mapped = compile({"kernels/row_sum.py", "-n", "row_sum", "-s",
                              "*fp32:16, *fp32:16, i32, 256", "-g", "1", "-t", "cuda:90a", "-o",
                              "mapped/", "--no-cache", "--file-prefix-map",
                              project.string() + "=/opt/mylib"},
                             project);
  ASSERT_EQ(mapped.status, 0) << mapped.err;
  for (const std::string &file : listFiles(project / "mapped")) {
    if (file.ends_with(".ptx")) {
      EXPECT_NE(readText(project / "mapped" / file).find("\"/opt/mylib/kernels/row_sum.py\""),
                std::string::npos);
    }
  }
}

} // namespace
} // namespace tta
