#include "compiler/remote/remote_entry.h"

#include "contract/bounded_json.h"

#include <openssl/crypto.h>   // CRYPTO_memcmp
#include <openssl/evp.h>      // EVP_Digest, EVP_sha256
#include <openssl/hmac.h>     // HMAC

namespace tta::remote {

Diagnostic remoteError(ExitCode code, std::string message) {
  Diagnostic diag;
  diag.code = code;
  diag.message = std::move(message);
  return diag;
}

namespace {

std::string toHex(const unsigned char *bytes, unsigned length) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned i = 0; i < length; ++i) {
    hex += kDigits[bytes[i] >> 4];
    hex += kDigits[bytes[i] & 15];
  }
  return hex;
}

/// What the record says about one role, or an empty role when it says it badly.
BlobRef blobRef(const std::string &role, const nlohmann::json &file) {
  if (!file.is_object() || !file.contains("sha256") || !file.contains("size"))
    return {};
  const nlohmann::json &sha = file["sha256"];
  const nlohmann::json &size = file["size"];
  if (!sha.is_string() || !isDigest(sha.get_ref<const std::string &>()) ||
      !size.is_number_unsigned())
    return {};
  return {role, sha.get<std::string>(), size.get<std::uint64_t>()};
}

} // namespace

std::string sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  return toHex(digest, length);
}

std::string hmacSha256Hex(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char *>(data.data()), data.size(), digest, &length);
  return toHex(digest, length);
}

bool isDigest(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string canonicalRecord(const nlohmann::json &record) {
  nlohmann::json unsigned_ = record;
  unsigned_.erase("hmac");
  // nlohmann::json keeps object members in a std::map, so dump() sorts them bytewise.
  return unsigned_.dump();
}

Expected<std::string> makeRecord(const std::string &key, const RemoteEntry &entry,
                                 std::string_view signingKey, std::vector<BlobRef> *blobs) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto &[role, bytes] : entry.files) {
    BlobRef ref{role, sha256Hex(bytes), bytes.size()};
    files[role] = {{"sha256", ref.sha256}, {"size", ref.size}};
    if (blobs)
      blobs->push_back(std::move(ref));
  }
  nlohmann::json record = {{"schema", kRecordSchema}, {"version", kRecordVersion},
                           {"key", key},            {"result", entry.result},
                           {"files", std::move(files)}};
  try {
    std::string canonical = canonicalRecord(record);
    if (signingKey.empty())
      return canonical;
    record["hmac"] = hmacSha256Hex(signingKey, canonical);
    return record.dump();
  } catch (const nlohmann::json::exception &e) {
    return remoteError(ExitCode::InternalError,
                       std::string("cannot serialize the remote cache record: ") + e.what());
  }
}

namespace {

RecordCheck reject(std::string why) { return {std::nullopt, std::move(why)}; }

RecordCheck checkParsedRecord(nlohmann::json &record, const std::string &key,
                              std::string_view signingKey, std::uint64_t maxEntryBytes) {
  if (!record.contains("schema") || record["schema"] != kRecordSchema)
    return reject("malformed record: schema is not \"" + std::string(kRecordSchema) + '"');
  const nlohmann::json &version = record.value("version", nlohmann::json());
  if (!version.is_number_integer() || version.get<std::int64_t>() != kRecordVersion)
    return reject("malformed record: version is not " + std::to_string(kRecordVersion));
  if (!record.contains("key") || !record["key"].is_string() || !record.contains("result") ||
      !record.contains("files") || !record["files"].is_object())
    return reject("malformed record: it needs \"key\", \"result\" and \"files\"");
  if (record["key"] != key) {
    const std::string &other = record["key"].get_ref<const std::string &>();
    return reject(isDigest(other) ? "record for another key (" + other + ")"
                                  : "record for another key (not a 64-hex key)");
  }

  if (!signingKey.empty()) {
    if (!record.contains("hmac"))
      return reject("unsigned entry (a signing key is set, so only signed entries are read)");
    const nlohmann::json &hmac = record["hmac"];
    std::string expected = hmacSha256Hex(signingKey, canonicalRecord(record));
    if (!hmac.is_string() || hmac.get_ref<const std::string &>().size() != expected.size() ||
        CRYPTO_memcmp(hmac.get_ref<const std::string &>().data(), expected.data(),
                      expected.size()) != 0)
      return reject("signed with another key (or altered after signing)");
  }

  ActionRecord parsed;
  parsed.result = record["result"];
  for (const auto &[role, file] : record["files"].items()) {
    BlobRef ref = blobRef(role, file);
    if (ref.role.empty())
      return reject("malformed record: file \"" + role + "\" needs a 64-hex \"sha256\" and a \"size\"");
    if (ref.size > maxEntryBytes - parsed.totalBytes)   // no overflow: totalBytes <= the limit
      return reject("entry too large: the record declares more than the limit of " +
                    std::to_string(maxEntryBytes) + " bytes (TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");
    parsed.totalBytes += ref.size;
    parsed.files.push_back(std::move(ref));
  }
  return {std::move(parsed), {}};
}

} // namespace

RecordCheck checkRecord(std::string_view text, const std::string &key,
                        std::string_view signingKey, std::uint64_t maxEntryBytes) {
  // Bounded before anything else is done with it: a record nested 50,000 deep would overflow
  // the stack of whatever copies or compares it next.
  if (text.size() > kMaxRecordBytes)
    return reject("entry too large: the record alone is " + std::to_string(text.size()) +
                  " bytes, over the limit of " + std::to_string(kMaxRecordBytes));
  auto parsed = parseBoundedJson(text, kMaxRecordBytes);
  if (!parsed)
    return reject("malformed record: " + parsed.error().message);
  nlohmann::json record = std::move(*parsed);
  if (!record.is_object())
    return reject("malformed record: not a JSON object");
  try {
    return checkParsedRecord(record, key, signingKey, maxEntryBytes);
  } catch (const nlohmann::json::exception &e) {   // a member of an unexpected type
    return reject(std::string("malformed record: ") + e.what());
  }
}

} // namespace tta::remote
