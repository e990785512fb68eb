// The HTTP backend's own behaviour against nginx with WebDAV (label cache): the Bazel layout,
// HEAD before PUT, basic and bearer authentication, a server without uploads and a failing one.
#include "cache_servers.h"

#include <gmock/gmock.h>

#include <sys/stat.h>

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace fs = std::filesystem;

namespace tta::testing {
namespace {

class HttpCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    server_ = CacheServer::fixture("nginx");
    if (!server_)
      GTEST_SKIP() << "no nginx server: run this test through ctest, which starts one "
                   << "(tests/cache_servers); tools/bootstrap.sh --dev installs nginx";
  }

  /// A cache on the fixture's location \p location ("cache", "private", ...).
  std::unique_ptr<RemoteCache> open(const std::string &location, std::string basicAuth = {},
                                    std::string token = {}) {
    RemoteCacheSettings settings;
    settings.url = server_->read("base") + '/' + location;
    settings.httpBasicAuth = std::move(basicAuth);
    settings.httpBearerToken = std::move(token);
    settings.acceptUnsigned = true;   // these tests are about the backend, not signing
    auto cache = RemoteCache::open(settings);
    EXPECT_TRUE(cache) << cache.error().message;
    return cache ? std::move(*cache) : nullptr;
  }

  fs::path file(const std::string &location, const std::string &kind, const std::string &name) {
    return server_->dir() / "www" / location / kind / name;
  }

  std::unique_ptr<CacheServer> server_;
};

TEST_F(HttpCacheTest, BazelLayout) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(open("cache/")->store(key, entry));   // a trailing '/' changes nothing
  EXPECT_TRUE(fs::is_regular_file(file("cache", "ac", key)));
  EXPECT_EQ(fs::file_size(file("cache", "cas", blobName(entry, "ptx"))), entry.files["ptx"].size());
  EXPECT_FALSE(fs::exists(file("cache", "cas", blobName(entry, "empty"))));
  EXPECT_EQ(open("cache")->lookup(key).outcome, RemoteOutcome::Hit);
}

TEST_F(HttpCacheTest, BlobsTheServerHasAreNotUploadedAgain) {
  RemoteEntry entry = uniqueEntry("entry");
  auto cache = open("cache");
  ASSERT_TRUE(cache->store(uniqueKey("first"), entry));
  struct stat before {}, after {};
  ASSERT_EQ(::stat(file("cache", "cas", blobName(entry, "ptx")).c_str(), &before), 0);
  ASSERT_TRUE(cache->store(uniqueKey("second"), entry));
  ASSERT_EQ(::stat(file("cache", "cas", blobName(entry, "ptx")).c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);   // nginx writes a PUT to a new file
  EXPECT_EQ(cache->lookup(uniqueKey("second")).outcome, RemoteOutcome::Hit);
}

TEST_F(HttpCacheTest, BasicAuth) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  auto cache = open("private", server_->read("basic_auth"));
  Status stored = cache->store(key, entry);
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(cache->lookup(key).outcome, RemoteOutcome::Hit);

  stored = open("private", "tta:wrong-password")->store(uniqueKey("other"), entry);
  ASSERT_FALSE(stored);
  EXPECT_EQ(stored.error().message,
            "cannot store in the remote cache " + server_->read("base") + "/private: HEAD " +
                server_->read("base") + "/private/cas/" + blobName(entry, "image") +
                ": HTTP 401: the server refused the credentials; check "
                "TRITON_AOT_REMOTE_CACHE_TOKEN or TRITON_AOT_REMOTE_CACHE_BASIC_AUTH");
  RemoteLookup found = open("private", "tta:wrong-password")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("/private/ac/" + key + ": HTTP 401: the server refused "
                                      "the credentials"));
  found = open("private")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("HTTP 401: the server refused the credentials; set "
                                      "TRITON_AOT_REMOTE_CACHE_TOKEN (bearer) or "
                                      "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH=user:password"));
}

TEST_F(HttpCacheTest, BearerToken) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  auto cache = open("token", {}, server_->read("token"));
  Status stored = cache->store(key, entry);
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(cache->lookup(key).outcome, RemoteOutcome::Hit);
  RemoteLookup found = open("token", {}, "wrong-token")->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("HTTP 401"));
  EXPECT_EQ(found.detail.find("wrong-token"), std::string::npos);
}

TEST_F(HttpCacheTest, ServerWithoutUploads) {
  auto cache = open("readonly");
  Status stored = cache->store(uniqueKey("entry"), uniqueEntry("entry"));
  ASSERT_FALSE(stored);
  EXPECT_THAT(stored.error().message,
              HasSubstr(": HTTP 405: the server takes no uploads (nginx needs `dav_methods PUT`; "
                        "or set TRITON_AOT_REMOTE_CACHE_READ_ONLY=1)"));
  EXPECT_TRUE(cache->available());
  EXPECT_EQ(cache->lookup(uniqueKey("entry")).outcome, RemoteOutcome::Miss);
}

TEST_F(HttpCacheTest, ServerErrorIsUnavailable) {
  auto cache = open("broken");
  RemoteLookup found = cache->lookup(uniqueKey("entry"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_THAT(found.detail, HasSubstr("/broken/ac/"));
  EXPECT_THAT(found.detail, HasSubstr(": HTTP 503"));
  EXPECT_FALSE(cache->available());
  EXPECT_FALSE(cache->store(uniqueKey("entry"), uniqueEntry("entry")));
}

} // namespace
} // namespace tta::testing
