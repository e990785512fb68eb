#include "compiler/compiler.h"

#include "compiler/cache.h"
#include "compiler/depfile.h"
#include "compiler/frontend_client.h"
#include "compiler/json_access.h"
#include "compiler/lexing.h"
#include "compiler/naming.h"
#include "compiler/output_transaction.h"
#include "compiler/variant_metadata.h"
#include "compiler/worker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

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
  std::string id;
  OutputPaths paths;
  std::string cacheKey;
  nlohmann::json result;      ///< the worker's compile answer plus "describe"
  std::map<std::string, std::string> files;   ///< role ("image", "ptx", "ir:<file>") -> bytes
  bool fromCache = false;
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
      : request_(request), opts_(request.options), log_(log) {}

  CompileOutcome run() {
    // Sources modified after this instant are not cached (file times use the same clock).
    const std::int64_t started = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
    try {
      if (!expand() || !lookupCache() || !compileMisses() || !stageOutputs())
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

  bool expand();
  bool lookupCache();
  bool compileMisses();
  bool stageOutputs();
  void storeInCache(std::int64_t started);

  void finishCompile(Job &job, nlohmann::json answer);
  void removeUnwantedPtx();

  const CompileRequest &request_;
  const CompileOptions &opts_;
  const LogSink &log_;
  CompileOutcome outcome_;
  std::vector<Job> jobs_;
  std::vector<Job *> misses_;
  std::string python_;
  CompileCache cache_{fs::path()};
  nlohmann::json hello_;
  OutputTransaction transaction_;
};

/// Kernels x targets x signatures x configs, each with its resolved signature and output names.
bool CompileRun::expand() {
  std::map<std::string, const Job *> seen;   // metadata path -> the job that writes it
  for (std::size_t k = 0; k < request_.kernels.size(); ++k) {
    const KernelSpec &kernel = request_.kernels[k];
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
    fs::path stem = opts_.outputStem.empty() ? opts_.outputDir / name : opts_.outputStem;
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
          // Before the defaults: an option names a constexpr only where the config sets it.
          auto resolved = resolveSignature(signature, config);
          if (!resolved) {
            failAt(resolved.takeError(), kernel);
            continue;
          }
          job.signature = *resolved;
          std::string digest = variantDigest(kernel.function.empty() ? name : kernel.function,
                                             kernel.sourceKind, job.signature, job.config);
          job.id = variantId(name, job.target, digest);
          job.paths = outputPaths(stem, job.target, digest);
          jobs_.push_back(std::move(job));
        }
      }
    }
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

/// Serves every job it can from the cache; the rest become misses.
bool CompileRun::lookupCache() {
  auto python = resolveProgram(opts_.python);
  if (!python) {
    fail(python.takeError());
    return false;
  }
  python_ = *python;
  // IR dumps are not cached: a run that asks for them compiles.
  cache_ = CompileCache(opts_.irDir.empty() ? opts_.cacheDir : fs::path());
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
    auto entry = cache_.enabled() ? cache_.lookup(job.cacheKey) : std::nullopt;
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

/// Compiles the misses through frontend workers: describe each kernel once, check every
/// variant's signature against it, then compile all variants in parallel.
bool CompileRun::compileMisses() {
  if (misses_.empty())
    return true;
  auto started = std::chrono::steady_clock::now();
  ScratchDirectory scratch{opts_.outputDir / (".triton-aot-tmp." + std::to_string(::getpid()))};
  std::error_code ec;
  fs::create_directories(scratch.path / "ir", ec);
  if (ec) {
    fail(makeError(ExitCode::OutputError,
                   "cannot create '" + scratch.path.string() + "': " + ec.message()));
    scratch.path.clear();
    return false;
  }

  WorkerSettings settings;
  settings.python = python_;
  settings.script = opts_.workerScript.string();
  settings.interruptFd = opts_.interruptFd;
  // Triton's own cache goes inside ours, never into the user's ~/.triton (upstream does). A
  // cache that cannot be written only costs speed: compile without it.
  fs::path tritonCache = scratch.path / "triton";
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
  if (!fs::is_regular_file(settings.script, ec)) {
    fail(makeError(ExitCode::EnvironmentError,
                   "the frontend worker is missing: '" + settings.script +
                       "' does not exist (set TRITON_AOT_FRONTEND_DIR, or reinstall triton-aot)"));
    return false;
  }
  const int workers = static_cast<int>(std::min<std::size_t>(misses_.size(), opts_.jobs));
  WorkerPool pool(settings, workers);
  auto greeting = pool.start(workers);
  if (!greeting) {
    fail(greeting.takeError());
    return false;
  }
  hello_ = *greeting;
  if (Status s = checkHello(hello_, python_); !s) {
    fail(s.takeError());
    return false;
  }
  say("frontend: Triton " + stringOr(hello_, "triton_version") + " with " + python_ + ", " +
      std::to_string(workers) + " worker(s)");

  std::vector<nlohmann::json> describeRequests;
  std::map<std::size_t, std::size_t> describeOf;   // kernel index -> request index
  for (Job *job : misses_) {
    if (describeOf.count(job->kernelIndex))
      continue;
    describeOf[job->kernelIndex] = describeRequests.size();
    describeRequests.push_back({{"op", "describe"},
                                {"source", job->kernel->sourcePath.string()},
                                {"source_kind", job->kernel->sourceKind},
                                {"function", job->kernel->function}});
  }
  std::vector<nlohmann::json> described(describeRequests.size());
  Status ran = pool.run(describeRequests, [&](std::size_t i, nlohmann::json answer) {
    described[i] = std::move(answer);
  });
  if (!ran) {
    fail(ran.takeError());
    return false;
  }

  std::vector<nlohmann::json> compileRequests;
  std::vector<Job *> compiling;
  for (Job *job : misses_) {
    const nlohmann::json &info = described[describeOf[job->kernelIndex]];
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

  ran = pool.run(compileRequests, [&](std::size_t i, nlohmann::json answer) {
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
  for (const KernelSpec &kernel : request_.kernels)
    if (kernel.origin != "command line")
      addDepend(fs::absolute(kernel.origin).lexically_normal().string());

  for (Job &job : jobs_) {
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
    for (const CompiledVariant &v : outcome_.variants) {
      std::error_code ec;
      fs::path relative = fs::proximate(v.metadataPath, opts_.index.parent_path(), ec);
      list.push_back(ec ? v.metadataPath.string() : relative.string());
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
void CompileRun::storeInCache(std::int64_t started) {
  if (!cache_.enabled())
    return;
  // The toolchain is the same for every entry: describe it once.
  std::vector<CacheDependency> toolchain;
  bool toolchainKnown = true;
  for (const auto &file : arrayOf(hello_, "toolchain_files")) {
    auto dep = file.is_string() ? CompileCache::describe(file.get<std::string>(), false)
                                : std::nullopt;
    toolchainKnown = toolchainKnown && dep;
    if (dep)
      toolchain.push_back(*dep);
  }
  if (!toolchainKnown) {
    say("not caching: a file of the Triton installation cannot be read");
    return;
  }
  std::map<std::string, std::optional<CacheDependency>> sourceDeps;   // none: changed or unreadable
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
