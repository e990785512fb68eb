// The remote compile cache: a store shared by many machines, behind the local CompileCache.
//
// Two backends speak to existing servers, never to a home-made one: Redis (redis://, through
// hiredis) and the Bazel remote cache's HTTP layout (http:// and https://, through libcurl:
// bazel-remote, BuildBuddy, nginx WebDAV). Both store an entry the same way: each file is a blob
// addressed by its SHA-256, and one small JSON action record per key names the blobs, optionally
// signed with HMAC-SHA256. docs/remote-cache.md describes the format and the servers' setup.
//
// A remote cache never fails a build: lookup() answers Miss, Rejected or Unavailable instead of
// an error, and store() returns an error Status that the caller reports as a warning. Every call
// is bounded by the settings' timeout, and once the server was found unreachable every later
// call of the same object answers at once.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tta {

/// The whole result of one compiled variant.
struct RemoteEntry {
  nlohmann::json result;                      ///< the worker's JSON answer (small)
  std::map<std::string, std::string> files;   ///< role ("image", "ptx", ...) -> bytes
};

struct RemoteCacheSettings {
  /// redis://[user:password@]host[:port][/db] or http(s)://host[:port][/prefix]; empty: none.
  std::string url;
  /// HMAC key bytes; empty: entries are written unsigned, and read only with acceptUnsigned.
  std::string signingKey;
  /// Without a signing key, read entries that nothing verifies (whoever can write to the
  /// server can then put images into the build); without it, lookup() rejects every entry.
  bool acceptUnsigned = false;
  /// Redis: the password, from a file (the URL then carries none); empty: the URL's, if any.
  std::string password;
  bool readOnly = false;    ///< reads, never writes (untrusted builds, e.g. pull requests)
  std::chrono::milliseconds timeout{2000};      ///< connect, and each operation
  std::uint64_t maxEntryBytes = 256ull << 20;   ///< an entry over this is neither stored nor read
  std::int64_t expirySeconds = 0;   ///< Redis EXPIRE; 0 = none (HTTP: the server's policy)
  std::string httpBearerToken;      ///< HTTP only: sent as "Authorization: Bearer <token>"
  std::string httpBasicAuth;        ///< HTTP only: "user:password" for basic authentication

  /// Whether a remote cache is configured at all.
  bool enabled() const { return !url.empty(); }

  /// From the environment: TRITON_AOT_REMOTE_CACHE (the URL; \p url, from a command line,
  /// overrides it when not empty, and may not carry a password), TRITON_AOT_REMOTE_CACHE_KEY
  /// (the signing key) or TRITON_AOT_REMOTE_CACHE_KEY_FILE (a file holding it; one trailing
  /// newline is dropped), TRITON_AOT_REMOTE_CACHE_UNSIGNED=1 (acceptUnsigned),
  /// TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE (Redis), TRITON_AOT_REMOTE_CACHE_READ_ONLY=1,
  /// TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS, TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB,
  /// TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS, and for HTTP TRITON_AOT_REMOTE_CACHE_TOKEN (bearer)
  /// or TRITON_AOT_REMOTE_CACHE_BASIC_AUTH=user:password. With neither a URL nor the variable,
  /// the result is not enabled(). \returns a UsageError naming the variable and the fix for a
  /// bad value, an EnvironmentError for a key file that cannot be read.
  static Expected<RemoteCacheSettings> fromEnvironment(std::string url = {});
};

/// Writes a new random signing key (32 bytes, as 64 hex characters) into \p file, which must
/// not exist yet, readable by its owner alone (mode 0600). \returns an OutputError naming the
/// file and the reason when it cannot.
Status writeNewSigningKey(const std::string &file);

enum class RemoteOutcome {
  Hit,          ///< the entry, every blob verified
  Miss,         ///< no entry, or part of it was evicted
  Rejected,     ///< an entry is there but cannot be trusted (see RemoteLookup::detail)
  Unavailable,  ///< the server is unreachable, timed out, or refused us: stop asking this run
};

struct RemoteLookup {
  RemoteOutcome outcome = RemoteOutcome::Miss;
  std::optional<RemoteEntry> entry;   ///< set exactly when outcome is Hit
  std::string detail;                 ///< why, for Miss, Rejected and Unavailable
};

/// One object per compiler run. Safe to call from several threads at once.
class RemoteCache {
public:
  /// Checks \p settings and parses the URL; does no I/O. \returns a UsageError that names the
  /// fix for a bad URL, scheme, port or option.
  static Expected<std::unique_ptr<RemoteCache>> open(const RemoteCacheSettings &settings);
  virtual ~RemoteCache();
  RemoteCache(const RemoteCache &) = delete;
  RemoteCache &operator=(const RemoteCache &) = delete;

  /// The entry stored under \p key (64 lower-case hex characters). Returns Hit only with every
  /// blob fetched and its SHA-256 verified; never a partial entry.
  virtual RemoteLookup lookup(const std::string &key) = 0;
  /// Stores \p entry under \p key: the blobs first, then the record. Does nothing in read-only
  /// mode. \returns an OutputError for an entry over maxEntryBytes, a server that refuses the
  /// write (full, read-only, bad credentials) or cannot be reached.
  virtual Status store(const std::string &key, const RemoteEntry &entry) = 0;

  /// The URL with any password redacted, for messages.
  std::string describe() const { return description_; }
  /// False once a call found the server unavailable; later calls then answer at once.
  virtual bool available() const = 0;

protected:
  explicit RemoteCache(std::string description) : description_(std::move(description)) {}

private:
  std::string description_;
};

} // namespace tta
