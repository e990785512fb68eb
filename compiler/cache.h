// The local compile cache: content-addressed, in the build tree by default, safe to share
// between concurrent runs (entries are written to a temporary directory and renamed into place).
//
// Keys are made of contents only (compiler/cache_keys.h): an entry never needs checking against
// files, so it is valid for as long as it exists, on any machine that computes the same key, and
// the same keys address the remote cache (compiler/remote/).
//
// Entries live in <root>/v3/<key[0:2]>/<key>/ (entry.json plus one file per role). entry.json
// names every file by size and SHA-256 and carries the SHA-256 of its own contents, so a
// lookup uses only bytes that are exactly those stored: a flipped bit anywhere is a damaged
// entry, never an image embedded as it is. store() replaces an existing entry, so the last
// writer wins; a crashed run can leave a directory under <root>/v3/tmp/, which is safe to
// delete at any time no run is storing.
#pragma once

#include "contract/diagnostic.h"
#include "contract/sha256.h"   // sha256Hex, which cache keys and entries are named by

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta {

struct CacheEntry {
  nlohmann::json result;                       ///< the worker's response for the job
  std::map<std::string, std::string> files;    ///< role ("image", "ptx") -> bytes
};

class CompileCache {
public:
  /// An empty \p root disables the cache.
  explicit CompileCache(std::filesystem::path root);

  bool enabled() const { return !root_.empty(); }
  const std::filesystem::path &root() const { return root_; }
  /// Returns the entry for \p key if present and whole. A damaged, partial or foreign entry is
  /// not returned, never an error: \p damage (when given) then says what is wrong with it, and
  /// stays empty for a plain miss. Safe to call from several threads at once.
  std::optional<CacheEntry> lookup(const std::string &key, std::string *damage = nullptr) const;
  /// Removes the entry for \p key, if any (a damaged one: it is not read twice).
  void discard(const std::string &key) const;
  /// Where the entry for \p key lives (whether or not it exists), for messages.
  std::filesystem::path entryPath(const std::string &key) const;
  /// Stores (or replaces) the entry for \p key atomically. Keys and roles are names made of
  /// [A-Za-z0-9_-] (anything else is an InternalError); a disabled cache stores nothing.
  Status store(const std::string &key, const CacheEntry &entry) const;

private:
  /// The entry in the open directory \p dir, or none with \p why set.
  std::optional<CacheEntry> readEntry(int dir, const std::string &key, std::string &why) const;

  std::filesystem::path root_;
};

} // namespace tta
