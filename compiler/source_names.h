// Source file names as the outputs spell them. Triton writes the kernel's file into the line
// information of every image, and the metadata names the kernel file: with absolute paths,
// another checkout directory or virtual environment gives other bytes. Like GCC's
// -ffile-prefix-map, --file-prefix-map OLD=NEW rewrites a leading OLD to NEW; by default the
// source root (--source-root) and the interpreter's site directories map to "" (names relative
// to them: kernels/add.py, triton/language/standard.py). See docs/reproducible.md.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tta {

/// One --file-prefix-map OLD=NEW: \p from is absolute and normal, \p to as given (may be empty).
struct PrefixMapping {
  std::filesystem::path from;
  std::string to;
};

/// Parses "OLD=NEW" (split at the first '='; OLD made absolute against the current directory);
/// an error for a missing '=' or an empty OLD.
Expected<PrefixMapping> parsePrefixMapping(std::string_view spec);

/// The names of one run: the user's mappings, then the defaults for the prefixes they leave
/// alone (the source root and each site directory -> "").
class SourceNames {
public:
  SourceNames(std::filesystem::path root, std::vector<PrefixMapping> user,
              const std::vector<std::filesystem::path> &siteDirs = {});

  /// \p file (absolute) as outputs name it: the NEW of the longest OLD made of its leading
  /// components, followed by the rest ("" + rest is the rest alone). A file no OLD matches is
  /// named relative to the root, lexically ("../shared/x.py"), while the root's default is in
  /// effect, and is left as it is when the user mapped the root (as GCC leaves such names), as
  /// is a name that is not an absolute path.
  std::string name(const std::filesystem::path &file) const;

  /// The mappings as compile requests carry them ("source_names" in
  /// docs/frontend-protocol.md): {"map": [[OLD, NEW], ...], "root": the root or null}.
  nlohmann::json request() const;

  /// What of them belongs in a cache key: the root and the user's mappings (site directories
  /// always map to "", wherever they are).
  nlohmann::json key() const;

private:
  std::filesystem::path root_;
  std::vector<PrefixMapping> user_;
  std::vector<PrefixMapping> mappings_;
  bool relativeToRoot_ = true;
};

} // namespace tta
