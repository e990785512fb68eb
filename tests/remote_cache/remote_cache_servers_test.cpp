// Both backends against real servers (label cache): redis-server, and nginx with WebDAV in the
// Bazel HTTP cache layout. Each test runs once per server; the fixture's servers are started by
// CTest (tests/cache_servers), and a test that must stop a server starts a private one.
#include "cache_servers.h"

#include <gmock/gmock.h>

#include <thread>

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace tta::testing {
namespace {

class RemoteCacheServerTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    server_ = CacheServer::fixture(GetParam());
    if (!server_)
      GTEST_SKIP() << "no " << GetParam() << " server: run this test through ctest, which "
                   << "starts one (tests/cache_servers); tools/bootstrap.sh --dev installs "
                   << "redis-server and nginx";
  }

  /// A cache on the fixture's server, or on \p settings.url when set. Without a signing key it
  /// reads unsigned entries (TRITON_AOT_REMOTE_CACHE_UNSIGNED=1): most tests are not about
  /// signing; those that are open theirs with RemoteCache::open().
  std::unique_ptr<RemoteCache> open(RemoteCacheSettings settings = {}) {
    if (settings.url.empty())
      settings.url = server_->url();
    settings.acceptUnsigned = true;
    auto cache = RemoteCache::open(settings);
    EXPECT_TRUE(cache) << cache.error().message;
    return cache ? std::move(*cache) : nullptr;
  }
  std::unique_ptr<RemoteCache> openSigned(const std::string &signingKey) {
    RemoteCacheSettings settings;
    settings.signingKey = signingKey;
    return open(settings);
  }

  static void expectSame(const RemoteLookup &found, const RemoteEntry &entry) {
    ASSERT_EQ(found.outcome, RemoteOutcome::Hit) << found.detail;
    ASSERT_TRUE(found.entry);
    EXPECT_EQ(found.entry->result, entry.result);
    EXPECT_EQ(found.entry->files, entry.files);
  }

  std::unique_ptr<CacheServer> server_;
};

TEST_P(RemoteCacheServerTest, HitAfterStore) {
  auto cache = open();
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  Status stored = cache->store(key, entry);
  ASSERT_TRUE(stored) << stored.error().message;
  expectSame(cache->lookup(key), entry);
  // Another object (another machine) finds it too.
  expectSame(open()->lookup(key), entry);
  EXPECT_TRUE(cache->available());
}

TEST_P(RemoteCacheServerTest, LargeEntry) {
  auto cache = open();
  std::string key = uniqueKey("large");
  RemoteEntry entry = uniqueEntry("large", 16 << 20);   // many socket buffers' worth
  ASSERT_TRUE(cache->store(key, entry));
  expectSame(open()->lookup(key), entry);
}

TEST_P(RemoteCacheServerTest, Miss) {
  RemoteLookup found = open()->lookup(uniqueKey("never stored"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Miss) << found.detail;
  EXPECT_FALSE(found.entry);
}

TEST_P(RemoteCacheServerTest, CorruptBlobIsRejected) {
  auto cache = open();
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(cache->store(key, entry));
  std::string ptx = entry.files["ptx"];
  std::string other = ptx;
  other[other.size() / 2] ^= 1;
  server_->putRaw("cas", blobName(entry, "ptx"), other);
  RemoteLookup found = cache->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_FALSE(found.entry);
  EXPECT_EQ(found.detail, "blob sha256 mismatch: \"ptx\" is not the blob " +
                              blobName(entry, "ptx") + " of " + std::to_string(ptx.size()) +
                              " bytes the record names");
  server_->putRaw("cas", blobName(entry, "ptx"), ptx + "and more");
  EXPECT_THAT(cache->lookup(key).detail, StartsWith("blob sha256 mismatch"));
}

TEST_P(RemoteCacheServerTest, EvictedBlobIsAMiss) {
  auto cache = open();
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(cache->store(key, entry));
  server_->removeRaw("cas", blobName(entry, "image"));
  RemoteLookup found = cache->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Miss);
  EXPECT_EQ(found.detail, "the record is there but the blob of \"image\" is gone (evicted)");
}

TEST_P(RemoteCacheServerTest, GarbageRecordIsRejected) {
  std::string key = uniqueKey("garbage");
  server_->putRaw("ac", key, "<html>not a record</html>");
  RemoteLookup found = open()->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_EQ(found.detail, "malformed record: not JSON (at byte 1)");
}

TEST_P(RemoteCacheServerTest, UnsignedEntryReadWithAKeyIsRejected) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(open()->store(key, entry));
  RemoteLookup found = openSigned("secret")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_THAT(found.detail, StartsWith("unsigned entry"));
}

TEST_P(RemoteCacheServerTest, EntrySignedWithAnotherKeyIsRejected) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(openSigned("secret")->store(key, entry));
  expectSame(openSigned("secret")->lookup(key), entry);
  expectSame(open()->lookup(key), entry);   // no key: signed entries are read unverified
  RemoteLookup found = openSigned("another secret")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_THAT(found.detail, StartsWith("signed with another key"));
}

TEST_P(RemoteCacheServerTest, AlteredSignedEntryIsRejected) {
  std::string key = uniqueKey("entry");
  ASSERT_TRUE(openSigned("secret")->store(key, uniqueEntry("entry")));
  nlohmann::json record = nlohmann::json::parse(*server_->getRaw("ac", key));
  record["result"]["shared"] = 0;
  server_->putRaw("ac", key, record.dump());
  RemoteLookup found = openSigned("secret")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_THAT(found.detail, StartsWith("signed with another key"));
}

TEST_P(RemoteCacheServerTest, RecordCopiedToAnotherKeyIsRejected) {
  for (std::string signingKey : {"", "secret"}) {
    std::string key = uniqueKey("original" + signingKey);
    std::string copy = uniqueKey("copy" + signingKey);
    ASSERT_TRUE(openSigned(signingKey)->store(key, uniqueEntry("entry" + signingKey)));
    server_->putRaw("ac", copy, *server_->getRaw("ac", key));
    RemoteLookup found = openSigned(signingKey)->lookup(copy);
    EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
    EXPECT_EQ(found.detail, "record for another key (" + key + ")");
  }
}

TEST_P(RemoteCacheServerTest, ReadOnlyWritesNothing) {
  RemoteCacheSettings settings;
  settings.readOnly = true;
  auto cache = open(settings);
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  EXPECT_TRUE(cache->store(key, entry));
  EXPECT_FALSE(server_->getRaw("ac", key));
  EXPECT_FALSE(server_->getRaw("cas", blobName(entry, "image")));
  EXPECT_FALSE(server_->getRaw("cas", blobName(entry, "ptx")));
  EXPECT_EQ(cache->lookup(key).outcome, RemoteOutcome::Miss);
  // It reads what others wrote.
  ASSERT_TRUE(open()->store(key, entry));
  expectSame(cache->lookup(key), entry);
}

TEST_P(RemoteCacheServerTest, EntryOverTheLimitIsNotStored) {
  RemoteCacheSettings settings;
  settings.maxEntryBytes = 100;
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  std::size_t total = entry.files["image"].size() + entry.files["ptx"].size();
  Status stored = open(settings)->store(key, entry);
  ASSERT_FALSE(stored);
  EXPECT_EQ(stored.error().code, ExitCode::OutputError);
  EXPECT_EQ(stored.error().message,
            "entry of " + std::to_string(total) + " bytes not stored in the remote cache: over "
            "its limit of 100 bytes (TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");
  EXPECT_FALSE(server_->getRaw("ac", key));
  EXPECT_FALSE(server_->getRaw("cas", blobName(entry, "ptx")));
}

TEST_P(RemoteCacheServerTest, RecordDeclaringTooMuchIsRejectedUnfetched) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry", 5000);
  ASSERT_TRUE(open()->store(key, entry));
  // Without the blobs, a lookup that fetched them would miss: this one rejects the record first.
  server_->removeRaw("cas", blobName(entry, "ptx"));
  RemoteCacheSettings settings;
  settings.maxEntryBytes = 2000;   // more than the record, less than its files
  RemoteLookup found = open(settings)->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_EQ(found.detail, "entry too large: the record declares more than the limit of 2000 "
                          "bytes (TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");
  settings.maxEntryBytes = 100;    // less than the record itself
  EXPECT_THAT(open(settings)->lookup(key).detail, StartsWith("entry too large"));
}

TEST_P(RemoteCacheServerTest, DescribeHidesThePassword) {
  std::string description = open()->describe();
  if (GetParam() == "redis") {
    EXPECT_EQ(description.find(server_->read("password")), std::string::npos);
    EXPECT_THAT(description, HasSubstr(":***@127.0.0.1:"));
  } else {
    EXPECT_EQ(description, server_->url());
  }
}

TEST_P(RemoteCacheServerTest, ThreadsStoreAndLookUpAtOnce) {
  auto cache = open();
  constexpr int kThreads = 4, kKeys = 8;
  std::vector<std::string> keys;
  std::vector<RemoteEntry> entries;
  for (int i = 0; i < kThreads * kKeys; ++i) {
    keys.push_back(uniqueKey("entry" + std::to_string(i)));
    entries.push_back(uniqueEntry("entry" + std::to_string(i)));
  }
  std::string shared = uniqueKey("shared");
  RemoteEntry sharedEntry = uniqueEntry("shared");
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kKeys; ++k) {
        int i = t * kKeys + k;
        if (Status stored = cache->store(keys[i], entries[i]); !stored)
          failures[t] += stored.error().message + '\n';
        if (RemoteLookup found = cache->lookup(keys[i]); found.outcome != RemoteOutcome::Hit ||
                                                          found.entry->files != entries[i].files)
          failures[t] += "own entry not found: " + found.detail + '\n';
        if (Status stored = cache->store(shared, sharedEntry); !stored)
          failures[t] += stored.error().message + '\n';
        // Another thread's entry: there or not yet, never damaged.
        int other = ((t + 1) % kThreads) * kKeys + k;
        RemoteLookup found = cache->lookup(keys[other]);
        if (found.outcome == RemoteOutcome::Hit ? found.entry->files != entries[other].files
                                                : found.outcome != RemoteOutcome::Miss)
          failures[t] += "other entry damaged: " + found.detail + '\n';
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
  for (int i = 0; i < kThreads * kKeys; ++i)
    expectSame(cache->lookup(keys[i]), entries[i]);
  expectSame(cache->lookup(shared), sharedEntry);
}

TEST_P(RemoteCacheServerTest, StoppedServerIsUnavailableAndNotAskedAgain) {
  auto server = CacheServer::start(GetParam());
  ASSERT_TRUE(server);
  RemoteCacheSettings settings;
  settings.url = server->url();
  settings.timeout = std::chrono::milliseconds(500);
  auto cache = open(settings);
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(cache->store(key, entry));
  expectSame(cache->lookup(key), entry);
  auto fresh = open(settings);   // its first call finds the server gone

  server->stop();
  RemoteLookup found = cache->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_FALSE(cache->available());
  found = cache->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, StartsWith("not asked: it was unavailable earlier in this run ("));
  Status stored = cache->store(key, entry);
  ASSERT_FALSE(stored);
  EXPECT_THAT(stored.error().message, HasSubstr("was unavailable earlier in this run"));

  stored = fresh->store(key, entry);
  ASSERT_FALSE(stored);
  EXPECT_THAT(stored.error().message, StartsWith("cannot store in the remote cache "));
  EXPECT_FALSE(fresh->available());
  EXPECT_EQ(fresh->lookup(key).outcome, RemoteOutcome::Unavailable);
}

TEST_P(RemoteCacheServerTest, HungServerTimesOut) {
  SilentServer silent;
  RemoteCacheSettings settings;
  settings.url = (GetParam() == "redis" ? "redis://127.0.0.1:" : "http://127.0.0.1:") +
                 std::to_string(silent.port()) + "/1";
  settings.timeout = std::chrono::milliseconds(200);
  auto cache = open(settings);
  RemoteLookup found = cache->lookup(uniqueKey("entry"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("no answer within 200 ms (TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS)"));
  EXPECT_FALSE(cache->available());
  // Later calls answer at once, without another timeout.
  EXPECT_THAT(cache->lookup(uniqueKey("entry")).detail, StartsWith("not asked"));
  EXPECT_FALSE(cache->store(uniqueKey("entry"), uniqueEntry("entry")));
}

TEST_P(RemoteCacheServerTest, NestedRecordIsRejectedWithOrWithoutAKey) {
  // 50,000 nested brackets in 100 KB: before, every build that read it crashed, key or not.
  std::string key = uniqueKey("nested");
  std::string nested = "{\"schema\":\"triton-aot-remote-entry\",\"version\":1,\"key\":\"" + key +
                       "\",\"files\":{},\"result\":" + std::string(50000, '[') +
                       std::string(50000, ']') + "}";
  server_->putRaw("ac", key, nested);
  for (const RemoteLookup &found : {open()->lookup(key), openSigned("secret")->lookup(key)}) {
    EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
    EXPECT_EQ(found.detail, "malformed record: nested deeper than 100 levels");
  }
}

TEST_P(RemoteCacheServerTest, ForgedEntryIsReadOnlyWhenUnsignedEntriesAreAccepted) {
  // A consistent entry written by someone without the key: its blobs match the record.
  std::string key = uniqueKey("forged");
  RemoteEntry forged = uniqueEntry("forged");
  ASSERT_TRUE(open()->store(key, forged));
  RemoteCacheSettings settings;   // the default: no key, unsigned entries not accepted
  settings.url = server_->url();
  auto strict = RemoteCache::open(settings);
  ASSERT_TRUE(strict);
  RemoteLookup found = (*strict)->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_THAT(found.detail, StartsWith("not read: without a signing key"));
  EXPECT_THAT(openSigned("secret")->lookup(key).detail, StartsWith("unsigned entry"));
  expectSame(open()->lookup(key), forged);   // TRITON_AOT_REMOTE_CACHE_UNSIGNED=1: read
}

INSTANTIATE_TEST_SUITE_P(Servers, RemoteCacheServerTest, ::testing::Values("redis", "nginx"),
                         [](const ::testing::TestParamInfo<std::string> &server) {
                           return server.param;
                         });


// Servers that answer a byte now and then, never finishing: every operation has a deadline, so
// a build is held for the timeout at most, not for ever. (No fixture: a fake server each.)
TEST(SlowServerTest, RedisThatDripsBytesTimesOut) {
  for (const std::string credentials : {"", ":secret@"}) {   // the GETRANGE's reply; AUTH's
    DripServer drip("$1000000\r\n", std::chrono::milliseconds(50));
    RemoteCacheSettings settings;
    settings.url = "redis://" + credentials + "127.0.0.1:" + std::to_string(drip.port());
    settings.timeout = std::chrono::milliseconds(300);
    settings.signingKey = "secret";
    auto cache = RemoteCache::open(settings);
    ASSERT_TRUE(cache) << cache.error().message;
    auto started = std::chrono::steady_clock::now();
    RemoteLookup found = (*cache)->lookup(uniqueKey("entry"));
    auto took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable) << credentials;
    EXPECT_THAT(found.detail, HasSubstr("no answer within 300 ms")) << credentials;
    EXPECT_LT(took, std::chrono::seconds(5)) << credentials;   // 300 ms, on a busy machine
    EXPECT_EQ(drip.connections(), 1);
    EXPECT_FALSE((*cache)->store(uniqueKey("entry"), uniqueEntry("entry")));   // not asked again
  }
}

TEST(SlowServerTest, HttpThatDripsBytesTimesOut) {
  DripServer drip("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n",
                  std::chrono::milliseconds(50));
  RemoteCacheSettings settings;
  settings.url = "http://127.0.0.1:" + std::to_string(drip.port()) + "/cache";
  settings.timeout = std::chrono::milliseconds(300);
  settings.signingKey = "secret";
  auto cache = RemoteCache::open(settings);
  ASSERT_TRUE(cache) << cache.error().message;
  auto started = std::chrono::steady_clock::now();
  RemoteLookup found = (*cache)->lookup(uniqueKey("entry"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("no answer within 300 ms"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

} // namespace
} // namespace tta::testing
