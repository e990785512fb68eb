// The Redis backend's own behaviour against redis-server (label cache): its key layout, AUTH and
// SELECT from the URL, EXPIRE, and a server that is full.
#include "cache_servers.h"

#include "compiler/remote/remote_entry.h"

#include <gmock/gmock.h>
#include <hiredis/hiredis.h>

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace tta::testing {
namespace {

class RedisCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    server_ = CacheServer::fixture("redis");
    if (!server_)
      GTEST_SKIP() << "no redis server: run this test through ctest, which starts one "
                   << "(tests/cache_servers); tools/bootstrap.sh --dev installs redis-server";
  }

  std::unique_ptr<RemoteCache> open(const std::string &url, std::int64_t expiry = 0) {
    RemoteCacheSettings settings;
    settings.url = url;
    settings.expirySeconds = expiry;
    settings.acceptUnsigned = true;   // these tests are about the backend, not signing
    auto cache = RemoteCache::open(settings);
    EXPECT_TRUE(cache) << cache.error().message;
    return cache ? std::move(*cache) : nullptr;
  }
  /// The fixture's URL with \p credentials before the host and \p database after the port.
  std::string url(const std::string &credentials, int database = 1) const {
    return "redis://" + credentials + "127.0.0.1:" + server_->read("port") + '/' +
           std::to_string(database);
  }

  /// The integer reply of \p command on \p server (database 1).
  static long long integer(CacheServer &server, const std::string &command) {
    redisContext *context = redisConnect("127.0.0.1", std::stoi(server.read("port")));
    freeReplyObject(redisCommand(context, "AUTH %s", server.read("password").c_str()));
    freeReplyObject(redisCommand(context, "SELECT 1"));
    auto *reply = static_cast<redisReply *>(redisCommand(context, command.c_str()));
    long long value = reply && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -100;
    freeReplyObject(reply);
    redisFree(context);
    return value;
  }

  std::unique_ptr<CacheServer> server_;
};

TEST_F(RedisCacheTest, KeyLayout) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(open(server_->url())->store(key, entry));
  auto record = server_->getRaw("ac", key);   // triton-aot:v1:ac:<key>
  ASSERT_TRUE(record);
  EXPECT_EQ(nlohmann::json::parse(*record)["schema"], "triton-aot-remote-entry");
  EXPECT_EQ(server_->getRaw("cas", blobName(entry, "ptx")), entry.files["ptx"]);
  EXPECT_FALSE(server_->getRaw("cas", blobName(entry, "empty")));   // empty files need no blob
  EXPECT_EQ(integer(*server_, "TTL triton-aot:v1:ac:" + key), -1);  // no expiry by default
}

TEST_F(RedisCacheTest, Expiry) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  ASSERT_TRUE(open(server_->url(), 3600)->store(key, entry));
  long long ttl = integer(*server_, "TTL triton-aot:v1:ac:" + key);
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 3600);
  ttl = integer(*server_, "TTL triton-aot:v1:cas:" + blobName(entry, "image"));
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 3600);
}

TEST_F(RedisCacheTest, UserAndPassword) {
  std::string key = uniqueKey("entry");
  RemoteEntry entry = uniqueEntry("entry");
  auto cache = open(url("default:" + server_->read("password") + '@'));
  ASSERT_TRUE(cache->store(key, entry));
  EXPECT_EQ(cache->lookup(key).outcome, RemoteOutcome::Hit);
}

TEST_F(RedisCacheTest, WrongPassword) {
  auto cache = open(url(":wrong-password@"));
  RemoteLookup found = cache->lookup(uniqueKey("entry"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_EQ(found.detail, "the server refused the URL's credentials (WRONGPASS invalid "
                          "username-password pair or user is disabled): fix the user or "
                          "password in the URL");
  EXPECT_EQ(found.detail.find("wrong-password"), std::string::npos);
  Status stored = open(url(":wrong-password@"))->store(uniqueKey("entry"), uniqueEntry("entry"));
  ASSERT_FALSE(stored);
  EXPECT_THAT(stored.error().message, HasSubstr("the server refused the URL's credentials"));
  EXPECT_EQ(stored.error().message.find("wrong-password"), std::string::npos);
}

TEST_F(RedisCacheTest, NoPassword) {
  RemoteLookup found = open(url(""))->lookup(uniqueKey("entry"));
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_EQ(found.detail, "SELECT failed: NOAUTH Authentication required: put the password in "
                          "the URL, redis://[user]:password@host:port");
}

TEST_F(RedisCacheTest, SelectsTheUrlsDatabase) {
  std::string key = uniqueKey("entry");
  std::string password = ':' + server_->read("password") + '@';
  ASSERT_TRUE(open(url(password, 1))->store(key, uniqueEntry("entry")));
  EXPECT_EQ(open(url(password, 2))->lookup(key).outcome, RemoteOutcome::Miss);
  EXPECT_EQ(open(url(password, 1))->lookup(key).outcome, RemoteOutcome::Hit);
  RemoteLookup found = open(url(password, 999))->lookup(key);
  EXPECT_EQ(found.outcome, RemoteOutcome::Unavailable);
  EXPECT_EQ(found.detail,
            "SELECT 999 failed (ERR DB index is out of range): the server has fewer databases");
}

TEST_F(RedisCacheTest, FullServerRefusesStores) {
  auto server = CacheServer::start("redis");
  ASSERT_TRUE(server);
  redisContext *context = redisConnect("127.0.0.1", std::stoi(server->read("port")));
  freeReplyObject(redisCommand(context, "AUTH %s", server->read("password").c_str()));
  freeReplyObject(redisCommand(context, "CONFIG SET maxmemory-policy noeviction"));
  freeReplyObject(redisCommand(context, "CONFIG SET maxmemory 1"));
  redisFree(context);

  auto cache = open(server->url());
  Status stored = cache->store(uniqueKey("entry"), uniqueEntry("entry"));
  ASSERT_FALSE(stored);
  EXPECT_EQ(stored.error().code, ExitCode::OutputError);
  EXPECT_THAT(stored.error().message, StartsWith("cannot store in the remote cache redis://:***@"));
  EXPECT_THAT(stored.error().message, HasSubstr(": SET failed: OOM "));
  EXPECT_THAT(stored.error().message, HasSubstr("the server is full; raise its maxmemory or "
                                                "give it an eviction policy"));
  // A full server still answers lookups.
  EXPECT_TRUE(cache->available());
  EXPECT_EQ(cache->lookup(uniqueKey("entry")).outcome, RemoteOutcome::Miss);
}

} // namespace
} // namespace tta::testing
