// compile(): one CompileRun, its phases in order (compile_run.h says which file has which),
// and what they share: failure and clean-up, the interpreter, the cache, the worker pool.
#include "compiler/compiler.h"

#include "compiler/compile_run.h"
#include "compiler/frontend_client.h"
#include "compiler/installation.h"
#include "contract/json_access.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace fs = std::filesystem;

namespace tta {

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  if (!path.empty())
    fs::remove_all(path, ignored);
}

CompileOutcome CompileRun::run() {
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
    if (!expand() || !nameJobs() || !describeKernels() || !specialize() || !applyHeuristics() || !nameJobs() ||
        !lookupCache() || !compileMisses())
      return failed();
    if (pool_)
      pool_->release();   // the workers end while the outputs are staged and committed
    if (!stageOutputs())
      return failed();
    if (Status s = transaction_.commit(); !s) {
      fail(s.takeError());
      return failed();
    }
    removeUnwantedPtx();
    storeInCache();
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

void CompileRun::say(const std::string &line) const {
  if (opts_.verbose && log_)
    log_(line);
}

void CompileRun::fail(Diagnostic diag) {
  // A source outside the working directory (a CMake build runs in the build tree) is named
  // from the source root, as the outputs name it, rather than by its absolute path.
  if (opts_.sourceRoot.has_relative_path()) {
    const std::string root = opts_.sourceRoot.string() + "/";
    auto fromRoot = [&](std::string &text) {
      for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at))
        if (at == 0 || std::string_view(" '\"(").find(text[at - 1]) != std::string_view::npos)
          text.erase(at, root.size());
        else
          at += root.size();
    };
    if (diag.file.rfind(root, 0) == 0)
      diag.file.erase(0, root.size());
    if (diag.code == ExitCode::KernelError || diag.code == ExitCode::UsageError) {
      fromRoot(diag.message);  // "kernels/add.py has no @triton.jit function named ..."
      for (std::string &note : diag.notes)
        fromRoot(note);
    }
  }
  for (const Diagnostic &seen : outcome_.errors)
    if (seen.file == diag.file && seen.line == diag.line && seen.column == diag.column &&
        seen.message == diag.message)
      return;
  if (outcome_.code == ExitCode::Success || diag.code == ExitCode::Interrupted)
    outcome_.code = diag.code;
  outcome_.errors.push_back(std::move(diag));
}

void CompileRun::failAt(Diagnostic diag, const KernelSpec &kernel) {
  if (diag.file.empty() && kernel.origin != "command line")
    diag.file = kernel.origin;
  fail(std::move(diag));
}

void CompileRun::warnDamagedEntry(const std::string &what, const Diagnostic &why) {
  if (log_)
    log_("warning: cache entry for " + what + " is not valid (" + why.message +
         "); compiling it again");
}

Diagnostic CompileRun::unusableAnswer(Diagnostic why, const char *answer,
                                      const KernelSpec &kernel) {
  why.message = std::string("the frontend's ") + answer + " answer for '" + kernel.function +
                "' cannot be used: " + why.message;
  if (why.file.empty())
    why.file = kernel.sourcePath.string();
  return why;
}

CompileOutcome CompileRun::failed() {
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

void CompileRun::openCache() {
  if (cacheOpened_)
    return;
  cacheOpened_ = true;
  // IR dumps are not cached: a run that asks for them compiles.
  cache_ = CompileCache(opts_.irDir.empty() ? opts_.cacheDir : fs::path());
  if (!openRemote())
    cache_ = CompileCache(fs::path());   // reported; the run fails, cached or not
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

SourceNames CompileRun::sourceNames() const {
  std::vector<fs::path> siteDirs;
  for (const auto &dir : arrayOf(hello_, "site_dirs"))
    if (dir.is_string())
      siteDirs.emplace_back(dir.get<std::string>());
  return SourceNames(opts_.sourceRoot, opts_.filePrefixMap, siteDirs);
}

namespace {

/// What every run's workers and a preparation's share: the interpreter, the scripts, the pool
/// and its project (one spelling, so a prepared pool is the one the build's runs lease from).
WorkerSettings workerSettings(const CompileOptions &opts, const std::string &python,
                              const std::vector<Target> &targets) {
  WorkerSettings settings;
  settings.python = python;
  settings.script = opts.workerScript.string();
  settings.interruptFd = opts.interruptFd;
  settings.usePool = opts.workerPool;
  settings.useZygote = true;
  settings.poolIdleSeconds = opts.workerIdleSeconds;
  settings.project = opts.workerProject;
  settings.requestTimeoutSeconds = opts.compileTimeoutSeconds;
  for (const Target &target : targets)
    if (std::find(settings.targets.begin(), settings.targets.end(), requestTarget(target)) ==
        settings.targets.end())
      settings.targets.push_back(requestTarget(target));
  return settings;
}

/// Triton's cache directory for a run's workers: inside ours (never the user's ~/.triton,
/// where upstream puts it).
fs::path tritonCacheIn(const fs::path &cacheDir) { return cacheDir / "triton"; }

} // namespace

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
  std::vector<Target> targets;
  for (const KernelSpec &kernel : kernels_)
    targets.insert(targets.end(), kernel.targets.begin(), kernel.targets.end());
  WorkerSettings settings = workerSettings(opts_, python_, targets);
  // A cache that cannot be written only costs speed: compile without it.
  fs::path tritonCache = scratch_.path / "triton";
  if (cache_.enabled()) {
    fs::create_directories(tritonCacheIn(opts_.cacheDir), ec);
    if (!ec && ::access(tritonCacheIn(opts_.cacheDir).c_str(), W_OK) == 0) {
      tritonCache = tritonCacheIn(opts_.cacheDir);
    } else {
      if (log_)
        log_("warning: cannot write the cache '" + opts_.cacheDir.string() +
             "'; compiling without it");
      cache_ = CompileCache(fs::path());
    }
  }
  settings.environment["TRITON_CACHE_DIR"] = tritonCache.string();
  // Where a worker moves Triton's cache when ours turns out full or unwritable mid-run
  // (compile answers then say "cache_unwritable"): the run's own scratch directory.
  settings.environment["TRITON_AOT_TRITON_CACHE_FALLBACK"] = (scratch_.path / "triton").string();
  // The installation as recorded: its workers take Triton's key from it instead of each
  // hashing libtriton.so (a cold build's sixteen workers hashed 16 x 0.3 s side by side).
  if (keysReady_ && !installation_.tritonKey.empty())
    settings.environment["TRITON_AOT_TRITON_KEY"] = installation_.tritonKey;
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

Expected<Preparation> prepareWorkers(const CompileOptions &opts,
                                     const std::vector<Target> &targets, const LogSink &log) {
  auto say = [&](const std::string &line) {
    if (opts.verbose && log)
      log(line);
  };
  auto python = resolveProgram(opts.python);
  std::optional<Installation> installation;
  if (python && !opts.cacheDir.empty())
    installation = recallInstallation(opts.cacheDir, *python);
  Preparation preparation{opts.cacheDir.empty() || !python || installation.has_value()};
  if (!opts.workerPool) {
    say("frontend: the worker pool is off (--no-worker-pool, TRITON_AOT_WORKER_POOL=0): "
        "no workers to prepare");
    return preparation;
  }
  if (!python)
    return python.takeError();
  WorkerSettings settings = workerSettings(opts, *python, targets);
  // The runs set it (so the user's own is no part of their pool's key): set here too.
  settings.environment["TRITON_CACHE_DIR"] = tritonCacheIn(opts.cacheDir).string();
  // Triton's key as the runs pass it, where the installation is recorded: else the zygote
  // hashes Triton's files (0.3 s) before it forks a worker, a build's too.
  if (installation && !installation->tritonKey.empty())
    settings.environment["TRITON_AOT_TRITON_KEY"] = installation->tritonKey;
  const int count = std::max(1, opts.jobs);
  if (Status prepared = WorkerPool(settings, count).prepare(count); !prepared)
    return prepared.takeError();
  say("frontend: the worker pool for " + opts.workerProject + " prepares " +
      std::to_string(count) + " worker(s) with " + *python);
  return preparation;
}

Status learnInstallationAhead(const CompileOptions &opts, const LogSink &log) {
  CompileRequest request;
  request.options = opts;
  // Its own worker: a lease would cut the prepared pool's warm-up short.
  request.options.workerPool = false;
  return CompileRun(request, log).learnInstallationAhead();
}

CompileOutcome compile(const CompileRequest &request, const LogSink &log) {
  const auto started = std::chrono::steady_clock::now();
  CompileOutcome outcome = CompileRun(request, log).run();
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  outcome.workers = std::max(1, request.options.jobs);
  return outcome;
}

} // namespace tta
