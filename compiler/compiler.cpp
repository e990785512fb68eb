#include "compiler/compiler.h"

#include "compiler/autotune_configs.h"
#include "compiler/cache.h"
#include "compiler/depfile.h"
#include "compiler/frontend_client.h"
#include "compiler/json_access.h"
#include "compiler/lexing.h"
#include "compiler/naming.h"
#include "compiler/output_transaction.h"
#include "compiler/target_limits.h"
#include "compiler/variant_metadata.h"
#include "compiler/worker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

extern char **environ;
namespace fs = std::filesystem;

namespace tta {

namespace {

/// One variant of one kernel for one target, from expansion to its outputs.
struct Job {
  const KernelSpec *kernel = nullptr;
  std::size_t kernelIndex = 0;
  std::string name;           ///< the entry point's name
  std::string requested;      ///< the target as asked for ("cuda:90" for a cuda:90a job)
  Target target;
  Signature signature;        ///< resolved (no Name entries); empty for IR sources
  Config config;              ///< with the backend's defaults filled in
  /// Config as declared (before the defaults), for resolving names after heuristics expand.
  nlohmann::json heuristics = nlohmann::json::array();   ///< metadata "heuristics"
  std::string id;
  OutputPaths paths;
  std::string cacheKey;
  nlohmann::json result;      ///< the worker's compile answer plus "describe"
  std::map<std::string, std::string> files;   ///< role ("image", "ptx", "ir:<file>") -> bytes
  bool fromCache = false;
  /// Why this target cannot build or run the config ("" when it can): the config is left out
  /// for the target, with a warning and a refusal record in place of its outputs.
  std::string refusal;
};

std::optional<std::string> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// The first "tt.func ... @name" of an IR file: the default entry point name of IR sources.
std::string irFunctionName(const fs::path &path) {
  auto text = readFile(path);
  if (!text)
    return {};
  std::size_t at = text->find("tt.func");
  at = at == std::string::npos ? at : text->find('@', at);
  if (at == std::string::npos)
    return {};
  std::size_t end = at + 1;
  while (end < text->size() &&
         (isIdentChar((*text)[end]) || (*text)[end] == '$' || (*text)[end] == '.'))
    ++end;
  return text->substr(at + 1, end - at - 1);
}

/// Environment variables that can change what Triton generates, and so belong in cache keys:
/// Triton's own cache-invalidating list (knobs: TRITON_*, DISABLE_*, MLIR_*, LLVM_*, AMDGCN_*,
/// NVPTX_*, USE_IR_LOC, PTXAS_OPTIONS, ...) by prefix, and what decides which Python modules a
/// kernel imports. Files named by TRITON_*_PATH are checked by the frontend's toolchain list.
nlohmann::json tritonEnvironment() {
  static const char *const prefixes[] = {"TRITON_", "LLVM_", "MLIR_", "DISABLE_", "AMDGCN_",
                                         "NVPTX_"};
  static const std::set<std::string> exact = {"USE_IR_LOC", "PTXAS_OPTIONS",
                                              "ALLOW_LHS_TMEM_LAYOUT_CONVERSION", "PYTHONPATH",
                                              "PYTHONHOME"};
  static const std::set<std::string> irrelevant = {"TRITON_CACHE_DIR", "TRITON_HOME",
                                                   "TRITON_AOT_CACHE_DIR", "TRITON_AOT_LOG",
                                                   "TRITON_AOT_PYTHON"};
  nlohmann::json env = nlohmann::json::object();
  for (char **e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string key(entry.substr(0, entry.find('=')));
    bool relevant = exact.count(key) > 0;
    for (const char *prefix : prefixes)
      relevant = relevant || key.rfind(prefix, 0) == 0;
    if (relevant && !irrelevant.count(key))
      env[key] = std::string(entry.substr(std::min(entry.size(), key.size() + 1)));
  }
  return env;
}

/// Entry point names become C identifiers in the linked library.
bool isIdentifier(const std::string &name) {
  if (name.empty() || !isIdentStart(name[0]))
    return false;
  for (char c : name)
    if (!isIdentChar(c))
      return false;
  return true;
}

/// Fills in Triton's defaults so equal variants get equal names and cache keys.
Config withBackendDefaults(Config config, const Target &target, const std::string &sourceKind) {
  if (sourceKind == "ttgir")
    return config;   // warps and stages are fixed by the IR
  if (!config.numWarps)
    config.numWarps = 4;
  if (!config.numStages)
    config.numStages = target.backend == Backend::Cuda ? 3 : 2;
  return config;
}

/// Triton (3.5 through 3.9) compiles CUDA capability 90 and later only arch-specifically
/// (sm_arch_from_capability appends "a"), so "cuda:90" is "cuda:90a" in fact.
Expected<Target> effectiveTarget(Target target) {
  if (target.backend != Backend::Cuda)
    return target;
  if (target.archSuffix == 'f')
    return makeError(ExitCode::UsageError,
                     "target " + target.spelling() + ": Triton cannot build family-portable ('f') "
                     "cubins (no release up to 3.9 does: it always compiles for sm_<cc>a); use "
                     "cuda:" + std::to_string(target.capability) + "a");
  if (target.capability >= 90 && target.archSuffix == 0) {
    target.archSuffix = 'a';
    target.arch += 'a';
  }
  return target;
}

/// Modification time in nanoseconds, or -1.
std::int64_t mtimeNs(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return -1;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

/// Deletes a directory tree when it goes out of scope.
struct ScratchDirectory {
  fs::path path;
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path.empty())
      fs::remove_all(path, ignored);
  }
};

/// One run of the compiler: the phases of compile(), sharing the jobs and the outcome.
class CompileRun {
public:
  CompileRun(const CompileRequest &request, const LogSink &log)
      : request_(request), opts_(request.options), log_(log), kernels_(request.kernels) {}

  CompileOutcome run() {
    // Sources modified after this instant are not cached (file times use the same clock).
    const std::int64_t started = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
    try {
      if (!adoptDecoratorConfigs()) {
        // Still name this run's outputs (without more errors), so that failed() removes what
        // an earlier run wrote under those names.
        CompileOutcome reported = outcome_;
        expand();
        nameJobs();
        outcome_ = std::move(reported);
        return failed();
      }
      // Named before describing too: a failure then removes the earlier outputs of those names.
      if (!expand() || !nameJobs() || !describeKernels() || !applyHeuristics() || !nameJobs() ||
          !lookupCache() || !compileMisses() || !stageOutputs())
        return failed();
      if (Status s = transaction_.commit(); !s) {
        fail(s.takeError());
        return failed();
      }
      removeUnwantedPtx();
      storeInCache(started);
    } catch (const std::exception &e) {
      // Answers are validated before use; this is the last line of defence, so that an
      // unexpected exception still leaves nothing behind.
      Diagnostic diag = makeError(ExitCode::InternalError, std::string("unexpected error: ") + e.what());
      diag.notes.push_back("this is a bug in triton-aot; rerun with --verbose and report it");
      fail(std::move(diag));
      return failed();
    }
    return std::move(outcome_);
  }

private:
  void say(const std::string &line) const {
    if (opts_.verbose && log_)
      log_(line);
  }

  /// Records an error. Variants of one kernel often fail for one reason: it is reported once.
  /// The exit status is the first error's, except that an interrupt always wins.
  void fail(Diagnostic diag) {
    for (const Diagnostic &seen : outcome_.errors)
      if (seen.file == diag.file && seen.line == diag.line && seen.column == diag.column &&
          seen.message == diag.message)
        return;
    if (outcome_.code == ExitCode::Success || diag.code == ExitCode::Interrupted)
      outcome_.code = diag.code;
    outcome_.errors.push_back(std::move(diag));
  }

  void failAt(Diagnostic diag, const KernelSpec &kernel) {
    if (diag.file.empty() && kernel.origin != "command line")
      diag.file = kernel.origin;
    fail(std::move(diag));
  }

  /// Removes everything this run may have written, including earlier versions of its outputs,
  /// so a failed run leaves nothing stale behind.
  CompileOutcome failed() {
    transaction_.rollback();
    std::error_code ec;
    for (const Job &job : jobs_)
      for (const fs::path &p : {job.paths.image, job.paths.ptx, job.paths.metadata})
        if (!p.empty())
          fs::remove(p, ec);
    for (const fs::path &p : {opts_.depfile, opts_.index})
      if (!p.empty())
        fs::remove(p, ec);
    outcome_.variants.clear();
    return std::move(outcome_);
  }

  /// (kernel index, target spelling) -> describe answer: a module may answer differently per
  /// target when it asks Triton's driver about the device at import (target_driver.py).
  using DescribeKey = std::pair<std::size_t, std::string>;
  struct DescribeWanted {
    DescribeKey key;
    const KernelSpec *kernel;
    Target target;
  };
  static DescribeKey describeKey(const Job &job) { return {job.kernelIndex, job.target.spelling()}; }

  bool resolvePython();
  void openCache();
  bool adoptDecoratorConfigs();
  bool expand();
  bool describeKernels();
  bool describe(const std::vector<DescribeWanted> &wanted, int workers);
  bool applyHeuristics();
  bool nameJobs();
  Status startPool(int count);
  bool lookupCache();
  bool compileMisses();
  bool stageOutputs();
  void storeInCache(std::int64_t started);

  void finishCompile(Job &job, nlohmann::json answer);
  void stageRefusal(const Job &job);
  void removeUnwantedPtx();

  const CompileRequest &request_;
  const CompileOptions &opts_;
  const LogSink &log_;
  CompileOutcome outcome_;
  std::vector<Job> jobs_;
  std::map<DescribeKey, nlohmann::json> described_;
  std::map<DescribeKey, std::string> describeKeys_;   ///< -> cache key, if described now
  ScratchDirectory scratch_;
  std::unique_ptr<WorkerPool> pool_;                  ///< started on the first need of Python
  std::vector<Job *> misses_;
  std::string python_;
  CompileCache cache_{fs::path()};
  nlohmann::json hello_;
  OutputTransaction transaction_;
  std::vector<KernelSpec> kernels_;   ///< the request's, with decorator configs adopted
  bool cacheOpened_ = false;
  std::vector<fs::path> refusals_;   ///< refusal records written in place of variants
};

void CompileRun::openCache() {
  if (cacheOpened_)
    return;
  cacheOpened_ = true;
  // IR dumps are not cached: a run that asks for them compiles.
  cache_ = CompileCache(opts_.irDir.empty() ? opts_.cacheDir : fs::path());
}

bool CompileRun::resolvePython() {
  if (!python_.empty())
    return true;
  auto python = resolveProgram(opts_.python);
  if (!python) {
    fail(python.takeError());
    return false;
  }
  python_ = *python;
  return true;
}

/// Kernels declared without configs: described first, per target (a module may choose its
/// autotune configs by backend), and a @triton.autotune'd one gets the decorator's configs
/// (after its build-time pruning), named from their values, and a signature entry for each value
/// they set. A config some targets' lists lack is limited to the others (archs=).
bool CompileRun::adoptDecoratorConfigs() {
  std::vector<std::size_t> undeclared;
  std::vector<DescribeWanted> wanted;
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const KernelSpec &kernel = kernels_[k];
    if (!kernel.configsFromDecorator || kernel.sourceKind != "python")
      continue;
    undeclared.push_back(k);
    for (const Target &requested : kernel.targets)
      if (auto target = effectiveTarget(requested))   // the others fail in expand()
        wanted.push_back({{k, target->spelling()}, &kernel, *target});
  }
  if (undeclared.empty())
    return true;
  // As many workers as the compiles will want at least, started together (Triton imports in
  // parallel), rather than one now and the rest after describing.
  std::size_t variants = 0;
  for (const KernelSpec &kernel : kernels_)
    variants += std::max<std::size_t>(1, kernel.signatures.size()) * kernel.targets.size() *
                std::max<std::size_t>(1, kernel.configs.size());
  if (!describe(wanted, static_cast<int>(std::clamp<std::size_t>(
                            variants, 1, static_cast<std::size_t>(std::max(1, opts_.jobs))))))
    return false;
  for (std::size_t k : undeclared) {
    KernelSpec &kernel = kernels_[k];
    std::vector<std::pair<std::string, DecoratorConfigs>> perTarget;   // target -> its configs
    bool failedHere = false;
    for (const DescribeWanted &w : wanted) {
      if (w.key.first != k)
        continue;
      const nlohmann::json &info = described_[w.key];
      const nlohmann::json *autotune = member(info, "autotune");
      if (!autotune)
        continue;
      auto adopted = configsFromDecorator(*autotune, kernel.signatures, info, kernel.function,
                                          kernel.dropPreHooks);
      if (!adopted) {
        failAt(adopted.takeError(), kernel);
        failedHere = true;
        break;
      }
      perTarget.emplace_back(w.target.arch, std::move(*adopted));
    }
    if (failedHere || perTarget.empty())
      continue;
    // Targets whose lists differ: the union, each config limited to the targets that list it.
    bool same = true;
    for (const auto &[arch, adopted] : perTarget)
      same = same && adopted.configs == perTarget.front().second.configs;
    DecoratorConfigs merged = perTarget.front().second;
    if (!same) {
      std::vector<Config> all;
      for (const auto &[arch, adopted] : perTarget)
        for (const Config &config : adopted.configs) {
          auto it = std::find_if(all.begin(), all.end(), [&](const Config &c) {
            Config a = c, b = config;
            a.archs.clear();
            b.archs.clear();
            return a == b;
          });
          if (it == all.end()) {
            all.push_back(config);
            all.back().archs = {arch};
          } else {
            it->archs.push_back(arch);
          }
        }
      for (Config &config : all)
        if (config.archs.size() == perTarget.size())
          config.archs.clear();
      merged.configs = std::move(all);
      say("note: " + kernel.name + ": the decorator's configs differ per target; each is built "
          "for the targets that list it");
    }
    for (const std::string &warning : merged.warnings)
      if (log_)
        log_("warning: " + warning);
    std::string names;
    for (const Config &config : merged.configs)
      names += (names.empty() ? "" : ", ") + config.name;
    say("note: " + kernel.name + ": " + std::to_string(merged.configs.size()) +
        " config(s) from @triton.autotune: " + names);
    kernel.configs = std::move(merged.configs);
    kernel.signatures = std::move(merged.signatures);
  }
  return outcome_.errors.empty();
}

/// Kernels x targets x signatures x configs, each with its resolved signature and output names.
bool CompileRun::expand() {
  std::map<std::string, const Job *> seen;   // metadata path -> the job that writes it
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const KernelSpec &kernel = kernels_[k];
    std::string name = kernel.name;
    if (name.empty())
      name = kernel.sourceKind == "python" ? kernel.function : irFunctionName(kernel.sourcePath);
    if (name.empty())
      name = kernel.sourcePath.stem().string();
    if (!isIdentifier(name)) {
      failAt(makeError(ExitCode::UsageError,
                       "entry point name '" + name + "' is not a C identifier; give one with "
                       "-on/--out-name (or \"name\" in a spec file)"),
             kernel);
      continue;
    }
    std::vector<Signature> signatures = kernel.signatures;
    if (signatures.empty())
      signatures.emplace_back();   // IR sources: the signature is in the IR
    for (const Target &requested : kernel.targets) {
      auto target = effectiveTarget(requested);
      if (!target) {
        failAt(target.takeError(), kernel);
        continue;
      }
      if (!(*target == requested))
        say("note: " + requested.spelling() + " compiles as " + target->spelling() +
            " (Triton builds sm_90 and later arch-specifically)");
      for (const Signature &signature : signatures) {
        for (const Config &config : kernel.configs) {
          Job job;
          job.kernel = &kernel;
          job.kernelIndex = k;
          job.name = name;
          job.requested = requested.spelling();
          job.target = *target;
          job.config = withBackendDefaults(config, *target, kernel.sourceKind);
          job.refusal = refusalBeforeCompiling(job.config, job.target);
          // Before the defaults: an option names a constexpr only where the config sets it.
          auto resolved = resolveSignature(signature, config);
          if (!resolved) {
            failAt(resolved.takeError(), kernel);
            continue;
          }
          job.signature = *resolved;
          jobs_.push_back(std::move(job));
        }
      }
    }
  }
  return outcome_.errors.empty();
}

/// Output names of every job (after heuristics expanded them), and no two alike.
bool CompileRun::nameJobs() {
  std::map<std::string, const Job *> seen;   // metadata path -> the job that writes it
  for (Job &job : jobs_) {
    const KernelSpec &kernel = *job.kernel;
    fs::path stem = opts_.outputStem.empty() ? opts_.outputDir / job.name : opts_.outputStem;
    std::string digest = variantDigest(kernel.function.empty() ? job.name : kernel.function,
                                       kernel.sourceKind, job.signature, job.config);
    job.id = variantId(job.name, job.target, digest);
    job.paths = outputPaths(stem, job.target, digest);
  }
  // Two variants that would write the same files: say which declarations collide.
  for (const Job &job : jobs_) {
    auto [it, inserted] = seen.emplace(job.paths.metadata.string(), &job);
    if (inserted)
      continue;
    const Job &first = *it->second;
    std::string why = first.kernel == job.kernel
                          ? "the same signature, config and target are declared twice"
                          : "two kernels have the same name; give each its own name";
    if (first.requested != job.requested)
      why += " (cuda:90 and later compile as the 'a' target, so cuda:90 and cuda:90a are the same)";
    failAt(makeError(ExitCode::UsageError, "variant " + job.id + " would be written twice: " + why),
           *job.kernel);
  }
  return outcome_.errors.empty();
}

/// The interpreter, the cache and the worker pool's settings; the pool starts on first need.
Status CompileRun::startPool(int count) {
  if (python_.empty()) {   // IR sources are described with their compile: not resolved yet
    auto python = resolveProgram(opts_.python);
    if (!python)
      return python.takeError();
    python_ = *python;
  }
  if (pool_) {
    if (auto started = pool_->start(count); !started)
      return started.takeError();
    return ok();
  }
  scratch_.path = opts_.outputDir / (".triton-aot-tmp." + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(scratch_.path / "ir", ec);
  if (ec) {
    Diagnostic diag = makeError(ExitCode::OutputError,
                                "cannot create '" + scratch_.path.string() + "': " + ec.message());
    scratch_.path.clear();
    return diag;
  }
  WorkerSettings settings;
  settings.python = python_;
  settings.script = opts_.workerScript.string();
  settings.interruptFd = opts_.interruptFd;
  settings.usePool = opts_.workerPool;
  settings.poolIdleSeconds = opts_.workerIdleSeconds;
  // Triton's own cache goes inside ours, never into the user's ~/.triton (upstream does). A
  // cache that cannot be written only costs speed: compile without it.
  fs::path tritonCache = scratch_.path / "triton";
  if (cache_.enabled()) {
    fs::create_directories(opts_.cacheDir / "triton", ec);
    if (!ec && ::access((opts_.cacheDir / "triton").c_str(), W_OK) == 0) {
      tritonCache = opts_.cacheDir / "triton";
    } else {
      if (log_)
        log_("warning: cannot write the cache '" + opts_.cacheDir.string() +
             "'; compiling without it");
      cache_ = CompileCache(fs::path());
    }
  }
  settings.environment["TRITON_CACHE_DIR"] = tritonCache.string();
  if (opts_.verbose)
    settings.log = log_;
  if (!fs::is_regular_file(settings.script, ec))
    return makeError(ExitCode::EnvironmentError,
                     "the frontend worker is missing: '" + settings.script +
                         "' does not exist (set TRITON_AOT_FRONTEND_DIR, or reinstall triton-aot)");
  pool_ = std::make_unique<WorkerPool>(settings, std::max(1, opts_.jobs));
  auto greeting = pool_->start(count);
  if (!greeting)
    return greeting.takeError();
  hello_ = *greeting;
  if (Status s = checkHello(hello_, python_); !s)
    return s;
  say("frontend: Triton " + stringOr(hello_, "triton_version") + " with " + python_ + ", " +
      std::to_string(count) + " worker(s)");
  return ok();
}

/// Describes every Python kernel for each of its targets (parameters, heuristics), from the
/// cache where it can: the variants a kernel has depend on its @triton.heuristics.
bool CompileRun::describeKernels() {
  std::vector<DescribeWanted> wanted;
  for (const Job &job : jobs_)
    if (job.kernel->sourceKind == "python")
      wanted.push_back({describeKey(job), job.kernel, job.target});
  return describe(wanted, static_cast<int>(std::min<std::size_t>(jobs_.size(),
                                                                 std::max(1, opts_.jobs))));
}

/// Describes what \p wanted names and is not described yet (cached answers first; the rest
/// through up to \p workers workers); reports failed answers.
bool CompileRun::describe(const std::vector<DescribeWanted> &wanted, int workers) {
  if (wanted.empty())
    return true;
  if (!resolvePython())
    return false;
  openCache();
  const nlohmann::json environment = tritonEnvironment();
  std::vector<nlohmann::json> requests;
  std::vector<DescribeKey> kernelOf;
  std::set<DescribeKey> asked;
  for (const DescribeWanted &w : wanted) {
    const DescribeKey &k = w.key;
    if (described_.count(k) || !asked.insert(k).second)
      continue;
    nlohmann::json key = {{"format", 2},
                          {"op", "describe"},
                          {"tool", TRITON_AOT_VERSION},
                          {"python", python_},
                          {"environment", environment},
                          {"source", w.kernel->sourcePath.string()},
                          {"function", w.kernel->function},
                          {"target", k.second}};
    const std::string cacheKey = sha256Hex(key.dump());
    auto entry = cache_.enabled() ? cache_.lookup(cacheKey) : std::nullopt;
    if (entry && checkDescribeAnswer(entry->result)) {
      say("cache hit: describe " + w.kernel->function + " for " + k.second);
      described_[k] = std::move(entry->result);
      continue;
    }
    describeKeys_[k] = cacheKey;
    kernelOf.push_back(k);
    requests.push_back({{"op", "describe"},
                        {"source", w.kernel->sourcePath.string()},
                        {"source_kind", w.kernel->sourceKind},
                        {"function", w.kernel->function},
                        {"target", requestTarget(w.target)}});
  }
  if (requests.empty())
    return true;
  if (Status s = startPool(workers); !s) {
    fail(s.takeError());
    return false;
  }
  Status ran = pool_->run(requests, [&](std::size_t i, nlohmann::json answer) {
    described_[kernelOf[i]] = std::move(answer);
  });
  if (!ran) {
    fail(ran.takeError());
    return false;
  }
  for (const DescribeKey &k : kernelOf) {
    const nlohmann::json &info = described_[k];
    const std::string file = kernels_[k.first].sourcePath.string();
    if (!boolOr(info, "ok", false))
      fail(diagnosticFromResponse(info, file));
    else if (Status s = checkDescribeAnswer(info); !s)
      fail(s.takeError());
  }
  return outcome_.errors.empty();
}

/// Each job of a kernel with @triton.heuristics becomes one job per assignment of them.
bool CompileRun::applyHeuristics() {
  std::map<DescribeKey, std::vector<KernelHeuristic>> translated;
  std::vector<Job> expanded;
  for (Job &job : jobs_) {
    auto info = described_.find(describeKey(job));
    if (info == described_.end()) {
      expanded.push_back(std::move(job));
      continue;
    }
    const KernelSpec &kernel = *job.kernel;
    const std::string file = kernel.sourcePath.string();
    auto known = translated.find(describeKey(job));
    if (known == translated.end()) {
      auto heuristics = translateHeuristics(info->second, kernel.heuristics, kernel.function, file);
      if (!heuristics) {
        failAt(heuristics.takeError(), kernel);
        continue;
      }
      known = translated.emplace(describeKey(job), std::move(*heuristics)).first;
    }
    if (Status s = checkDoNotSpecialize(job.signature, info->second, kernel.function, file); !s) {
      failAt(s.takeError(), kernel);
      continue;
    }
    auto assignments = expandHeuristics(job.signature, known->second, kernel.heuristics,
                                        info->second, kernel.function, file);
    if (!assignments) {
      failAt(assignments.takeError(), kernel);
      continue;
    }
    for (HeuristicAssignment &a : *assignments) {
      Job copy = job;
      copy.signature = std::move(a.signature);
      copy.heuristics = std::move(a.record);
      expanded.push_back(std::move(copy));
    }
  }
  jobs_ = std::move(expanded);
  return outcome_.errors.empty();
}

/// Serves every job it can from the cache; the rest become misses.
bool CompileRun::lookupCache() {
  const nlohmann::json environment = tritonEnvironment();
  for (Job &job : jobs_) {
    nlohmann::json key = {{"format", 1},
                          {"tool", TRITON_AOT_VERSION},
                          {"python", python_},
                          {"environment", environment},
                          {"source", job.kernel->sourcePath.string()},
                          {"source_kind", job.kernel->sourceKind},
                          {"function", job.kernel->function},
                          {"signature", formatSignature(job.signature)},
                          {"config", formatConfig(job.config)},
                          {"target", job.target.spelling()}};
    job.cacheKey = sha256Hex(key.dump());
    if (!job.refusal.empty())
      continue;   // nothing to compile
    auto entry = cache_.enabled() ? cache_.lookup(job.cacheKey) : std::nullopt;
    if (entry && member(entry->result, "refused")) {   // the target refused it last time
      job.refusal = stringOr(entry->result, "refused");
      job.result = std::move(entry->result);
      job.fromCache = true;
      say("cache hit (refused for " + job.target.spelling() + "): " + job.id);
      continue;
    }
    if (entry && !checkCompileAnswer(entry->result)) {
      say("cache entry for " + job.id + " is damaged; compiling again");
      entry.reset();
    }
    if (entry) {
      job.result = std::move(entry->result);
      job.files = std::move(entry->files);
      job.fromCache = true;
      say("cache hit: " + job.id);
    } else {
      misses_.push_back(&job);
    }
  }
  return true;
}

/// Compiles the misses through frontend workers: check every variant's signature against its
/// kernel's description, then compile all variants in parallel.
bool CompileRun::compileMisses() {
  if (misses_.empty())
    return true;
  auto started = std::chrono::steady_clock::now();
  const int workers = static_cast<int>(std::min<std::size_t>(misses_.size(), std::max(1, opts_.jobs)));
  if (Status s = startPool(workers); !s) {
    fail(s.takeError());
    return false;
  }
  const ScratchDirectory &scratch = scratch_;
  Status ran = ok();
  // IR sources are described with their compile (one request each).
  std::vector<nlohmann::json> describeRequests;
  std::map<DescribeKey, std::size_t> describeOf;   // -> request index
  for (Job *job : misses_) {
    if (described_.count(describeKey(*job)) || describeOf.count(describeKey(*job)))
      continue;
    describeOf[describeKey(*job)] = describeRequests.size();
    describeRequests.push_back({{"op", "describe"},
                                {"source", job->kernel->sourcePath.string()},
                                {"source_kind", job->kernel->sourceKind},
                                {"function", job->kernel->function},
                                {"target", requestTarget(job->target)}});
  }
  std::vector<nlohmann::json> answers(describeRequests.size());
  ran = pool_->run(describeRequests, [&](std::size_t i, nlohmann::json answer) {
    answers[i] = std::move(answer);
  });
  if (!ran) {
    fail(ran.takeError());
    return false;
  }
  for (const auto &[k, i] : describeOf)
    described_[k] = std::move(answers[i]);

  std::vector<nlohmann::json> compileRequests;
  std::vector<Job *> compiling;
  for (Job *job : misses_) {
    const nlohmann::json &info = described_[describeKey(*job)];
    const std::string file = job->kernel->sourcePath.string();
    if (!boolOr(info, "ok", false)) {
      fail(diagnosticFromResponse(info, file));
      continue;
    }
    if (Status s = checkDescribeAnswer(info); !s) {
      fail(s.takeError());
      continue;
    }
    // Grid names are checked now, before anything compiles.
    std::vector<std::string> names;
    for (const auto &param : arrayOf(info, "params"))
      names.push_back(stringOr(param, "name"));
    if (Status s = job->kernel->grid ? checkGridNames(*job->kernel->grid, names) : ok(); !s) {
      failAt(s.takeError(), *job->kernel);
      continue;
    }
    nlohmann::json params = nlohmann::json::array();
    if (job->kernel->sourceKind == "python") {
      auto complete = completeSignature(job->signature, info, job->kernel->function, file);
      if (!complete) {
        fail(complete.takeError());
        continue;
      }
      params = requestParams(*complete, info);
    }
    const bool cuda = job->target.backend == Backend::Cuda;
    nlohmann::json outputs = {
        {"image", (scratch.path / job->paths.image.filename()).string()},
        {"ptx", cuda ? nlohmann::json((scratch.path / job->paths.ptx.filename()).string())
                     : nlohmann::json()},
        {"ir_dir", opts_.irDir.empty() ? nlohmann::json() : nlohmann::json((scratch.path / "ir").string())}};
    compileRequests.push_back({{"op", "compile"},
                               {"source", file},
                               {"source_kind", job->kernel->sourceKind},
                               {"function", job->kernel->function},
                               {"params", params},
                               {"target", requestTarget(job->target)},
                               {"options", requestOptions(job->config)},
                               {"outputs", outputs}});
    job->result = nlohmann::json{{"describe", info}};
    compiling.push_back(job);
  }

  ran = pool_->run(compileRequests, [&](std::size_t i, nlohmann::json answer) {
    finishCompile(*compiling[i], std::move(answer));
  });
  if (!ran) {
    fail(ran.takeError());
    return false;
  }
  say("frontend: " + std::to_string(misses_.size()) + " variant(s) in " +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - started)
                         .count()) +
      " ms");
  return outcome_.errors.empty();
}

/// Takes one compile answer: keeps the result and reads the files the worker wrote.
void CompileRun::finishCompile(Job &job, nlohmann::json answer) {
  say("compiled: " + job.id);
  if (!boolOr(answer, "ok", false) && stringOr(objectOf(answer, "error"), "kind") == "target") {
    job.refusal = stringOr(objectOf(answer, "error"), "message", "Triton refused it");
    job.result = nlohmann::json{{"refused", job.refusal},
                                {"describe", std::move(job.result["describe"])},
                                {"deps", nlohmann::json::array()}};
    return;
  }
  if (!boolOr(answer, "ok", false)) {
    fail(diagnosticFromResponse(answer, job.kernel->sourcePath.string()));
    return;
  }
  answer["describe"] = std::move(job.result["describe"]);
  if (Status s = checkCompileAnswer(answer); !s) {
    fail(s.takeError());
    return;
  }
  job.result = std::move(answer);
  const nlohmann::json &written = objectOf(job.result, "written");
  for (const char *role : {"image", "ptx"}) {
    std::string path = stringOr(written, role);
    if (path.empty())
      continue;
    auto bytes = readFile(path);
    if (!bytes) {
      fail(makeError(ExitCode::InternalError, "the frontend reported " + std::string(role) +
                                                  " '" + path + "' but did not write it"));
      return;
    }
    job.files[role] = std::move(*bytes);
  }
  for (const auto &[stage, path] : objectOf(written, "ir").items())
    if (path.is_string())
      if (auto bytes = readFile(path.get<std::string>()))
        job.files["ir:" + fs::path(path.get<std::string>()).filename().string()] =
            std::move(*bytes);
}

/// Checks every image, builds every metadata file, and stages all outputs, the depfile and
/// the index in the transaction.
bool CompileRun::stageOutputs() {
  std::vector<std::string> depends;
  std::set<std::string> seen;
  auto addDepend = [&](const std::string &path) {
    if (seen.insert(path).second)
      depends.push_back(path);
  };
  for (const KernelSpec &kernel : kernels_)
    if (kernel.origin != "command line")
      addDepend(fs::absolute(kernel.origin).lexically_normal().string());

  for (Job &job : jobs_) {
    if (!job.refusal.empty()) {
      stageRefusal(job);
      addDepend(job.kernel->sourcePath.string());
      continue;
    }
    // Parameters left to their defaults, from the describe answer (kept in cache entries too).
    Signature signature = job.signature;
    if (job.kernel->sourceKind == "python") {
      auto complete = completeSignature(job.signature, objectOf(job.result, "describe"),
                                        job.kernel->function, job.kernel->sourcePath.string());
      if (!complete) {
        fail(complete.takeError());
        continue;
      }
      signature = std::move(*complete);
    }
    auto meta = buildMetadata(*job.kernel, job.name, job.target, signature, job.config,
                              job.id, job.paths, job.result, job.files, opts_.writePtx);
    if (!meta) {
      failAt(meta.takeError(), *job.kernel);
      continue;
    }
    for (const auto &h : job.heuristics)
      meta->variant.heuristics.push_back({stringOr(h, "name"), stringOr(h, "expression"),
                                          stringOr(h, "written"), boolOr(h, "runtime", false),
                                          h.contains("value") ? h["value"] : nlohmann::json()});
    // A config whose shared memory exceeds the target's limit is left out for it.
    if (std::string why = refusalOfCompiled(job.target, meta->launch.shared +
                                                            meta->resources.staticShared.value_or(0));
        !why.empty()) {
      job.refusal = why;
      stageRefusal(job);
      continue;
    }
    // What we write must be what the linker accepts: read it back with the strict reader.
    if (auto readBack = parseMetadata(toJson(*meta)); !readBack) {
      fail(makeError(ExitCode::InternalError, "metadata of " + job.id +
                                                  " fails its own schema: " +
                                                  readBack.error().message));
      continue;
    }
    for (const auto &[role, bytes] : job.files) {
      fs::path destination;
      if (role == "image")
        destination = job.paths.image;
      else if (role == "ptx" && opts_.writePtx)
        destination = job.paths.ptx;
      else if (role.rfind("ir:", 0) == 0 && !opts_.irDir.empty())
        destination = opts_.irDir / role.substr(3);
      if (destination.empty())
        continue;
      if (Status s = transaction_.stage(destination, std::string_view(bytes)); !s)
        fail(s.takeError());
    }
    if (Status s = transaction_.stage(job.paths.metadata, toJson(*meta).dump(2) + "\n"); !s)
      fail(s.takeError());
    addDepend(job.kernel->sourcePath.string());
    for (const auto &dep : arrayOf(job.result, "deps"))
      if (dep.is_string())
        addDepend(dep.get<std::string>());
    outcome_.variants.push_back({std::move(*meta), job.paths.metadata, job.fromCache});
  }
  if (!outcome_.errors.empty())
    return false;

  if (!opts_.index.empty()) {
    nlohmann::json list = nlohmann::json::array();
    std::vector<fs::path> listed;
    for (const CompiledVariant &v : outcome_.variants)
      listed.push_back(v.metadataPath);
    listed.insert(listed.end(), refusals_.begin(), refusals_.end());
    for (const fs::path &path : listed) {
      std::error_code ec;
      fs::path relative = fs::proximate(path, opts_.index.parent_path(), ec);
      list.push_back(ec ? path.string() : relative.string());
    }
    nlohmann::json index = {{"schema", "triton-aot-index"}, {"schema_version", 1}, {"metadata", list}};
    if (Status s = transaction_.stage(opts_.index, index.dump(2) + "\n"); !s)
      fail(s.takeError());
  }
  if (!opts_.depfile.empty()) {
    // With an index, it is the one output the build system knows by name; the others have
    // digests in their names.
    // Targets are spelled as the command line spelled them (GCC's -MT rule): Make and Ninja
    // match them against their own outputs textually.
    std::vector<std::string> targets;
    if (!opts_.index.empty()) {
      targets.push_back(opts_.indexAsGiven.empty() ? opts_.index.string() : opts_.indexAsGiven);
    } else {
      std::error_code ec;
      const fs::path cwd = fs::current_path(ec);
      for (const fs::path &p : transaction_.destinations()) {
        fs::path relative = opts_.relativeOutputs && !ec ? fs::relative(p, cwd, ec) : fs::path();
        targets.push_back(relative.empty() ? p.string() : relative.string());
      }
    }
    for (const std::string &path : targets)
      if (!depfileCanRepresent(path))
        fail(makeError(ExitCode::OutputError,
                       "'" + path + "' cannot be written into a depfile (Make and Ninja would "
                       "misread it); choose an output path without such characters"));
    for (const std::string &path : depends)
      if (!depfileCanRepresent(path))
        fail(makeError(ExitCode::OutputError,
                       "'" + path + "' cannot be written into a depfile (Make and Ninja would "
                       "misread it); rename it or drop --depfile"));
    if (!outcome_.errors.empty())
      return false;
    if (Status s = transaction_.stage(opts_.depfile, formatDepfile(targets, depends)); !s)
      fail(s.takeError());
  }
  return outcome_.errors.empty();
}

/// A config the target cannot build or run: one warning line, and a refusal record where its
/// metadata would be (the build's outputs stay complete; the linker makes the library refuse
/// the config on such a device).
void CompileRun::stageRefusal(const Job &job) {
  const std::string config = job.config.name.empty() ? formatConfig(job.config) : job.config.name;
  if (log_)
    log_("warning: config " + config + " of " + job.name + " is not built for " +
         job.target.spelling() + ": " + job.refusal);
  nlohmann::json options = requestOptions(job.config);
  options.erase("num_warps");
  options.erase("num_stages");
  nlohmann::json record = {
      {"schema", kRefusalSchema},
      {"schema_version", 1},
      {"generator", std::string("triton-aot-cc ") + TRITON_AOT_VERSION},
      {"kernel",
       {{"name", job.name},
        {"function", job.kernel->function},
        {"source", job.kernel->source},
        {"source_kind", job.kernel->sourceKind}}},
      {"target", {{"spelling", job.target.spelling()}}},
      {"variant",
       {{"id", job.id},
        {"config", job.config.name},
        {"signature", formatSignature(job.signature)},
        {"num_warps", job.config.numWarps.value_or(0)},
        {"num_stages", job.config.numStages.value_or(0)},
        {"options", options}}},
      {"reason", job.refusal}};
  if (Status s = transaction_.stage(job.paths.metadata, record.dump(2) + "\n"); !s) {
    fail(s.takeError());
    return;
  }
  refusals_.push_back(job.paths.metadata);
}

/// With --no-ptx, a .ptx an earlier run wrote beside a cubin would be stale: remove it.
void CompileRun::removeUnwantedPtx() {
  if (opts_.writePtx)
    return;
  std::error_code ec;
  for (const Job &job : jobs_)
    if (!job.paths.ptx.empty())
      fs::remove(job.paths.ptx, ec);
}

/// Remembers this run's compiles. A source that changed while it compiled is not trusted
/// (ccache's rule), and a failure here only costs a later recompile.
/// The Triton installation's files (stat identity) as cache dependencies; none when one cannot
/// be read.
std::optional<std::vector<CacheDependency>> toolchainDependencies(const nlohmann::json &hello) {
  std::vector<CacheDependency> toolchain;
  for (const auto &file : arrayOf(hello, "toolchain_files")) {
    auto dep = file.is_string() ? CompileCache::describe(file.get<std::string>(), false)
                                : std::nullopt;
    if (!dep)
      return std::nullopt;
    toolchain.push_back(*dep);
  }
  return toolchain;
}

void CompileRun::storeInCache(std::int64_t started) {
  if (!cache_.enabled())
    return;
  // The toolchain is the same for every entry: describe it once.
  auto toolchainFiles = toolchainDependencies(hello_);
  const bool toolchainKnown = toolchainFiles.has_value();
  const std::vector<CacheDependency> toolchain = toolchainFiles.value_or(std::vector<CacheDependency>{});
  if (!toolchainKnown) {
    say("not caching: a file of the Triton installation cannot be read");
    return;
  }
  std::map<std::string, std::optional<CacheDependency>> sourceDeps;   // none: changed or unreadable
  auto describeSource = [&](const std::string &path) {
    auto known = sourceDeps.find(path);
    if (known == sourceDeps.end())
      known = sourceDeps
                  .emplace(path, mtimeNs(path) < started ? CompileCache::describe(path, true)
                                                         : std::nullopt)
                  .first;
    return known->second;
  };
  // Describe answers: a later run expands heuristics without starting Python.
  for (const auto &[k, key] : describeKeys_) {
    const nlohmann::json &answer = described_[k];
    if (!boolOr(answer, "ok", false))
      continue;
    CacheEntry entry;
    entry.result = answer;
    std::vector<std::string> sources = {kernels_[k.first].sourcePath.string()};
    for (const auto &dep : arrayOf(answer, "deps"))
      if (dep.is_string())
        sources.push_back(dep.get<std::string>());
    bool trusted = true;
    for (const std::string &path : sources) {
      auto dep = describeSource(path);
      trusted = trusted && dep;
      if (dep)
        entry.dependencies.push_back(*dep);
    }
    entry.dependencies.insert(entry.dependencies.end(), toolchain.begin(), toolchain.end());
    if (trusted)
      if (Status s = cache_.store(key, entry); !s && log_)
        log_("warning: " + s.error().message + " (the outputs are written; only caching failed)");
  }
  for (Job *job : misses_) {
    CacheEntry entry;
    entry.result = job->result;
    for (const char *role : {"image", "ptx"})
      if (auto it = job->files.find(role); it != job->files.end())
        entry.files[role] = it->second;
    std::vector<std::string> sources = {job->kernel->sourcePath.string()};
    for (const auto &dep : arrayOf(job->result, "deps"))
      if (dep.is_string())
        sources.push_back(dep.get<std::string>());
    bool trusted = true;
    for (const std::string &path : sources) {
      // Variants share their sources: hash each file once per run.
      auto known = sourceDeps.find(path);
      if (known == sourceDeps.end())
        known = sourceDeps
                    .emplace(path, mtimeNs(path) < started ? CompileCache::describe(path, true)
                                                           : std::nullopt)
                    .first;
      trusted = trusted && known->second;
      if (known->second)
        entry.dependencies.push_back(*known->second);
    }
    entry.dependencies.insert(entry.dependencies.end(), toolchain.begin(), toolchain.end());
    // Installed packages the kernel's code comes from, by their dist-info (renamed on upgrade).
    for (const auto &file : arrayOf(job->result, "package_files")) {
      auto dep = file.is_string() ? CompileCache::describe(file.get<std::string>(), false)
                                  : std::nullopt;
      trusted = trusted && dep;
      if (dep)
        entry.dependencies.push_back(*dep);
    }
    if (!trusted) {
      say("not cached (a source changed during the run or cannot be read): " + job->id);
      continue;
    }
    if (Status s = cache_.store(job->cacheKey, entry); !s && log_)
      log_("warning: " + s.error().message + " (the outputs are written; only caching failed)");
  }
}

} // namespace

CompileOutcome compile(const CompileRequest &request, const LogSink &log) {
  return CompileRun(request, log).run();
}

} // namespace tta
