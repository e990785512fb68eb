// Across Triton versions: the same kernel compiled by each supported Triton the build found
// (TTA_VERSION_PYTHONS) must launch the same way wherever the versions agree, and a library may
// hold variants of several versions, each recorded as such.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::RunResult;
using tta::testing::testWorkDir;

namespace tta {
namespace {

struct Interpreter {
  std::string python;
  std::string version;
};

/// The interpreters of TTA_VERSION_PYTHONS ("a|b|c"), oldest Triton first, that run, with their Triton versions.
const std::vector<Interpreter> &interpreters() {
  static const std::vector<Interpreter> all = [] {
    std::vector<Interpreter> found;
    std::stringstream list(TTA_VERSION_PYTHONS);
    for (std::string python; std::getline(list, python, '|');) {
      RunResult r = run(python, {"-c", "import triton; print(triton.__version__)"}, fs::temp_directory_path());
      if (r.status == 0 && !r.out.empty())
        found.push_back({python, r.out.substr(0, r.out.find('\n'))});
    }
    return found;
  }();
  return all;
}

struct Kernel {
  std::string file, function, signature, grid;
  std::vector<std::string> extra;
};

// One kernel of each kind of launch fact: plain, several warps, above 48 KiB of shared memory,
// scalars of every width, a cluster (num_ctas=2 on sm_90a).
const std::vector<Kernel> kKernels = {
    {"vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "cdiv(n_elements, 1024), 1, 1", {}},
    {"matmul_fp16.py", "matmul_kernel",
     "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 128, 32",
     "cdiv(M, 64), cdiv(N, 128), 1", {"-w", "8"}},
    {"big_shared.py", "big_shared_kernel", "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16",
     "cdiv(M, 128), cdiv(N, 128), 1", {"-w", "8"}},
    {"scalar_args.py", "scale_shift_kernel", "*fp32:16, *fp32:16, fp32, fp16, i64, i1, 256",
     "cdiv(n_elements, BLOCK), 1, 1", {}},
    {"vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "cdiv(n_elements, 1024), 1, 1",
     {"--config", "num_ctas=2"}},
};
const std::vector<std::string> kTargets = {"cuda:80", "cuda:90a", "hip:gfx942"};

/// Compiles \p kernel for \p target with \p python into a fresh directory; its one metadata.
/// Without \p cacheDir nothing is cached; with it, the run is verbose and \p log gets its stderr.
KernelMetadata compileOne(const Interpreter &in, const Kernel &kernel, const std::string &target,
                          const fs::path &dir, const fs::path &cacheDir = {}, std::string *log = nullptr) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> args = {"--python", in.python, std::string(TTA_KERNELS_DIR) + "/" + kernel.file,
                                   "-n", kernel.function, "-s", kernel.signature, "-g", kernel.grid,
                                   "-t", target, "-o", dir.string() + "/", "--index", "index.json"};
  if (cacheDir.empty())
    args.push_back("--no-cache");
  else
    args.insert(args.end(), {"--cache-dir", cacheDir.string(), "-v"});
  args.insert(args.end(), kernel.extra.begin(), kernel.extra.end());
  RunResult r = run(TTA_COMPILER, args, dir);
  EXPECT_EQ(r.status, 0) << in.version << ": " << r.err;
  if (log)
    *log = r.err;
  auto index = nlohmann::json::parse(readText(dir / "index.json"), nullptr, false);
  if (r.status != 0 || index.is_discarded() || index["metadata"].size() != 1u)
    return {};
  auto meta = parseMetadata(nlohmann::json::parse(readText(dir / index["metadata"][0].get<std::string>())));
  EXPECT_TRUE(meta) << (meta ? "" : meta.error().message);
  return meta ? *meta : KernelMetadata{};
}

/// What a launcher does with the metadata, minus the figures codegen may change between versions
/// (shared memory, scratch sizes): those are printed, not compared.
std::string launchFacts(const KernelMetadata &m) {
  const LaunchInfo &l = m.launch;
  std::ostringstream out;
  out << "entry " << l.entry << ", block " << l.block[0] << "x" << l.block[1] << "x" << l.block[2]
      << ", warps " << l.numWarps << "x" << l.warpSize << ", ctas " << l.numCtas << ", cluster "
      << l.clusterDims[0] << "x" << l.clusterDims[1] << "x" << l.clusterDims[2] << ", cooperative "
      << l.cooperative << ", pdl " << l.pdl << ", image " << m.imageArch << ", params";
  for (const ParamInfo &p : m.params)
    out << " " << p.name << ":" << paramKindName(p.kind) << ":" << p.size;
  return out.str();
}

TEST(Versions, SameKernelSameLaunchFactsInEveryVersion) {
  if (interpreters().size() < 2)
    GTEST_SKIP() << "fewer than two Triton versions here (tools/bootstrap.sh --dev makes 3.6.0)";
  fs::path root = testWorkDir() / "versions";
  for (std::size_t k = 0; k < kKernels.size(); ++k)
    for (const std::string &target : kTargets) {
      if (kKernels[k].extra.size() == 2 && kKernels[k].extra[1] == "num_ctas=2" && target != "cuda:90a")
        continue;  // clusters are sm_90+
      std::map<std::string, std::string> facts;
      for (const Interpreter &in : interpreters()) {
        SCOPED_TRACE(kKernels[k].function + " for " + target + " with Triton " + in.version);
        KernelMetadata m = compileOne(in, kKernels[k], target, root / std::to_string(k) / in.version);
        EXPECT_EQ(m.tritonVersion, in.version);
        facts[in.version] = launchFacts(m);
        std::printf("[ versions ] %s %s Triton %s: shared %llu, global scratch %llu, %s\n",
                    kKernels[k].function.c_str(), target.c_str(), in.version.c_str(),
                    static_cast<unsigned long long>(m.launch.shared),
                    static_cast<unsigned long long>(m.launch.globalScratch.size), facts[in.version].c_str());
      }
      for (const auto &[version, text] : facts)
        EXPECT_EQ(text, facts.begin()->second)
            << kKernels[k].function << " for " << target << ": Triton " << version << " differs from "
            << facts.begin()->first;
    }
}

TEST(Versions, OneLibraryFromTwoVersionsRecordsBoth) {
  if (interpreters().size() < 2)
    GTEST_SKIP() << "fewer than two Triton versions here (tools/bootstrap.sh --dev makes 3.6.0)";
  fs::path root = testWorkDir() / "versions-link";
  const Interpreter &older = interpreters().front();
  const Interpreter &newer = interpreters().back();
  ASSERT_NE(older.version, newer.version);
  compileOne(older, kKernels[0], "cuda:90a", root / "older");
  compileOne(newer, kKernels[3], "cuda:90a", root / "newer");
  fs::create_directories(root / "lib");
  RunResult r = run(TTA_LINKER, {"--name", "mixed", "-o", (root / "lib").string(),
                                 (root / "older/index.json").string(), (root / "newer/index.json").string()},
                    root);
  ASSERT_EQ(r.status, 0) << r.err;
  auto manifest = nlohmann::json::parse(readText(root / "lib/mixed.json"));
  EXPECT_EQ(manifest["triton_versions"], nlohmann::json({older.version, newer.version}));
  std::string dump = manifest.dump();
  for (const Interpreter *in : {&older, &newer})
    EXPECT_NE(dump.find("\"triton_version\":\"" + in->version + "\""), std::string::npos) << dump;
}

TEST(Versions, OneCacheServesEachVersionItsOwnCompiles) {
  if (interpreters().size() < 2)
    GTEST_SKIP() << "fewer than two Triton versions here (tools/bootstrap.sh --dev makes 3.6.0)";
  fs::path root = testWorkDir() / "versions-cache";
  fs::remove_all(root);
  // Each version twice over one cache, interleaved: the second round is served from the cache,
  // and never with the other version's entry.
  for (int round = 0; round < 2; ++round)
    for (const Interpreter &in : {interpreters().front(), interpreters().back()}) {
      SCOPED_TRACE("Triton " + in.version + ", round " + std::to_string(round));
      std::string log;
      KernelMetadata m = compileOne(in, kKernels[0], "cuda:90a",
                                    root / (in.version + "-" + std::to_string(round)), root / "cache", &log);
      EXPECT_EQ(m.tritonVersion, in.version);
      EXPECT_EQ(log.find("cache hit: ") != std::string::npos, round == 1) << log;
    }
}

} // namespace
} // namespace tta
