// The remote cache's entry format, shared by both backends (docs/remote-cache.md):
//
//   {"schema":"triton-aot-remote-entry","version":1,"key":<key>,"result":<json>,
//    "files":{<role>:{"sha256":<hex>,"size":<bytes>}},"hmac":<hex, absent when unsigned>}
//
// The HMAC-SHA256 is over canonicalRecord(): the record without "hmac", so it covers the key and
// a record cannot be replayed under another key. Internal to tta_remote_cache (and its tests).
#pragma once

#include "compiler/remote/remote_cache.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tta::remote {

inline constexpr const char *kRecordSchema = "triton-aot-remote-entry";
inline constexpr int kRecordVersion = 1;
/// The most bytes of a record read and parsed (its files are limited by maxEntryBytes): a
/// record holds the worker's answer and the blobs' names, tens of kilobytes.
inline constexpr std::uint64_t kMaxRecordBytes = 16u << 20;

/// A Diagnostic without a location (the library's own makeError, so that tta_remote_cache links
/// without tta_compiler).
Diagnostic remoteError(ExitCode code, std::string message);

/// Lower-case hex SHA-256 of \p bytes (OpenSSL).
std::string sha256Hex(std::string_view bytes);
/// Lower-case hex HMAC-SHA256 of \p data under \p key (OpenSSL).
std::string hmacSha256Hex(std::string_view key, std::string_view data);
/// Whether \p text is 64 lower-case hex characters: a cache key or a blob's SHA-256.
bool isDigest(std::string_view text);

/// One file of an entry as the record names it.
struct BlobRef {
  std::string role;
  std::string sha256;
  std::uint64_t size = 0;
};

/// A record that parsed and passed every check that needs no blob.
struct ActionRecord {
  nlohmann::json result;
  std::vector<BlobRef> files;
  std::uint64_t totalBytes = 0;   ///< the sum of the files' sizes
};

/// The record's bytes as signed: compact JSON, object members sorted by key, without "hmac".
std::string canonicalRecord(const nlohmann::json &record);

/// The record for \p entry under \p key, signed when \p signingKey is not empty. \p blobs gets
/// the files' references in role order. \returns an InternalError for a result that is not
/// valid UTF-8.
Expected<std::string> makeRecord(const std::string &key, const RemoteEntry &entry,
                                 std::string_view signingKey, std::vector<BlobRef> *blobs);

/// Either the record or why it was rejected.
struct RecordCheck {
  std::optional<ActionRecord> record;
  std::string rejection;   ///< "malformed record: ...", "record for another key", ...
};

/// Parses \p text as the record asked for under \p key, once it is known to be at most
/// kMaxRecordBytes long and nested at most kMaxJsonDepth levels: schema and version, the key,
/// the signature (required and checked when \p signingKey is not empty) and the declared total
/// size against \p maxEntryBytes.
RecordCheck checkRecord(std::string_view text, const std::string &key,
                        std::string_view signingKey, std::uint64_t maxEntryBytes);

} // namespace tta::remote
