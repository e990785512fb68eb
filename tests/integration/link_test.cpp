// triton-aot-ld on real kernels: several kernels, configs and hint variants (":1" with and
// without a generic fallback, float and negative constexprs) for cuda:80, cuda:90a and
// hip:gfx942 in one library; the generated C compiled with gcc and clang and run (without a
// GPU: dispatch, config bounds, empty grids); --inspect; and every failure through the CLI.
#include "cli_runner.h"
#include "contract/metadata.h"
#include "linker/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <system_error>

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tta::testing::cCompilers;
using tta::testing::freshDir;
using tta::testing::keyedLines;
using tta::testing::listFiles;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testTritonVersion;
using tta::testing::testWorkDir;

namespace tta::link {
namespace {

// CTest runs each test in its own process, several at once: every process gets its own
// directories (freshDir), and only the compile cache (safe to share) is common to them.

void writeText(const fs::path &path, const std::string &text) { std::ofstream(path) << text; }

RunResult ld(const std::vector<std::string> &args, const fs::path &dir) {
  return run(TTA_LINKER, args, dir);
}

std::vector<std::string> outputsIn(const fs::path &dir, const std::string &name) {
  std::vector<std::string> found;
  if (fs::exists(dir))
    for (const auto &entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().rfind(name + ".", 0) == 0)
        found.push_back(entry.path().filename().string());
  std::sort(found.begin(), found.end());
  return found;
}

const std::vector<std::string> kOutputs = {"kern.c", "kern.h", "kern.images", "kern.images.S", "kern.json"};

/// Compiles the kernels once for every test of the suite.
class Link : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (compiled_)
      return;   // once for Link and LinkErrors together
    compiled_ = true;
    cc_ = freshDir("link", "cc");
    const std::string k = TTA_KERNELS_DIR;
    nlohmann::json spec = {
        {"targets", {"cuda:80", "cuda:90a", "hip:gfx942"}},
        {"kernels",
         {{{"source", k + "/vector_add.py"},
           {"function", "add_kernel"},
           // ":1" with a generic fallback, and two configs (one named).
           {"signatures",
            {"*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK", "*fp32, *fp32, *fp32, i32:1, BLOCK",
             "*fp32, *fp32, *fp32, i32, BLOCK"}},
           {"configs", {"BLOCK=1024", "name=small BLOCK=256 num_warps=2"}},
           {"grid", {"cdiv(n_elements, BLOCK)", "1", "1"}}},
          {{"source", k + "/scalar_args.py"},
           {"function", "scale_shift_kernel"},
           {"name", "scale_shift"},
           // ":1" without a generic fallback.
           {"signatures",
            {"*fp32:16, *fp32:16, fp32, fp16, i64:16, i1, 128",
             "*fp32:16, *fp32:16, fp32, fp16, i64:1, i1, 128"}},
           {"grid", {"cdiv(n_elements, 128)", "1", "1"}}},
          {{"source", k + "/constexpr_kinds.py"},
           {"function", "constexpr_kinds_kernel"},
           // Float and negative constexprs (upstream link.py defect 12).
           {"signatures", {"*fp32:16, *fp32:16, i32, tl.float16, True, SCALE, 'double', OFFSET, 128"}},
           {"configs", {"SCALE=-0.5 OFFSET=-3", "SCALE=0.25 OFFSET=7"}},
           {"grid", {"cdiv(n_elements, BLOCK)", "1", "1"}}},
          {{"source", k + "/matmul_fp16.py"},
           {"function", "matmul_kernel"},
           {"name", "matmul"},
           // The ":1" strides are ":1" in every variant: not in the API.
           {"signatures",
            {"*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, "
             "i32:1, BLOCK_M, BLOCK_N, BLOCK_K"}},
           {"configs", {"name=small BLOCK_M=64 BLOCK_N=64 BLOCK_K=32"}},
           {"grid", {"cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"}}}}}};
    writeText(cc_ / "spec.json", spec.dump(2));
    RunResult r = runCompiler({"--spec", "spec.json", "-o", "./", "--index",
                       "index.json", "--cache-dir",
                       (testWorkDir() / "link" / "cache").string()},
                      cc_);
    compileError_ = r.status == 0 ? "" : "triton-aot-cc failed (" + std::to_string(r.status) + "):\n" + r.err;
  }

  void SetUp() override { ASSERT_EQ(compileError_, ""); }

  /// Links the index into \p dir as "kern"; returns the run.
  static RunResult linkAll(const fs::path &dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--name", "kern", "-o", dir.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back((cc_ / "index.json").string());
    return ld(args, dir);
  }

  static std::vector<std::string> indexed() {
    std::vector<std::string> files;
    const nlohmann::json index = nlohmann::json::parse(readText(cc_ / "index.json"));
    for (const auto &f : index["metadata"])
      files.push_back((cc_ / f.get<std::string>()).string());
    return files;
  }

  static inline bool compiled_ = false;
  static inline fs::path cc_;
  static inline std::string compileError_;
};

TEST_F(Link, SeveralKernelsConfigsVariantsAndTargetsInOneLibrary) {
  fs::path out = freshDir("link", "all");
  RunResult r = linkAll(out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(outputsIn(out, "kern"), kOutputs);

  auto manifest = parseLibraryManifest(nlohmann::json::parse(readText(out / "kern.json")));
  ASSERT_TRUE(manifest) << manifest.error().message;
  ASSERT_EQ(manifest->kernels.size(), 4u);
  std::map<std::string, const ManifestKernel *> kernels;
  for (const ManifestKernel &k : manifest->kernels) {
    kernels[k.name] = &k;
    EXPECT_THAT(k.targets, ElementsAre("cuda:80", "cuda:90a", "hip:gfx942")) << k.name;
  }
  EXPECT_EQ(manifest->kernels[0].name, "add_kernel");   // order of first appearance

  const ManifestKernel &add = *kernels.at("add_kernel");
  ASSERT_EQ(add.configs.size(), 2u);
  EXPECT_EQ(add.configs[0].name, "BLOCK=1024,num_warps=4");
  EXPECT_EQ(add.configs[1].name, "small");
  for (const ManifestConfig &c : add.configs) {
    ASSERT_EQ(c.variants.size(), 3u);
    EXPECT_EQ(variantHintsText(c.variants[0]), "x_ptr:16, y_ptr:16, out_ptr:16, n_elements:16");
    EXPECT_EQ(variantHintsText(c.variants[1]), "n_elements:1");
    EXPECT_EQ(variantHintsText(c.variants[2]), "no hints");   // the generic fallback, last
  }
  const ManifestKernel &scale = *kernels.at("scale_shift");
  ASSERT_EQ(scale.configs.size(), 1u);
  ASSERT_EQ(scale.configs[0].variants.size(), 2u);   // no generic variant
  EXPECT_EQ(variantHintsText(scale.configs[0].variants[1]), "x_ptr:16, out_ptr:16, n_elements:1");
  const ManifestKernel &kinds = *kernels.at("constexpr_kinds_kernel");
  ASSERT_EQ(kinds.configs.size(), 2u);
  EXPECT_THAT(kinds.configs[0].name, HasSubstr("SCALE=-0.5,MODE='double',OFFSET=-3"));
  EXPECT_THAT(kinds.configs[1].name, HasSubstr("SCALE=0.25,MODE='double',OFFSET=7"));
  std::vector<std::string> matmulParams;
  for (const ManifestParam &p : kernels.at("matmul")->params)
    matmulParams.push_back(p.name);
  EXPECT_THAT(matmulParams, ElementsAre("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am",
                                        "stride_bk", "stride_cm"));

  // Every function's figures are the image's, as the compiler also read them.
  std::map<std::string, KernelMetadata> metadata;
  for (const std::string &file : indexed()) {
    auto meta = parseMetadata(nlohmann::json::parse(readText(file)));
    ASSERT_TRUE(meta);
    metadata[meta->variant.id] = *meta;
  }
  std::size_t functions = 0;
  for (const ManifestKernel &k : manifest->kernels)
    for (const ManifestConfig &c : k.configs)
      for (const ManifestVariant &v : c.variants)
        for (const ManifestFunction &f : v.functions) {
          ++functions;
          const KernelMetadata &m = metadata.at(f.variantId);
          EXPECT_EQ(f.target, m.target.spelling());
          EXPECT_EQ(f.resources, m.resources) << f.variantId;
          EXPECT_EQ(f.launch, m.launch) << f.variantId;
          EXPECT_EQ(f.image.rawSize, m.images[0].size);
          EXPECT_EQ(f.image.sha256, m.images[0].sha256);
          EXPECT_EQ(f.ptx.has_value(), m.target.backend == Backend::Cuda);
        }
  EXPECT_EQ(functions, metadata.size());

  // The manifest is also embedded (what <prefix>_manifest() returns), and the blob is named
  // by absolute path.
  std::string text = readText(out / "kern.json");
  text.pop_back();
  EXPECT_NE(readText(out / "kern.images").find(text + '\0'), std::string::npos);
  EXPECT_THAT(readText(out / "kern.images.S"), HasSubstr((out / "kern.images").string()));
  // Prototypes as C reads them: line breaks and indentation are the generator's business.
  std::string header = std::regex_replace(readText(out / "kern.h"), std::regex("\\s+"), " ");
  EXPECT_THAT(header, HasSubstr("float alpha, uint16_t beta, int64_t n_elements, bool use_beta"));
  std::size_t matmul = header.find("kern_matmul(void *stream");
  ASSERT_NE(matmul, std::string::npos);
  std::string prototype = header.substr(matmul, header.find(';', matmul) - matmul);
  EXPECT_THAT(prototype, HasSubstr("int32_t stride_am, int32_t stride_bk"));
  EXPECT_THAT(prototype, ::testing::Not(HasSubstr("stride_ak")));   // ":1" everywhere: left out
}

/// A C program using two libraries of the same kernels (different prefixes), built with \p cc.
RunResult buildAndRunProgram(const fs::path &dir, const std::string &cc) {
  const std::string program = R"(#include "kern.h"
#include "other.h"
#include <stdio.h>
#include <string.h>
int main(void) {
  static float buffer[64] __attribute__((aligned(16)));
  const char *bytes = (const char *)buffer;
  printf("count %d %d\n", kern_add_kernel_config_count(), other_add_kernel_config_count());
  printf("name0 %s\n", kern_add_kernel_config_name(0));
  printf("name1 %s\n", kern_add_kernel_config_name(1));
  printf("name2 %s\n", kern_add_kernel_config_name(2) ? "set" : "NULL");
  printf("name-1 %s\n", kern_add_kernel_config_name(-1) ? "set" : "NULL");
  printf("version %s\n", kern_version());
  printf("manifest %zu\n", strlen(kern_manifest()));
  /* An empty grid launches nothing and succeeds, with or without a GPU. */
  printf("empty %d\n", (int)kern_add_kernel(NULL, buffer, buffer, buffer, 0));
  /* Config bounds are checked by count. */
  printf("config2 %d\n", (int)kern_add_kernel_config(NULL, 2, buffer, buffer, buffer, 64));
  printf("config-1 %d\n", (int)kern_add_kernel_config(NULL, -1, buffer, buffer, buffer, 64));
  /* No generic variant: n = 3 is neither divisible by 16 nor 1. */
  printf("nofit %d %s\n", (int)kern_scale_shift(NULL, buffer, buffer, 1.0f, 0, 3, true), kern_last_error());
  printf("misaligned %d\n", (int)kern_scale_shift(NULL, bytes + 4, buffer, 1.0f, 0, 16, true));
  printf("other %d\n", (int)other_add_kernel(NULL, buffer, buffer, buffer, 0));
  return 0;
}
)";
  writeText(dir / "main.c", program);
  std::vector<std::string> args = {"-std=c11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
                                   "-I", (dir / "kern").string(), "-I", (dir / "other").string(),
                                   "-I", TTA_RUNTIME_INCLUDE, "main.c"};
  for (const char *lib : {"kern", "other"})
    for (const char *suffix : {".c", ".images.S"})
      args.push_back((dir / lib / (std::string(lib) + suffix)).string());
  for (const std::string &a : {std::string(TTA_RUNTIME_LIBRARY), std::string("-ldl"),
                               std::string("-lpthread"), std::string("-o"), std::string("program")})
    args.push_back(a);
  RunResult built = run(cc, args, dir);
  if (built.status != 0)
    return built;
  return run((dir / "program").string(), {}, dir);
}

TEST_F(Link, GeneratedCodeCompilesWithGccAndClangAndDispatches) {
  fs::path dir = freshDir("link", "program");
  fs::create_directories(dir / "kern");
  ASSERT_EQ(linkAll(dir / "kern").status, 0);
  RunResult other = ld({"--name", "other", "-o", (dir / "other").string(), "--compress",
                        (cc_ / "index.json").string()},
                       dir);
  ASSERT_EQ(other.status, 0) << other.err;

  const std::vector<std::string> compilers = cCompilers();
  ASSERT_FALSE(compilers.empty());
  for (const std::string &cc : compilers) {
    SCOPED_TRACE(cc);
    RunResult r = buildAndRunProgram(dir, cc);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    auto got = keyedLines(r.out);
    EXPECT_EQ(got["count"], "2 2");
    EXPECT_EQ(got["name0"], "BLOCK=1024,num_warps=4");
    EXPECT_EQ(got["name1"], "small");
    EXPECT_EQ(got["name2"], "NULL");
    EXPECT_EQ(got["name-1"], "NULL");
    EXPECT_EQ(got["version"], "0.1.0");
    EXPECT_EQ(got["manifest"], std::to_string(readText(dir / "kern/kern.json").size() - 1));
    EXPECT_EQ(got["empty"], "0");
    EXPECT_EQ(got["config2"], "6");    // TRITON_AOT_ERROR_INVALID_ARGUMENT
    EXPECT_EQ(got["config-1"], "6");
    EXPECT_THAT(got["nofit"], ::testing::StartsWith("6 "));
    EXPECT_THAT(got["nofit"], HasSubstr("n_elements"));
    EXPECT_EQ(got["misaligned"], "6");
    EXPECT_EQ(got["other"], "0");
  }

  // The header is also C++.
  writeText(dir / "use.cpp", "#include \"kern.h\"\n#include \"other.h\"\n"
                             "#include <triton_aot/runtime.h>\nint main() { return kern_add_kernel_config_count(); }\n");
  RunResult cxx = run(TTA_CXX_COMPILER,
                      {"-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I",
                       (dir / "kern").string(), "-I", (dir / "other").string(), "-I",
                       TTA_RUNTIME_INCLUDE, "use.cpp"},
                      dir);
  EXPECT_EQ(cxx.status, 0) << cxx.err;
}

TEST_F(Link, InspectTablesTheLibraryAndImages) {
  fs::path out = freshDir("link", "inspect");
  ASSERT_EQ(linkAll(out).status, 0);
  RunResult r = ld({"--inspect", (out / "kern.json").string()}, out);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(line);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], "library kern (prefix kern): 4 kernels, 6 configs, 33 functions, 3 targets; "
                     "Triton " + testTritonVersion());
  EXPECT_THAT(rows[1], ::testing::MatchesRegex(
                           "kernel +config +variant +target +regs +spills +shared +static +bytes"));
  EXPECT_EQ(rows.size(), 2u + 33u);
  EXPECT_THAT(r.out, ::testing::ContainsRegex("matmul +small +a_ptr:16, b_ptr:16, c_ptr:16, "
                                               "stride_am:16, stride_bk:16, stride_cm:16 +cuda:90a +[0-9]+ +0 +[0-9]+"));

  for (std::string ext : {".cubin", ".hsaco"}) {
    std::string image;
    for (const std::string &f : listFiles(cc_, ".triton-aot-cache"))
      if (fs::path(f).extension() == ext && f.rfind("add_kernel", 0) == 0)
        image = f;
    ASSERT_FALSE(image.empty());
    RunResult img = ld({"--inspect", (cc_ / image).string()}, out);
    ASSERT_EQ(img.status, 0) << img.err;
    EXPECT_THAT(img.out, ::testing::ContainsRegex(ext == ".cubin" ? "add_kernel +sm_(80|90a) +[0-9]+"
                                                                  : "add_kernel +gfx942 +[0-9]+ +[0-9]+"));
  }
  RunResult bad = ld({"--inspect", (cc_ / "spec.json").string()}, out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("not a triton-aot library manifest"));
}

TEST_F(Link, CompressedWithoutPtx) {
  fs::path plain = freshDir("link", "plain"), small = freshDir("link", "small");
  ASSERT_EQ(linkAll(plain).status, 0);
  RunResult r = linkAll(small, {"--compress", "--compress-level", "19", "--no-ptx", "-v"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("triton-aot-ld: read 33 metadata files: 4 kernels"));
  auto manifest = parseLibraryManifest(nlohmann::json::parse(readText(small / "kern.json")));
  ASSERT_TRUE(manifest);
  std::size_t compressed = 0;
  for (const ManifestKernel &k : manifest->kernels)
    for (const ManifestConfig &c : k.configs)
      for (const ManifestVariant &v : c.variants)
        for (const ManifestFunction &f : v.functions) {
          EXPECT_FALSE(f.ptx);
          compressed += f.image.compressed;
          if (f.image.compressed) {
            EXPECT_LT(f.image.storedSize, f.image.rawSize);
          }
        }
  EXPECT_GT(compressed, 0u);
  EXPECT_LT(fs::file_size(small / "kern.images"), fs::file_size(plain / "kern.images") / 2);
}

// ---------------------------------------------------------------------------------------------
// Failures: exit status, message, and no outputs left (not even those of an earlier link).

class LinkErrors : public Link {
protected:
  /// Links \p inputs into a directory holding a good library from before; expects \p status,
  /// \p message on stderr, and no kern.* file left.
  void expectFailure(const std::vector<std::string> &args, int status, const std::string &message) {
    fs::path out = freshDir("link", "errors");
    ASSERT_EQ(linkAll(out).status, 0);
    ASSERT_EQ(outputsIn(out, "kern").size(), 5u);
    RunResult r = ld(args, out);
    EXPECT_EQ(r.status, status) << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(outputsIn(out, "kern"), ::testing::IsEmpty()) << r.err;
    EXPECT_EQ(r.out, "");
  }
  std::vector<std::string> linkArgs(const std::vector<std::string> &inputs) {
    std::vector<std::string> args = {"--name", "kern", "-o", "."};
    args.insert(args.end(), inputs.begin(), inputs.end());
    return args;
  }
};

TEST_F(LinkErrors, StaleImage) {
  fs::path copy = freshDir("link", "stale");
  for (const std::string &f : listFiles(cc_, ".triton-aot-cache"))
    fs::copy_file(cc_ / f, copy / f);
  std::string cubin;
  for (const std::string &f : listFiles(copy))
    if (fs::path(f).extension() == ".cubin")
      cubin = f;
  std::ofstream(copy / cubin, std::ios::app) << "x";
  expectFailure(linkArgs({(copy / "index.json").string()}), 2,
                "error: image '" + (copy / cubin).string() + "' has ");
}

TEST_F(LinkErrors, MissingTarget) {
  std::vector<std::string> inputs;
  std::string dropped;
  for (const std::string &f : indexed()) {
    if (dropped.empty() && f.find("scale_shift.gfx942") != std::string::npos)
      dropped = f;
    else
      inputs.push_back(f);
  }
  ASSERT_FALSE(dropped.empty());
  expectFailure(linkArgs(inputs), 2, "has no function for hip:gfx942 (it is built for cuda:80, cuda:90a)");
}

TEST_F(LinkErrors, DuplicateInput) {
  std::vector<std::string> inputs = {(cc_ / "index.json").string(), indexed().at(3)};
  expectFailure(linkArgs(inputs), 2, indexed().at(3) + ": error: duplicate variant");
}

TEST_F(LinkErrors, MissingInputFile) {
  expectFailure(linkArgs({(cc_ / "nope.json").string()}), 2, "cannot read '" + (cc_ / "nope.json").string());
}

TEST_F(LinkErrors, CommandLine) {
  // Without --name nothing names the outputs: only the message.
  RunResult r = ld({"-o", ".", (cc_ / "index.json").string()}, cc_);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("triton-aot-ld: error: missing --name"));
  expectFailure({"--name", "kern", "--prefix", "9x", "-o", ".", (cc_ / "index.json").string()}, 2,
                "prefix '9x' is not a C identifier");
  expectFailure({"--name", "kern", "-o", ".", "--compress-level", "3", (cc_ / "index.json").string()},
                2, "--compress-level needs --compress");
}

TEST_F(LinkErrors, UnwritableOutput) {
  fs::path dir = freshDir("link", "unwritable");
  writeText(dir / "file", "");
  RunResult r = ld({"--name", "kern", "-o", (dir / "file").string(), (cc_ / "index.json").string()}, dir);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot"));
}

TEST_F(Link, VersionAndHelp) {
  RunResult v = ld({"--version"}, cc_);
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out, "triton-aot-ld 0.1.0\n");
  RunResult h = ld({"--help"}, cc_);
  EXPECT_EQ(h.status, 0);
  EXPECT_THAT(h.out, HasSubstr("--inspect"));
}

} // namespace
} // namespace tta::link
