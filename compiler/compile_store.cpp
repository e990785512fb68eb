// This run's describe answers and compiles, stored in the caches for the next run (and other
// machines). A source that changed while the run read it is not trusted (ccache's rule), and a
// failure here only costs a later recompile.
#include "compiler/compile_run.h"

#include "contract/json_access.h"

namespace tta {

void CompileRun::storeInCache() {
  storeDescriptions();
  // Each compile was stored as its answer arrived (stageAndStore).
}

/// Describe answers: a later run expands heuristics without starting Python. Stored once,
/// while the workers compile where there are compiles (compileMisses), else at the end.
void CompileRun::storeDescriptions() {
  if (!cache_.enabled() || !keysReady_)
    return;
  for (const auto &[k, first] : describeKeys_) {
    const nlohmann::json &answer = described_[k];
    if (boolOr(answer, "ok", false))
      storeTwoStep(first, kernels_[k.first], answer, CacheEntry{answer, {}});
  }
  describeKeys_.clear();
}

/// One compile's answer and images, and its time by the job's name rather than its contents:
/// the next build, also of an edited kernel, starts its longest compiles first
/// (orderLongestFirst). Stored as the answer arrives, while other compiles run.
void CompileRun::storeCompiled(Job &job) {
  if (!cache_.enabled() || !keysReady_ || job.origin != CacheOrigin::Compiled)
    return;
  if (!job.cacheKey.empty()) {
    CacheEntry entry;
    entry.result = job.result;
    for (const char *role : {"image", "ptx"})
      if (auto it = job.files.find(role); it != job.files.end())
        entry.files[role] = it->second;
    if (!storeTwoStep(job.cacheKey, *job.kernel, job.result, std::move(entry)))
      say("not cached (a source changed during the run or cannot be read): " + job.id);
  }
  if (const nlohmann::json *ms = member(job.result, "compile_ms"); ms && ms->is_number_unsigned())
    (void)cache_.store(timingKey(job), CacheEntry{{{"compile_ms", *ms}}, {}});
}

} // namespace tta
