#include "compiler/source_names.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace fs = std::filesystem;

namespace tta {

namespace {

fs::path normalDirectory(const fs::path &path) {
  fs::path normal = fs::absolute(path).lexically_normal();
  if (!normal.has_filename() && normal != normal.root_path())
    normal = normal.parent_path(); // "/src/" -> "/src"
  return normal;
}

/// The part of \p file after \p prefix when \p prefix is made of its leading components.
std::optional<fs::path> remainder(const fs::path &file, const fs::path &prefix) {
  auto [prefixEnd, fileIt] = std::mismatch(prefix.begin(), prefix.end(), file.begin(), file.end());
  if (prefixEnd != prefix.end())
    return std::nullopt;
  fs::path rest;
  for (; fileIt != file.end(); ++fileIt)
    rest /= *fileIt;
  return rest;
}

} // namespace

Expected<PrefixMapping> parsePrefixMapping(std::string_view spec) {
  const std::size_t equals = spec.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return makeError(ExitCode::UsageError,
                     "--file-prefix-map '" + std::string(spec) +
                         "' is not OLD=NEW (e.g. --file-prefix-map /src/mylib=mylib)");
  return PrefixMapping{normalDirectory(fs::path(spec.substr(0, equals))),
                       std::string(spec.substr(equals + 1))};
}

SourceNames::SourceNames(fs::path root, std::vector<PrefixMapping> user,
                         const std::vector<fs::path> &siteDirs)
    : root_(normalDirectory(root)), user_(std::move(user)), mappings_(user_) {
  auto mapped = [&](const fs::path &dir) {
    return std::any_of(mappings_.begin(), mappings_.end(),
                       [&](const PrefixMapping &m) { return m.from == dir; });
  };
  relativeToRoot_ = !mapped(root_);
  if (relativeToRoot_)
    mappings_.push_back({root_, ""});
  for (const fs::path &dir : siteDirs)
    if (!dir.empty() && !mapped(normalDirectory(dir)))
      mappings_.push_back({normalDirectory(dir), ""});
}

std::string SourceNames::name(const fs::path &file) const {
  if (!file.is_absolute()) // "<string>": Python code made by exec(), named by whoever made it
    return file.string();
  const fs::path normal = file.lexically_normal();
  const PrefixMapping *best = nullptr;
  std::ptrdiff_t bestLength = -1;
  fs::path bestRest;
  for (const PrefixMapping &mapping : mappings_) {
    const std::ptrdiff_t length = std::distance(mapping.from.begin(), mapping.from.end());
    if (length <= bestLength)
      continue;
    if (auto rest = remainder(normal, mapping.from)) {
      best = &mapping;
      bestLength = length;
      bestRest = std::move(*rest);
    }
  }
  if (best)
    return best->to.empty() ? bestRest.string() : (fs::path(best->to) / bestRest).string();
  return relativeToRoot_ ? normal.lexically_relative(root_).string() : normal.string();
}

nlohmann::json SourceNames::request() const {
  nlohmann::json map = nlohmann::json::array();
  for (const PrefixMapping &mapping : mappings_)
    map.push_back({mapping.from.string(), mapping.to});
  return {{"map", std::move(map)},
          {"root", relativeToRoot_ ? nlohmann::json(root_.string()) : nlohmann::json()}};
}

nlohmann::json SourceNames::key() const {
  nlohmann::json user = nlohmann::json::array();
  for (const PrefixMapping &mapping : user_)
    user.push_back({mapping.from.string(), mapping.to});
  return {{"root", root_.string()}, {"file_prefix_map", std::move(user)}};
}

} // namespace tta
