// The compile cache: content-addressed, in the build tree by default, safe to share between
// concurrent runs (entries are written to a temporary directory and renamed into place).
//
// Like ccache's direct mode, an entry is found by a key computed before compiling (tool
// version, interpreter, Triton-affecting environment, the job), and is valid only while the
// files it depended on are unchanged: the kernel's Python sources by SHA-256, the Triton
// installation by size and modification time (hashing libtriton.so on every run would cost
// more than it saves).
//
// Entries live in <root>/v1/<key[0:2]>/<key>/ (entry.json plus one file per role). store()
// replaces an existing entry, so the last writer wins; a crashed run can leave a directory
// under <root>/v1/tmp/, which is safe to delete at any time no run is storing.
//
// A run looks up dozens of entries that all depend on the same hundreds of toolchain files, so
// a CompileCache checks each file at most once: the first look (stat, and for content
// dependencies the SHA-256) is remembered for the object's lifetime, and every later lookup()
// in that object compares against it. One CompileCache therefore sees the files as they were at
// its first look; a change after that is seen by the next CompileCache (make one per run).
#pragma once

#include "compiler/diagnostic.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tta {

/// A file the entry depends on and how it looked when the entry was made.
struct CacheDependency {
  std::string path;
  std::string sha256;            ///< content hash (sources); empty when stat is used
  std::uint64_t size = 0;        ///< stat identity (toolchain files)
  std::int64_t mtimeNs = 0;
};

struct CacheEntry {
  nlohmann::json result;                       ///< the worker's response for the job
  std::map<std::string, std::string> files;    ///< role ("image", "ptx") -> bytes
  std::vector<CacheDependency> dependencies;
};

class CompileCache {
public:
  /// An empty \p root disables the cache.
  explicit CompileCache(std::filesystem::path root);
  ~CompileCache();
  CompileCache(CompileCache &&) noexcept;
  CompileCache &operator=(CompileCache &&) noexcept;

  bool enabled() const { return !root_.empty(); }
  /// Returns the entry for \p key if present and all its dependencies are unchanged since this
  /// object first looked at them (see the top of this file). A damaged, partial or foreign
  /// entry is a miss, never an error. Safe to call from several threads at once.
  std::optional<CacheEntry> lookup(const std::string &key) const;
  /// Stores (or replaces) the entry for \p key atomically. Keys and roles are names made of
  /// [A-Za-z0-9_-] (anything else is an InternalError); a disabled cache stores nothing.
  Status store(const std::string &key, const CacheEntry &entry) const;

  /// Describes a file now, hashing its contents (\p hashContents) or taking its stat identity.
  /// Not memoised: store() records what the files are after the compile.
  static std::optional<CacheDependency> describe(const std::string &path, bool hashContents);

private:
  struct FileMemo;   ///< path -> stat identity and path -> SHA-256, behind a mutex

  /// describe(), answered from (and recorded in) this object's memo.
  std::optional<CacheDependency> describeOnce(const std::string &path, bool hashContents) const;

  std::filesystem::path root_;
  std::unique_ptr<FileMemo> memo_;   ///< never null, except in a moved-from object
};

/// Lower-case hex SHA-256 of \p bytes (LLVM's implementation).
std::string sha256Hex(std::string_view bytes);

} // namespace tta
