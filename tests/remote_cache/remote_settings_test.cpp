// Remote cache URLs, settings from the environment and RemoteCache::open(), without a server.
#include "compiler/remote/remote_cache.h"
#include "compiler/remote/remote_url.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace tta::remote {
namespace {

using ::testing::HasSubstr;

std::string urlError(const std::string &url) {
  auto parsed = parseRemoteUrl(url);
  EXPECT_FALSE(parsed) << url;
  return parsed ? "" : parsed.error().message;
}

TEST(RemoteUrlTest, Redis) {
  auto url = parseRemoteUrl("redis://user:p%40ss@cache.example:1234/5");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(url->scheme, RemoteUrl::Scheme::Redis);
  EXPECT_EQ(url->host, "cache.example");
  EXPECT_EQ(url->port, 1234);
  EXPECT_EQ(url->user, "user");
  EXPECT_EQ(url->password, "p@ss");
  EXPECT_EQ(url->database, 5);

  url = parseRemoteUrl("redis://cache");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->port, 6379);
  EXPECT_EQ(url->password, "");
  EXPECT_EQ(url->database, 0);
  url = parseRemoteUrl("REDIS://:secret@cache/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->user, "");
  EXPECT_EQ(url->password, "secret");
  url = parseRemoteUrl("redis://secret@cache");   // as redis-cli -u reads it
  ASSERT_TRUE(url);
  EXPECT_EQ(url->password, "secret");
  url = parseRemoteUrl("redis://[::1]:6380/2");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 6380);
}

TEST(RemoteUrlTest, Http) {
  auto url = parseRemoteUrl("http://cache.example:8080/triton/v1/");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(url->scheme, RemoteUrl::Scheme::Http);
  EXPECT_EQ(url->base, "http://cache.example:8080/triton/v1");
  url = parseRemoteUrl("https://cache.example");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->base, "https://cache.example:443");
  url = parseRemoteUrl("http://[::1]/c");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->base, "http://[::1]:80/c");
}

TEST(RemoteUrlTest, ErrorsNameTheFix) {
  EXPECT_EQ(urlError("ftp://cache/x"),
            "remote cache URL 'ftp://cache/x': unsupported scheme 'ftp': expected "
            "redis://[user:password@]host[:port][/db] or http(s)://host[:port][/prefix]");
  EXPECT_EQ(urlError("cache:6379"),
            "remote cache URL 'cache:6379': not a URL: expected "
            "redis://[user:password@]host[:port][/db] or http(s)://host[:port][/prefix]");
  EXPECT_EQ(urlError("redis://cache:99999"),
            "remote cache URL 'redis://cache:99999': bad port '99999': expected a number from 1 "
            "to 65535");
  EXPECT_EQ(urlError("http://cache:http/"),
            "remote cache URL 'http://cache:http/': bad port 'http': expected a number from 1 "
            "to 65535");
  EXPECT_EQ(urlError("redis://cache:0"), "remote cache URL 'redis://cache:0': bad port '0': "
                                         "expected a number from 1 to 65535");
  EXPECT_EQ(urlError("redis://cache:6379/cache"),
            "remote cache URL 'redis://cache:6379/cache': bad database 'cache': expected a "
            "number, as in redis://host:6379/0");
  EXPECT_EQ(urlError("redis://:6379"), "remote cache URL 'redis://:6379': no host: expected "
                                       "redis://[user:password@]host[:port][/db] or "
                                       "http(s)://host[:port][/prefix]");
  EXPECT_THAT(urlError("http://cache/?x=1"), HasSubstr("a query or fragment"));
}

TEST(RemoteUrlTest, RedissNeedsTls) {
  EXPECT_EQ(urlError("rediss://:secret@cache:6380"),
            "remote cache URL 'rediss://:***@cache:6380': rediss:// (Redis over TLS) needs "
            "hiredis with TLS, and this build's hiredis " +
                std::to_string(HIREDIS_MAJOR) + '.' + std::to_string(HIREDIS_MINOR) +
                " has none: use redis:// through a TLS tunnel (e.g. stunnel), or an https:// "
                "cache");
}

TEST(RemoteUrlTest, HttpCredentialsBelongInTheEnvironment) {
  std::string message = urlError("https://user:secret@cache/prefix");
  EXPECT_EQ(message, "remote cache URL 'https://user:***@cache/prefix': credentials do not "
                     "belong in an http(s):// URL, which ends up in logs: set "
                     "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH=user:password or "
                     "TRITON_AOT_REMOTE_CACHE_TOKEN instead");
}

TEST(RemoteUrlTest, ErrorsNeverShowThePassword) {
  for (const char *url : {"redis://:secret@cache:x", "redis://u:secret@cache/db",
                          "redis://u:secret@:1", "redis://u:sec%zzret@cache"})
    EXPECT_EQ(urlError(url).find("secret"), std::string::npos) << url;
}

TEST(RemoteUrlTest, Redact) {
  EXPECT_EQ(redactUrl("redis://user:secret@cache:1/2"), "redis://user:***@cache:1/2");
  EXPECT_EQ(redactUrl("redis://:secret@cache"), "redis://:***@cache");
  // redis-cli reads a lone "secret@" as the password: the documented form hides it whole.
  EXPECT_EQ(redactUrl("redis://secret@cache"), "redis://***@cache");
  EXPECT_EQ(redactUrl("redis://cache:1/x@y"), "redis://cache:***@y");   // too much, never less
  EXPECT_EQ(redactUrl("http://cache/p"), "http://cache/p");
  EXPECT_EQ(redactUrl("not a url"), "not a url");
}

TEST(RemoteUrlTest, PasswordsWithSeparatorsParseAndNeverShow) {
  // '/', '?', '#' and '@' unescaped in a password: the user information ends at the last '@'.
  auto url = parseRemoteUrl("redis://user:se/cr?et#x@y@cache:1234/5");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(url->user, "user");
  EXPECT_EQ(url->password, "se/cr?et#x@y");
  EXPECT_EQ(url->host, "cache");
  EXPECT_EQ(url->port, 1234);
  EXPECT_EQ(url->database, 5);
  EXPECT_FALSE(url->loneUserInfo);
  url = parseRemoteUrl("redis://se/cr#et@cache");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_TRUE(url->loneUserInfo);
  EXPECT_EQ(url->password, "se/cr#et");
  for (const char *bad : {"redis://:se/cr?et@cache:x", "redis://:se#cret@cache/db",
                          "redis://:se?cret@cache:0", "rediss://:se/cret@cache",
                          "redis://:se/cret@cache/1?x", "gopher://:se/cret@cache"}) {
    std::string message = urlError(bad);
    EXPECT_THAT(message, HasSubstr(":***@cache")) << bad;
    EXPECT_EQ(message.find("cret"), std::string::npos) << bad << ": " << message;
    EXPECT_EQ(message.find("cr?et"), std::string::npos) << bad << ": " << message;
  }
}

TEST(RemoteCacheOpenTest, DescribeRedactsThePassword) {
  RemoteCacheSettings settings;
  settings.url = "redis://user:secret@cache:6379/3";
  auto cache = RemoteCache::open(settings);
  ASSERT_TRUE(cache) << cache.error().message;
  EXPECT_EQ((*cache)->describe(), "redis://user:***@cache:6379/3");
  EXPECT_TRUE((*cache)->available());
  settings.url = "https://cache.example/triton";
  settings.httpBearerToken = "secret";
  cache = RemoteCache::open(settings);
  ASSERT_TRUE(cache);
  EXPECT_EQ((*cache)->describe(), "https://cache.example/triton");
}

TEST(RemoteCacheOpenTest, Errors) {
  RemoteCacheSettings settings;
  auto cache = RemoteCache::open(settings);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().message, "no remote cache URL: set TRITON_AOT_REMOTE_CACHE to "
                                   "redis://host:port or http(s)://host[:port]/prefix");
  settings.url = "redis://cache";
  settings.httpBasicAuth = "user:secret";
  cache = RemoteCache::open(settings);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().message,
            "TRITON_AOT_REMOTE_CACHE_TOKEN and TRITON_AOT_REMOTE_CACHE_BASIC_AUTH are for "
            "http(s):// caches; a Redis password goes in the URL: "
            "redis://[user]:password@host:port");
  settings.httpBasicAuth.clear();
  settings.timeout = std::chrono::milliseconds(0);
  cache = RemoteCache::open(settings);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().code, ExitCode::UsageError);
  EXPECT_THAT(cache.error().message, HasSubstr("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS"));
}

/// Sets the remote cache's variables for one test, and clears all of them before and after.
class RemoteSettingsTest : public ::testing::Test {
protected:
  static constexpr const char *kVariables[] = {
      "TRITON_AOT_REMOTE_CACHE",           "TRITON_AOT_REMOTE_CACHE_KEY",
      "TRITON_AOT_REMOTE_CACHE_KEY_FILE",  "TRITON_AOT_REMOTE_CACHE_READ_ONLY",
      "TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS", "TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB",
      "TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS", "TRITON_AOT_REMOTE_CACHE_TOKEN",
      "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH", "TRITON_AOT_REMOTE_CACHE_UNSIGNED",
      "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE"};
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char *name : kVariables)
      ::unsetenv(name);
  }
  static void set(const char *name, const std::string &value) { ::setenv(name, value.c_str(), 1); }
  static std::string error() {
    auto settings = RemoteCacheSettings::fromEnvironment();
    EXPECT_FALSE(settings);
    return settings ? "" : settings.error().message;
  }
};

TEST_F(RemoteSettingsTest, NothingSet) {
  auto settings = RemoteCacheSettings::fromEnvironment();
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->enabled());
  EXPECT_EQ(settings->timeout.count(), 2000);
  EXPECT_EQ(settings->maxEntryBytes, 256u << 20);
}

TEST_F(RemoteSettingsTest, EverythingSet) {
  set("TRITON_AOT_REMOTE_CACHE", "http://cache:8080/triton");
  set("TRITON_AOT_REMOTE_CACHE_KEY", "secret");
  set("TRITON_AOT_REMOTE_CACHE_READ_ONLY", "1");
  set("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS", "500");
  set("TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB", "16");
  set("TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS", "86400");
  set("TRITON_AOT_REMOTE_CACHE_TOKEN", "token");
  auto settings = RemoteCacheSettings::fromEnvironment();
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->url, "http://cache:8080/triton");
  EXPECT_EQ(settings->signingKey, "secret");
  EXPECT_TRUE(settings->readOnly);
  EXPECT_EQ(settings->timeout.count(), 500);
  EXPECT_EQ(settings->maxEntryBytes, 16u << 20);
  EXPECT_EQ(settings->expirySeconds, 86400);
  EXPECT_EQ(settings->httpBearerToken, "token");
  // A URL given by the caller (a command-line option) wins over the variable.
  settings = RemoteCacheSettings::fromEnvironment("redis://other:6379");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->url, "redis://other:6379");
}

TEST_F(RemoteSettingsTest, KeyFile) {
  std::string path = ::testing::TempDir() + "remote-cache-key";
  std::ofstream(path) << "from-file\n";
  set("TRITON_AOT_REMOTE_CACHE", "redis://cache");
  set("TRITON_AOT_REMOTE_CACHE_KEY_FILE", path);
  auto settings = RemoteCacheSettings::fromEnvironment();
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->signingKey, "from-file");

  set("TRITON_AOT_REMOTE_CACHE_KEY", "secret");
  EXPECT_EQ(error(), "both TRITON_AOT_REMOTE_CACHE_KEY and TRITON_AOT_REMOTE_CACHE_KEY_FILE are "
                     "set: set only one (the file keeps the key out of the environment)");
  ::unsetenv("TRITON_AOT_REMOTE_CACHE_KEY");
  set("TRITON_AOT_REMOTE_CACHE_KEY_FILE", path + ".missing");
  auto missing = RemoteCacheSettings::fromEnvironment();
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ExitCode::EnvironmentError);
  EXPECT_EQ(missing.error().message, "TRITON_AOT_REMOTE_CACHE_KEY_FILE='" + path +
                                         ".missing': cannot read the signing key from it");
  std::ofstream(path, std::ios::trunc) << "\n";
  set("TRITON_AOT_REMOTE_CACHE_KEY_FILE", path);
  EXPECT_THAT(error(), HasSubstr("the file is empty"));
}

TEST_F(RemoteSettingsTest, UnsignedEntriesOnlyWhenAskedFor) {
  set("TRITON_AOT_REMOTE_CACHE", "redis://cache");
  auto settings = RemoteCacheSettings::fromEnvironment();
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->acceptUnsigned);
  set("TRITON_AOT_REMOTE_CACHE_UNSIGNED", "1");
  settings = RemoteCacheSettings::fromEnvironment();
  ASSERT_TRUE(settings);
  EXPECT_TRUE(settings->acceptUnsigned);
  set("TRITON_AOT_REMOTE_CACHE_UNSIGNED", "please");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_UNSIGNED='please': expected 1 (or true, yes) or 0");

  // Without a key and without the opt-in, nothing is read: no server is even asked.
  RemoteCacheSettings plain;
  plain.url = "redis://127.0.0.1:1";   // nothing listens there
  auto cache = RemoteCache::open(plain);
  ASSERT_TRUE(cache);
  RemoteLookup found = (*cache)->lookup(std::string(64, 'a'));
  EXPECT_EQ(found.outcome, RemoteOutcome::Rejected);
  EXPECT_THAT(found.detail, HasSubstr("without a signing key its entries cannot be verified"));
  EXPECT_TRUE((*cache)->available());
}

TEST_F(RemoteSettingsTest, APasswordOnTheCommandLineIsRefused) {
  // A command line is seen by every user (ps) and CMake writes it into build.ninja.
  for (const char *url : {"redis://:se/cret@cache", "redis://user:secret@cache",
                          "redis://secret@cache"}) {
    auto settings = RemoteCacheSettings::fromEnvironment(url);
    ASSERT_FALSE(settings) << url;
    EXPECT_EQ(settings.error().code, ExitCode::UsageError);
    EXPECT_THAT(settings.error().message,
                HasSubstr("a password on the command line is visible to every user"));
    EXPECT_EQ(settings.error().message.find("cret"), std::string::npos)
        << settings.error().message;
  }
  // The same URL from the environment is read; one without a password anywhere.
  set("TRITON_AOT_REMOTE_CACHE", "redis://:secret@cache");
  EXPECT_TRUE(RemoteCacheSettings::fromEnvironment());
  EXPECT_TRUE(RemoteCacheSettings::fromEnvironment("redis://cache:6379/1"));
  EXPECT_TRUE(RemoteCacheSettings::fromEnvironment("redis://user:@cache"));
}

TEST_F(RemoteSettingsTest, PasswordFile) {
  std::string path = ::testing::TempDir() + "remote-cache-password";
  std::ofstream(path, std::ios::trunc) << "pass/word#1\n";
  set("TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE", path);
  // The URL a build file may hold: no password; "user@" is then the user.
  auto settings = RemoteCacheSettings::fromEnvironment("redis://default@cache:6379/1");
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->password, "pass/word#1");
  settings = RemoteCacheSettings::fromEnvironment("redis://cache");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->password, "pass/word#1");

  set("TRITON_AOT_REMOTE_CACHE", "redis://:other@cache");
  EXPECT_EQ(error(), "the remote cache URL 'redis://:***@cache' carries a password, and "
                     "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE names another: drop the one in the "
                     "URL");
  set("TRITON_AOT_REMOTE_CACHE", "http://cache/triton");
  EXPECT_THAT(error(), HasSubstr("TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE is for redis:// caches"));
  set("TRITON_AOT_REMOTE_CACHE", "redis://cache");
  set("TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE", path + ".missing");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE='" + path +
                         ".missing': cannot read the Redis password from it");
}

TEST(SigningKeyTest, NewKeyIsRandomPrivateAndNeverOverwritten) {
  std::string dir = ::testing::TempDir() + "signing-key." + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string first = dir + "/first", second = dir + "/second";
  ASSERT_TRUE(writeNewSigningKey(first));
  ASSERT_TRUE(writeNewSigningKey(second));
  std::ifstream in(first);
  std::string key((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(key, ::testing::MatchesRegex("[0-9a-f]{64}\n"));
  std::ifstream other(second);
  EXPECT_NE(key, std::string((std::istreambuf_iterator<char>(other)), {}));
  EXPECT_EQ(std::filesystem::status(first).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  Status again = writeNewSigningKey(first);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ExitCode::OutputError);
  EXPECT_THAT(again.error().message, HasSubstr("delete it first to replace the key"));
  std::ifstream unchanged(first);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(unchanged)), {}), key);
  std::filesystem::remove_all(dir);
}

TEST_F(RemoteSettingsTest, BadValuesNameTheVariable) {
  set("TRITON_AOT_REMOTE_CACHE", "redis://cache:port");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE: remote cache URL 'redis://cache:port': bad port "
                     "'port': expected a number from 1 to 65535");
  set("TRITON_AOT_REMOTE_CACHE", "redis://cache");
  set("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS", "2s");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS='2s': expected a whole number of "
                     "milliseconds from 1 to 600000");
  set("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS", "0");
  EXPECT_THAT(error(), HasSubstr("from 1 to 600000"));
  ::unsetenv("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS");
  set("TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB", "-5");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB='-5': expected a whole number of "
                     "MiB from 1 to 1048576");
  ::unsetenv("TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB");
  set("TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS", "forever");
  EXPECT_THAT(error(), HasSubstr("TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS='forever'"));
  ::unsetenv("TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS");
  set("TRITON_AOT_REMOTE_CACHE_READ_ONLY", "maybe");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_READ_ONLY='maybe': expected 1 (or true, yes) or 0");
  ::unsetenv("TRITON_AOT_REMOTE_CACHE_READ_ONLY");
}

TEST_F(RemoteSettingsTest, AuthValuesAreNeverShown) {
  set("TRITON_AOT_REMOTE_CACHE", "https://cache/triton");
  set("TRITON_AOT_REMOTE_CACHE_BASIC_AUTH", "secret");
  EXPECT_EQ(error(), "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH: expected user:password");
  set("TRITON_AOT_REMOTE_CACHE_BASIC_AUTH", "user:secret");
  set("TRITON_AOT_REMOTE_CACHE_TOKEN", "secret");
  EXPECT_EQ(error(), "both TRITON_AOT_REMOTE_CACHE_TOKEN and TRITON_AOT_REMOTE_CACHE_BASIC_AUTH "
                     "are set: set the one your server expects");
}

} // namespace
} // namespace tta::remote
