// The index file triton-aot-cc writes with --index: every metadata file and refusal record of
// one run, which triton-aot-ld takes in their place (docs/compiler.md, "Outputs").
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tta {

inline constexpr const char *kIndexSchema = "triton-aot-index";
inline constexpr int kIndexSchemaVersion = 1;

/// Where a run's variants came from (compiled, or a hit of the local or remote cache).
struct VariantsFrom {
  std::uint64_t compiled = 0;
  std::uint64_t local = 0;
  std::uint64_t remote = 0;
  bool remoteCache = false;   ///< a remote cache was in use
  bool operator==(const VariantsFrom &) const = default;
};

struct IndexFile {
  int schemaVersion = kIndexSchemaVersion;
  /// The run's metadata files and refusal records (.json), relative to the index's directory
  /// (absolute where no relative path reaches them).
  std::vector<std::string> metadata;
  std::optional<VariantsFrom> variantsFrom;
  bool operator==(const IndexFile &) const = default;
};

nlohmann::json toJson(const IndexFile &index);
/// The strict reader: a known schema and version, every listed name a one-line path of a .json
/// file, counts as unsigned integers. Errors name the field ("metadata[3]: ..."); the caller
/// adds the file.
Expected<IndexFile> parseIndex(const nlohmann::json &json);

} // namespace tta
