#include "compiler/cache_keys.h"

#include "compiler/cache.h"
#include "contract/json_access.h"

#include <sys/stat.h>

#include <algorithm>

using nlohmann::json;

namespace tta {

json ImportRecord::toJson() const {
  return {{"modules", modules}, {"packages", packages}};
}

std::optional<ImportRecord> ImportRecord::fromJson(const json &value) {
  try {
    ImportRecord record;
    record.modules = value.at("modules").get<std::vector<std::string>>();
    record.packages = value.at("packages").get<std::vector<std::string>>();
    return record;
  } catch (const json::exception &) {
    return std::nullopt;
  }
}

std::optional<std::string> SourceHashes::of(const std::string &path) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto known = known_.find(path); known != known_.end())
      return known->second;
  }
  std::optional<std::string> sha256;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 &&
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec <
          started_)
    sha256 = sha256OfFile(path);
  std::lock_guard<std::mutex> lock(mutex_);
  return known_.try_emplace(path, sha256).first->second;
}

std::optional<std::string> contentKey(const std::string &firstKey, const ImportRecord &record,
                                      const KeyContext &context, SourceHashes &hashes) {
  json modules = json::array(), packages = json::array();
  for (const std::string &name : record.modules) {
    std::optional<std::string> sha256 = hashes.of(context.paths.local(name));
    if (!sha256)
      return std::nullopt;
    modules.push_back({name, *sha256});
  }
  for (const std::string &name : record.packages) {
    auto version = context.installation->distributions.find(name);
    if (version == context.installation->distributions.end())
      return std::nullopt;
    packages.push_back({name, version->second});
  }
  return sha256Hex(json{{"first", firstKey}, {"modules", modules}, {"packages", packages}}.dump());
}

ImportRecord importsOf(const json &answer, const std::string &kernelFile,
                       const PortablePaths &paths) {
  ImportRecord record;
  for (const json &dep : arrayOf(answer, "deps"))
    if (dep.is_string() && dep.get<std::string>() != kernelFile)
      record.modules.push_back(paths.portable(dep.get<std::string>()));
  for (const json &name : arrayOf(answer, "packages"))
    if (name.is_string())
      record.packages.push_back(name.get<std::string>());
  for (auto *list : {&record.modules, &record.packages}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return record;
}

json portableEnvironment(const json &environment) {
  json out = json::object();
  for (const auto &[name, value] : environment.items()) {
    bool namesAFile = name.size() > 5 && name.compare(name.size() - 5, 5, "_PATH") == 0;
    if (!namesAFile && name != "PYTHONPATH" && name != "PYTHONHOME")
      out[name] = value;
  }
  return out;
}

} // namespace tta
