#include "compiler/options.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace tta {
namespace {

Expected<CommandLine> parse(std::vector<std::string> args) { return parseCommandLine(args); }

TEST(Options, UpstreamFlagsIncludingTwoLetterShortOptions) {
  auto cl = parse({"k.py", "-n", "add_kernel", "-s", "*fp32:16, *fp32, i32, 1024", "-g",
                   "cdiv(n, 1024), 1, 1", "-w", "8", "-ns", "4", "-t", "cuda:80", "-on",
                   "vadd", "-o", "out/add"});
  ASSERT_TRUE(cl) << cl.error().message;
  const KernelSpec &k = cl->request.kernels.at(0);
  EXPECT_EQ(k.function, "add_kernel");
  EXPECT_EQ(k.name, "vadd");
  EXPECT_EQ(k.sourceKind, "python");
  ASSERT_EQ(k.signatures.size(), 1u);
  EXPECT_EQ(k.signatures[0].entries.size(), 4u);
  ASSERT_EQ(k.configs.size(), 1u);
  EXPECT_EQ(k.configs[0].numWarps, 8);
  EXPECT_EQ(k.configs[0].numStages, 4);
  EXPECT_EQ(k.targets.at(0).spelling(), "cuda:80");
  EXPECT_EQ(cl->request.options.outputStem, fs::absolute("out/add"));
  ASSERT_TRUE(k.grid);
  EXPECT_EQ(k.grid->dims[0], "cdiv(n, 1024)");
}

TEST(Options, SourceRootAndFilePrefixMaps) {
  auto cl = parse({"k.py", "-n", "f", "-s", "i32", "-t", "cuda:80", "--source-root", "/src/lib/",
                   "--file-prefix-map", "/src/lib/vendor=third_party", "--file-prefix-map=/x=",
                   "--file-prefix-map", "/y=a=b"});
  ASSERT_TRUE(cl) << cl.error().message;
  const CompileOptions &opts = cl->request.options;
  EXPECT_EQ(opts.sourceRoot, "/src/lib");
  ASSERT_EQ(opts.filePrefixMap.size(), 3u);
  EXPECT_EQ(opts.filePrefixMap[0].from, "/src/lib/vendor");
  EXPECT_EQ(opts.filePrefixMap[0].to, "third_party");
  EXPECT_EQ(opts.filePrefixMap[1].from, "/x");
  EXPECT_EQ(opts.filePrefixMap[1].to, "");
  EXPECT_EQ(opts.filePrefixMap[2].to, "a=b");
  EXPECT_EQ(parse({"k.py", "-n", "f", "-s", "i32", "-t", "cuda:80"})->request.options.sourceRoot,
            fs::current_path());

  auto bad = parse({"k.py", "-n", "f", "-s", "i32", "-t", "cuda:80", "--file-prefix-map", "/x"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ExitCode::UsageError);
  EXPECT_EQ(bad.error().message,
            "--file-prefix-map '/x' is not OLD=NEW (e.g. --file-prefix-map /src/mylib=mylib)");
}

TEST(Options, WithoutAGridTheCallerPassesIt) {
  auto cl = parse({"k.py", "-n", "f", "-s", "*fp32, i32", "-t", "cuda:80"});
  ASSERT_TRUE(cl) << cl.error().message;
  EXPECT_FALSE(cl->request.kernels.at(0).grid);
  // Given but empty is not "left out": it fails as a grid.
  EXPECT_FALSE(parse({"k.py", "-n", "f", "-s", "*fp32, i32", "-g", "", "-t", "cuda:80"}));
}

TEST(Options, RepeatedSignaturesTargetsAndConfigs) {
  auto cl = parse({"k.py", "-n", "f", "-s", "*fp32:16, i32:16, BLOCK", "-s", "*fp32, i32, BLOCK",
                   "-g", "1,1,1", "-t", "cuda:80", "-t", "hip:gfx942", "--config",
                   "BLOCK=128 num_warps=4", "--config", "BLOCK=256 num_warps=8", "-o", "dir/"});
  ASSERT_TRUE(cl) << cl.error().message;
  const KernelSpec &k = cl->request.kernels.at(0);
  EXPECT_EQ(k.signatures.size(), 2u);
  EXPECT_EQ(k.targets.size(), 2u);
  EXPECT_EQ(k.configs.size(), 2u);
  EXPECT_TRUE(cl->request.options.outputStem.empty());
  EXPECT_EQ(cl->request.options.outputDir, fs::absolute("dir/"));
  EXPECT_EQ(cl->request.options.cacheDir, fs::absolute("dir/") / ".triton-aot-cache");
}

TEST(Options, WithoutConfigsTheDecoratorsMayGiveThemAndPreHooksMayBeDropped) {
  auto declared = parse({"k.py", "-n", "f", "-s", "*fp32, BLOCK", "-g", "1", "-t", "cuda:80",
                         "--config", "BLOCK=128"});
  ASSERT_TRUE(declared) << declared.error().message;
  EXPECT_FALSE(declared->request.kernels.at(0).configsFromDecorator);
  EXPECT_FALSE(declared->request.kernels.at(0).dropPreHooks);
  auto tuned = parse({"k.py", "-n", "f", "-s", "*fp32", "-g", "1", "-t", "cuda:80", "--drop-pre-hooks"});
  ASSERT_TRUE(tuned) << tuned.error().message;
  const KernelSpec &k = tuned->request.kernels.at(0);
  EXPECT_TRUE(k.configsFromDecorator);
  EXPECT_TRUE(k.dropPreHooks);
  ASSERT_EQ(k.configs.size(), 1u);   // the one empty config, unless the kernel is autotuned
}

TEST(Options, KernelFileMayComeLastAfterRepeatableOptions) {
  auto cl = parse({"-n", "f", "-s", "i32", "-s", "i64", "-g", "1", "-t", "cuda:80", "-t",
                   "hip:gfx942", "--config", "num_warps=2", "k.py"});
  ASSERT_TRUE(cl) << cl.error().message;
  const KernelSpec &k = cl->request.kernels.at(0);
  EXPECT_EQ(k.sourcePath, fs::absolute("k.py"));
  EXPECT_EQ(k.signatures.size(), 2u);
  EXPECT_EQ(k.targets.size(), 2u);
  EXPECT_EQ(k.configs.size(), 1u);
}

TEST(Options, MissingPiecesAreUsageErrorsThatSayWhatToAdd) {
  auto noName = parse({"k.py", "-s", "i32", "-g", "1", "-t", "cuda:80"});
  ASSERT_FALSE(noName);
  EXPECT_EQ(noName.error().code, ExitCode::UsageError);
  EXPECT_EQ(noName.error().message,
            "missing -n/--kernel-name: name the @triton.jit function to compile");
  auto noTarget = parse({"k.py", "-n", "f", "-s", "i32", "-g", "1"});
  ASSERT_FALSE(noTarget);
  EXPECT_EQ(noTarget.error().message,
            "no target: give -t/--target, e.g. -t cuda:90a (triton-aot-cc cross-compiles and "
            "never looks for a GPU)");
  auto badFile = parse({"k.cu", "-n", "f", "-s", "i32", "-g", "1", "-t", "cuda:80"});
  ASSERT_FALSE(badFile);
  EXPECT_EQ(badFile.error().message,
            "unsupported kernel file '" + fs::absolute("k.cu").string() +
                "': expected a Python file (.py) or Triton IR (.ttir, .ttgir)");
  auto unknown = parse({"k.py", "--frobnicate"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ExitCode::UsageError);
}

TEST(Options, BadSignatureIsReportedWithItsText) {
  auto cl = parse({"k.py", "-n", "f", "-s", "*fp33", "-g", "1", "-t", "cuda:80"});
  ASSERT_FALSE(cl);
  EXPECT_EQ(cl.error().code, ExitCode::UsageError);
  EXPECT_EQ(cl.error().sourceLine, "*fp33");   // shown under the message, with a caret
  EXPECT_EQ(cl.error().column, 2);   // the unknown type after the star
}

TEST(Options, HelpAndVersionExitEarly) {
  auto help = parse({"--help"});
  ASSERT_TRUE(help);
  EXPECT_NE(help->earlyExitText.find("--signature"), std::string::npos);
  auto version = parse({"--version"});
  ASSERT_TRUE(version);
  EXPECT_EQ(version->earlyExitText.rfind("triton-aot-cc ", 0), 0u);
}

TEST(Options, SpecFileExpandsKernelsWithPathsRelativeToIt) {
  fs::path dir = fs::temp_directory_path() / "tta-options-test";
  fs::create_directories(dir);
  std::ofstream(dir / "spec.json") << R"({
    "targets": ["cuda:80", "hip:gfx942"],
    "kernels": [
      {"source": "kernels/add.py", "function": "add_kernel", "name": "add",
       "signatures": ["*fp32:16, *fp32:16, i32, BLOCK"],
       "configs": ["BLOCK=1024 num_warps=4", "BLOCK=256 name=small"],
       "grid": "cdiv(n, BLOCK), 1, 1"},
      {"source": "kernels/mm.py", "function": "mm", "signatures": "*fp16, 64",
       "grid": ["1", "1", "1"], "targets": ["cuda:90a"]},
      {"source": "kernels/rows.py", "function": "rows", "signatures": "*fp32, i32"}
    ]})";
  auto kernels = loadSpecFile((dir / "spec.json").string(), {});
  ASSERT_TRUE(kernels) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].sourcePath, dir / "kernels/add.py");
  ASSERT_TRUE((*kernels)[1].grid);
  EXPECT_EQ((*kernels)[1].grid->dims, (std::array<std::string, 3>{"1", "1", "1"}));
  EXPECT_FALSE((*kernels)[2].grid) << "no grid: the caller's";
  EXPECT_EQ((*kernels)[0].targets.size(), 2u);
  EXPECT_EQ((*kernels)[0].configs.size(), 2u);
  EXPECT_EQ((*kernels)[0].configs[1].name, "small");
  EXPECT_EQ((*kernels)[1].name, "mm");
  EXPECT_EQ((*kernels)[1].targets.at(0).spelling(), "cuda:90a");
  fs::remove_all(dir);
}

TEST(Options, SpecFileErrorsNameTheFileAndTheField) {
  fs::path dir = fs::temp_directory_path() / "tta-options-test-bad";
  fs::create_directories(dir);
  std::ofstream(dir / "bad.json") << "{\"kernels\": [{\"source\": \"a.py\", \"function\": \"f\", "
                                     "\"signatures\": \"i32\", \"grid\": \"1\", \"colour\": 1}]}";
  auto unknown = loadSpecFile((dir / "bad.json").string(), {});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().file, (dir / "bad.json").string());
  EXPECT_EQ(unknown.error().message, "kernels[0]: unknown field 'colour'; expected source, "
                                     "function, name, signatures, configs, grid, targets, "
                                     "heuristics, heuristic_values, drop_pre_hooks, specialize_for, "
                                     "specialize_args");
  std::ofstream(dir / "syntax.json") << "{\n  \"kernels\": [\n    oops\n]}";
  auto syntax = loadSpecFile((dir / "syntax.json").string(), {});
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().line, 3);
  EXPECT_EQ(syntax.error().column, 5);
  // Found by fuzz_spec_file: nlohmann::json throws out_of_range, not parse_error, for a number
  // too large for a double, and it used to escape (std::terminate).
  std::ofstream(dir / "huge.json") << "{\"kernels\": [], \"targets\": [1e400]}";
  auto huge = loadSpecFile((dir / "huge.json").string(), {});
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().file, (dir / "huge.json").string());
  EXPECT_EQ(huge.error().message, "spec file is not valid JSON: [json.exception.out_of_range.406] "
                                  "number overflow parsing '1e400'");
  fs::remove_all(dir);
}

} // namespace
} // namespace tta

namespace tta {
namespace {

TEST(Options, HeuristicOverridesAndValuesFromTheCommandLineAndSpecFiles) {
  auto cl = parseCommandLine({"k.py", "-n", "f", "-s", "*fp32, i32", "-g", "n, 1, 1", "-t",
                              "cuda:80", "--heuristic", "EVEN=n % 64 == 0", "--heuristic-values",
                              "BLOCK=256, 1024", "--heuristic-values", "W=4"});
  ASSERT_TRUE(cl) << cl.error().message;
  const HeuristicDeclarations &h = cl->request.kernels.at(0).heuristics;
  EXPECT_EQ(h.overrides.at("EVEN"), "n % 64 == 0");
  EXPECT_EQ(h.values.at("BLOCK"), (std::vector<std::int64_t>{256, 1024}));
  EXPECT_EQ(h.values.at("W"), (std::vector<std::int64_t>{4}));
  auto bad = parseCommandLine({"k.py", "-n", "f", "-s", "i32", "-g", "1", "-t", "cuda:80",
                               "--heuristic", "EVEN=n & 1"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--heuristic EVEN='n & 1'"), std::string::npos);

  fs::path dir = fs::temp_directory_path() / "tta-options-heuristics";
  fs::create_directories(dir);
  std::ofstream(dir / "spec.json") << R"({"targets": ["cuda:80"], "kernels": [
      {"source": "k.py", "function": "f", "signatures": "*fp32, i32", "grid": "n, 1, 1",
       "heuristics": {"EVEN": "n % 64 == 0"}, "heuristic_values": {"BLOCK": [256, 1024]}}]})";
  auto kernels = loadSpecFile((dir / "spec.json").string(), {});
  ASSERT_TRUE(kernels) << kernels.error().message;
  EXPECT_EQ((*kernels)[0].heuristics.overrides.at("EVEN"), "n % 64 == 0");
  EXPECT_EQ((*kernels)[0].heuristics.values.at("BLOCK"), (std::vector<std::int64_t>{256, 1024}));
  std::ofstream(dir / "bad.json") << R"({"targets": ["cuda:80"], "kernels": [
      {"source": "k.py", "function": "f", "signatures": "i32", "grid": "1",
       "heuristic_values": {"BLOCK": "256"}}]})";
  auto wrong = loadSpecFile((dir / "bad.json").string(), {});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("heuristic_values.BLOCK: expected an array of integers"),
            std::string::npos);
  fs::remove_all(dir);
}

} // namespace
} // namespace tta

namespace tta {
namespace {

/// Sets environment variables for one test and puts them back after it.
class ScopedEnv {
public:
  ScopedEnv(std::initializer_list<std::pair<const char *, const char *>> values) {
    for (const auto &[name, value] : values) {
      const char *was = std::getenv(name);
      saved_.emplace_back(name, was ? std::optional<std::string>(was) : std::nullopt);
      if (value)
        ::setenv(name, value, 1);
      else
        ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    for (const auto &[name, value] : saved_)
      value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
  }

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::string pythonOf(const std::vector<std::string> &extra = {}) {
  std::vector<std::string> args = {"k.py", "-n", "f", "-s", "i32", "-t", "cuda:80"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto cl = parseCommandLine(args);
  EXPECT_TRUE(cl) << cl.error().message;
  return cl ? cl->request.options.python : "";
}

TEST(Options, PythonComesFromTheUsersActiveEnvironmentBeforeTheClones) {
  const std::filesystem::path env = std::filesystem::path(::testing::TempDir()) / "tta-env";
  std::filesystem::create_directories(env / "bin");
  { std::ofstream(env / "bin/python") << "#!/bin/sh\n"; }
  std::filesystem::permissions(env / "bin/python", std::filesystem::perms::owner_all);

  ScopedEnv none({{"TRITON_AOT_PYTHON", nullptr}, {"VIRTUAL_ENV", nullptr}, {"CONDA_PREFIX", nullptr}});
  const std::string configured = pythonOf();   // the clone's, else python3
  {
    ScopedEnv conda({{"CONDA_PREFIX", env.c_str()}});
    EXPECT_EQ(pythonOf(), (env / "bin/python").string());
  }
  {
    ScopedEnv venv({{"VIRTUAL_ENV", env.c_str()}, {"CONDA_PREFIX", "/no/such/conda"}});
    EXPECT_EQ(pythonOf(), (env / "bin/python").string());
  }
  {
    // An environment without an interpreter is passed over.
    ScopedEnv empty({{"VIRTUAL_ENV", "/no/such/venv"}});
    EXPECT_EQ(pythonOf(), configured);
  }
  {
    ScopedEnv asked({{"TRITON_AOT_PYTHON", "/opt/py/bin/python3"}, {"VIRTUAL_ENV", env.c_str()}});
    EXPECT_EQ(pythonOf(), "/opt/py/bin/python3");
    EXPECT_EQ(pythonOf({"--python", "/usr/bin/python3.12"}), "/usr/bin/python3.12");
  }
}

TEST(Options, PrepareWorkersNamesAProjectTargetsAndNoKernel) {
  ScopedEnv env({{"TRITON_AOT_CACHE_DIR", nullptr}});
  auto cl = parse({"--prepare-workers", "--source-root", "/src/proj", "-t", "cuda:80", "-t",
                   "hip:gfx942", "-j", "3", "--cache-dir", "/build/cache"});
  ASSERT_TRUE(cl) << cl.error().message;
  EXPECT_TRUE(cl->prepareWorkers);
  EXPECT_TRUE(cl->request.kernels.empty());
  ASSERT_EQ(cl->prepareTargets.size(), 2u);
  EXPECT_EQ(cl->prepareTargets[1].spelling(), "hip:gfx942");
  const CompileOptions &opts = cl->request.options;
  EXPECT_EQ(opts.jobs, 3);
  EXPECT_EQ(opts.cacheDir, "/build/cache");
  EXPECT_EQ(opts.workerProject, "source root /src/proj");
  // No cache named: the installation is learned into none (never a default one in the cwd).
  auto uncached = parse({"--prepare-workers", "--source-root", "/src/proj"});
  ASSERT_TRUE(uncached) << uncached.error().message;
  EXPECT_TRUE(uncached->request.options.cacheDir.empty());
  EXPECT_TRUE(uncached->prepareTargets.empty());

  auto noRoot = parse({"--prepare-workers", "-t", "cuda:80"});
  ASSERT_FALSE(noRoot);
  EXPECT_EQ(noRoot.error().code, ExitCode::UsageError);
  EXPECT_EQ(noRoot.error().message,
            "--prepare-workers needs --source-root: the project whose builds lease the workers");
  auto withSpec = parse({"--prepare-workers", "--source-root", "/s", "--spec", "k.json"});
  ASSERT_FALSE(withSpec);
  EXPECT_EQ(withSpec.error().message,
            "--prepare-workers compiles nothing: drop the kernel file and --spec");
}

} // namespace
} // namespace tta
