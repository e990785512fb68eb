// Inside compile() (compiler/compiler.h): one run of the compiler as phases over its jobs, each
// phase in the file of its step:
//   adoptDecoratorConfigs, expand, nameJobs, applyHeuristics   compile_expand.cpp
//   describeKernels, describe                                   compile_describe.cpp
//   lookupCache, compileMisses                                  compile_jobs.cpp
//   prepareKeys, the two-step lookups and stores over both tiers compile_cache.cpp
//   stageOutputs (then the transaction commits)                 compile_outputs.cpp
//   storeInCache                                                compile_store.cpp
// and the run itself (order, failure, the worker pool) in compiler.cpp. Not a public header.
#pragma once

#include "compiler/autotune_configs.h"
#include "compiler/cache.h"
#include "compiler/cache_keys.h"
#include "compiler/compiler.h"
#include "compiler/naming.h"
#include "compiler/remote/remote_cache.h"
#include "compiler/worker.h"
#include "contract/output_transaction.h"
#include "contract/read_file.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tta {

/// "<N> ms" since \p started: the run's -v timings.
inline std::string millisecondsSince(std::chrono::steady_clock::time_point started) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count()) +
         " ms";
}

/// One variant of one kernel for one target, from expansion to its outputs.
struct Job {
  const KernelSpec *kernel = nullptr;
  std::size_t kernelIndex = 0;
  std::string name;      ///< the entry point's name
  std::string requested; ///< the target as asked for ("cuda:90" for a cuda:90a job)
  Target target;
  /// With the config's values filled in (resolveSignature), and after applyHeuristics the
  /// kernel's too (resolveKernelNames: no Name entries left). Empty for IR sources.
  Signature signature;
  Config config;                                       ///< with the backend's defaults filled in
  int configIndex = 0; ///< the config's place in its kernel's list (metadata config_index)
  nlohmann::json heuristics = nlohmann::json::array(); ///< metadata "heuristics"
  std::string id;
  OutputPaths paths;
  std::string cacheKey;                     ///< the first key (compiler/cache_keys.h); "" if none
  nlohmann::json result;                    ///< the worker's compile answer plus "describe"
  std::map<std::string, std::string> files; ///< role ("image", "ptx", "ir:<file>") -> bytes
  CacheOrigin origin = CacheOrigin::Compiled;
  /// Why this target cannot build or run the config ("" when it can): the config is left out
  /// for the target, with a warning and a refusal record in place of its outputs.
  std::string refusal;
  /// The call --specialize-for added this variant for ("M=1, N=4096"); "" for a declared one.
  std::string specializedFor;
  /// What staging the job's outputs adds to the run. A compiled job is staged as its answer
  /// arrives, while other compiles run; stageOutputs collects every job's in declaration
  /// order, so what a run prints and lists does not depend on which compile finished first.
  struct Staged {
    bool done = false;
    std::optional<CompiledVariant> variant;
    std::vector<std::string> depends;
    std::string warningKey, warning; ///< a refusal's warning, once per key
    std::optional<std::filesystem::path> refusal;
    std::optional<double> refusedCompileSeconds;
  } staged;
};

/// Environment variables that can change what Triton generates, and so belong in cache keys.
nlohmann::json tritonEnvironment();

/// Why the image among a cached entry's \p files cannot be \p target's ("" when it can): there
/// is none, it does not read as an image, or it is for another target.
std::string cachedImageTrouble(const std::map<std::string, std::string> &files,
                               const Target &target);

/// Deletes a directory tree when it goes out of scope.
struct ScratchDirectory {
  std::filesystem::path path;
  ~ScratchDirectory();
};

/// One run of the compiler: the phases of compile(), sharing the jobs and the outcome.
class CompileRun {
public:
  CompileRun(const CompileRequest &request, const LogSink &log)
      : request_(request), opts_(request.options), log_(log), kernels_(request.kernels) {}

  CompileOutcome run();
  /// The installation recorded beside the cache, learned now unless it is (as a run learns it
  /// before its keys): --prepare-workers does this ahead of the build. Errors: as a run's.
  Status learnInstallationAhead();

private:
  void say(const std::string &line) const;
  /// Records an error. Variants of one kernel often fail for one reason: it is reported once.
  /// The exit status is the first error's, except that an interrupt always wins.
  void fail(Diagnostic diag);
  void failAt(Diagnostic diag, const KernelSpec &kernel);
  /// A cache entry that does not pass its reader (contract/compile_answer.h): one warning that
  /// names the entry and the field, and the job is compiled again (its entry then replaced).
  void warnDamagedEntry(const std::string &what, const Diagnostic &why);
  /// The error for a worker's \p answer ("describe", "compile") about \p kernel that does not
  /// pass its reader: a kernel whose names cannot be C names, or a broken worker.
  static Diagnostic unusableAnswer(Diagnostic why, const char *answer, const KernelSpec &kernel);
  /// Removes everything this run may have written, including earlier versions of its outputs,
  /// so a failed run leaves nothing stale behind.
  CompileOutcome failed();

  /// (kernel index, target spelling) -> describe answer: a module may answer differently per
  /// target when it asks Triton's driver about the device at import (target_driver.py).
  using DescribeKey = std::pair<std::size_t, std::string>;
  struct DescribeWanted {
    DescribeKey key;
    const KernelSpec *kernel;
    Target target;
  };
  static DescribeKey describeKey(const Job &job) {
    return {job.kernelIndex, job.target.spelling()};
  }
  /// Whether describe answers are looked up in and stored to the cache (Python kernels), or
  /// asked each time (IR sources, described with their compile).
  enum class DescribeCache { Use, Skip };

  // compiler.cpp: what the phases share.
  bool resolvePython();
  void openCache();
  Status startPool(int count);
  /// The run's source names (source_names.h), with the site directories of the worker's
  /// interpreter once a worker said hello.
  SourceNames sourceNames() const;

  // compile_expand.cpp: the jobs.
  bool adoptDecoratorConfigs();
  std::optional<std::vector<std::pair<std::string, DecoratorConfigs>>>
  decoratorConfigsPerTarget(std::size_t k, const std::vector<DescribeWanted> &wanted);
  bool expand();
  bool nameJobs();
  bool specialize();
  bool applyHeuristics();

  // compile_describe.cpp: what Triton says about each kernel.
  bool describeKernels();
  bool describe(const std::vector<DescribeWanted> &wanted, int workers, DescribeCache cache);

  // compile_cache.cpp: keys and the two tiers.
  bool prepareKeys();
  std::optional<Installation> learnInstallation();
  /// The first key of \p kernel's \p job (its fields: what else decides the outputs); nullopt
  /// when the kernel file cannot be read or changed during the run.
  std::optional<std::string> firstKey(const KernelSpec &kernel, nlohmann::json job);
  /// The key of \p job's compile-time record: its source's name, not its contents, so that an
  /// edited kernel's compiles are still known to be long or short.
  std::string timingKey(const Job &job) const;
  /// Orders misses_ longest first (LPT), by the compile times recorded by earlier builds; the
  /// jobs with none keep their order, after the known ones longer than their median.
  void orderLongestFirst();
  /// The entry for \p key from the local cache, else the remote one (unchecked: the caller
  /// checks it). A damaged local entry is reported (badEntry) and looked for remotely.
  std::optional<CacheEntry> fetch(const std::string &key, CacheOrigin *origin);
  void keep(const std::string &key, const CacheEntry &entry);
  /// The local cache cannot be written (a full disk, a quota): one warning, and this run
  /// stores nothing more in it (the remote cache still gets what it compiles).
  void cacheUnwritable(const std::string &why);
  /// A remote hit that passed every check, kept in the local cache for the next run.
  void keepRemoteHit(const std::string &key, const CacheEntry &entry);
  /// An entry that is there but cannot be used: one warning naming it, and the job compiles
  /// (its store then replaces the entry). A damaged local entry is dropped at once.
  void badEntry(CacheOrigin tier, const std::string &key, const std::string &why);
  std::string importRecordTrouble(const ImportRecord &record) const;
  std::string dependencyTrouble(const nlohmann::json &result, const KernelSpec &kernel,
                                const ImportRecord &record) const;
  bool openRemote();
  bool remoteInUse() const;
  void remoteTrouble(const std::string &what, bool down);
  std::optional<CacheEntry> fetchRemote(const std::string &key);
  void storeRemote(const std::string &key, const CacheEntry &entry);
  /// What an entry must hold for the job looking it up: "" when it does, else why not.
  using EntryCheck = std::function<std::string(const CacheEntry &entry)>;
  /// The entry for \p first through its import record, rebased for this machine, when the
  /// record, the answer's dependencies (\p kernel's file and the record's modules) and
  /// \p check accept it; an entry they refuse is reported (badEntry) and not returned.
  std::optional<CacheEntry> lookupTwoStep(const std::string &first, const KernelSpec &kernel,
                                          const EntryCheck &check, CacheOrigin *origin);
  /// Stores \p entry and the import record \p answer gives; false when an import changed
  /// during the run or cannot be read (nothing stored).
  bool storeTwoStep(const std::string &first, const KernelSpec &kernel,
                    const nlohmann::json &answer, CacheEntry entry);

  // compile_jobs.cpp: the cache, then the frontend for the rest.
  bool lookupCache();
  bool compileMisses();
  std::optional<nlohmann::json> compileRequest(Job &job);
  void finishCompile(Job &job, nlohmann::json answer);
  void stageAndStore(Job &job);

  // compile_outputs.cpp: everything written, staged in the transaction.
  bool stageOutputs();
  void stageVariant(Job &job);
  void collectStaged(Job &job, std::vector<std::string> &depends);
  void stageIndex();
  void stageDepfile(const std::vector<std::string> &depends);
  void stageRefusal(Job &job);
  nlohmann::json refusedConstexprs(const Job &job);
  void removeUnwantedPtx();

  // compile_store.cpp: this run's answers, for the next.
  void storeInCache();
  void storeDescriptions();
  void storeCompiled(Job &job);

  const CompileRequest &request_;
  const CompileOptions &opts_;
  const LogSink &log_;
  CompileOutcome outcome_;
  std::vector<Job> jobs_;
  std::map<DescribeKey, nlohmann::json> described_;
  std::map<DescribeKey, std::string> describeKeys_; ///< -> cache key, if described now
  ScratchDirectory scratch_;
  std::unique_ptr<WorkerPool> pool_; ///< started on the first need of Python
  std::vector<Job *> misses_;
  std::string python_;
  CompileCache cache_{std::filesystem::path()};
  bool keysReady_ = false;
  bool localUnwritable_ = false;          ///< a store failed: nothing more is stored locally
  std::unique_ptr<RemoteCache> remote_;   ///< null: none configured
  bool remoteDown_ = false;               ///< unavailable: not asked again this run
  std::atomic<bool> remoteWarned_{false};
  Installation installation_;
  KeyContext keys_;
  /// Sources modified at or after this instant are not cached (file times use the same clock).
  const std::int64_t started_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  SourceHashes hashes_{started_};
  nlohmann::json hello_;
  OutputTransaction transaction_;
  std::vector<KernelSpec> kernels_; ///< the request's, with decorator configs adopted
  bool cacheOpened_ = false;
  /// A pre_hook that needs a launch fails each config it is on the same way: per hook
  /// ("<kernel> <function> <file>:<line>"), the error of its first config in the decorator's
  /// list, reported once the compiles are done (the same text whatever order they finish in).
  std::map<std::string, std::pair<int, Diagnostic>> hookRefusals_;
  std::set<std::string> refusalsWarned_;   ///< "<kernel> <config> <target>": one line each
  std::vector<std::filesystem::path> refusals_; ///< refusal records written in place of variants
};

} // namespace tta
