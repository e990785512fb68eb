#include "compiler/portable_paths.h"

#include <algorithm>

namespace tta {

namespace {

std::string withoutTrailingSlash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir;
}

/// Whether \p path is \p dir or lies under it.
bool isUnder(const std::string &path, const std::string &dir) {
  return path.size() >= dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         (path.size() == dir.size() || path[dir.size()] == '/');
}

template <typename F> nlohmann::json mapStrings(const nlohmann::json &value, const F &f) {
  if (value.is_string())
    return f(value.get<std::string>());
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &item : value)
      out.push_back(mapStrings(item, f));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[key, item] : value.items())
      out[key] = mapStrings(item, f);
    return out;
  }
  return value;
}

} // namespace

PortablePaths::PortablePaths(std::filesystem::path sourceRoot,
                             const std::vector<std::string> &siteDirs) {
  // "/" as a root would turn every path into a token: never a root.
  if (std::string root = withoutTrailingSlash(sourceRoot.string()); root.size() > 1) {
    roots_.push_back({root, "${root}"});
    sourceRoot_ = root;
  }
  for (std::size_t i = 0; i < siteDirs.size(); ++i)
    if (std::string dir = withoutTrailingSlash(siteDirs[i]); dir.size() > 1)
      roots_.push_back({dir, "${site" + std::to_string(i) + "}"});
  std::stable_sort(roots_.begin(), roots_.end(),
                   [](const Root &a, const Root &b) { return a.dir.size() > b.dir.size(); });
}

std::string PortablePaths::portable(const std::string &path) const {
  for (const Root &root : roots_)
    if (isUnder(path, root.dir))
      return root.token + path.substr(root.dir.size());
  // Elsewhere: from the source root, as the images name such files ("../shared/x.py").
  if (!sourceRoot_.empty() && !path.empty() && path[0] == '/') {
    std::string relative = std::filesystem::path(path).lexically_relative(sourceRoot_).string();
    if (!relative.empty())
      return "${root}/" + relative;
  }
  return path;
}

std::string PortablePaths::local(const std::string &portable) const {
  for (const Root &root : roots_) {
    if (!isUnder(portable, root.token))
      continue;
    std::string path = root.dir + portable.substr(root.token.size());
    return path.find("/../") == std::string::npos
               ? path
               : std::filesystem::path(path).lexically_normal().string();
  }
  return portable;
}

std::string PortablePaths::replaceAll(std::string text, bool toTokens) const {
  // Longest directory first, so a site directory inside the root is replaced as itself; a
  // directory is replaced only where a path separator or the end follows it.
  for (const Root &root : roots_) {
    const std::string &from = toTokens ? root.dir : root.token;
    const std::string &to = toTokens ? root.token : root.dir;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      std::size_t end = at + from.size();
      if (end < text.size() && text[end] != '/' && toTokens) {
        at = end;
        continue;
      }
      text.replace(at, from.size(), to);
      at += to.size();
    }
  }
  return text;
}

/// Whether \p text is one absolute path (a dependency, a file name), not a message.
static bool isOnePath(const std::string &text) {
  return !text.empty() && text[0] == '/' && text.find_first_of(" \t\n\"'") == std::string::npos;
}

nlohmann::json PortablePaths::portableJson(const nlohmann::json &value) const {
  return mapStrings(value, [&](const std::string &s) {
    return isOnePath(s) ? portable(s) : replaceAll(s, true);
  });
}

nlohmann::json PortablePaths::localJson(const nlohmann::json &value) const {
  return mapStrings(value, [&](const std::string &s) {
    return s.rfind("${", 0) == 0 && s.find_first_of(" \t\n") == std::string::npos ? local(s)
                                                                                : replaceAll(s, false);
  });
}

} // namespace tta
