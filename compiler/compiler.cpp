#include "compiler/compiler.h"

#include "compiler/cache.h"
#include "compiler/depfile.h"
#include "compiler/frontend_client.h"
#include "compiler/image_info.h"
#include "compiler/lexing.h"
#include "compiler/naming.h"
#include "compiler/output_transaction.h"
#include "compiler/variant_metadata.h"
#include "compiler/worker.h"

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
  Target target;
  Signature signature;        ///< resolved (no Name entries); empty for IR sources
  Config config;              ///< with the backend's defaults filled in
  std::string digest;
  std::string id;
  OutputPaths paths;
  std::string cacheKey;
  nlohmann::json result;      ///< the worker's compile answer plus "describe"
  std::map<std::string, std::string> files;   ///< role ("image", "ptx", IR names) -> bytes
  bool fromCache = false;
  bool failed = false;
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

/// Environment variables that change what Triton generates (and so belong in cache keys).
nlohmann::json tritonEnvironment() {
  nlohmann::json env = nlohmann::json::object();
  static const std::set<std::string> irrelevant = {"TRITON_CACHE_DIR", "TRITON_HOME",
                                                   "TRITON_AOT_CACHE_DIR", "TRITON_AOT_LOG",
                                                   "TRITON_AOT_PYTHON"};
  for (char **e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (entry.rfind("TRITON_", 0) != 0 && entry.rfind("LLVM_", 0) != 0)
      continue;
    std::string key(entry.substr(0, entry.find('=')));
    if (!irrelevant.count(key))
      env[key] = std::string(entry.substr(key.size() + 1));
  }
  return env;
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

/// Triton (3.5 through 3.8) compiles CUDA capability 90 and later only arch-specifically
/// (sm_arch_from_capability appends "a"), so "cuda:90" is "cuda:90a" in fact.
Expected<Target> effectiveTarget(Target target) {
  if (target.backend != Backend::Cuda)
    return target;
  if (target.archSuffix == 'f')
    return makeError(ExitCode::UsageError,
                     "target " + target.spelling() + ": Triton cannot build family-portable ('f') "
                     "cubins; use cuda:" + std::to_string(target.capability) + "a");
  if (target.capability >= 90 && target.archSuffix == 0) {
    target.archSuffix = 'a';
    target.arch += 'a';
  }
  return target;
}

Diagnostic located(Diagnostic diag, const KernelSpec &kernel) {
  if (diag.file.empty() && kernel.origin != "command line")
    diag.file = kernel.origin;
  return diag;
}

} // namespace

CompileOutcome compile(const CompileRequest &request, const LogSink &log) {
  const CompileOptions &opts = request.options;
  CompileOutcome outcome;
  auto say = [&](const std::string &line) {
    if (opts.verbose && log)
      log(line);
  };
  auto fail = [&](Diagnostic diag) {
    // Variants of one kernel often fail for one reason: report it once.
    for (const Diagnostic &seen : outcome.errors)
      if (seen.file == diag.file && seen.line == diag.line && seen.column == diag.column &&
          seen.message == diag.message)
        return;
    if (outcome.code == ExitCode::Success || outcome.code == ExitCode::KernelError)
      outcome.code = diag.code;
    outcome.errors.push_back(std::move(diag));
  };

  // --- Expand kernels x targets x signatures x configs into jobs ------------------------------
  std::vector<Job> jobs;
  std::set<std::string> ids;
  for (std::size_t k = 0; k < request.kernels.size(); ++k) {
    const KernelSpec &kernel = request.kernels[k];
    std::string name = kernel.name;
    if (name.empty())
      name = kernel.sourceKind == "python" ? kernel.function : irFunctionName(kernel.sourcePath);
    if (name.empty())
      name = kernel.sourcePath.stem().string();
    fs::path stem = opts.outputStem.empty() ? opts.outputDir / name : opts.outputStem;
    std::vector<Signature> signatures = kernel.signatures;
    if (signatures.empty())
      signatures.emplace_back();   // IR sources: the signature is in the IR
    for (const Target &requested : kernel.targets) {
      auto target = effectiveTarget(requested);
      if (!target) {
        fail(located(target.takeError(), kernel));
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
          job.target = *target;
          job.config = withBackendDefaults(config, *target, kernel.sourceKind);
          auto resolved = resolveSignature(signature, job.config);
          if (!resolved) {
            fail(located(resolved.takeError(), kernel));
            continue;
          }
          job.signature = *resolved;
          job.digest = variantDigest(kernel.function.empty() ? name : kernel.function,
                                     kernel.sourceKind, job.signature, job.config);
          job.id = variantId(name, job.target, job.digest);
          job.paths = outputPaths(stem, job.target, job.digest);
          if (!ids.insert(job.paths.metadata.string()).second) {
            fail(located(makeError(ExitCode::UsageError,
                                   "variant " + job.id + " is declared twice (same signature, "
                                   "config and target for '" + name + "')"),
                         kernel));
            continue;
          }
          jobs.push_back(std::move(job));
        }
      }
    }
  }

  // Every file this run may write; removed again if the run fails, so nothing stale remains.
  OutputTransaction transaction;
  auto failRun = [&](CompileOutcome out) {
    transaction.rollback();
    std::error_code ec;
    for (const Job &job : jobs)
      for (const fs::path &p : {job.paths.image, job.paths.ptx, job.paths.metadata})
        if (!p.empty())
          fs::remove(p, ec);
    for (const fs::path &p : {opts.depfile, opts.index})
      if (!p.empty())
        fs::remove(p, ec);
    out.variants.clear();
    return out;
  };
  if (!outcome.errors.empty())
    return failRun(std::move(outcome));

  // --- The cache ---------------------------------------------------------------------------
  auto python = resolveProgram(opts.python);
  if (!python) {
    fail(python.takeError());
    return failRun(std::move(outcome));
  }
  CompileCache cache(opts.irDir.empty() ? opts.cacheDir : fs::path());
  const nlohmann::json environment = tritonEnvironment();
  std::vector<Job *> misses;
  for (Job &job : jobs) {
    nlohmann::json key = {{"format", 1},
                          {"tool", TRITON_AOT_VERSION},
                          {"python", *python},
                          {"environment", environment},
                          {"source", job.kernel->sourcePath.string()},
                          {"source_kind", job.kernel->sourceKind},
                          {"function", job.kernel->function},
                          {"signature", formatSignature(job.signature)},
                          {"config", formatConfig(job.config)},
                          {"target", job.target.spelling()}};
    job.cacheKey = sha256Hex(key.dump());
    if (auto entry = cache.enabled() ? cache.lookup(job.cacheKey) : std::nullopt) {
      job.result = std::move(entry->result);
      job.files = std::move(entry->files);
      job.fromCache = true;
      say("cache hit: " + job.id);
    } else {
      misses.push_back(&job);
    }
  }

  // --- Compile the misses through frontend workers ---------------------------------------------
  nlohmann::json hello;
  if (!misses.empty()) {
    auto started = std::chrono::steady_clock::now();
    fs::path scratch = opts.outputDir / (".triton-aot-tmp." + std::to_string(::getpid()));
    std::error_code ec;
    fs::create_directories(scratch / "ir", ec);
    if (ec) {
      fail(makeError(ExitCode::OutputError,
                     "cannot create '" + scratch.string() + "': " + ec.message()));
      return failRun(std::move(outcome));
    }
    struct ScratchGuard {
      fs::path path;
      ~ScratchGuard() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
      }
    } scratchGuard{scratch};

    WorkerSettings settings;
    settings.python = *python;
    settings.script = opts.workerScript.string();
    settings.interruptFd = opts.interruptFd;
    // Triton's own cache goes inside ours, never into the user's ~/.triton (upstream does).
    settings.environment["TRITON_CACHE_DIR"] =
        (cache.enabled() ? opts.cacheDir / "triton" : scratch / "triton").string();
    if (opts.verbose)
      settings.log = log;
    if (!fs::exists(settings.script)) {
      fail(makeError(ExitCode::EnvironmentError,
                     "the frontend worker is missing: '" + settings.script +
                         "' does not exist (set TRITON_AOT_FRONTEND_DIR, or reinstall triton-aot)"));
      return failRun(std::move(outcome));
    }
    WorkerPool pool(settings, opts.jobs);
    auto greeting = pool.start(static_cast<int>(std::min<std::size_t>(misses.size(), opts.jobs)));
    if (!greeting) {
      fail(greeting.takeError());
      return failRun(std::move(outcome));
    }
    hello = *greeting;
    if (Status s = checkHello(hello, *python); !s) {
      fail(s.takeError());
      return failRun(std::move(outcome));
    }
    say("frontend: Triton " + hello.value("triton_version", "") + " with " + *python + ", " +
        std::to_string(std::min<std::size_t>(misses.size(), opts.jobs)) + " worker(s)");

    // Describe each kernel once, then check every variant's signature against it.
    std::vector<std::size_t> describedKernel;
    std::vector<nlohmann::json> describeRequests;
    std::map<std::size_t, std::size_t> describeOf;   // kernel index -> request index
    for (Job *job : misses) {
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
      return failRun(std::move(outcome));
    }

    std::vector<nlohmann::json> compileRequests;
    std::vector<Job *> compiling;
    std::set<std::size_t> reported;   // kernels whose describe error was already reported
    for (Job *job : misses) {
      const nlohmann::json &info = described[describeOf[job->kernelIndex]];
      const std::string file = job->kernel->sourcePath.string();
      if (!info.value("ok", false)) {
        job->failed = true;
        if (reported.insert(job->kernelIndex).second)
          fail(diagnosticFromResponse(info, file));
        continue;
      }
      nlohmann::json params = nlohmann::json::array();
      if (job->kernel->sourceKind == "python") {
        const std::string function = job->kernel->function;
        if (Status s = checkSignatureAgainstParams(job->signature, info, function, file); !s) {
          job->failed = true;
          fail(s.takeError());
          continue;
        }
        params = requestParams(job->signature, info);
      }
      std::string stem = job->paths.image.stem().string();
      nlohmann::json outputs = {
          {"image", (scratch / job->paths.image.filename()).string()},
          {"ptx", job->target.backend == Backend::Cuda
                      ? nlohmann::json((scratch / (stem + ".ptx")).string())
                      : nlohmann::json()},
          {"ir_dir", opts.irDir.empty() ? nlohmann::json() : nlohmann::json((scratch / "ir").string())}};
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
      Job *job = compiling[i];
      say("compiled: " + job->id);
      if (!answer.value("ok", false)) {
        job->failed = true;
        fail(diagnosticFromResponse(answer, job->kernel->sourcePath.string()));
        return;
      }
      answer["describe"] = std::move(job->result["describe"]);
      job->result = std::move(answer);
      const nlohmann::json written = job->result.value("written", nlohmann::json::object());
      for (const char *role : {"image", "ptx"}) {
        if (!written.contains(role) || !written[role].is_string())
          continue;
        auto bytes = readFile(written[role].get<std::string>());
        if (!bytes) {
          job->failed = true;
          fail(makeError(ExitCode::InternalError,
                         "the frontend reported " + std::string(role) + " '" +
                             written[role].get<std::string>() + "' but did not write it"));
          return;
        }
        job->files[role] = std::move(*bytes);
      }
      const nlohmann::json irFiles = written.value("ir", nlohmann::json::object());
      for (const auto &[stage, path] : irFiles.items())
        if (path.is_string())
          if (auto bytes = readFile(path.get<std::string>()))
            job->files["ir:" + fs::path(path.get<std::string>()).filename().string()] =
                std::move(*bytes);
    });
    if (!ran) {
      fail(ran.takeError());
      return failRun(std::move(outcome));
    }
    say("frontend: " + std::to_string(misses.size()) + " variant(s) in " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count()) +
        " ms");
  }
  if (!outcome.errors.empty())
    return failRun(std::move(outcome));

  // --- Check images, build metadata, stage every output -----------------------------------------
  std::vector<std::string> depends;
  std::set<std::string> seen;
  auto addDepend = [&](const std::string &path) {
    if (seen.insert(path).second)
      depends.push_back(path);
  };
  for (const KernelSpec &kernel : request.kernels)
    if (kernel.origin != "command line")
      addDepend(fs::absolute(kernel.origin).lexically_normal().string());
  for (Job &job : jobs) {
    auto meta = buildMetadata(*job.kernel, job.target, job.signature, job.config, job.id, job.paths,
                              job.result, job.files, opts.writePtx);
    if (!meta) {
      fail(located(meta.takeError(), *job.kernel));
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
      else if (role == "ptx" && opts.writePtx)
        destination = job.paths.ptx;
      else if (role.rfind("ir:", 0) == 0 && !opts.irDir.empty())
        destination = opts.irDir / role.substr(3);
      if (destination.empty())
        continue;
      if (Status s = transaction.stage(destination, std::string_view(bytes)); !s)
        fail(s.takeError());
    }
    if (Status s = transaction.stage(job.paths.metadata, std::string_view(toJson(*meta).dump(2) + "\n")); !s)
      fail(s.takeError());
    if (job.result.contains("deps") && job.result["deps"].is_array())
      for (const auto &dep : job.result["deps"])
        if (dep.is_string())
          addDepend(dep.get<std::string>());
    addDepend(job.kernel->sourcePath.string());
    outcome.variants.push_back({std::move(*meta), job.paths.metadata, job.fromCache});
  }
  if (!outcome.errors.empty())
    return failRun(std::move(outcome));

  if (!opts.index.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const CompiledVariant &v : outcome.variants)
      list.push_back(fs::proximate(v.metadataPath, opts.index.parent_path()).string());
    nlohmann::json index = {{"schema", "triton-aot-index"}, {"schema_version", 1}, {"metadata", list}};
    if (Status s = transaction.stage(opts.index, std::string_view(index.dump(2) + "\n")); !s)
      fail(s.takeError());
  }
  if (!opts.depfile.empty()) {
    // With an index, it is the one output the build system knows by name; the rest have
    // digests in their names.
    std::vector<std::string> targets;
    if (!opts.index.empty())
      targets.push_back(opts.index.string());
    else
      for (const fs::path &p : transaction.destinations())
        targets.push_back(p.string());
    if (Status s = transaction.stage(opts.depfile, std::string_view(formatDepfile(targets, depends))); !s)
      fail(s.takeError());
  }
  if (!outcome.errors.empty())
    return failRun(std::move(outcome));
  if (Status s = transaction.commit(); !s) {
    fail(s.takeError());
    return failRun(std::move(outcome));
  }

  // --- Remember the new compiles ---------------------------------------------------------------
  if (cache.enabled()) {
    std::vector<std::string> toolchain;
    const nlohmann::json toolchainFiles =
        hello.is_object() ? hello.value("toolchain_files", nlohmann::json::array()) : nlohmann::json::array();
    for (const auto &file : toolchainFiles)
      if (file.is_string())
        toolchain.push_back(file.get<std::string>());
    for (Job *job : misses) {
      CacheEntry entry;
      entry.result = job->result;
      for (const auto &[role, bytes] : job->files)
        if (role == "image" || role == "ptx")
          entry.files[role] = bytes;
      bool complete = true;
      std::vector<std::string> sources = {job->kernel->sourcePath.string()};
      for (const auto &dep : job->result.value("deps", nlohmann::json::array()))
        if (dep.is_string())
          sources.push_back(dep.get<std::string>());
      for (const std::string &path : sources) {
        auto dep = CompileCache::describe(path, true);
        complete = complete && dep;
        if (dep)
          entry.dependencies.push_back(*dep);
      }
      for (const std::string &path : toolchain) {
        auto dep = CompileCache::describe(path, false);
        complete = complete && dep;
        if (dep)
          entry.dependencies.push_back(*dep);
      }
      if (!complete)
        continue;   // a dependency vanished meanwhile: do not cache what cannot be checked
      if (Status s = cache.store(job->cacheKey, entry); !s && log)
        log("warning: " + s.error().message + " (the outputs are written; only caching failed)");
    }
  }
  return outcome;
}

} // namespace tta
