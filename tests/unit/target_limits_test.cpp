// Per-target configs: the archs= key of the config grammar, the shared memory table, and the
// checks that leave a config out for a target instead of failing the build.
#include "compiler/target_limits.h"

#include "parse_expect.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tta {
namespace {

Target target(const char *spelling) { return expectParsed(parseTarget(spelling), spelling); }
Config config(const char *text) { return expectParsed(parseConfig(text), text); }

TEST(ConfigArchs, AListOfCudaCapabilitiesAndHipProcessors) {
  Config c = config("name=big BLOCK=128 archs=90a,100a,gfx950");
  EXPECT_EQ(c.archs, (std::vector<std::string>{"90a", "100a", "gfx950"}));
  EXPECT_EQ(formatConfig(c), "name=big archs=90a,100a,gfx950 BLOCK=128");
  EXPECT_TRUE(config("BLOCK=1").archs.empty());
}

TEST(ConfigArchs, AnythingElseIsAUsageErrorAtItsColumn) {
  Diagnostic diag = expectUsageError(parseConfig("BLOCK=1 archs=90a,sm_80"), "sm_80");
  EXPECT_NE(diag.message.find("'sm_80' is not a target arch"), std::string::npos) << diag.message;
  EXPECT_EQ(diag.column, 19);
  expectUsageError(parseConfig("archs="), "empty");
  expectUsageError(parseConfig("archs=90a,"), "trailing comma");
}

TEST(ConfigArchs, MatchesTargetsAsTritonBuildsThem) {
  EXPECT_TRUE(archsInclude({}, "80"));
  EXPECT_TRUE(archsInclude({"90a", "100a"}, "90a"));
  EXPECT_TRUE(archsInclude({"90"}, "90a"));   // cuda:90 builds as 90a
  EXPECT_FALSE(archsInclude({"90a", "100a"}, "80"));
  EXPECT_FALSE(archsInclude({"90a"}, "100a"));
  EXPECT_TRUE(archsInclude({"gfx90a"}, "gfx90a:xnack-"));
  EXPECT_FALSE(archsInclude({"gfx942"}, "gfx950"));
}

TEST(TargetLimits, SharedMemoryPerBlockByTarget) {
  EXPECT_EQ(sharedMemoryLimit(target("cuda:80")), 163u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("cuda:90a")), 227u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("cuda:89")), 99u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("hip:gfx942")), 64u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("hip:gfx950")), 160u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("cuda:107a")), 327u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("hip:gfx1250")), 320u * 1024);
  EXPECT_EQ(sharedMemoryLimit(target("cuda:95a")), std::nullopt);   // not known: not checked
}

/// The names in the tuple `NAME = (...)` of the frontend's adapter (its target lists).
std::vector<std::string> adapterTuple(const std::string &name) {
  std::ifstream in(TTA_FRONTEND_ADAPTER);
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  std::size_t at = source.find("\n" + name + " = (");
  EXPECT_NE(at, std::string::npos) << name << " is not in " << TTA_FRONTEND_ADAPTER;
  if (at == std::string::npos)
    return {};
  std::size_t end = source.find(')', at);
  std::string body = source.substr(at + name.size() + 5, end - at - name.size() - 5);
  std::vector<std::string> items;
  std::string item;
  for (char c : body + ",") {
    if (c == ',') {
      if (!item.empty())
        items.push_back(item);
      item.clear();
    } else if (c != ' ' && c != '\n' && c != '"') {
      item += c;
    }
  }
  return items;
}

TEST(TargetLimits, EveryTargetTheFrontendBuildsHasALimit) {
  std::vector<std::string> cuda = adapterTuple("CUDA_CAPABILITIES");
  std::vector<std::string> hip = adapterTuple("HIP_ARCHS");
  EXPECT_GE(cuda.size(), 14u);
  EXPECT_GE(hip.size(), 13u);
  for (const std::string &capability : cuda) {
    const std::string spelling = "cuda:" + capability + (std::stoi(capability) >= 90 ? "a" : "");
    EXPECT_TRUE(sharedMemoryLimit(target(spelling.c_str()))) << spelling;
  }
  for (const std::string &processor : hip) {
    const std::string spelling = "hip:" + processor;
    EXPECT_TRUE(sharedMemoryLimit(target(spelling.c_str()))) << spelling;
  }
}

TEST(TargetLimits, TheMatmulTutorialsBigConfigFitsSm90ButNotSm80) {
  // 128x256x64 fp16, three stages: (128*64 + 64*256) * 2 bytes * 3 = 147456 bytes; with four
  // stages 196608, over sm_80's 163 KiB.
  EXPECT_EQ(refusalOfCompiled(target("cuda:90a"), 196608), "");
  EXPECT_EQ(refusalOfCompiled(target("cuda:80"), 196608),
            "it needs 196608 bytes of shared memory, more than the 163 KiB a block has on sm_80");
  EXPECT_EQ(refusalOfCompiled(target("cuda:80"), 163 * 1024), "");
  EXPECT_NE(refusalOfCompiled(target("hip:gfx942"), 65537).find("64 KiB a block has on gfx942"),
            std::string::npos);
}

TEST(TargetLimits, RefusedBeforeCompiling) {
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=1 num_ctas=2"), target("cuda:80")),
            "num_ctas=2 needs thread block clusters (sm_90 or newer)");
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=1 num_ctas=2"), target("cuda:90a")), "");
  EXPECT_EQ(refusalBeforeCompiling(config("launch_pdl=True"), target("cuda:86")),
            "launch_pdl=True needs programmatic dependent launch (sm_90 or newer)");
  EXPECT_EQ(refusalBeforeCompiling(config("archs=90a BLOCK=1"), target("cuda:80")),
            "the config is limited to archs=90a");
  EXPECT_EQ(refusalBeforeCompiling(config("archs=90a BLOCK=1"), target("cuda:90a")), "");
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=1"), target("hip:gfx942")), "");
}

TEST(TargetLimits, BlocksOfMoreThan1024ThreadsAreLeftOut) {
  EXPECT_EQ(threadsRefusal(target("cuda:80"), 32), ""); // 32 x 32: the most a block has
  EXPECT_EQ(threadsRefusal(target("hip:gfx942"), 16), "");
  EXPECT_EQ(threadsRefusal(target("hip:gfx942"), 32),
            "num_warps=32 makes blocks of 2048 threads (64 a wavefront on gfx942), more than the "
            "1024 a block may have");
  EXPECT_NE(threadsRefusal(target("hip:gfx90a:xnack-"), 32), "");
  EXPECT_EQ(threadsRefusal(target("hip:gfx1100"), 32), ""); // RDNA: 32-thread wavefronts
  EXPECT_EQ(threadsRefusal(target("hip:gfx1250"), 32), "");
  EXPECT_EQ(threadsRefusal(target("cuda:90a"), 64), // a .ttgir's own num_warps
            "num_warps=64 makes blocks of 2048 threads (32 a warp on sm_90a), more than the 1024 "
            "a block may have");
  // Known from the config: left out before compiling.
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=8192 num_warps=32"), target("hip:gfx942")),
            threadsRefusal(target("hip:gfx942"), 32));
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=8192 num_warps=32"), target("cuda:80")), "");
  EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=8192 num_warps=32"), target("hip:gfx1100")), "");
}

TEST(TargetLimits, ClustersAndPdlAreLeftOutOnHip) {
  EXPECT_EQ(refusalBeforeCompiling(config("launch_pdl=True"), target("hip:gfx942")),
            "launch_pdl=True needs programmatic dependent launch, which HIP does not have (CUDA "
            "sm_90 or newer)");
  EXPECT_EQ(refusalBeforeCompiling(config("launch_pdl=False"), target("hip:gfx942")), "");
  EXPECT_EQ(refusalBeforeCompiling(config("launch_pdl=True"), target("cuda:90a")), "");
  // Triton refuses num_ctas > 1 on gfx942 and builds it on gfx1250, which the runtime cannot
  // launch as a cluster.
  for (const char *hip : {"hip:gfx942", "hip:gfx1250"})
    EXPECT_EQ(refusalBeforeCompiling(config("BLOCK=1 num_ctas=2"), target(hip)),
              "num_ctas=2 needs thread block clusters, which triton-aot launches on CUDA only "
              "(sm_90 or newer)")
        << hip;
}

} // namespace
} // namespace tta
