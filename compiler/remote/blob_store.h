// What both backends share: lookup() and store() over four primitives (get and put a record,
// get and put blobs), the entry format's checks, read-only mode, the size limit and the "down"
// flag that makes every call after an unavailable server answer at once.
// Internal to tta_remote_cache.
#pragma once

#include "compiler/remote/remote_cache.h"
#include "compiler/remote/remote_entry.h"
#include "compiler/remote/remote_url.h"

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <signal.h>

namespace tta::remote {

/// lookup()'s detail for a cache read without a signing key and without acceptUnsigned.
extern const char *const kUnverifiable;

/// The answer of one primitive.
struct Transfer {
  enum class Kind {
    Done,          ///< read (bytes set) or written
    Missing,       ///< no such record or blob
    Unreachable,   ///< connection refused or lost, timeout, server error (5xx)
    Refused,       ///< the server answered no: credentials, full, read-only, method not allowed
  };
  Kind kind = Kind::Done;
  std::string bytes;
  std::string detail;   ///< for Unreachable and Refused: what happened, and the fix if known

  static Transfer done(std::string bytes = {}) { return {Kind::Done, std::move(bytes), {}}; }
  static Transfer missing() { return {Kind::Missing, {}, {}}; }
  static Transfer unreachable(std::string why) { return {Kind::Unreachable, {}, std::move(why)}; }
  static Transfer refused(std::string why) { return {Kind::Refused, {}, std::move(why)}; }
};

/// A blob to write: its digest and its bytes (owned by the caller's entry).
struct BlobWrite {
  std::string sha256;
  const std::string *bytes = nullptr;
  bool replace = false;   ///< found damaged earlier in this run: write it even if it is there
};

class BlobStoreCache : public RemoteCache {
public:
  BlobStoreCache(const RemoteCacheSettings &settings, std::string description);

  RemoteLookup lookup(const std::string &key) final;
  Status store(const std::string &key, const RemoteEntry &entry) final;
  bool available() const final { return !down_.load(); }

protected:
  /// The record stored under \p key, at most \p limit bytes of it (a longer answer may be cut
  /// to limit + 1 bytes).
  virtual Transfer getRecord(const std::string &key, std::uint64_t limit) = 0;
  /// One answer per blob, in order; a Done answer holds at most size + 1 bytes.
  virtual std::vector<Transfer> getBlobs(const std::vector<BlobRef> &blobs) = 0;
  /// Writes the blobs the server does not have yet, and those marked replace. Done, or the
  /// first failure.
  virtual Transfer putBlobs(const std::vector<BlobWrite> &blobs) = 0;
  virtual Transfer putRecord(const std::string &key, const std::string &record) = 0;

  const RemoteCacheSettings settings_;

private:
  /// Unavailable with \p why, remembered for the later calls.
  RemoteLookup markDown(const std::string &why);
  /// The store() error for a failed write.
  Diagnostic writeError(const Transfer &failure);

  std::atomic<bool> down_{false};
  std::mutex downMutex_;
  std::set<std::string> damaged_;   ///< blobs a lookup found damaged (under downMutex_)
  std::string downReason_;
};

/// The backends (redis_cache.cpp, http_cache.cpp).
std::unique_ptr<RemoteCache> openRedisCache(const RemoteCacheSettings &settings,
                                            const RemoteUrl &url);
std::unique_ptr<RemoteCache> openHttpCache(const RemoteCacheSettings &settings,
                                           const RemoteUrl &url);

/// Blocks SIGPIPE in this thread for its lifetime and discards one raised meanwhile, so that a
/// write to a server that went away returns EPIPE instead of killing the compiler (hiredis
/// writes with write(2), and OpenSSL does too under libcurl).
class SigpipeGuard {
public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard &) = delete;
  SigpipeGuard &operator=(const SigpipeGuard &) = delete;

private:
  sigset_t previous_;
  bool wasPending_ = false;
};

} // namespace tta::remote
