// Portable cache keys: paths as tokens, the import record's content key, the installation's
// fingerprint and its record (compiler/portable_paths.h, cache_keys.h, installation.h).
#include "compiler/cache_keys.h"
#include "compiler/installation.h"
#include "compiler/portable_paths.h"
#include "contract/sha256.h"

#include "test_directory.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tta {
namespace {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class CacheKeysTest : public testing_support::TestDirectory {
protected:
  static void write(const fs::path &path, std::string_view text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  /// A checkout with a kernel and a helper module under \p root.
  void checkout(const fs::path &root, std::string_view helper = "def twice(x): return 2 * x\n") {
    write(root / "kern/add.py", "from .helpers import twice\n");
    write(root / "kern/helpers.py", helper);
  }
  /// A virtual environment's site directory with a fake Triton under \p venv.
  fs::path venv(const fs::path &venv, std::string_view library = "ELF libtriton") {
    fs::path site = venv / "lib/python3.11/site-packages";
    write(site / "triton/_C/libtriton.so", library);
    write(site / "triton/language/standard.py", "def sum(): pass\n");
    return site;
  }
};

TEST(PortablePathsTest, RootsBecomeTokensAndBack) {
  PortablePaths paths("/home/alice/src/", {"/home/alice/src/.venv/lib/python3.11/site-packages",
                                           "/usr/lib/python3/dist-packages"});
  EXPECT_EQ(paths.portable("/home/alice/src/kern/add.py"), "${root}/kern/add.py");
  // A virtual environment inside the checkout is a site directory, not project sources.
  EXPECT_EQ(paths.portable("/home/alice/src/.venv/lib/python3.11/site-packages/triton/a.py"),
            "${site0}/triton/a.py");
  EXPECT_EQ(paths.portable("/usr/lib/python3/dist-packages/numpy/x.py"), "${site1}/numpy/x.py");
  // Elsewhere: from the root, as the images name such files.
  EXPECT_EQ(paths.portable("/home/alice/src2/k.py"), "${root}/../src2/k.py");
  EXPECT_EQ(paths.portable("/opt/k.py"), "${root}/../../../opt/k.py");
  PortablePaths there("/ci/build/checkout", {"/ci/venv/lib/python3.11/site-packages"});
  EXPECT_EQ(there.local("${root}/kern/add.py"), "/ci/build/checkout/kern/add.py");
  EXPECT_EQ(there.local("${site0}/triton/a.py"), "/ci/venv/lib/python3.11/site-packages/triton/a.py");
  EXPECT_EQ(there.local("/opt/k.py"), "/opt/k.py");
  EXPECT_EQ(there.local("${root}/../shared/x.py"), "/ci/build/shared/x.py");
}

TEST(PortablePathsTest, JsonStringsAreRebasedInsideMessages) {
  PortablePaths here("/home/alice/src", {});
  json answer = {{"deps", {"/home/alice/src/k.py", "/home/alice/shared/h.py"}},
                 {"error", {{"traceback", "File \"/home/alice/src/k.py\", line 3\n"
                                          "File \"/home/alice/src2/other.py\""}}},
                 {"line", 3}};
  json stored = here.portableJson(answer);
  EXPECT_EQ(stored.dump().find("/home/alice"), stored.dump().find("/home/alice/src2"));
  EXPECT_EQ(stored["deps"][0], "${root}/k.py");
  EXPECT_EQ(stored["line"], 3);
  PortablePaths there("/ci/x", {});
  json read = there.localJson(stored);
  EXPECT_EQ(read["deps"][0], "/ci/x/k.py");
  EXPECT_EQ(read["deps"][1], "/ci/shared/h.py");   // beside the checkout, there too
  EXPECT_EQ(read["error"]["traceback"],
            "File \"/ci/x/k.py\", line 3\nFile \"/home/alice/src2/other.py\"");
}

TEST(PortablePathsTest, FileSystemRootIsNeverARoot) {
  PortablePaths paths("/", {"/"});
  EXPECT_EQ(paths.portable("/k.py"), "/k.py");
}

TEST(ImportRecordTest, ReadsItsOwnJsonAndRejectsOthers) {
  ImportRecord record{{"${root}/a.py"}, {"liger-kernel"}};
  std::optional<ImportRecord> read = ImportRecord::fromJson(record.toJson());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->modules, record.modules);
  EXPECT_EQ(read->packages, record.packages);
  for (const char *text : {"{}", "[]", R"({"modules": [1], "packages": []})",
                           R"({"modules": [], "packages": "x"})"})
    EXPECT_FALSE(ImportRecord::fromJson(json::parse(text))) << text;
}

TEST(ImportRecordTest, ImportsOfAnAnswerLeaveOutTheKernelFile) {
  PortablePaths paths("/src", {"/venv/site-packages"});
  json answer = {{"deps", {"/src/k/add.py", "/src/k/helpers.py", "/src/k/__init__.py",
                           "/src/k/helpers.py", "/venv/site-packages/loose.py"}},
                 {"packages", {"liger-kernel", "numpy", "liger-kernel"}}};
  ImportRecord record = importsOf(answer, "/src/k/add.py", paths);
  EXPECT_EQ(record.modules, (std::vector<std::string>{"${root}/k/__init__.py",
                                                      "${root}/k/helpers.py",
                                                      "${site0}/loose.py"}));
  EXPECT_EQ(record.packages, (std::vector<std::string>{"liger-kernel", "numpy"}));
}

TEST(PortableEnvironmentTest, LeavesOutPathsAndTheImportPath) {
  json env = {{"TRITON_PTXAS_PATH", "/usr/local/cuda/bin/ptxas"},
              {"PYTHONPATH", "/home/alice/src"},
              {"TRITON_DEFAULT_FP_FUSION", "0"},
              {"MLIR_ENABLE_DUMP", "1"}};
  EXPECT_EQ(portableEnvironment(env),
            (json{{"TRITON_DEFAULT_FP_FUSION", "0"}, {"MLIR_ENABLE_DUMP", "1"}}));
}

TEST_F(CacheKeysTest, ContentKeyIsTheSameInAnotherCheckoutAndFollowsContents) {
  checkout(dir_ / "a");
  checkout(dir_ / "b");
  Installation installation;
  installation.distributions = {{"liger-kernel", "0.8.5"}};
  ImportRecord record{{"${root}/kern/helpers.py"}, {"liger-kernel"}};
  auto keyIn = [&](const fs::path &root, const Installation &inst) {
    KeyContext context{&inst, json::object(), PortablePaths(root, {})};
    SourceHashes hashes(nowNs() + 1'000'000'000);
    return contentKey("first", record, context, hashes);
  };
  std::optional<std::string> a = keyIn(dir_ / "a", installation);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(keyIn(dir_ / "b", installation), a);   // another checkout directory

  checkout(dir_ / "b", "def twice(x): return x + x\n");   // the helper changed
  EXPECT_NE(keyIn(dir_ / "b", installation), a);
  Installation upgraded = installation;
  upgraded.distributions["liger-kernel"] = "0.8.6";
  EXPECT_NE(keyIn(dir_ / "a", upgraded), a);
  EXPECT_FALSE(keyIn(dir_ / "a", Installation{}));   // not installed here: a miss
  fs::remove(dir_ / "a/kern/helpers.py");
  EXPECT_FALSE(keyIn(dir_ / "a", installation));     // the module is gone: a miss
}

TEST_F(CacheKeysTest, SourceChangedDuringTheRunIsNotTrusted) {
  write(dir_ / "k.py", "x = 1\n");
  SourceHashes before(nowNs() - 60'000'000'000);   // the run began a minute before the write
  EXPECT_FALSE(before.of((dir_ / "k.py").string()));
  SourceHashes after(nowNs() + 1'000'000'000);
  EXPECT_EQ(after.of((dir_ / "k.py").string()), sha256Hex("x = 1\n"));
  EXPECT_FALSE(after.of((dir_ / "missing.py").string()));
}

TEST_F(CacheKeysTest, InstallationFingerprintIsByNameAndContent) {
  fs::path siteA = venv(dir_ / "venvA"), siteB = venv(dir_ / "venvB");
  fs::path worker = dir_ / "share/frontend/triton_aot_worker.py";
  write(worker, "# worker\n");
  auto learn = [&](const fs::path &site, const std::string &python, const fs::path &cache) {
    json hello = {{"toolchain_files", {(site / "triton/_C/libtriton.so").string(),
                                       (site / "triton/language/standard.py").string(),
                                       worker.string()}}};
    json answer = {{"python_version", "3.11.2"},
                   {"triton_version", "3.6.0"},
                   {"site_dirs", {site.string()}},
                   {"distributions", {{"triton", "3.6.0"}}}};
    auto learned = learnInstallation(hello, answer);
    if (learned)
      recordInstallation(cache, python, hello, *learned);
    return learned;
  };
  auto a = learn(siteA, "/venvA/bin/python", dir_ / "cacheA");
  auto b = learn(siteB, "/venvB/bin/python", dir_ / "cacheB");
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(a->fingerprint, b->fingerprint);   // another virtual environment, the same wheel
  EXPECT_EQ(a->distributions.at("triton"), "3.6.0");

  fs::path siteC = venv(dir_ / "venvC", "ELF libtriton, patched");
  auto c = learn(siteC, "/venvC/bin/python", dir_ / "cacheC");
  ASSERT_TRUE(c);
  EXPECT_NE(c->fingerprint, a->fingerprint);

  json hello = {{"toolchain_files", {(dir_ / "gone.so").string()}}};
  auto missing = learnInstallation(hello, json{{"site_dirs", json::array()}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("gone.so"), std::string::npos);
}

TEST_F(CacheKeysTest, InstallationRecordIsCheckedByStat) {
  fs::path site = venv(dir_ / "venv");
  json hello = {{"toolchain_files", {(site / "triton/_C/libtriton.so").string()}}};
  json answer = {{"python_version", "3.11.2"}, {"triton_version", "3.6.0"},
                 {"site_dirs", {site.string()}}, {"distributions", json::object()}};
  fs::path cache = dir_ / "cache";
  EXPECT_FALSE(recallInstallation(cache, "/venv/bin/python"));
  auto learned = learnInstallation(hello, answer);
  ASSERT_TRUE(learned);
  recordInstallation(cache, "/venv/bin/python", hello, *learned);
  std::optional<Installation> recalled = recallInstallation(cache, "/venv/bin/python");
  ASSERT_TRUE(recalled);
  EXPECT_EQ(recalled->fingerprint, learned->fingerprint);
  EXPECT_EQ(recalled->siteDirs, learned->siteDirs);
  EXPECT_FALSE(recallInstallation(cache, "/other/bin/python"));
  EXPECT_FALSE(recallInstallation(fs::path(), "/venv/bin/python"));

  // pip installing a package changes the site directory: learn again.
  fs::create_directories(site / "numpy-2.0.dist-info");
  EXPECT_FALSE(recallInstallation(cache, "/venv/bin/python"));
  recordInstallation(cache, "/venv/bin/python", hello, *learned);
  EXPECT_TRUE(recallInstallation(cache, "/venv/bin/python"));
  // A rebuilt libtriton.so (another size and time): learn again.
  write(site / "triton/_C/libtriton.so", "ELF libtriton, rebuilt");
  EXPECT_FALSE(recallInstallation(cache, "/venv/bin/python"));
}

TEST_F(CacheKeysTest, TritonKeyIsRecordedWithTheInstallation) {
  fs::path site = venv(dir_ / "venv");
  json hello = {{"toolchain_files", {(site / "triton/_C/libtriton.so").string()}}};
  const std::string key = "3.6.0" + std::string(64, 'a') + "-" + std::string(64, '0');
  json answer = {{"python_version", "3.11.2"}, {"triton_version", "3.6.0"},
                 {"site_dirs", {site.string()}}, {"distributions", json::object()},
                 {"triton_key", key}};
  fs::path cache = dir_ / "cache";
  auto learned = learnInstallation(hello, answer);
  ASSERT_TRUE(learned);
  EXPECT_EQ(learned->tritonKey, key);
  recordInstallation(cache, "/venv/bin/python", hello, *learned);
  std::optional<Installation> recalled = recallInstallation(cache, "/venv/bin/python");
  ASSERT_TRUE(recalled);
  EXPECT_EQ(recalled->tritonKey, key);

  // A key of another form (another Triton's version, a later layout) is not kept: the workers
  // then hash Triton's files as they would without it. The rest of the answer stands.
  for (const std::string &other : {"3.9.0" + std::string(64, 'a'), "3.6.0 " + std::string(64, 'a'),
                                   "3.6.0" + std::string(64, 'A'), std::string("3.6.0\n"),
                                   "3.6.0" + std::string(70 * 1024, 'a')}) {
    answer["triton_key"] = other;
    auto without = learnInstallation(hello, answer);
    ASSERT_TRUE(without);
    EXPECT_EQ(without->tritonKey, "");
  }
  answer["triton_key"] = 42;
  ASSERT_TRUE(learnInstallation(hello, answer));

  // A record whose key was altered is not recalled (learned again).
  int altered = 0;
  for (const auto &entry : fs::directory_iterator(cache / "installations")) {
    if (entry.path().extension() != ".json")
      continue;
    std::ifstream in(entry.path());
    json record = json::parse(in);
    record["installation"]["triton_key"] = "3.6.0; rm -rf /";
    write(entry.path(), record.dump());
    ++altered;
  }
  ASSERT_EQ(altered, 1);
  EXPECT_FALSE(recallInstallation(cache, "/venv/bin/python"));
  EXPECT_TRUE(isTritonKey(key, "3.6.0"));
  EXPECT_FALSE(isTritonKey(key, ""));
}

TEST_F(CacheKeysTest, Sha256OfFileMatchesTheBytes) {
  std::string bytes(3 << 20, 'x');   // more than one read block
  bytes[12345] = '\0';
  write(dir_ / "big", bytes);
  EXPECT_EQ(sha256OfFile(dir_ / "big"), sha256Hex(bytes));
  EXPECT_FALSE(sha256OfFile(dir_ / "missing"));
}

TEST_F(CacheKeysTest, Sha256OfFileHashesRegularFilesOnly) {
  // A path from a cache record may name anything: a device or a FIFO would never end (or
  // never answer), and a directory is no module.
  EXPECT_FALSE(sha256OfFile("/dev/zero"));
  EXPECT_FALSE(sha256OfFile(dir_));
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(sha256OfFile(dir_ / "fifo"));
}

} // namespace
} // namespace tta
