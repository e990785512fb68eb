// What the local cache and the compile's own file writing may hand a build, tried as bad luck
// and an attacker would (docs/security.md): a flipped byte, a garbage image, records that name a
// device or a dependency they should not, a nested entry.json, a full disk under the cache, a
// compile killed while it puts its outputs in place, and the remote cache's secrets, which the
// kernels' code (run by the workers) must never see. Each costs a recompile and one warning, or
// nothing; never a hang, a crash, an internal error or a wrong output.
#include "cli_runner.h"

#include "contract/sha256.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace tta::testing {
namespace {

void writeFile(const fs::path &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// One entry of a local cache (compiler/cache.h, layout v3), to change behind the compiler's
/// back.
struct StoredEntry {
  fs::path dir;
  nlohmann::json doc;   ///< entry.json

  bool isImportRecord() const { return doc["result"].contains("modules"); }
  bool hasImage() const { return doc["files"].contains("image"); }

  /// Writes \p doc (with \p files replacing the entry's files of those roles) as a whole,
  /// self-consistent entry: sizes and SHA-256s as the cache itself would write them.
  void rewrite(const std::map<std::string, std::string> &files = {}) {
    for (const auto &[role, bytes] : files) {
      writeFile(dir / role, bytes);
      doc["files"][role] = {{"size", bytes.size()}, {"sha256", sha256Hex(bytes)}};
    }
    nlohmann::json rest = doc;
    rest.erase("sha256");
    doc["sha256"] = sha256Hex(rest.dump());
    writeFile(dir / "entry.json", doc.dump(2));
  }
};

std::vector<StoredEntry> entriesIn(const fs::path &cache) {
  std::vector<StoredEntry> entries;
  for (const auto &prefix : fs::directory_iterator(cache / "v3")) {
    if (prefix.path().filename() == "tmp")
      continue;
    for (const auto &entry : fs::directory_iterator(prefix.path()))
      entries.push_back(
          {entry.path(), nlohmann::json::parse(readText(entry.path() / "entry.json"))});
  }
  return entries;
}

/// "N variant(s): C compiled, L from the local cache, R from the remote cache" of --summary.
struct Origins {
  int compiled = -1, local = -1, remote = -1;
};
Origins originsOf(const RunResult &r) {
  std::smatch m;
  static const std::regex totals(
      R"((\d+) compiled, (\d+) from the local cache, (\d+) from the remote cache)");
  Origins origins;
  if (std::regex_search(r.out, m, totals))
    origins = {std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
  return origins;
}

class CacheTrust : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = freshDir("cache_trust", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    source_ = readText(kernel("vector_add.py"));
    writeFile(dir_ / "vector_add.py", source_);
  }

  /// The compile of vector_add.py for cuda:80 into \p out (a directory of dir_), with the
  /// test's cache, an index and a depfile; \p prefix runs before the compiler (a wrapper).
  std::vector<std::string> compileArgs(const std::string &out) const {
    fs::path to = dir_ / out;
    return {"--python", testPython(), "vector_add.py", "-n", "add_kernel", "-s",
            "*fp32:16, *fp32:16, *fp32:16, i32, 1024", "-g", "cdiv(n_elements, 1024), 1, 1",
            "-t", "cuda:80", "-o", to.string() + "/", "--cache-dir", (dir_ / "cache").string(),
            "--index", (to / "index.json").string(), "--depfile", (to / "index.d").string(),
            "--summary"};
  }
  RunResult compile(const std::string &out, const std::vector<std::string> &env = {}) {
    // timeout: a regression to a hang fails here, not at CTest's limit.
    std::vector<std::string> args = {"300", TTA_COMPILER};
    for (const std::string &arg : compileArgs(out))
      args.push_back(arg);
    return run("/usr/bin/timeout", args, dir_, env);
  }

  StoredEntry variantEntry() {
    for (StoredEntry &entry : entriesIn(dir_ / "cache"))
      if (entry.hasImage())
        return entry;
    ADD_FAILURE() << "no cached variant in " << dir_ / "cache";
    return {};
  }

  /// Compiles into "a", lets \p damage change the cache, then compiles into "b" and "c": "b"
  /// compiles again with \p warnings warnings naming \p why, and "c" finds the entry replaced.
  void expectRecompiledOnce(const std::function<void()> &damage, const std::string &why,
                            std::size_t warnings = 1) {
    RunResult first = compile("a");
    ASSERT_EQ(first.status, 0) << first.err;
    ASSERT_EQ(originsOf(first).compiled, 1) << first.out;
    damage();
    RunResult again = compile("b");
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(originsOf(again).compiled, 1) << again.out;
    EXPECT_EQ(occurrences(again.err, "warning: damaged local cache entry "), warnings)
        << again.err;
    EXPECT_THAT(again.err, HasSubstr(why));
    EXPECT_THAT(again.err, HasSubstr("; compiling it again"));
    // The outputs are the compile's, as if there had been no cache.
    for (const KernelMetadata &meta : metadataIn(dir_ / "a")) {
      const std::string image = fs::path(meta.images.at(0).file).filename().string();
      EXPECT_EQ(readText(dir_ / "b" / image), readText(dir_ / "a" / image)) << image;
    }
    EXPECT_EQ(readText(dir_ / "b/index.d").find("passwd"), std::string::npos);
    RunResult replaced = compile("c");
    ASSERT_EQ(replaced.status, 0) << replaced.err;
    EXPECT_EQ(originsOf(replaced).local, 1) << replaced.out;
    EXPECT_EQ(replaced.err.find("warning"), std::string::npos) << replaced.err;
  }

  fs::path dir_;
  std::string source_;
};

TEST_F(CacheTrust, AFlippedByteInACachedImageIsCompiledAgainAndReplaced) {
  expectRecompiledOnce(
      [&] {
        StoredEntry entry = variantEntry();
        std::string image = readText(entry.dir / "image");
        image[image.size() / 2] = static_cast<char>(image[image.size() / 2] ^ 1);
        writeFile(entry.dir / "image", image);   // same size: only contents tell
      },
      "image differs from the SHA-256 entry.json names");
}

TEST_F(CacheTrust, AGarbageImageIsNamedNotAnInternalError) {
  // A whole, self-consistent entry whose image is not one (an older tool's bug, or a forged
  // remote entry): named, compiled again, replaced.
  expectRecompiledOnce([&] { variantEntry().rewrite({{"image", "not an ELF image at all"}}); },
                       "its image does not read as one");
}

TEST_F(CacheTrust, AnImageForAnotherTargetIsABadEntry) {
  expectRecompiledOnce(
      [&] {
        StoredEntry entry = variantEntry();
        // The image of another compile of this kernel, for cuda:90a.
        RunResult other = run(TTA_COMPILER,
                              {"--python", testPython(), "vector_add.py", "-n", "add_kernel", "-s",
                               "*fp32:16, *fp32:16, *fp32:16, i32, 1024", "-g",
                               "cdiv(n_elements, 1024), 1, 1", "-t", "cuda:90a", "-o", "hopper/",
                               "--no-cache"},
                              dir_);
        ASSERT_EQ(other.status, 0) << other.err;
        std::vector<KernelMetadata> metas = metadataIn(dir_ / "hopper");
        ASSERT_EQ(metas.size(), 1u);
        entry.rewrite({{"image", readText(dir_ / "hopper" /
                                          fs::path(metas[0].images.at(0).file).filename())}});
      },
      "its image is not for cuda:80");
}

TEST_F(CacheTrust, ANestedEntryIsDamageNotACrash) {
  expectRecompiledOnce(
      [&] {
        writeFile(variantEntry().dir / "entry.json",
                  std::string(50000, '[') + std::string(50000, ']'));
      },
      "entry.json is nested deeper than 100 levels");
}

TEST_F(CacheTrust, AnImportRecordNamingADeviceIsABadEntryNotAHang) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.py").c_str(), 0600), 0);
  std::string up;   // enough ".." to climb out of any checkout ("/.." is "/")
  for (int i = 0; i < 64; ++i)
    up += "../";
  for (const std::string &module : {std::string("/dev/zero"), "${root}/" + up + "dev/zero",
                                   std::string("${root}/fifo.py")}) {
    SCOPED_TRACE(module);
    fs::remove_all(dir_ / "cache");
    for (const char *out : {"a", "b", "c"})
      fs::remove_all(dir_ / out);
    // Every import record (the description's and the variant's) names the module.
    std::size_t records = 0;
    expectRecompiledOnce(
        [&] {
          for (StoredEntry &entry : entriesIn(dir_ / "cache"))
            if (entry.isImportRecord()) {
              entry.doc["result"]["modules"].push_back(module);
              entry.rewrite();
              ++records;
            }
        },
        module[0] == '/' ? "outside the project and the installation"
                         : "that is not a regular file here",
        2);
    EXPECT_EQ(records, 2u);
  }
}

TEST_F(CacheTrust, ADependencyItsRecordDoesNotNameIsABadEntry) {
  // The answer's dependencies go into the depfile: only the kernel file and the record's
  // modules may be there.
  expectRecompiledOnce(
      [&] {
        StoredEntry entry = variantEntry();
        // Enough ".." to climb out of any checkout, however deep ("/.." is "/").
        std::string up;
        for (int i = 0; i < 64; ++i)
          up += "../";
        entry.doc["result"]["deps"].push_back("${root}/" + up + "etc/passwd");
        entry.rewrite();
      },
      "its answer names a dependency '/etc/passwd' its import record does not");
}

TEST_F(CacheTrust, AFullDiskUnderTheCacheCostsSpeedNotTheBuild) {
  // The cache on a small tmpfs, filled up, in a mount namespace of the test's own (root in CI;
  // a user namespace elsewhere); skipped where neither may mount.
  fs::create_directories(dir_ / "cache");
  std::vector<std::string> args = {"--propagation", "private", "sh", "-c",
                                   "mount -t tmpfs -o size=4m tmpfs \"$0\" || exit 77\n"
                                   "dd if=/dev/zero of=\"$0/fill\" bs=64k >/dev/null 2>&1\n"
                                   "exec \"$@\"",
                                   (dir_ / "cache").string(), TTA_COMPILER};
  args.insert(args.begin(), ::geteuid() == 0 ? "-m" : "-rm");
  for (const std::string &arg : compileArgs("out"))
    args.push_back(arg);
  args.push_back("--no-worker-pool");   // no pool daemon kept in the namespace
  if (!fs::exists("/usr/bin/unshare"))
    GTEST_SKIP() << "no /usr/bin/unshare (util-linux)";
  RunResult r = run("/usr/bin/unshare", args, dir_);
  if (r.status == 77 || r.err.find("unshare failed") != std::string::npos)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(originsOf(r).compiled, 1) << r.out;
  EXPECT_EQ(occurrences(r.err, "warning: "), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: cannot write the cache '" + (dir_ / "cache").string() +
                               "' (No space left on device); compiling without the local cache"));
  EXPECT_EQ(metadataIn(dir_ / "out").size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ / "out/index.json"));
}

TEST_F(CacheTrust, ACompileKilledWhilePuttingOutputsInPlaceLeavesNoMix) {
  // Two versions of the kernel, both cached: each compile below is a hit, so the one that is
  // killed dies while it renames its outputs into place, the rest of it done.
  std::string edited = source_;
  edited.replace(edited.find("x + y"), 5, "x + y + 1.0");
  auto outputsOf = [&](const std::string &source) {
    writeFile(dir_ / "vector_add.py", source);
    RunResult r = compile("out");
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, std::string> files;
    for (const std::string &file : listFiles(dir_ / "out"))
      if (file[0] != '.')
        files[file] = readText(dir_ / "out" / file);
    return files;
  };
  outputsOf(source_);   // compiled, then cached; the index says so: hits from now on
  outputsOf(edited);
  const std::map<std::string, std::string> before = outputsOf(source_);
  const std::map<std::string, std::string> after = outputsOf(edited);
  ASSERT_TRUE(before != after);

  int kills = 0;
  for (int at = 1; at < 20; ++at) {
    SCOPED_TRACE("killed at rename " + std::to_string(at));
    ASSERT_TRUE(outputsOf(source_) == before);
    writeFile(dir_ / "vector_add.py", edited);
    RunResult r = run(TTA_COMPILER, compileArgs("out"), dir_,
                      {"LD_PRELOAD=" + std::string(TTA_KILL_AT_RENAME),
                       "TTA_KILL_RENAME_DIR=" + (dir_ / "out").string(),
                       "TTA_KILL_RENAME_AT=" + std::to_string(at)});
    // Whatever is there is the new compile's: no output of the old one beside it.
    for (const auto &[file, bytes] : before) {
      if (fs::exists(dir_ / "out" / file)) {
        EXPECT_TRUE(readText(dir_ / "out" / file) == after.at(file)) << file << " is the old one";
      }
    }
    if (r.status == 0)
      break;
    ASSERT_EQ(r.status, 128 + SIGKILL) << r.err;
    ++kills;
  }
  EXPECT_GE(kills, 4);   // before the image, the PTX, the metadata, the index, the depfile
}

TEST_F(CacheTrust, WorkersNeverSeeTheRemoteCacheSecrets) {
  // A kernel whose module, imported by the workers, writes down the environment it sees.
  std::string recorder = "import os\n"
                         "with open(os.environ['TTA_TEST_ENVIRONMENT_DUMP'], 'a') as dump:\n"
                         "    dump.write(repr(dict(os.environ)) + '\\n')\n" +
                         source_;
  writeFile(dir_ / "vector_add.py", recorder);
  const std::string password = "pass-word-1234", key = "signing-key-5678";
  fs::create_directories(dir_ / "secrets");
  writeFile(dir_ / "secrets/key", key + "\n");
  for (const char *pool : {"pooled", "direct"}) {
    SCOPED_TRACE(pool);
    std::vector<std::string> args = {"300", TTA_COMPILER};
    for (const std::string &arg : compileArgs(pool))
      args.push_back(arg);
    if (std::string(pool) == "direct")
      args.push_back("--no-worker-pool");
    args.push_back("--no-cache");   // the workers import the kernel every time
    RunResult r = run("/usr/bin/timeout", args, dir_,
                      {"TRITON_AOT_REMOTE_CACHE=redis://:" + password + "@127.0.0.1:1/1",
                       "TRITON_AOT_REMOTE_CACHE_KEY_FILE=" + (dir_ / "secrets/key").string(),
                       "TTA_TEST_ENVIRONMENT_DUMP=" + (dir_ / "environment.txt").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    for (const std::string &secret : {password, key}) {
      EXPECT_EQ(r.out.find(secret), std::string::npos);
      EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    }
  }
  std::string seen = readText(dir_ / "environment.txt");
  EXPECT_THAT(seen, HasSubstr("TTA_TEST_ENVIRONMENT_DUMP"));   // it did record
  EXPECT_EQ(seen.find("TRITON_AOT_REMOTE_CACHE"), std::string::npos) << seen;
  // Nor is either secret anywhere the runs wrote (outputs, depfiles, indexes).
  for (const std::string &file : listFiles(dir_, "secrets"))
    for (const std::string &secret : {password, key})
      EXPECT_EQ(readText(dir_ / file).find(secret), std::string::npos) << file;
}

} // namespace
} // namespace tta::testing
