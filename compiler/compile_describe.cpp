// What Triton says about each kernel, per target (parameters, defaults, heuristics, autotune
// facts): asked of frontend workers once per kernel and target, and cached for Python kernels.
#include "compiler/compile_run.h"

#include "compiler/frontend_client.h"
#include "contract/json_access.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

extern char **environ;

namespace tta {

/// Environment variables that can change what Triton generates, and so belong in cache keys:
/// Triton's own cache-invalidating list (knobs: TRITON_*, DISABLE_*, MLIR_*, LLVM_*, AMDGCN_*,
/// NVPTX_*, USE_IR_LOC, PTXAS_OPTIONS, ...) by prefix, and what decides which Python modules a
/// kernel imports. Files named by TRITON_*_PATH are checked by the frontend's toolchain list.
nlohmann::json tritonEnvironment() {
  static const char *const prefixes[] = {"TRITON_",  "LLVM_",   "MLIR_",
                                         "DISABLE_", "AMDGCN_", "NVPTX_"};
  static const std::set<std::string> exact = {"USE_IR_LOC", "PTXAS_OPTIONS",
                                              "ALLOW_LHS_TMEM_LAYOUT_CONVERSION", "PYTHONPATH",
                                              "PYTHONHOME"};
  // Triton's own cache location, and every TRITON_AOT_* setting (ours: where caches are,
  // remote cache credentials), never change what Triton generates.
  static const std::set<std::string> irrelevant = {"TRITON_CACHE_DIR", "TRITON_HOME"};
  nlohmann::json env = nlohmann::json::object();
  for (char **e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string key(entry.substr(0, entry.find('=')));
    bool relevant = exact.count(key) > 0;
    for (const char *prefix : prefixes)
      relevant = relevant || key.rfind(prefix, 0) == 0;
    if (relevant && !irrelevant.count(key) && key.rfind("TRITON_AOT_", 0) != 0)
      env[key] = std::string(entry.substr(std::min(entry.size(), key.size() + 1)));
  }
  return env;
}

/// Describes every Python kernel for each of its targets (parameters, heuristics), from the
/// cache where it can: the variants a kernel has depend on its @triton.heuristics.
bool CompileRun::describeKernels() {
  std::vector<DescribeWanted> wanted;
  for (const Job &job : jobs_)
    if (job.kernel->sourceKind == "python")
      wanted.push_back({describeKey(job), job.kernel, job.target});
  const int workers =
      static_cast<int>(std::min<std::size_t>(jobs_.size(), std::max(1, opts_.jobs)));
  return describe(wanted, workers, DescribeCache::Use) && outcome_.errors.empty();
}

/// Describes what \p wanted names and is not described yet (with DescribeCache::Use, cached
/// answers first; the rest through up to \p workers workers), and reports failed answers.
/// False only when the workers could not be asked (reported too).
bool CompileRun::describe(const std::vector<DescribeWanted> &wanted, int workers,
                          DescribeCache cache) {
  if (wanted.empty())
    return true;
  bool cached = cache == DescribeCache::Use;
  if (cached) {
    openCache();
    if (cache_.enabled() && !prepareKeys())
      return false;
    cached = cache_.enabled();
  }
  std::vector<nlohmann::json> requests;
  std::vector<DescribeKey> kernelOf;
  std::set<DescribeKey> asked;
  // Kernels declared several times (one per specialization, as a spec file or CMake project
  // lists them) are described once: the answer depends on the file, function and target only.
  std::map<std::string, DescribeKey> firstAsked;
  std::vector<std::pair<DescribeKey, DescribeKey>> sameAs;
  for (const DescribeWanted &w : wanted) {
    const DescribeKey &k = w.key;
    if (described_.count(k) || !asked.insert(k).second)
      continue;
    const std::string identity = w.kernel->sourcePath.string() + '\0' + w.kernel->sourceKind +
                                 '\0' + w.kernel->function + '\0' + k.second;
    if (auto first = firstAsked.find(identity); first != firstAsked.end()) {
      sameAs.emplace_back(k, first->second);
      continue;
    }
    firstAsked.emplace(identity, k);
    std::optional<std::string> first =
        cached ? firstKey(*w.kernel, {{"op", "describe"}, {"target", k.second}}) : std::nullopt;
    if (first) {
      auto check = [](const CacheEntry &entry) -> std::string {
        if (!boolOr(entry.result, "ok", false))
          return "it is not a description";
        Status s = checkDescribeAnswer(entry.result);
        return s ? "" : s.error().message;
      };
      CacheOrigin origin = CacheOrigin::Local;
      auto entry = lookupTwoStep(*first, *w.kernel, check, &origin);
      if (entry) {
        say(std::string(origin == CacheOrigin::Remote ? "remote" : "local") +
            " cache hit: describe " + w.kernel->function + " for " + k.second);
        described_[k] = std::move(entry->result);
        continue;
      }
      describeKeys_[k] = *first;
    }
    kernelOf.push_back(k);
    requests.push_back({{"op", "describe"},
                        {"source", w.kernel->sourcePath.string()},
                        {"source_kind", w.kernel->sourceKind},
                        {"function", w.kernel->function},
                        {"target", requestTarget(w.target)}});
  }
  auto shareAnswers = [&] {
    for (const auto &[k, first] : sameAs)
      if (auto answer = described_.find(first); answer != described_.end())
        described_[k] = answer->second;
  };
  if (requests.empty()) {
    shareAnswers();
    return true;
  }
  if (Status s = startPool(workers); !s) {
    fail(s.takeError());
    return false;
  }
  const auto started = std::chrono::steady_clock::now();
  Status ran = pool_->run(requests, [&](std::size_t i, nlohmann::json answer) {
    described_[kernelOf[i]] = std::move(answer);
  });
  if (!ran) {
    fail(ran.takeError());
    return false;
  }
  say("frontend: " + std::to_string(requests.size()) + " description(s) in " +
      millisecondsSince(started));
  shareAnswers();
  for (const DescribeKey &k : kernelOf) {
    const nlohmann::json &info = described_[k];
    const std::string file = kernels_[k.first].sourcePath.string();
    if (!boolOr(info, "ok", false))
      fail(diagnosticFromResponse(info, file));
    else if (Status s = checkDescribeAnswer(info); !s)
      fail(unusableAnswer(s.takeError(), "describe", kernels_[k.first]));
  }
  return true;
}

} // namespace tta
