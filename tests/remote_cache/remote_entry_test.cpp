// The entry format without a server: the record, its canonical form and its signature.
#include "compiler/remote/remote_entry.h"

#include <gtest/gtest.h>

using nlohmann::json;

namespace tta::remote {
namespace {

const std::string kKey(64, 'a');
const std::string kOtherKey(64, 'b');

RemoteEntry sampleEntry() {
  RemoteEntry entry;
  entry.result = {{"ok", true}, {"name", "add_kernel"}, {"shared", 1024}, {"ratio", 0.25}};
  entry.files = {{"image", std::string("\x7f" "ELF\0\1", 6)}, {"ptx", ".version 8.4\n"}};
  return entry;
}

std::string record(std::string_view signingKey = {}) {
  auto text = makeRecord(kKey, sampleEntry(), signingKey, nullptr);
  EXPECT_TRUE(text) << text.error().message;
  return text ? *text : "";
}

TEST(RemoteEntryTest, KnownDigests) {
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // RFC 4231, test case 2.
  EXPECT_EQ(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_TRUE(isDigest(sha256Hex("")));
  EXPECT_FALSE(isDigest(std::string(63, 'a')));
  EXPECT_FALSE(isDigest(std::string(64, 'A')));
}

TEST(RemoteEntryTest, UnsignedRecordNamesEveryBlob) {
  std::vector<BlobRef> blobs;
  auto text = makeRecord(kKey, sampleEntry(), "", &blobs);
  ASSERT_TRUE(text);
  json parsed = json::parse(*text);
  EXPECT_EQ(parsed["schema"], "triton-aot-remote-entry");
  EXPECT_EQ(parsed["version"], 1);
  EXPECT_EQ(parsed["key"], kKey);
  EXPECT_EQ(parsed["result"], sampleEntry().result);
  EXPECT_FALSE(parsed.contains("hmac"));
  EXPECT_EQ(parsed["files"]["image"]["sha256"], sha256Hex(std::string("\x7f" "ELF\0\1", 6)));
  EXPECT_EQ(parsed["files"]["image"]["size"], 6);
  ASSERT_EQ(blobs.size(), 2u);
  EXPECT_EQ(blobs[0].role, "image");
  EXPECT_EQ(blobs[1].role, "ptx");
  EXPECT_EQ(*text, canonicalRecord(parsed));
}

TEST(RemoteEntryTest, SignatureCoversTheCanonicalRecord) {
  json parsed = json::parse(record("secret"));
  ASSERT_TRUE(parsed.contains("hmac"));
  EXPECT_EQ(parsed["hmac"], hmacSha256Hex("secret", canonicalRecord(parsed)));
  // The canonical form does not depend on the order the members came in.
  json reordered = json::parse(R"({"version":1,"files":{},"key":"k","schema":"s","result":{"b":1,"a":2},"hmac":"x"})");
  EXPECT_EQ(canonicalRecord(reordered),
            R"({"files":{},"key":"k","result":{"a":2,"b":1},"schema":"s","version":1})");
}

TEST(RemoteEntryTest, AcceptsWhatItWrote) {
  for (std::string_view key : {"", "secret"}) {
    RecordCheck check = checkRecord(record(key), kKey, key, 1 << 20);
    ASSERT_TRUE(check.record) << check.rejection;
    EXPECT_EQ(check.record->result, sampleEntry().result);
    EXPECT_EQ(check.record->totalBytes, 6u + 13u);
  }
  // Without a signing key, signed entries are read too.
  EXPECT_TRUE(checkRecord(record("secret"), kKey, "", 1 << 20).record);
}

TEST(RemoteEntryTest, ResultThatIsNotUtf8IsAnInternalError) {
  RemoteEntry entry = sampleEntry();
  entry.result["name"] = std::string("\xff\xfe");
  auto text = makeRecord(kKey, entry, "", nullptr);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ExitCode::InternalError);
  EXPECT_EQ(text.error().message.rfind("cannot serialize the remote cache record: ", 0), 0u);
}

TEST(RemoteEntryTest, RejectsUnsignedWhenSigned) {
  EXPECT_EQ(checkRecord(record(), kKey, "secret", 1 << 20).rejection.rfind("unsigned entry", 0), 0u);
}

TEST(RemoteEntryTest, RejectsAnotherKeysSignature) {
  RecordCheck check = checkRecord(record("secret"), kKey, "other", 1 << 20);
  EXPECT_FALSE(check.record);
  EXPECT_EQ(check.rejection.rfind("signed with another key", 0), 0u) << check.rejection;
}

TEST(RemoteEntryTest, RejectsAlteredSignedRecord) {
  json parsed = json::parse(record("secret"));
  parsed["result"]["shared"] = 0;
  RecordCheck check = checkRecord(parsed.dump(), kKey, "secret", 1 << 20);
  EXPECT_EQ(check.rejection.rfind("signed with another key", 0), 0u) << check.rejection;
  parsed = json::parse(record("secret"));
  parsed["hmac"] = 42;
  EXPECT_EQ(checkRecord(parsed.dump(), kKey, "secret", 1 << 20).rejection.rfind("signed with", 0), 0u);
}

TEST(RemoteEntryTest, RejectsRecordOfAnotherKey) {
  for (std::string_view key : {"", "secret"}) {
    RecordCheck check = checkRecord(record(key), kOtherKey, key, 1 << 20);
    EXPECT_EQ(check.rejection.rfind("record for another key", 0), 0u) << check.rejection;
  }
}

TEST(RemoteEntryTest, RejectsMalformedRecords) {
  json good = json::parse(record());
  auto rejection = [](const std::string &text) {
    return checkRecord(text, kKey, "", 1 << 20).rejection;
  };
  EXPECT_EQ(rejection("not json"), "malformed record: not JSON (at byte 2)");
  EXPECT_EQ(rejection("[1, 2]"), "malformed record: not a JSON object");
  json bad = good;
  bad["schema"] = "triton-cache";
  EXPECT_EQ(rejection(bad.dump()), "malformed record: schema is not \"triton-aot-remote-entry\"");
  bad = good;
  bad["schema"] = 5;
  EXPECT_EQ(rejection(bad.dump()), "malformed record: schema is not \"triton-aot-remote-entry\"");
  bad = good;
  bad["version"] = 2;
  EXPECT_EQ(rejection(bad.dump()), "malformed record: version is not 1");
  bad = good;
  bad.erase("files");
  EXPECT_EQ(rejection(bad.dump()), "malformed record: it needs \"key\", \"result\" and \"files\"");
  bad = good;
  bad["files"]["ptx"]["sha256"] = "../../etc/passwd";
  EXPECT_EQ(rejection(bad.dump()),
            "malformed record: file \"ptx\" needs a 64-hex \"sha256\" and a \"size\"");
  bad = good;
  bad["version"] = "1";
  EXPECT_EQ(rejection(bad.dump()), "malformed record: version is not 1");
  bad = good;
  bad["files"]["ptx"] = "sha256";
  EXPECT_EQ(rejection(bad.dump()).rfind("malformed record: file \"ptx\"", 0), 0u);
  bad = good;
  bad["files"]["ptx"]["size"] = -1;
  EXPECT_EQ(rejection(bad.dump()).rfind("malformed record: file \"ptx\"", 0), 0u);
}

TEST(RemoteEntryTest, RejectsNestedAndOversizedRecordsBeforeParsing) {
  // 50,000 nested brackets in 100 KB, with a key or without: nlohmann::json would overflow the
  // stack of whatever copies the value next (the signature check does).
  json nested = json::parse(record());
  std::string text = nested.dump();
  text.insert(text.rfind('}'), ",\"x\":" + std::string(50000, '[') + std::string(50000, ']'));
  for (std::string_view key : {"", "secret"})
    EXPECT_EQ(checkRecord(text, kKey, key, 1 << 20).rejection,
              "malformed record: nested deeper than 100 levels");
  std::string large = record() + std::string(kMaxRecordBytes, ' ');
  EXPECT_EQ(checkRecord(large, kKey, "", 1ull << 40).rejection,
            "entry too large: the record alone is " + std::to_string(large.size()) +
                " bytes, over the limit of " + std::to_string(kMaxRecordBytes));
}

TEST(RemoteEntryTest, RejectsRecordDeclaringTooMuch) {
  EXPECT_TRUE(checkRecord(record(), kKey, "", 19).record);
  RecordCheck check = checkRecord(record(), kKey, "", 18);
  EXPECT_EQ(check.rejection, "entry too large: the record declares more than the limit of 18 "
                             "bytes (TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");
  // Sizes that would overflow a 64-bit sum are rejected, not wrapped.
  json huge = json::parse(record());
  huge["files"]["image"]["size"] = std::numeric_limits<std::uint64_t>::max();
  huge["files"]["ptx"]["size"] = 2;
  EXPECT_EQ(checkRecord(huge.dump(), kKey, "", 1 << 20).rejection.rfind("entry too large", 0), 0u);
}

} // namespace
} // namespace tta::remote
