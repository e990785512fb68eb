// This run's describe answers and compiles, stored in the cache for the next run. A source
// that changed while the run read it is not trusted (ccache's rule), and a failure here only
// costs a later recompile.
#include "compiler/compile_run.h"

#include "compiler/json_access.h"

#include <sys/stat.h>

#include <map>

namespace tta {

namespace {

/// Modification time in nanoseconds, or -1.
std::int64_t mtimeNs(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return -1;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

/// The Triton installation's files (stat identity) as cache dependencies; none when one cannot
/// be read.
std::optional<std::vector<CacheDependency>> toolchainDependencies(const nlohmann::json &hello) {
  std::vector<CacheDependency> toolchain;
  for (const auto &file : arrayOf(hello, "toolchain_files")) {
    auto dep =
        file.is_string() ? CompileCache::describe(file.get<std::string>(), false) : std::nullopt;
    if (!dep)
      return std::nullopt;
    toolchain.push_back(*dep);
  }
  return toolchain;
}

/// Source files as cache dependencies, by content, each hashed once per run (variants share
/// their sources); none for one modified after the run started or unreadable.
class SourceDependencies {
public:
  explicit SourceDependencies(std::int64_t started) : started_(started) {}

  /// Adds the kernel file \p source and the files of \p answer's "deps" to \p entry; false
  /// when one of them cannot be trusted.
  bool addTo(CacheEntry &entry, const std::string &source, const nlohmann::json &answer) {
    std::vector<std::string> sources = {source};
    for (const auto &dep : arrayOf(answer, "deps"))
      if (dep.is_string())
        sources.push_back(dep.get<std::string>());
    bool trusted = true;
    for (const std::string &path : sources) {
      const std::optional<CacheDependency> &dep = of(path);
      trusted = trusted && dep;
      if (dep)
        entry.dependencies.push_back(*dep);
    }
    return trusted;
  }

private:
  const std::optional<CacheDependency> &of(const std::string &path) {
    auto known = known_.find(path);
    if (known == known_.end())
      known = known_
                  .emplace(path, mtimeNs(path) < started_ ? CompileCache::describe(path, true)
                                                          : std::nullopt)
                  .first;
    return known->second;
  }

  std::int64_t started_;
  std::map<std::string, std::optional<CacheDependency>> known_;
};

} // namespace

void CompileRun::storeInCache(std::int64_t started) {
  if (!cache_.enabled())
    return;
  // The toolchain is the same for every entry: describe it once.
  auto toolchainFiles = toolchainDependencies(hello_);
  if (!toolchainFiles) {
    say("not caching: a file of the Triton installation cannot be read");
    return;
  }
  const std::vector<CacheDependency> &toolchain = *toolchainFiles;
  SourceDependencies sources(started);
  auto store = [&](const std::string &key, const CacheEntry &entry) {
    if (Status s = cache_.store(key, entry); !s && log_)
      log_("warning: " + s.error().message + " (the outputs are written; only caching failed)");
  };

  // Describe answers: a later run expands heuristics without starting Python.
  for (const auto &[k, key] : describeKeys_) {
    const nlohmann::json &answer = described_[k];
    if (!boolOr(answer, "ok", false))
      continue;
    CacheEntry entry;
    entry.result = answer;
    bool trusted = sources.addTo(entry, kernels_[k.first].sourcePath.string(), answer);
    entry.dependencies.insert(entry.dependencies.end(), toolchain.begin(), toolchain.end());
    if (trusted)
      store(key, entry);
  }

  for (Job *job : misses_) {
    CacheEntry entry;
    entry.result = job->result;
    for (const char *role : {"image", "ptx"})
      if (auto it = job->files.find(role); it != job->files.end())
        entry.files[role] = it->second;
    bool trusted = sources.addTo(entry, job->kernel->sourcePath.string(), job->result);
    entry.dependencies.insert(entry.dependencies.end(), toolchain.begin(), toolchain.end());
    // Installed packages the kernel's code comes from, by their dist-info (renamed on upgrade).
    for (const auto &file : arrayOf(job->result, "package_files")) {
      auto dep =
          file.is_string() ? CompileCache::describe(file.get<std::string>(), false) : std::nullopt;
      trusted = trusted && dep;
      if (dep)
        entry.dependencies.push_back(*dep);
    }
    if (!trusted) {
      say("not cached (a source changed during the run or cannot be read): " + job->id);
      continue;
    }
    store(job->cacheKey, entry);
  }
}

} // namespace tta
