// triton-aot-cc with a remote cache, against real servers (a private redis-server or nginx per
// test): what another machine sees. "Another machine" is another checkout directory, another
// local cache and another virtual environment (a hard-linked copy of the test interpreter's, at
// another path: the same Triton wheel); the keys must match there and nowhere the inputs differ.
#include "cache_servers.h"

#include "../integration/cli_runner.h"
#include "compiler/remote/remote_entry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace tta::testing {
namespace {

void write(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// A checkout: a kernel package in which add_kernel imports a helper module, and scale_kernel
/// imports nothing of the project.
void checkout(const fs::path &root) {
  write(root / "kern/__init__.py", "");
  write(root / "kern/helpers.py", "import triton\n\n\n@triton.jit\ndef twice(x):\n    return x * 2\n");
  write(root / "kern/add.py",
        "import triton\nimport triton.language as tl\n\nfrom .helpers import twice\n\n\n"
        "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    x = tl.load(x_ptr + offs, mask=mask)\n"
        "    tl.store(out_ptr + offs, twice(x) + tl.load(y_ptr + offs, mask=mask), mask=mask)\n");
  write(root / "kern/scale.py",
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)\n");
  write(root / "kernels.json", R"({
  "targets": ["cuda:80", "cuda:90a"],
  "kernels": [
    {"source": "kern/add.py", "function": "add_kernel", "name": "add",
     "signatures": ["*fp32:16, *fp32:16, *fp32:16, i32, 256"], "grid": "cdiv(n, 256), 1, 1"},
    {"source": "kern/scale.py", "function": "scale_kernel", "name": "scale",
     "signatures": ["*fp32:16, *fp32:16, i32, 256"], "grid": "cdiv(n, 256), 1, 1"}
  ]
})");
}

/// What one build of a checkout did, from its --summary lines.
struct Build {
  RunResult run;
  int compiled(const std::string &kernel) const { return count(kernel, "compiled"); }
  int remote(const std::string &kernel) const { return count(kernel, "remote cache"); }
  int count(const std::string &kernel, const std::string &from) const {
    int n = 0;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(kernel + " ", 0) == 0 && line.size() >= from.size() &&
          line.compare(line.size() - from.size(), from.size(), from) == 0)
        ++n;
    return n;
  }
};

class CompileWithRemote : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    server_ = CacheServer::start(GetParam());
    if (!server_)
      GTEST_SKIP() << GetParam() << " is not installed (tools/bootstrap.sh --dev installs it)";
    dir_ = freshDir("remote", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    url_ = server_->url();   // kept: a stopped server's state files are gone
  }

  /// Builds checkout \p name (made on first use) with its own local cache, with \p python,
  /// against the server, with the extra \p env.
  Build build(const std::string &name, const std::vector<std::string> &env = {},
              const std::string &python = testPython()) {
    fs::path root = dir_ / name;
    if (!fs::exists(root / "kernels.json"))
      checkout(root);
    // The test's own variables first: the first of two settings of a variable wins. Without a
    // key, unsigned entries are read: most of these tests are not about signing.
    std::vector<std::string> environment = env;
    environment.push_back("TRITON_AOT_REMOTE_CACHE=" + url_);
    environment.push_back("TRITON_AOT_REMOTE_CACHE_UNSIGNED=1");
    return Build{run(TTA_COMPILER,
                     {"--spec", "kernels.json", "-o", "out/", "--cache-dir",
                      (dir_ / (name + ".cache")).string(), "--python", python, "--summary",
                      "--source-root", root.string()},
                     root, environment)};
  }

  /// Another virtual environment holding the same Triton: the test interpreter's, hard-linked
  /// at another path.
  std::string secondEnvironment() {
    fs::path python = testPython();
    fs::path venv = python.parent_path().parent_path();
    fs::path copy = dir_ / "second-venv";
    std::string command = "cp -al '" + venv.string() + "' '" + copy.string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return (copy / "bin" / python.filename()).string();
  }

  std::unique_ptr<CacheServer> server_;
  std::string url_;
  fs::path dir_;
};

TEST_P(CompileWithRemote, AnotherMachineCompilesNothingAndEditsRecompileWhatDependsOnThem) {
  Build first = build("a");
  ASSERT_EQ(first.run.status, 0) << first.run.err;
  EXPECT_EQ(first.compiled("add") + first.compiled("scale"), 4) << first.run.out;

  // Another checkout directory, local cache and virtual environment: nothing compiles.
  const std::string python = secondEnvironment();
  Build second = build("b", {}, python);
  ASSERT_EQ(second.run.status, 0) << second.run.err;
  EXPECT_EQ(second.remote("add") + second.remote("scale"), 4) << second.run.out;
  for (const std::string &file : listFiles(dir_ / "a/out")) {
    if (file.find(".cubin") != std::string::npos) {
      EXPECT_EQ(readText(dir_ / "b/out" / file), readText(dir_ / "a/out" / file)) << file;
    }
  }

  // A helper module changed: the kernel importing it recompiles, the other does not.
  write(dir_ / "b/kern/helpers.py",
        "import triton\n\n\n@triton.jit\ndef twice(x):\n    return x + x\n");
  Build helper = build("b", {}, python);
  ASSERT_EQ(helper.run.status, 0) << helper.run.err;
  EXPECT_EQ(helper.compiled("add"), 2) << helper.run.out;
  EXPECT_EQ(helper.compiled("scale"), 0) << helper.run.out;

  // The kernel file changed: that kernel only.
  write(dir_ / "b/kern/scale.py", readText(dir_ / "a/kern/scale.py") + "# edited\n");
  Build edited = build("b", {}, python);
  ASSERT_EQ(edited.run.status, 0) << edited.run.err;
  EXPECT_EQ(edited.compiled("scale"), 2) << edited.run.out;
  EXPECT_EQ(edited.compiled("add"), 0) << edited.run.out;

  // Another Triton: everything.
  fs::path other = fs::path(TTA_TRITON_VENVS) / ".venv-triton-3.6.0/bin/python";
  if (!fs::exists(other) || testTritonVersion() == "3.6.0")
    return;
  Build triton = build("c", {}, other.string());
  ASSERT_EQ(triton.run.status, 0) << triton.run.err;
  EXPECT_EQ(triton.compiled("add") + triton.compiled("scale"), 4) << triton.run.out;
}

TEST_P(CompileWithRemote, ADamagedEntryIsCompiledAgainAndOverwritten) {
  Build first = build("a");
  ASSERT_EQ(first.run.status, 0) << first.run.err;
  // Every image's blob replaced by other bytes, behind the cache's back.
  for (const KernelMetadata &meta : metadataIn(dir_ / "a/out"))
    server_->putRaw("cas", meta.images.at(0).sha256, "not the image");
  Build second = build("b");
  ASSERT_EQ(second.run.status, 0) << second.run.err;
  EXPECT_EQ(second.compiled("add") + second.compiled("scale"), 4) << second.run.out;
  EXPECT_EQ(occurrences(second.run.err, "warning: remote cache"), 1u) << second.run.err;
  EXPECT_NE(second.run.err.find("sha256"), std::string::npos) << second.run.err;
  Build third = build("c");   // overwritten by the second build
  ASSERT_EQ(third.run.status, 0) << third.run.err;
  EXPECT_EQ(third.remote("add") + third.remote("scale"), 4) << third.run.out;
}

TEST_P(CompileWithRemote, WithAKeyUnsignedAndForeignEntriesAreRejected) {
  ASSERT_EQ(build("a").run.status, 0);   // unsigned
  Build signedOne = build("b", {"TRITON_AOT_REMOTE_CACHE_KEY=first secret"});
  ASSERT_EQ(signedOne.run.status, 0) << signedOne.run.err;
  EXPECT_EQ(signedOne.compiled("add") + signedOne.compiled("scale"), 4) << signedOne.run.out;
  EXPECT_NE(signedOne.run.err.find("unsigned"), std::string::npos) << signedOne.run.err;

  Build foreign = build("c", {"TRITON_AOT_REMOTE_CACHE_KEY=another secret"});
  ASSERT_EQ(foreign.run.status, 0) << foreign.run.err;
  EXPECT_EQ(foreign.compiled("add") + foreign.compiled("scale"), 4) << foreign.run.out;
  EXPECT_EQ(occurrences(foreign.run.err, "warning: remote cache"), 1u) << foreign.run.err;

  Build same = build("d", {"TRITON_AOT_REMOTE_CACHE_KEY=another secret"});
  ASSERT_EQ(same.run.status, 0) << same.run.err;
  EXPECT_EQ(same.remote("add") + same.remote("scale"), 4) << same.run.out;
  EXPECT_EQ(same.run.err.find("warning"), std::string::npos) << same.run.err;
}

TEST_P(CompileWithRemote, WithoutAKeyTheCacheIsUnusedUnlessUnsignedEntriesAreAccepted) {
  ASSERT_EQ(build("a").run.status, 0);   // stored, unsigned
  const std::vector<std::string> strict = {"TRITON_AOT_REMOTE_CACHE_UNSIGNED=0"};
  Build unused = build("b", strict);
  ASSERT_EQ(unused.run.status, 0) << unused.run.err;
  EXPECT_EQ(unused.compiled("add") + unused.compiled("scale"), 4) << unused.run.out;
  EXPECT_EQ(occurrences(unused.run.err, "warning: "), 1u) << unused.run.err;
  EXPECT_NE(unused.run.err.find("not used: without a signing key its entries cannot be "
                                "verified. Make a key once (triton-aot-cc "
                                "--new-remote-cache-key FILE)"),
            std::string::npos)
      << unused.run.err;
  // Once per build: the runs of the next minute (the same local cache) are silent.
  fs::remove_all(dir_ / "b/out");
  fs::remove_all(dir_ / "b.cache/v3");
  Build again = build("b", strict);
  ASSERT_EQ(again.run.status, 0) << again.run.err;
  EXPECT_EQ(again.run.err.find("warning"), std::string::npos) << again.run.err;
  EXPECT_EQ(again.remote("add") + again.remote("scale"), 0) << again.run.out;
}

TEST_P(CompileWithRemote, ForgedImportRecordsAreBadEntriesNotHangs) {
  // Someone who can write to the server but has no key rewrites every import record (with
  // the key: signed again with it, as a holder of the key could, to reach the checks after
  // the signature) to name a device: before, hashing /dev/zero never ended.
  for (const std::string signingKey : {"", "team secret"}) {
    SCOPED_TRACE(signingKey.empty() ? "unsigned" : "signed");
    std::vector<std::string> env;
    if (!signingKey.empty())
      env.push_back("TRITON_AOT_REMOTE_CACHE_KEY=" + signingKey);
    const std::string first = signingKey.empty() ? "a" : "c";
    const std::string second = signingKey.empty() ? "b" : "d";
    ASSERT_EQ(build(first, env).run.status, 0);
    int forged = 0;
    for (const std::string &key : server_->recordKeys()) {
      nlohmann::json record = nlohmann::json::parse(*server_->getRaw("ac", key));
      if (!record["result"].contains("modules"))
        continue;
      record["result"]["modules"].push_back("/dev/zero");
      record.erase("hmac");
      if (!signingKey.empty())
        record["hmac"] = remote::hmacSha256Hex(signingKey, remote::canonicalRecord(record));
      server_->putRaw("ac", key, record.dump());
      ++forged;
    }
    ASSERT_GT(forged, 0);
    Build next = build(second, env);
    ASSERT_EQ(next.run.status, 0) << next.run.err;
    EXPECT_EQ(next.compiled("add") + next.compiled("scale"), 4) << next.run.out;
    EXPECT_EQ(occurrences(next.run.err, "warning: remote cache"), 1u) << next.run.err;
    EXPECT_NE(next.run.err.find("its import record names a module '/dev/zero' outside the "
                                "project and the installation"),
              std::string::npos)
        << next.run.err;
  }
}

TEST_P(CompileWithRemote, NestedRecordsAreRejectedWithOrWithoutAKey) {
  for (const std::string signingKey : {"", "team secret"}) {
    SCOPED_TRACE(signingKey.empty() ? "unsigned" : "signed");
    std::vector<std::string> env;
    if (!signingKey.empty())
      env.push_back("TRITON_AOT_REMOTE_CACHE_KEY=" + signingKey);
    const std::string first = signingKey.empty() ? "a" : "c";
    const std::string second = signingKey.empty() ? "b" : "d";
    ASSERT_EQ(build(first, env).run.status, 0);
    // 50,000 nested brackets in 100 KB: before, every build that read one crashed.
    for (const std::string &key : server_->recordKeys())
      server_->putRaw("ac", key, std::string(50000, '[') + std::string(50000, ']'));
    Build next = build(second, env);
    ASSERT_EQ(next.run.status, 0) << next.run.err;
    EXPECT_EQ(next.compiled("add") + next.compiled("scale"), 4) << next.run.out;
    EXPECT_EQ(occurrences(next.run.err, "warning: remote cache"), 1u) << next.run.err;
    EXPECT_NE(next.run.err.find("malformed record: nested deeper than 100 levels"),
              std::string::npos)
        << next.run.err;
  }
}

TEST_P(CompileWithRemote, ReadOnlyReadsAndNeverWrites) {
  Build readOnly = build("a", {"TRITON_AOT_REMOTE_CACHE_READ_ONLY=1"});
  ASSERT_EQ(readOnly.run.status, 0) << readOnly.run.err;
  EXPECT_EQ(readOnly.compiled("add") + readOnly.compiled("scale"), 4);
  Build next = build("b");   // nothing was stored: compiles, and stores
  ASSERT_EQ(next.run.status, 0) << next.run.err;
  EXPECT_EQ(next.compiled("add") + next.compiled("scale"), 4) << next.run.out;
  Build reader = build("c", {"TRITON_AOT_REMOTE_CACHE_READ_ONLY=1"});
  ASSERT_EQ(reader.run.status, 0) << reader.run.err;
  EXPECT_EQ(reader.remote("add") + reader.remote("scale"), 4) << reader.run.out;
}

TEST_P(CompileWithRemote, AServerThatStoppedCostsOneWarningAndTheBuildSucceeds) {
  ASSERT_EQ(build("a").run.status, 0);
  server_->stop();
  Build down = build("b");
  ASSERT_EQ(down.run.status, 0) << down.run.err;
  EXPECT_EQ(down.compiled("add") + down.compiled("scale"), 4) << down.run.out;
  EXPECT_EQ(occurrences(down.run.err, "warning: remote cache"), 1u) << down.run.err;
  // The build's next run (the same local cache) skips it without another warning.
  fs::remove_all(dir_ / "b/out");
  fs::remove_all(dir_ / "b.cache/v3");
  Build next = build("b");
  ASSERT_EQ(next.run.status, 0) << next.run.err;
  EXPECT_EQ(next.run.err.find("warning"), std::string::npos) << next.run.err;
}

TEST_P(CompileWithRemote, TwoBuildsAtOnceShareTheServer) {
  Build a, b;
  std::thread first([&] { a = build("a"); });
  std::thread second([&] { b = build("b"); });
  first.join();
  second.join();
  ASSERT_EQ(a.run.status, 0) << a.run.err;
  ASSERT_EQ(b.run.status, 0) << b.run.err;
  Build third = build("c");
  ASSERT_EQ(third.run.status, 0) << third.run.err;
  EXPECT_EQ(third.remote("add") + third.remote("scale"), 4) << third.run.out;
}

INSTANTIATE_TEST_SUITE_P(Servers, CompileWithRemote, ::testing::Values("redis", "nginx"),
                         [](const auto &server) { return server.param; });

} // namespace
} // namespace tta::testing
