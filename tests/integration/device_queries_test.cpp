// Kernel modules that ask about the device while they are imported (Triton's tutorials:
// DEVICE = driver.active.get_active_torch_device(), get_device_properties(), is_hip()): each
// target's import gets that target's answers, with no GPU here; questions only a live GPU
// answers, and torch's own device questions, fail with what asked and how to build it.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::listFiles;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

nlohmann::json constexprValue(const KernelMetadata &meta, const std::string &name) {
  for (const ParamInfo &p : meta.params)
    if (p.name == name)
      return p.value;
  return nullptr;
}

TEST(DeviceQueries, EachTargetImportsWithItsOwnAnswers) {
  fs::path dir = freshDir("device_queries", "device_queries");
  // BLOCK and NUM_PROGRAMS are left to their defaults, which the module computed at import
  // from the backend and the GPU's properties.
  RunResult r = runCompiler({kernel("fusedops/ops/row_scale.py"), "-n",
                     "row_scale_kernel", "-s", "*fp32:16, *fp32:16, i32, i32, i32, fp32", "-g",
                     "NUM_PROGRAMS, 1, 1", "-t", "cuda:80", "-t", "cuda:90a", "-t", "hip:gfx942",
                     "-o", dir.string() + "/", "-j", "1"},
                    dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::pair<int, int>> expected = {
      {"80", {1024, 108}}, {"90a", {1024, 132}}, {"gfx942", {2048, 304}}};
  int seen = 0;
  for (const std::string &file : listFiles(dir, ".triton-aot-cache")) {
    if (fs::path(file).extension() != ".json")
      continue;
    auto meta = parseMetadata(nlohmann::json::parse(readText(dir / file)));
    ASSERT_TRUE(meta) << meta.error().message;
    auto it = expected.find(meta->target.arch);
    ASSERT_NE(it, expected.end()) << meta->target.spelling();
    SCOPED_TRACE(meta->target.spelling());
    EXPECT_EQ(constexprValue(*meta, "BLOCK"), it->second.first);
    EXPECT_EQ(constexprValue(*meta, "NUM_PROGRAMS"), it->second.second);
    ++seen;
  }
  EXPECT_EQ(seen, 3);
}

TEST(DeviceQueries, AutotuneConfigsChosenByBackendAtImportArePerTarget) {
  fs::path dir = freshDir("device_queries", "device_queries_autotune");
  RunResult r = runCompiler({kernel("fusedops/ops/tuned_scale.py"), "-n",
                     "tuned_scale_kernel", "-s", "*fp32:16, *fp32:16, i32", "-g",
                     "cdiv(n, BLOCK), 1, 1", "-t", "cuda:80", "-t", "cuda:90a", "-t",
                     "hip:gfx942", "-o", dir.string() + "/", "-j", "1"},
                    dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::set<int>> blocks;   // target arch -> BLOCK values built
  for (const std::string &file : listFiles(dir, ".triton-aot-cache")) {
    if (fs::path(file).extension() != ".json" || file == "index.json")
      continue;
    auto json = nlohmann::json::parse(readText(dir / file));
    if (json.value("schema", "") != "triton-aot-kernel")
      continue;   // a refusal record: the config is not built for that target
    auto meta = parseMetadata(json);
    ASSERT_TRUE(meta) << meta.error().message;
    blocks[meta->target.arch].insert(constexprValue(*meta, "BLOCK").get<int>());
  }
  EXPECT_EQ(blocks["80"], (std::set<int>{1024, 512}));
  EXPECT_EQ(blocks["90a"], (std::set<int>{1024, 512}));
  EXPECT_EQ(blocks["gfx942"], (std::set<int>{256, 1024}));
}

// The CMake plugin compiles each architecture in a run of its own, which sees only its own
// backend's list; the linker takes a decorator config missing for a target whose other configs
// are built as not listed there, and the library refuses it on such a device.
TEST(DeviceQueries, ConfigsChosenByBackendLinkFromOneRunPerTarget) {
  fs::path dir = freshDir("device_queries", "device_queries_per_run");
  std::vector<std::string> indexes;
  for (const char *target : {"cuda:80", "hip:gfx942"}) {
    std::string tag = std::string(target).substr(0, 3);
    RunResult r = runCompiler({kernel("fusedops/ops/tuned_scale.py"), "-n", "tuned_scale_kernel",
                               "-s", "*fp32:16, *fp32:16, i32", "-g", "cdiv(n, BLOCK), 1, 1", "-t",
                               target, "-o", (dir / tag).string() + "/", "--index",
                               (dir / (tag + ".json")).string()},
                              dir);
    ASSERT_EQ(r.status, 0) << r.err;
    indexes.push_back((dir / (tag + ".json")).string());
  }
  RunResult ld = run(TTA_LINKER, {"--name", "tuned", "-o", (dir / "lib").string(), indexes[0],
                                  indexes[1]},
                     dir);
  ASSERT_EQ(ld.status, 0) << ld.err;
  auto manifest = nlohmann::json::parse(readText(dir / "lib" / "tuned.json"));
  const auto &k = manifest["kernels"][0];
  ASSERT_EQ(k["targets"], nlohmann::json({"cuda:80", "hip:gfx942"}));
  std::map<std::string, std::vector<bool>> builtOn;   // config -> built on [cuda:80, gfx942]
  for (const auto &config : k["configs"])
    for (const auto &variant : config["variants"])
      for (const auto &f : variant["functions"])
        builtOn[config["name"]].push_back(!f.contains("refused"));
  EXPECT_EQ(builtOn["BLOCK1024_w4_s3"], (std::vector<bool>{true, true}));
  EXPECT_EQ(builtOn["BLOCK512_w2_s3"], (std::vector<bool>{true, false}));
  EXPECT_EQ(builtOn["BLOCK256_w4_s3"], (std::vector<bool>{false, true}));
}

TEST(DeviceQueries, AQuestionOnlyALiveGpuAnswersIsAClearError) {
  fs::path dir = freshDir("device_queries", "device_queries_stream");
  std::ofstream(dir / "streamed.py")
      << "import triton\nimport triton.language as tl\n\n"
         "STREAM = triton.runtime.driver.active.get_current_stream()\n\n\n"
         "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
  RunResult r = runCompiler({"streamed.py", "-n", "k", "-s", "*fp32", "-g", "1",
                     "-t", "cuda:80", "-o", "out/"},
                    dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("streamed.py:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("get_current_stream() asks for a stream of a live GPU"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("move the question out of import time"), std::string::npos) << r.err;
  EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache"), std::vector<std::string>{});
}

TEST(DeviceQueries, AModuleAskingTorchForAGpuSaysBuildingNeedsOne) {
  fs::path dir = freshDir("device_queries", "device_queries_torch");
  // What torch.cuda raises on a machine without the driver, from a module that asks at import
  // (FlagGems reads its device through torch).
  std::ofstream(dir / "asks_torch.py")
      << "import triton\nimport triton.language as tl\n\n\n"
         "def device_capability():\n"
         "    raise RuntimeError('Found no NVIDIA driver on your system. Please check that you have "
         "an NVIDIA GPU and installed a driver')\n\n\n"
         "CAPABILITY = device_capability()\n\n\n"
         "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
  RunResult r = runCompiler({"asks_torch.py", "-n", "k", "-s", "*fp32", "-g", "1",
                     "-t", "cuda:80", "-o", "out/"},
                    dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("asks torch for a GPU while it is imported"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("building this module needs a machine with that GPU"), std::string::npos)
      << r.err;
}

} // namespace
} // namespace tta
