#include "compiler/remote/remote_cache.h"

#include "compiler/remote/blob_store.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <set>

namespace tta {

using remote::remoteError;

RemoteCache::~RemoteCache() = default;

Expected<std::unique_ptr<RemoteCache>> RemoteCache::open(const RemoteCacheSettings &settings) {
  if (settings.url.empty())
    return remoteError(ExitCode::UsageError,
                       "no remote cache URL: set TRITON_AOT_REMOTE_CACHE to "
                       "redis://host:port or http(s)://host[:port]/prefix");
  auto url = remote::parseRemoteUrl(settings.url);
  if (!url)
    return url.takeError();
  if (settings.timeout.count() <= 0)
    return remoteError(ExitCode::UsageError,
                       "the remote cache timeout must be positive (TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS)");
  if (settings.maxEntryBytes == 0)
    return remoteError(ExitCode::UsageError,
                       "the remote cache's entry limit must be positive "
                       "(TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");
  if (settings.expirySeconds < 0)
    return remoteError(ExitCode::UsageError,
                       "the remote cache's expiry must be 0 (none) or positive "
                       "(TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS)");
  if (url->scheme == remote::RemoteUrl::Scheme::Redis) {
    if (!settings.httpBearerToken.empty() || !settings.httpBasicAuth.empty())
      return remoteError(ExitCode::UsageError,
                         "TRITON_AOT_REMOTE_CACHE_TOKEN and TRITON_AOT_REMOTE_CACHE_BASIC_AUTH "
                         "are for http(s):// caches; a Redis password goes in the URL: "
                         "redis://[user]:password@host:port");
    if (!settings.password.empty()) {   // from TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE
      if (url->loneUserInfo)
        url->user = url->password;      // redis://user@host: the file holds the password
      url->password = settings.password;
    }
    return remote::openRedisCache(settings, *url);
  }
  if (!settings.httpBearerToken.empty() && !settings.httpBasicAuth.empty())
    return remoteError(ExitCode::UsageError,
                       "both a bearer token and basic authentication are set: keep one");
  return remote::openHttpCache(settings, *url);
}

namespace remote {

const char *const kUnverifiable =
    "not read: without a signing key its entries cannot be verified; set one "
    "(TRITON_AOT_REMOTE_CACHE_KEY_FILE) or accept unsigned entries "
    "(TRITON_AOT_REMOTE_CACHE_UNSIGNED=1)";

BlobStoreCache::BlobStoreCache(const RemoteCacheSettings &settings, std::string description)
    : RemoteCache(std::move(description)), settings_(settings) {}

RemoteLookup BlobStoreCache::markDown(const std::string &why) {
  std::lock_guard<std::mutex> lock(downMutex_);
  if (!down_.exchange(true))
    downReason_ = why;
  return {RemoteOutcome::Unavailable, std::nullopt, why};
}

RemoteLookup BlobStoreCache::lookup(const std::string &key) {
  if (down_.load()) {
    std::lock_guard<std::mutex> lock(downMutex_);
    return {RemoteOutcome::Unavailable, std::nullopt,
            "not asked: it was unavailable earlier in this run (" + downReason_ + ")"};
  }
  if (!isDigest(key))
    return {RemoteOutcome::Rejected, std::nullopt, "malformed key: expected 64 hex characters"};
  // Without a key nothing can tell a forged entry from a true one: only on explicit request.
  if (settings_.signingKey.empty() && !settings_.acceptUnsigned)
    return {RemoteOutcome::Rejected, std::nullopt, kUnverifiable};

  const std::uint64_t recordLimit = std::min(settings_.maxEntryBytes, kMaxRecordBytes);
  Transfer record = getRecord(key, recordLimit);
  switch (record.kind) {
  case Transfer::Kind::Missing:
    return {RemoteOutcome::Miss, std::nullopt, "no entry"};
  case Transfer::Kind::Unreachable:
  case Transfer::Kind::Refused:
    return markDown(record.detail);
  case Transfer::Kind::Done:
    break;
  }
  if (record.bytes.size() > recordLimit)
    return {RemoteOutcome::Rejected, std::nullopt,
            "entry too large: the record alone is over the limit of " +
                std::to_string(recordLimit) + " bytes"};
  RecordCheck check = checkRecord(record.bytes, key, settings_.signingKey, settings_.maxEntryBytes);
  if (!check.record)
    return {RemoteOutcome::Rejected, std::nullopt, check.rejection};

  // Empty files need no blob: their content is known.
  std::vector<BlobRef> wanted;
  for (const BlobRef &ref : check.record->files)
    if (ref.size > 0)
      wanted.push_back(ref);
  std::vector<Transfer> blobs = getBlobs(wanted);
  if (blobs.size() != wanted.size())   // a backend's bug; never index past its answers
    return markDown("the backend answered " + std::to_string(blobs.size()) + " of " +
                    std::to_string(wanted.size()) + " blobs");
  RemoteEntry entry;
  entry.result = std::move(check.record->result);
  for (const BlobRef &ref : check.record->files)
    entry.files[ref.role];
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    Transfer &blob = blobs[i];
    const BlobRef &ref = wanted[i];
    if (blob.kind == Transfer::Kind::Unreachable || blob.kind == Transfer::Kind::Refused)
      return markDown(blob.detail);
    if (blob.kind == Transfer::Kind::Missing)
      return {RemoteOutcome::Miss, std::nullopt,
              "the record is there but the blob of \"" + ref.role + "\" is gone (evicted)"};
    if (blob.bytes.size() != ref.size || sha256Hex(blob.bytes) != ref.sha256) {
      std::lock_guard<std::mutex> lock(downMutex_);
      damaged_.insert(ref.sha256);   // the next store overwrites it
      return {RemoteOutcome::Rejected, std::nullopt,
              "blob sha256 mismatch: \"" + ref.role + "\" is not the blob " + ref.sha256 +
                  " of " + std::to_string(ref.size) + " bytes the record names"};
    }
    entry.files[ref.role] = std::move(blob.bytes);
  }
  return {RemoteOutcome::Hit, std::move(entry), {}};
}

Diagnostic BlobStoreCache::writeError(const Transfer &failure) {
  if (failure.kind == Transfer::Kind::Unreachable)
    markDown(failure.detail);
  return remoteError(ExitCode::OutputError,
                     "cannot store in the remote cache " + describe() + ": " + failure.detail);
}

Status BlobStoreCache::store(const std::string &key, const RemoteEntry &entry) {
  if (settings_.readOnly)
    return ok();
  if (down_.load()) {
    std::lock_guard<std::mutex> lock(downMutex_);
    return remoteError(ExitCode::OutputError, "remote cache " + describe() +
                                                  " was unavailable earlier in this run (" +
                                                  downReason_ + ")");
  }
  if (!isDigest(key))
    return remoteError(ExitCode::InternalError,
                       "remote cache key '" + key + "' is not 64 lower-case hex characters");
  std::uint64_t total = 0;
  for (const auto &[role, bytes] : entry.files)
    total += bytes.size();
  if (total > settings_.maxEntryBytes)
    return remoteError(ExitCode::OutputError,
                       "entry of " + std::to_string(total) + " bytes not stored in the remote "
                       "cache: over its limit of " + std::to_string(settings_.maxEntryBytes) +
                       " bytes (TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB)");

  std::vector<BlobRef> refs;
  auto record = makeRecord(key, entry, settings_.signingKey, &refs);
  if (!record)
    return record.takeError();
  std::vector<BlobWrite> blobs;
  std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(downMutex_);
    for (const BlobRef &ref : refs)
      if (ref.size > 0 && seen.insert(ref.sha256).second)
        blobs.push_back({ref.sha256, &entry.files.at(ref.role), damaged_.count(ref.sha256) > 0});
  }
  if (Transfer put = putBlobs(blobs); put.kind != Transfer::Kind::Done)
    return writeError(put);
  if (Transfer put = putRecord(key, *record); put.kind != Transfer::Kind::Done)
    return writeError(put);
  return ok();
}

SigpipeGuard::SigpipeGuard() {
  sigset_t pipe, pending;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigpending(&pending);
  wasPending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe, &previous_);
}

SigpipeGuard::~SigpipeGuard() {
  if (!wasPending_) {
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1) {
      timespec now{};
      sigtimedwait(&pipe, nullptr, &now);
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

} // namespace remote
} // namespace tta
