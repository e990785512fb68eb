// The local compile cache: content-addressed, in the build tree by default, safe to share
// between concurrent runs (entries are written to a temporary directory and renamed into place).
//
// Keys are made of contents only (compiler/cache_keys.h): an entry never needs checking against
// files, so it is valid for as long as it exists, on any machine that computes the same key, and
// the same keys address the remote cache (compiler/remote/).
//
// Entries live in <root>/v2/<key[0:2]>/<key>/ (entry.json plus one file per role). store()
// replaces an existing entry, so the last writer wins; a crashed run can leave a directory
// under <root>/v2/tmp/, which is safe to delete at any time no run is storing.
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
  /// Returns the entry for \p key if present. A damaged, partial or foreign entry is a miss,
  /// never an error. Safe to call from several threads at once.
  std::optional<CacheEntry> lookup(const std::string &key) const;
  /// Stores (or replaces) the entry for \p key atomically. Keys and roles are names made of
  /// [A-Za-z0-9_-] (anything else is an InternalError); a disabled cache stores nothing.
  Status store(const std::string &key, const CacheEntry &entry) const;

private:
  std::filesystem::path root_;
};

} // namespace tta
