#include "compiler/cache.h"

#include "test_directory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tta {
namespace {

class CacheTest : public testing_support::TestDirectory {
protected:
  static void write(const fs::path &path, std::string_view text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  static std::string readText(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  CacheEntry entry() const {
    CacheEntry entry;
    entry.result = {{"ok", true}, {"name", "k"}, {"shared", 0}};
    entry.files = {{"image", std::string("\x7f" "ELF\0\1\2", 7)}, {"ptx", ".version 8.4\n"}};
    return entry;
  }
  fs::path entryDir(const std::string &key) const { return dir_ / "cache/v3" / key.substr(0, 2) / key; }

  const std::string key_ = "3f2a9c1e5d7b";
};

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex(std::string_view("a\0b", 3)),
            "59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138");
}

TEST_F(CacheTest, StoreThenLookup) {
  CompileCache cache(dir_ / "cache");
  EXPECT_FALSE(cache.lookup(key_));
  ASSERT_TRUE(cache.store(key_, entry()));
  std::optional<CacheEntry> hit = cache.lookup(key_);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->result, entry().result);
  EXPECT_EQ(hit->files, entry().files);
  EXPECT_TRUE(fs::exists(entryDir(key_) / "entry.json"));
  EXPECT_TRUE(fs::exists(entryDir(key_) / "image"));
  EXPECT_FALSE(cache.lookup("3f2a9c1e5d7c")); // another key
}

TEST_F(CacheTest, StoreReplacesAnEntry) {
  CompileCache cache(dir_ / "cache");
  ASSERT_TRUE(cache.store(key_, entry()));
  CacheEntry second = entry();
  second.files = {{"image", "new"}};
  ASSERT_TRUE(cache.store(key_, second));
  std::optional<CacheEntry> hit = cache.lookup(key_);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->files, second.files);
  EXPECT_FALSE(fs::exists(entryDir(key_) / "ptx"));
  EXPECT_TRUE(fs::is_empty(dir_ / "cache/v3/tmp")); // the old entry was deleted
}

TEST_F(CacheTest, MovedCacheKeepsWorking) {
  CompileCache cache{fs::path()};
  cache = CompileCache(dir_ / "cache");
  ASSERT_TRUE(cache.store(key_, entry()));
  EXPECT_TRUE(cache.lookup(key_));
  CompileCache moved(std::move(cache));
  EXPECT_TRUE(moved.lookup(key_));
}

/// The damage lookup() reports for the entry of key_ (empty: a hit or a plain miss).
std::string damageOf(const CompileCache &cache, const std::string &key) {
  std::string damage;
  EXPECT_FALSE(cache.lookup(key, &damage));
  return damage;
}

TEST_F(CacheTest, AMissIsNoDamage) {
  CompileCache cache(dir_ / "cache");
  EXPECT_EQ(damageOf(cache, key_), "");
}

TEST_F(CacheTest, CorruptEntryJsonIsNamedDamage) {
  CompileCache cache(dir_ / "cache");
  const std::pair<std::string, std::string> cases[] = {
      {"{not json", "entry.json is not JSON (at byte 3)"},
      {"[]", "entry.json is not an entry of this layout"},
      {R"({"key": "3f2a9c1e5d7b"})", "entry.json is not an entry of this layout"},
      {R"({"key": "3f2a9c1e5d7b", "result": {}, "files": {}, "sha256": "00"})",
       "entry.json does not match its SHA-256"},
      {std::string(60000, '[') + std::string(60000, ']'),
       "entry.json is nested deeper than 100 levels"},
  };
  for (const auto &[text, damage] : cases) {
    ASSERT_TRUE(cache.store(key_, entry()));
    write(entryDir(key_) / "entry.json", text);
    EXPECT_EQ(damageOf(cache, key_), damage) << text.substr(0, 40);
  }
  ASSERT_TRUE(cache.store(key_, entry()));
  fs::remove(entryDir(key_) / "entry.json");
  EXPECT_EQ(damageOf(cache, key_), "entry.json is missing");
}

TEST_F(CacheTest, EditedEntryJsonIsDamageEvenWithAValidShape) {
  CompileCache cache(dir_ / "cache");
  ASSERT_TRUE(cache.store(key_, entry()));
  std::string text = readText(entryDir(key_) / "entry.json");
  // The answer's shared memory changed: still JSON of the right shape, but not what was stored.
  std::size_t at = text.find("\"shared\": 0");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 11, "\"shared\": 9");
  write(entryDir(key_) / "entry.json", text);
  EXPECT_EQ(damageOf(cache, key_), "entry.json does not match its SHA-256");
}

TEST_F(CacheTest, AFlippedByteInAFileIsDamage) {
  CompileCache cache(dir_ / "cache");
  ASSERT_TRUE(cache.store(key_, entry()));
  std::string image = readText(entryDir(key_) / "image");
  image[3] = static_cast<char>(image[3] ^ 0x20);   // same size, other bytes
  write(entryDir(key_) / "image", image);
  EXPECT_EQ(damageOf(cache, key_), "image differs from the SHA-256 entry.json names");
  // Reported once: the damaged entry can be dropped, and is then a plain miss.
  cache.discard(key_);
  EXPECT_FALSE(fs::exists(entryDir(key_)));
  EXPECT_EQ(damageOf(cache, key_), "");
}

TEST_F(CacheTest, MissingTruncatedOrSpecialFileIsDamage) {
  CompileCache cache(dir_ / "cache");
  ASSERT_TRUE(cache.store(key_, entry()));
  fs::remove(entryDir(key_) / "ptx");
  EXPECT_EQ(damageOf(cache, key_), "ptx is missing");

  ASSERT_TRUE(cache.store(key_, entry()));
  write(entryDir(key_) / "image", "\x7f" "EL");
  EXPECT_EQ(damageOf(cache, key_), "image is 3 bytes, not the 7 entry.json names");

  ASSERT_TRUE(cache.store(key_, entry()));
  write(entryDir(key_) / "image", std::string(100, 'x'));
  EXPECT_EQ(damageOf(cache, key_), "image is 100 bytes, over 7");

  // A device or a link in place of a file is never read: /dev/zero would never end.
  ASSERT_TRUE(cache.store(key_, entry()));
  fs::remove(entryDir(key_) / "image");
  fs::create_symlink("/dev/zero", entryDir(key_) / "image");
  EXPECT_THAT(damageOf(cache, key_), ::testing::StartsWith("image: "));
}

TEST_F(CacheTest, ForeignEntryIsDamage) {
  CompileCache cache(dir_ / "cache");
  ASSERT_TRUE(cache.store("3f2a9c1e5d7c", entry()));
  fs::create_directories(entryDir(key_).parent_path());
  fs::rename(entryDir("3f2a9c1e5d7c"), entryDir(key_));
  EXPECT_EQ(damageOf(cache, key_), "entry.json is the entry of another key");
}

TEST_F(CacheTest, DisabledCacheStoresNothing) {
  CompileCache cache{fs::path()};
  EXPECT_FALSE(cache.enabled());
  EXPECT_TRUE(cache.store(key_, entry()));
  EXPECT_FALSE(cache.lookup(key_));
}

TEST_F(CacheTest, RejectsUnsafeNames) {
  CompileCache cache(dir_ / "cache");
  Status status = cache.store("../x", entry());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::InternalError);
  CacheEntry bad = entry();
  bad.files["../image"] = "x";
  EXPECT_FALSE(cache.store(key_, bad));
  EXPECT_FALSE(cache.lookup("../x"));
}

TEST_F(CacheTest, UnwritableRootIsAnOutputError) {
  write(dir_ / "file", "");
  CompileCache cache(dir_ / "file/cache");
  Status status = cache.store(key_, entry());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::OutputError);
  EXPECT_EQ(status.error().message.rfind("cannot create cache directory '", 0), 0u)
      << status.error().message;
}

TEST_F(CacheTest, ConcurrentStoresOfOneKeyLeaveOneWholeEntry) {
  CompileCache cache(dir_ / "cache");
  std::vector<CacheEntry> entries;
  for (int i = 0; i < 8; ++i) {
    entries.push_back(entry());
    entries.back().files = {{"image", std::string(1000 + i, char('a' + i))}};
    entries.back().result["writer"] = i;
  }
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i)
    writers.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round) {
        EXPECT_TRUE(cache.store(key_, entries[i]));
        std::string damage;
        if (std::optional<CacheEntry> hit = cache.lookup(key_, &damage)) { // never a mix
          int writer = hit->result["writer"];
          EXPECT_EQ(hit->files, entries[writer].files);
        }
        EXPECT_EQ(damage, "");   // an entry replaced while read is read again, not damaged
      }
    });
  for (std::thread &writer : writers)
    writer.join();
  std::optional<CacheEntry> hit = cache.lookup(key_);
  ASSERT_TRUE(hit);
  int writer = hit->result["writer"];
  EXPECT_EQ(hit->files, entries[writer].files);
  EXPECT_TRUE(fs::is_empty(dir_ / "cache/v3/tmp"));
}

} // namespace
} // namespace tta
