// Paths as cache keys and cache entries name them: relative to the project's source root or to
// the directory a package is installed in, so that another checkout directory or another
// virtual environment holding the same files names them the same way.
//
// A path under the source root becomes "${root}/rel", one under the i-th site directory
// "${site<i>}/rel" (the longest prefix wins: a virtual environment inside the checkout is a
// site directory, not project sources); any other absolute path is named from the source root
// as the images name it ("${root}/../shared/x.py"), portable to machines with the same layout
// around the checkout.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace tta {

class PortablePaths {
public:
  PortablePaths() = default;
  PortablePaths(std::filesystem::path sourceRoot, const std::vector<std::string> &siteDirs);

  /// \p path (absolute) with its root replaced by its token; unchanged when under none.
  std::string portable(const std::string &path) const;
  /// The inverse: a token at the start replaced by this machine's directory.
  std::string local(const std::string &portable) const;
  /// Every string in \p value, with every occurrence of a root (inside tracebacks and messages
  /// too) replaced by its token: what a cache entry holds.
  nlohmann::json portableJson(const nlohmann::json &value) const;
  /// The inverse of portableJson(), for an entry read back.
  nlohmann::json localJson(const nlohmann::json &value) const;

private:
  struct Root {
    std::string dir;     ///< absolute, no trailing '/'
    std::string token;   ///< "${root}", "${site0}", ...
  };
  std::string replaceAll(std::string text, bool toTokens) const;

  std::vector<Root> roots_;   ///< longest directory first
  std::string sourceRoot_;    ///< "" when there is none
};

} // namespace tta
