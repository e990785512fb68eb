// Files between the tools are data, never code (docs/security.md, "Files between the tools"):
// a name injected into a metadata file handed to triton-aot-ld, or into a compile answer in the
// compiler's cache, never reaches the generated C; launch facts no device of the target could
// launch are refused at link time. Each attack as a real run of the tools on a real kernel.
#include "cli_runner.h"
#include "contract/sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

namespace fs = std::filesystem;
using nlohmann::json;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::listFiles;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

// The short proof of the attack: a preprocessor line in a parameter's name.
const std::string kInjected = "x_ptr\n#error X";
const std::string kInjectedShown = R"("x_ptr\n#error X")";
const std::string kNotAName = " is not a C identifier (ASCII letters, digits and '_', not "
                              "starting with a digit), so it cannot be a name in generated C";

void writeJson(const fs::path &path, const json &doc) { std::ofstream(path) << doc.dump(2); }

/// vector_add's add_kernel for cuda:80, compiled into \p dir (metadata, cubin, PTX, index),
/// with its compile cache \p cache.
RunResult compileVectorAdd(const fs::path &dir, const fs::path &cache,
                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {kernel("vector_add.py"), "-n", "add_kernel", "-s",
                                   "*fp32:16, *fp32:16, *fp32:16, i32, 1024", "-g",
                                   "cdiv(n_elements, 1024), 1, 1", "-t", "cuda:80", "-o", "out/",
                                   "--index", "out/index.json", "--cache-dir", cache.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCompiler(args, dir);
}

/// The one metadata file of a compileVectorAdd() run.
fs::path metadataFile(const fs::path &out) {
  for (const std::string &file : listFiles(out))
    if (file != "index.json" && fs::path(file).extension() == ".json")
      return out / file;
  ADD_FAILURE() << "no metadata file in " << out;
  return {};
}

RunResult link(const fs::path &dir, const fs::path &input) {
  return run(TTA_LINKER, {"--name", "vadd", "-o", (dir / "lib").string(), input.string()}, dir);
}

class TrustFiles : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = freshDir("trust", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    // One compile cache for the suite (safe to share): the later tests are served from it.
    RunResult r = compileVectorAdd(dir_, tta::testing::testWorkDir() / "trust" / "cache");
    ASSERT_EQ(r.status, 0) << r.err;
    metadata_ = metadataFile(dir_ / "out");
    original_ = json::parse(readText(metadata_));
  }

  /// Links the metadata with \p pointer set to \p value: the run, which must fail with nothing
  /// written, its message naming the metadata file.
  RunResult linkWith(const char *pointer, const json &value) {
    json poisoned = original_;
    poisoned[json::json_pointer(pointer)] = value;
    writeJson(metadata_, poisoned);
    RunResult r = link(dir_, metadata_);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(metadata_.string() + ": error: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "lib" / "vadd.h")) << pointer;
    EXPECT_FALSE(fs::exists(dir_ / "lib" / "vadd.c")) << pointer;
    return r;
  }

  fs::path dir_;
  fs::path metadata_;
  json original_;
};

TEST_F(TrustFiles, TheMetadataLinksAsWritten) {
  RunResult r = link(dir_, metadata_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(readText(dir_ / "lib" / "vadd.h").find("const void *x_ptr"), std::string::npos);
}

TEST_F(TrustFiles, AnInjectedNameInAMetadataFileIsRefusedByTheLinker) {
  EXPECT_NE(linkWith("/params/0/name", kInjected).err.find("params[0].name: " + kInjectedShown + kNotAName),
            std::string::npos);
  // A constructor that would run when a program loads the library.
  EXPECT_NE(linkWith("/params/3/name", "n, int y) {} __attribute__((constructor)) void f(int z")
                .err.find("params[3].name: "),
            std::string::npos);
  EXPECT_NE(linkWith("/kernel/name", "vadd\n#include </etc/passwd>").err.find("kernel.name: "),
            std::string::npos);
  EXPECT_NE(linkWith("/variant/constexprs", {{"BLOCK\n#error X", 1024}}).err.find("variant.constexprs: "),
            std::string::npos);
  EXPECT_NE(linkWith("/launch/entry", "add_kernel\"\n#error X\n\"").err.find("launch.entry: "),
            std::string::npos);
  EXPECT_NE(linkWith("/grid/0", "n_elements\n#error X").err.find("grid[0]: "), std::string::npos);
}

TEST_F(TrustFiles, AnInjectedNameInAnIndexOrRefusalIsRefusedByTheLinker) {
  json index = json::parse(readText(dir_ / "out" / "index.json"));
  index["metadata"].push_back("/dev/zero");   // would be read for ever
  writeJson(dir_ / "out" / "index.json", index);
  RunResult r = link(dir_, dir_ / "out" / "index.json");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("index.json: error: metadata[1]: \"/dev/zero\" is not a metadata file name"),
            std::string::npos)
      << r.err;

  json refusal = {{"schema", "triton-aot-refusal"},
                  {"schema_version", 1},
                  {"generator", "triton-aot-cc 0.1.0"},
                  {"kernel",
                   {{"name", "add_kernel"}, {"function", "add_kernel"}, {"source", "vector_add.py"},
                    {"source_kind", "python"}}},
                  {"target", {{"spelling", "cuda:90a"}}},
                  {"variant",
                   {{"id", "add_kernel.sm90a.0123456789ab"}, {"config", "big"}, {"signature", ""},
                    {"num_warps", 4}, {"num_stages", 3}, {"options", json::object()}}},
                  {"reason", "no\";\n#error X\n\""}};
  writeJson(dir_ / "out" / "refused.json", refusal);
  r = run(TTA_LINKER, {"--name", "vadd", "-o", (dir_ / "lib").string(), metadata_.string(),
                       (dir_ / "out" / "refused.json").string()},
          dir_);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("refused.json: error: reason: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "lib" / "vadd.h"));
}

// Launch facts no device of the target could launch: refused at link time, not cut or passed on.
TEST_F(TrustFiles, LaunchFactsBeyondTheTargetAreRefusedByTheLinker) {
  EXPECT_NE(linkWith("/launch/shared", 10737418240ULL)
                .err.find("launch.shared: 10737418240 bytes are more shared memory than a device "
                          "of cuda:80 gives a block (166912)"),
            std::string::npos);
  EXPECT_NE(linkWith("/launch/global_scratch/size", 1ULL << 62).err.find("launch.global_scratch.size: "),
            std::string::npos);
  EXPECT_NE(linkWith("/launch/global_scratch/align", 1ULL << 63).err.find("launch.global_scratch.align: "),
            std::string::npos);
  EXPECT_NE(linkWith("/launch/num_ctas", 2).err.find("launch.num_ctas: 2 CTAs per cluster: "
                                                     "cuda:80 has no thread block clusters"),
            std::string::npos);
  EXPECT_NE(linkWith("/launch/tmem_size", 128).err.find("launch.tmem_size: "), std::string::npos);
  json wide = original_;
  wide["launch"]["num_warps"] = 64;
  wide["launch"]["block"] = {2048, 1, 1};
  writeJson(metadata_, wide);
  RunResult r = link(dir_, metadata_);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("launch.num_warps: 64 warps of 32 threads are more than a device of "
                       "cuda:80 runs in a block (1024 threads)"),
            std::string::npos)
      << r.err;
}

// --- The compile cache ---------------------------------------------------------------------------

/// Every entry.json under \p cache whose result \p poison changes, sealed again as the cache
/// seals it (the SHA-256 of its other members, compact): someone who can write the cache can
/// compute that too, so the answer's reader, not the seal, must catch it. How many it changed.
int poisonEntries(const fs::path &cache, const std::function<bool(json &result)> &poison) {
  int changed = 0;
  for (const std::string &file : listFiles(cache)) {
    if (fs::path(file).filename() != "entry.json")
      continue;
    json entry = json::parse(readText(cache / file));
    if (poison(entry["result"])) {
      json rest = entry;
      rest.erase("sha256");
      entry["sha256"] = sha256Hex(rest.dump());
      writeJson(cache / file, entry);
      ++changed;
    }
  }
  return changed;
}

/// A cached answer whose parameter name holds code: the run warns, compiles again, writes the
/// real name, and the library made from it has no trace of the injected text.
void expectCompiledAgain(const fs::path &dir, const fs::path &cache) {
  RunResult again = compileVectorAdd(dir, cache, {"-v"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("warning: damaged local cache entry "), std::string::npos) << again.err;
  EXPECT_NE(again.err.find(kNotAName + "; compiling it again"), std::string::npos) << again.err;
  const json meta = json::parse(readText(metadataFile(dir / "out")));
  EXPECT_EQ(meta["params"][0]["name"], "x_ptr");
  RunResult linked = link(dir, dir / "out" / "index.json");
  ASSERT_EQ(linked.status, 0) << linked.err;
  for (const char *file : {"vadd.h", "vadd.c"})
    EXPECT_EQ(readText(dir / "lib" / file).find("#error"), std::string::npos) << file;
  // The entry was replaced: a third run is served from the cache, without a warning.
  RunResult third = compileVectorAdd(dir, cache, {"-v"});
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_EQ(third.err.find("warning: "), std::string::npos) << third.err;
  EXPECT_NE(third.err.find("local cache hit: add_kernel."), std::string::npos) << third.err;
}

TEST(TrustCache, APoisonedCompileAnswerIsCompiledAgainNeverWrittenIntoC) {
  const fs::path dir = freshDir("trust", "poisoned-compile");
  const fs::path cache = dir / "cache";
  ASSERT_EQ(compileVectorAdd(dir, cache).status, 0);
  // The compile answer keeps its describe answer: the parameter names the metadata is made of.
  int poisoned = poisonEntries(cache, [](json &result) {
    if (!result.contains("metadata") || !result.contains("describe"))
      return false;
    result["describe"]["params"][0]["name"] = kInjected;
    return true;
  });
  ASSERT_EQ(poisoned, 1);
  expectCompiledAgain(dir, cache);
}

TEST(TrustCache, APoisonedDescribeAnswerIsAskedAgainNeverWrittenIntoC) {
  const fs::path dir = freshDir("trust", "poisoned-describe");
  const fs::path cache = dir / "cache";
  ASSERT_EQ(compileVectorAdd(dir, cache).status, 0);
  int poisoned = poisonEntries(cache, [](json &result) {
    if (result.contains("metadata") || !result.contains("params") || !result["params"].is_array())
      return false;
    result["params"][0]["name"] = kInjected;
    return true;
  });
  ASSERT_EQ(poisoned, 1);
  expectCompiledAgain(dir, cache);
}

TEST(TrustCache, APoisonedEntrySymbolIsCompiledAgain) {
  const fs::path dir = freshDir("trust", "poisoned-entry");
  const fs::path cache = dir / "cache";
  ASSERT_EQ(compileVectorAdd(dir, cache).status, 0);
  int poisoned = poisonEntries(cache, [](json &result) {
    if (!result.contains("entry"))
      return false;
    result["entry"] = "add_kernel\"\n#error X\n\"";   // a C string in the library's tables
    return true;
  });
  ASSERT_EQ(poisoned, 1);
  RunResult again = compileVectorAdd(dir, cache, {"-v"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find(": entry: \"add_kernel"), std::string::npos) << again.err;
  EXPECT_EQ(json::parse(readText(metadataFile(dir / "out")))["launch"]["entry"], "add_kernel");
}

} // namespace
} // namespace tta
