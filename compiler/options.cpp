#include "compiler/options.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace fs = std::filesystem;

namespace tta {

namespace {

Diagnostic usage(std::string message) { return makeError(ExitCode::UsageError, std::move(message)); }

Expected<std::string> sourceKindOf(const fs::path &path) {
  std::string ext = path.extension().string();
  if (ext == ".py")
    return std::string("python");
  if (ext == ".ttir" || ext == ".ttgir")
    return ext.substr(1);
  return usage("unsupported kernel file '" + path.string() +
               "': expected a Python file (.py) or Triton IR (.ttir, .ttgir)");
}

/// Parses a list of entries with \p parse, locating errors in \p origin.
template <class T, class Parse>
Expected<std::vector<T>> parseAll(const std::vector<std::string> &texts, Parse parse,
                                  const std::string &what, const std::string &origin) {
  std::vector<T> out;
  for (const std::string &text : texts) {
    auto parsed = parse(text);
    if (!parsed) {
      Diagnostic diag = parsed.takeError();
      if (diag.file.empty() && origin != "command line")
        diag.file = origin;
      if (diag.sourceLine.empty())   // else the text is already shown under the message
        diag.notes.insert(diag.notes.begin(), "in " + what + " '" + text + "'");
      return diag;
    }
    out.push_back(std::move(*parsed));
  }
  return out;
}

/// Applies upstream's default num_warps/num_stages (-w/-ns) to configs that set none.
std::vector<Config> withDefaults(std::vector<Config> configs, std::optional<int> warps,
                                 std::optional<int> stages) {
  if (configs.empty())
    configs.emplace_back();
  for (Config &c : configs) {
    if (!c.numWarps)
      c.numWarps = warps;
    if (!c.numStages)
      c.numStages = stages;
  }
  return configs;
}

std::string exeDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

/// Upstream spells two options with one dash and two letters; CLI11 reads those as flag
/// clusters, so rewrite them to their long forms first.
std::vector<std::string> rewriteUpstreamSpellings(std::vector<std::string> args) {
  for (std::string &arg : args) {
    for (auto [shortName, longName] : {std::pair{"-ns", "--num-stages"}, {"-on", "--out-name"}}) {
      std::string s = shortName;
      if (arg == s)
        arg = longName;
      else if (arg.rfind(s + "=", 0) == 0)
        arg = std::string(longName) + arg.substr(s.size());
    }
  }
  return args;
}

std::string defaultPython() {
  if (const char *env = std::getenv("TRITON_AOT_PYTHON"); env && *env)
    return env;
  // The user's active environment before the clone's: an installed toolchain runs the Triton
  // of the environment it is used from (docs/cmake.md#python gives the same order).
  for (const char *variable : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *prefix = std::getenv(variable); prefix && *prefix) {
      std::string python = std::string(prefix) + "/bin/python";
      if (::access(python.c_str(), X_OK) == 0)
        return python;
    }
  std::string builtIn = TRITON_AOT_DEFAULT_PYTHON;
  if (!builtIn.empty() && ::access(builtIn.c_str(), X_OK) == 0)
    return builtIn;
  return "python3";
}

/// One worker per CPU, but no more than the available memory holds: a worker with Triton
/// loaded peaks near 200 MiB, and 512 MiB each leaves room for ptxas and large kernels.
/// A container's cgroup (v2) limit counts too, not only the host's free memory.
int defaultJobs() {
  int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  long long available = -1;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  long long kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
    meminfo.ignore(64, '\n');
  }
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  long long limit = 0;
  if (cgroup >> limit && limit > 0)   // "max" (no limit) does not parse as a number
    available = available < 0 ? limit : std::min(available, limit);
  if (available < 0)
    return cpus;
  return std::clamp(static_cast<int>(available / (512LL << 20)), 1, cpus);
}

/// TRITON_AOT_WORKER_POOL=0 (or off, no, false) keeps workers to one run.
bool workerPoolWanted() {
  const char *env = std::getenv("TRITON_AOT_WORKER_POOL");
  if (!env)
    return true;
  std::string value = env;
  return !(value == "0" || value == "off" || value == "OFF" || value == "no" ||
           value == "false" || value == "FALSE");
}

/// TRITON_AOT_WORKER_IDLE: seconds a pooled worker waits for the next run (default 120).
int workerIdleSeconds() {
  const char *env = std::getenv("TRITON_AOT_WORKER_IDLE");
  if (env && *env) {
    char *end = nullptr;
    long seconds = std::strtol(env, &end, 10);
    if (*end == '\0' && seconds >= 1 && seconds <= 24 * 3600)
      return static_cast<int>(seconds);
  }
  return 120;
}

/// The default of --compile-timeout: generous, since a compile of a large kernel for several
/// configs can take minutes; what it bounds is a compile that never ends.
constexpr int kDefaultCompileTimeout = 600;

/// --compile-timeout, else TRITON_AOT_COMPILE_TIMEOUT, else the default: whole seconds, 0 for
/// none. A value that is not one is a usage error naming where it came from.
Expected<int> compileTimeout(const std::optional<std::string> &option) {
  const char *env = std::getenv("TRITON_AOT_COMPILE_TIMEOUT");
  if (!option && !(env && *env))
    return kDefaultCompileTimeout;
  const std::string text = option ? *option : std::string(env);
  const std::string where = option ? "--compile-timeout" : "TRITON_AOT_COMPILE_TIMEOUT";
  char *end = nullptr;
  errno = 0;
  const long seconds = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || seconds < 0 || seconds > 7 * 24 * 3600)
    return usage(where + " '" + text + "' is not a number of seconds from 0 (no limit) to " +
                 std::to_string(7 * 24 * 3600));
  return static_cast<int>(seconds);
}

/// Whose code pooled workers run (CompileOptions::workerProject): the source root when one was
/// given, else every directory a kernel file is in, so that runs from one working directory
/// over two projects' kernels never share a worker.
std::string workerProject(const std::string &sourceRootGiven, const fs::path &sourceRoot,
                          const std::vector<KernelSpec> &kernels) {
  if (!sourceRootGiven.empty())
    return "source root " + sourceRoot.string();
  std::set<std::string> directories;
  for (const KernelSpec &kernel : kernels)
    directories.insert(kernel.sourcePath.parent_path().string());
  std::string project = "kernel directories";
  for (const std::string &directory : directories)
    project += '\n' + directory;
  return project;
}

/// What --source-root, --file-prefix-map, --cache-dir / --no-cache and --remote-cache[-read-only]
/// said: what outputs name sources by, and where compiles are cached.
struct CacheArguments {
  std::string sourceRoot, cacheDir, remoteCache;
  std::vector<std::string> filePrefixMaps;
  bool noCache = false, remoteReadOnly = false;
};

/// \p args into \p opts (whose outputDir is set: the default cache is under it).
Status applyCacheArguments(const CacheArguments &args, CompileOptions &opts) {
  opts.sourceRoot = fs::absolute(args.sourceRoot.empty() ? fs::path(".") : fs::path(args.sourceRoot))
                        .lexically_normal();
  if (!opts.sourceRoot.has_filename() && opts.sourceRoot != opts.sourceRoot.root_path())
    opts.sourceRoot = opts.sourceRoot.parent_path();   // "/src/" -> "/src"
  opts.remoteCache = args.remoteCache;
  opts.remoteReadOnly = args.remoteReadOnly;
  for (const std::string &text : args.filePrefixMaps) {
    auto mapping = parsePrefixMapping(text);
    if (!mapping)
      return mapping.takeError();
    opts.filePrefixMap.push_back(std::move(*mapping));
  }
  if (!args.noCache) {
    const char *env = std::getenv("TRITON_AOT_CACHE_DIR");
    opts.cacheDir = !args.cacheDir.empty()       ? fs::absolute(args.cacheDir)
                    : (env && *env)              ? fs::absolute(env)
                                                 : opts.outputDir / ".triton-aot-cache";
  }
  return ok();
}

} // namespace

std::string defaultWorkerScript() {
  if (const char *env = std::getenv("TRITON_AOT_FRONTEND_DIR"); env && *env)
    return (fs::path(env) / "triton_aot_worker.py").string();
  return (fs::path(exeDir()) / ".." / TRITON_AOT_DATADIR / "frontend" / "triton_aot_worker.py")
      .lexically_normal()
      .string();
}

/// A spec file kernel's "specialize_for" (["M=1, N=4096"] or [{"M": 1, "N": 4096}]) and
/// "specialize_args" (["stride_am=K"]).
Status readSpecializeFields(const nlohmann::json &entry, const std::string &where,
                            const std::string &path, SpecializePolicy &policy) {
  auto inFile = [&](Status s) -> Status {
    if (s)
      return s;
    Diagnostic diag = s.takeError();
    diag.file = path;
    return diag;
  };
  auto fail = [&](const std::string &message) {
    Diagnostic diag = makeError(ExitCode::UsageError, message);
    diag.file = path;
    return Status(diag);
  };
  if (entry.contains("specialize_for")) {
    const nlohmann::json &calls = entry["specialize_for"];
    if (!calls.is_array())
      return fail(where + ".specialize_for: expected a list of calls");
    for (std::size_t c = 0; c < calls.size(); ++c) {
      std::string call;
      if (calls[c].is_string()) {
        call = calls[c].get<std::string>();
      } else if (calls[c].is_object()) {
        for (const auto &[name, value] : calls[c].items()) {
          if (!value.is_number_integer())
            return fail(where + ".specialize_for[" + std::to_string(c) + "]." + name +
                        ": expected an integer");
          call += (call.empty() ? "" : ", ") + name + "=" + value.dump();
        }
      } else {
        return fail(where + ".specialize_for[" + std::to_string(c) +
                    "]: expected \"M=1, N=4096\" or {\"M\": 1, \"N\": 4096}");
      }
      if (Status s = inFile(addSpecializeCall(call, policy)); !s)
        return s;
    }
  }
  if (entry.contains("specialize_args")) {
    const nlohmann::json &args = entry["specialize_args"];
    if (!args.is_array() || !std::all_of(args.begin(), args.end(),
                                         [](const nlohmann::json &a) { return a.is_string(); }))
      return fail(where + ".specialize_args: expected a list of \"NAME=EXPR\" strings");
    for (const auto &arg : args)
      if (Status s = inFile(addSpecializeArg(arg.get<std::string>(), policy)); !s)
        return s;
  }
  if (!policy.args.empty() && policy.calls.empty())
    return fail(where + ".specialize_args needs specialize_for: it computes an argument of each call");
  return ok();
}

namespace {

/// A usage error in the spec file \p path.
Diagnostic specError(const std::string &path, const std::string &message) {
  Diagnostic diag = usage(message);
  diag.file = path;
  return diag;
}

/// \p diag, placed in the spec file \p path.
Diagnostic inSpecFile(const std::string &path, Diagnostic diag) {
  diag.file = path;
  return diag;
}

/// The spec file's JSON; a syntax error is placed at its line and column.
Expected<nlohmann::json> readSpecJson(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return usage("cannot read spec file '" + path + "': " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    Diagnostic diag = specError(path, "spec file is not valid JSON: " + std::string(e.what()));
    // Turn the byte offset into a line and column.
    std::size_t offset = std::min<std::size_t>(e.byte ? e.byte - 1 : 0, text.size());
    diag.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
    std::size_t lineStart = text.rfind('\n', offset ? offset - 1 : 0);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    diag.column = static_cast<int>(offset - lineStart) + 1;
    return diag;
  } catch (const nlohmann::json::exception &e) {   // out_of_range: a number beyond a double
    return specError(path, "spec file is not valid JSON: " + std::string(e.what()));
  }
}

/// A spec field that is a string or a list of strings, appended to \p out.
Status specStrings(const std::string &path, const nlohmann::json &value, const std::string &field,
                   std::vector<std::string> &out) {
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
    return ok();
  }
  if (!value.is_array())
    return specError(path, field + ": expected a string or a list of strings");
  for (const auto &item : value) {
    if (!item.is_string())
      return specError(path, field + ": expected a string or a list of strings");
    out.push_back(item.get<std::string>());
  }
  return ok();
}

/// A spec file's targets, "targets" of the file or of a kernel.
Expected<std::vector<Target>> specTargets(const std::string &path, const nlohmann::json &value,
                                          const std::string &field) {
  std::vector<std::string> names;
  if (Status s = specStrings(path, value, field, names); !s)
    return s.takeError();
  return parseAll<Target>(names, parseTarget, "target", path);
}

/// A spec file kernel's "heuristics" ({"NAME": "C expression"}) and "heuristic_values"
/// ({"NAME": [256, 512]}).
Status readHeuristicFields(const nlohmann::json &entry, const std::string &where,
                           const std::string &path, KernelSpec &kernel) {
  for (const std::string field : {"heuristics", "heuristic_values"}) {
    if (!entry.contains(field))
      continue;
    if (!entry[field].is_object())
      return specError(path, where + "." + field + ": expected an object keyed by heuristic name");
    const bool expressions = field == "heuristics";
    for (const auto &[name, value] : entry[field].items()) {
      std::string assignment = name + "=";
      if (expressions && value.is_string()) {
        assignment += value.get<std::string>();
      } else if (!expressions && value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
          assignment += (i ? "," : "") + value[i].dump();
      } else {
        return specError(path, where + "." + field + "." + name + ": expected " +
                                   (expressions ? "a string" : "an array of integers"));
      }
      Status added = expressions ? addHeuristicOverride(assignment, kernel.heuristics)
                                 : addHeuristicValues(assignment, kernel.heuristics);
      if (!added)
        return inSpecFile(path, added.takeError());
    }
  }
  return ok();
}

/// The fields a spec file's kernel may have; its "unknown field" message lists them but the
/// old spelling "signature".
const std::vector<std::string> kSpecKernelFields = {
    "source", "function", "name", "signatures", "signature", "configs", "grid", "targets",
    "heuristics", "heuristic_values", "drop_pre_hooks", "specialize_for", "specialize_args"};
const std::string kSpecFieldsListed = [] {
  std::string listed;
  for (const std::string &field : kSpecKernelFields)
    if (field != "signature")
      listed += (listed.empty() ? "" : ", ") + field;
  return listed;
}();

/// One kernel of a spec file (\p where: "kernels[3]"), its source relative to \p base.
Expected<KernelSpec> readSpecKernel(const nlohmann::json &entry, const std::string &where,
                                    const std::string &path, const fs::path &base,
                                    const std::vector<Target> &fileTargets) {
  if (!entry.is_object())
    return specError(path, where + ": expected an object");
  for (const auto &[key, value] : entry.items())
    if (std::find(kSpecKernelFields.begin(), kSpecKernelFields.end(), key) ==
        kSpecKernelFields.end())
      return specError(path, where + ": unknown field '" + key + "'; expected " +
                                 kSpecFieldsListed);
  if (!entry.contains("source") || !entry["source"].is_string())
    return specError(path, where + ": missing \"source\" (the kernel file)");
  KernelSpec kernel;
  kernel.origin = path;
  kernel.source = entry["source"].get<std::string>();
  kernel.sourcePath = (base / kernel.source).lexically_normal();
  auto kind = sourceKindOf(kernel.sourcePath);
  if (!kind)
    return specError(path, where + ": " + kind.error().message);
  kernel.sourceKind = *kind;
  for (const char *field : {"function", "name"})
    if (entry.contains(field) && !entry[field].is_string())
      return specError(path, where + "." + field + ": expected a string");
  kernel.function = entry.value("function", "");
  kernel.name = entry.value("name", kernel.function);
  if (kernel.sourceKind == "python" && kernel.function.empty())
    return specError(path, where + ": missing \"function\" (the @triton.jit function to compile)");

  std::vector<std::string> texts;
  for (const char *field : {"signatures", "signature"})
    if (entry.contains(field))
      if (Status s = specStrings(path, entry[field], where + "." + field, texts); !s)
        return s.takeError();
  if (texts.empty() && kernel.sourceKind == "python")
    return specError(path, where + ": missing \"signatures\"");
  auto signatures = parseAll<Signature>(texts, parseSignature, "signature", path);
  if (!signatures)
    return signatures.takeError();
  kernel.signatures = *signatures;

  texts.clear();
  if (entry.contains("configs"))
    if (Status s = specStrings(path, entry["configs"], where + ".configs", texts); !s)
      return s.takeError();
  auto configs = parseAll<Config>(texts, parseConfig, "config", path);
  if (!configs)
    return configs.takeError();
  kernel.configs = withDefaults(*configs, std::nullopt, std::nullopt);
  kernel.configsFromDecorator = texts.empty();
  if (entry.contains("drop_pre_hooks") && !entry["drop_pre_hooks"].is_boolean())
    return specError(path, where + ".drop_pre_hooks: expected true or false");
  kernel.dropPreHooks = entry.value("drop_pre_hooks", false);

  if (Status st = readHeuristicFields(entry, where, path, kernel); !st)
    return st.takeError();
  if (Status st = readSpecializeFields(entry, where, path, kernel.specialize); !st)
    return st.takeError();

  // No grid: the caller passes it to the entry point.
  texts.clear();
  if (entry.contains("grid")) {
    if (Status s = specStrings(path, entry["grid"], where + ".grid", texts); !s)
      return s.takeError();
    auto grid = texts.size() == 1 ? parseGrid(texts[0]) : parseGrid(texts);
    if (!grid)
      return inSpecFile(path, grid.takeError());
    kernel.grid = *grid;
  }

  kernel.targets = fileTargets;
  if (entry.contains("targets")) {
    auto targets = specTargets(path, entry["targets"], where + ".targets");
    if (!targets)
      return targets.takeError();
    kernel.targets = *targets;
  }
  if (kernel.targets.empty())
    return specError(path, where + ": no targets: add \"targets\" to the kernel or the file, or "
                                   "pass --target");
  return kernel;
}

} // namespace

Expected<std::vector<KernelSpec>> loadSpecFile(const std::string &path,
                                               const std::vector<Target> &defaultTargets) {
  auto spec = readSpecJson(path);
  if (!spec)
    return spec.takeError();
  if (!spec->is_object() || !spec->contains("kernels") || !(*spec)["kernels"].is_array())
    return specError(path, "a spec file is a JSON object with a \"kernels\" list");
  std::vector<Target> fileTargets = defaultTargets;
  if (spec->contains("targets")) {
    auto targets = specTargets(path, (*spec)["targets"], "targets");
    if (!targets)
      return targets.takeError();
    fileTargets = *targets;
  }
  const fs::path base = fs::absolute(path).parent_path();
  std::vector<KernelSpec> kernels;
  const nlohmann::json &entries = (*spec)["kernels"];
  for (std::size_t k = 0; k < entries.size(); ++k) {
    auto kernel = readSpecKernel(entries[k], "kernels[" + std::to_string(k) + "]", path, base,
                                 fileTargets);
    if (!kernel)
      return kernel.takeError();
    kernels.push_back(std::move(*kernel));
  }
  if (kernels.empty())
    return specError(path, "the spec file declares no kernels");
  return kernels;
}

namespace {

/// What the command line gives, as CLI11 fills it in.
struct RawArguments {
  CacheArguments cacheArgs;
  std::string kernelPath, kernelName, grid, outPath, outName, spec, depfile, index, python,
      emitIr, newRemoteCacheKey;
  std::string declaredAt;   // read by main() from the raw arguments, so parse errors get it too
  std::vector<std::string> signatures, targets, configs, heuristicOverrides, heuristicValues,
      specializeFor, specializeArgs;
  std::optional<int> numWarps, numStages;
  int jobs = 0;
  bool noPtx = false, summary = false, verbose = false, version = false, dropPreHooks = false,
       noWorkerPool = false, prepareWorkers = false;
  std::optional<std::string> compileTimeoutText;
};

/// The kernel and its variants: file, function, signatures, grid, configs, targets, names,
/// heuristics, specializations.
void addKernelOptions(CLI::App &app, RawArguments &raw) {
  app.add_option("kernel", raw.kernelPath, "Kernel file: Python (.py) or Triton IR (.ttir, .ttgir)");
  app.add_option("-n,--kernel-name", raw.kernelName, "Name of the @triton.jit / @gluon.jit function");
  app.add_option("-s,--signature", raw.signatures,
                 "Signature, e.g. \"*fp32:16, *fp32:16, i32, 1024\"; repeat for hint variants")
      ->take_all()
      ->allow_extra_args(false);
  app.add_option("-g,--grid", raw.grid,
                 "Launch grid: three C expressions, e.g. \"cdiv(n, BLOCK), 1, 1\"; without it the "
                 "caller passes the grid");
  app.add_option("-w,--num-warps", raw.numWarps, "Warps per program (default: Triton's, 4)");
  app.add_option("--num-stages", raw.numStages,
                 "Pipeline stages, also -ns (default: the backend's: CUDA 3, HIP 2)");
  app.add_option("-t,--target", raw.targets,
                 "Target: cuda:80, cuda:90a, hip:gfx942, hip:gfx90a:xnack-, cuda:80:32; repeatable")
      ->take_all()
      ->allow_extra_args(false);
  app.add_option("-o,--out-path", raw.outPath,
                 "Output path stem (upstream), or a directory (ends with / or exists)");
  app.add_option("--out-name", raw.outName, "Entry point name, also -on (default: the function name)");
  app.add_option("--config", raw.configs,
                 "Config \"BLOCK=1024 num_warps=4 num_stages=3\"; repeat for several configs")
      ->take_all()
      ->allow_extra_args(false);
  app.add_option("--heuristic", raw.heuristicOverrides,
                 "NAME=EXPR: a C expression over parameter names computing the @triton.heuristics "
                 "value NAME (for a lambda triton-aot cannot translate)");
  app.add_option("--heuristic-values", raw.heuristicValues,
                 "NAME=V1,V2,...: the values to compile an integer heuristic over runtime "
                 "arguments for");
  app.add_flag("--drop-pre-hooks", raw.dropPreHooks,
               "Drop the pre_hooks of @triton.autotune configs (they run Python before each launch)");
  app.add_option("--specialize-for", raw.specializeFor,
                 "A call the kernel is meant for, its integer arguments by name (\"M=1, N=4096, "
                 "K=4096\"): adds the variant Triton's JIT would compile for it (repeatable)")
      ->type_name("CALL");
  app.add_option("--specialize-arg", raw.specializeArgs,
                 "NAME=EXPR: an argument each --specialize-for call computes from its values "
                 "(\"stride_am=K\"; TUNE_ARGS' language)")
      ->type_name("ARG");
}

/// The spec file, what the run writes beside its outputs, and the caches.
void addFileAndCacheOptions(CLI::App &app, RawArguments &raw) {
  app.add_option("--spec", raw.spec, "JSON spec file with many kernels, variants and targets");
  app.add_option("--depfile", raw.depfile, "Write a Make-format depfile for the outputs");
  app.add_option("--index", raw.index, "Write a JSON list of the metadata files written");
  app.add_option("--cache-dir", raw.cacheArgs.cacheDir,
                 "Compile cache (default: $TRITON_AOT_CACHE_DIR, else <out>/.triton-aot-cache)");
  app.add_flag("--no-cache", raw.cacheArgs.noCache, "Neither read nor write the compile cache");
  app.add_option("--remote-cache", raw.cacheArgs.remoteCache,
                 "Shared cache beside the local one: redis://host:port[/db] or "
                 "http(s)://host[:port]/prefix (default: $TRITON_AOT_REMOTE_CACHE; "
                 "docs/remote-cache.md)");
  app.add_flag("--remote-cache-read-only", raw.cacheArgs.remoteReadOnly,
               "Read the remote cache, never write it (also TRITON_AOT_REMOTE_CACHE_READ_ONLY=1)");
  app.add_option("--new-remote-cache-key", raw.newRemoteCacheKey,
                 "Write a new random signing key for the remote cache into FILE (mode 0600; "
                 "it must not exist), for TRITON_AOT_REMOTE_CACHE_KEY_FILE, and exit")
      ->type_name("FILE");
  app.add_option("--source-root", raw.cacheArgs.sourceRoot,
                 "The project's root: sources are named relative to it in outputs and cache "
                 "keys (default: the current directory)");
  app.add_option("--file-prefix-map", raw.cacheArgs.filePrefixMaps,
                 "Name source files under OLD as under NEW in images and metadata "
                 "(repeatable; the longest OLD wins; by default the source root "
                 "and the site directories map to \"\": relative names)")
      ->type_name("OLD=NEW");
}

/// How the run goes: its workers and interpreter, what it writes and says.
void addRunOptions(CLI::App &app, RawArguments &raw) {
  app.add_flag("--no-worker-pool", raw.noWorkerPool,
               "Start frontend workers for this run only (also TRITON_AOT_WORKER_POOL=0)");
  app.add_flag("--prepare-workers", raw.prepareWorkers,
               "Compile nothing: have the worker pool of --source-root's project hold -j workers "
               "warmed up for the -t targets, for its next build (CMake's configure runs it)");
  app.add_option("--compile-timeout", raw.compileTimeoutText,
                 "Seconds a kernel's import or compile may take before it is stopped (default: "
                 "$TRITON_AOT_COMPILE_TIMEOUT, else 600; 0: no limit)")
      ->type_name("SECONDS");
  app.add_option("--python", raw.python,
                 "Python interpreter that has Triton (default: $TRITON_AOT_PYTHON, else the "
                 "active environment's ($VIRTUAL_ENV, $CONDA_PREFIX), else the configured one, "
                 "else python3)");
  app.add_option("-j,--jobs", raw.jobs, "Parallel frontend workers (default: one per CPU, at most one per 512 MiB available)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--emit-ir", raw.emitIr, "Also write each variant's ttir, ttgir, llir and ptx/amdgcn here");
  app.add_flag("--no-ptx", raw.noPtx, "Do not write the .ptx beside CUDA images");
  app.add_flag("--summary", raw.summary, "Print a table of what was built");
  app.add_option("--declared-at", raw.declaredAt,
                 "Where the kernel is declared (\"CMakeLists.txt:12\"), named in a note after "
                 "every error: the CMake plugin passes its triton_add_kernel() call")
      ->type_name("FILE:LINE");
  app.add_flag("-v,--verbose", raw.verbose, "Explain what happens; show Python tracebacks");
  app.add_flag("--version", raw.version, "Print the version and exit");
}

/// Every option of triton-aot-cc, filling \p raw (in --help's order).
void addOptions(CLI::App &app, RawArguments &raw) {
  addKernelOptions(app, raw);
  addFileAndCacheOptions(app, raw);
  addRunOptions(app, raw);
}

/// -w and -ns obey the same rules as num_warps= and num_stages= in a config.
Status checkWarpsAndStages(const RawArguments &raw) {
  for (auto [flag, key, value] : {std::tuple{"-w", "num_warps", raw.numWarps},
                                  std::tuple{"-ns", "num_stages", raw.numStages}}) {
    if (!value)
      continue;
    auto checked = parseConfig(std::string(key) + "=" + std::to_string(*value));
    if (!checked) {
      Diagnostic diag = checked.takeError();
      diag.message = std::string(flag) + ": " + diag.message;
      diag.sourceLine.clear();
      diag.column = 0;
      return diag;
    }
  }
  return ok();
}

/// The kernels of --spec (no kernel options beside it: they belong in the file).
Status addSpecKernels(const RawArguments &raw, const CLI::App &app,
                      const std::vector<Target> &targets, CommandLine &out) {
  if (!raw.kernelPath.empty())
    return usage("give either a kernel file or --spec, not both");
  for (const char *flag : {"signature", "kernel-name", "grid", "config", "out-name", "heuristic",
                           "heuristic-values", "specialize-for", "specialize-arg"})
    if (app.count(std::string("--") + flag))
      return usage(std::string("--") + flag + " cannot be combined with --spec: put it in the spec file");
  auto kernels = loadSpecFile(raw.spec, targets);
  if (!kernels)
    return kernels.takeError();
  for (KernelSpec &k : *kernels) {
    k.configs = withDefaults(std::move(k.configs), raw.numWarps, raw.numStages);
    k.dropPreHooks = k.dropPreHooks || raw.dropPreHooks;
  }
  out.request.kernels = std::move(*kernels);
  out.request.options.outputDir = fs::absolute(raw.outPath.empty() ? "." : raw.outPath);
  return ok();
}

/// The heuristic and specialization options of the command line's kernel.
Status addKernelExtras(const RawArguments &raw, KernelSpec &kernel) {
  for (const std::string &text : raw.heuristicOverrides)
    if (Status s = addHeuristicOverride(text, kernel.heuristics); !s)
      return s;
  for (const std::string &text : raw.heuristicValues)
    if (Status s = addHeuristicValues(text, kernel.heuristics); !s)
      return s;
  for (const std::string &text : raw.specializeFor)
    if (Status s = addSpecializeCall(text, kernel.specialize); !s)
      return s;
  for (const std::string &text : raw.specializeArgs)
    if (Status s = addSpecializeArg(text, kernel.specialize); !s)
      return s;
  if (!kernel.specialize.args.empty() && kernel.specialize.calls.empty())
    return usage("--specialize-arg needs --specialize-for: it computes an argument of each call");
  return ok();
}

/// The one kernel the command line names (a file, its function, signatures, configs, grid).
Expected<KernelSpec> commandLineKernel(const RawArguments &raw, const CLI::App &app,
                                       const std::vector<Target> &targets) {
  if (raw.kernelPath.empty())
    return usage("no kernel file: give a .py/.ttir/.ttgir file, or --spec FILE (see --help)");
  KernelSpec kernel;
  kernel.origin = "command line";
  kernel.source = raw.kernelPath;
  kernel.sourcePath = fs::absolute(raw.kernelPath).lexically_normal();
  auto kind = sourceKindOf(kernel.sourcePath);
  if (!kind)
    return kind.takeError();
  kernel.sourceKind = *kind;
  kernel.function = raw.kernelName;
  kernel.name = raw.outName.empty() ? raw.kernelName : raw.outName;
  if (kernel.sourceKind == "python") {
    if (raw.kernelName.empty())
      return usage("missing -n/--kernel-name: name the @triton.jit function to compile");
    if (raw.signatures.empty())
      return usage("missing -s/--signature: give one entry per kernel parameter, e.g. "
                   "-s \"*fp32:16, *fp32:16, i32, 1024\"");
  } else if (!raw.signatures.empty()) {
    return usage("a " + kernel.sourceKind + " file carries its own signature: drop -s/--signature");
  }
  auto parsedSignatures = parseAll<Signature>(raw.signatures, parseSignature, "signature", "command line");
  if (!parsedSignatures)
    return parsedSignatures.takeError();
  kernel.signatures = *parsedSignatures;
  auto parsedConfigs = parseAll<Config>(raw.configs, parseConfig, "config", "command line");
  if (!parsedConfigs)
    return parsedConfigs.takeError();
  kernel.configs = withDefaults(*parsedConfigs, raw.numWarps, raw.numStages);
  kernel.configsFromDecorator = raw.configs.empty();
  kernel.dropPreHooks = raw.dropPreHooks;
  // No -g: the caller passes the grid to the entry point.
  if (app.count("--grid")) {
    auto parsedGrid = parseGrid(raw.grid);
    if (!parsedGrid) {
      Diagnostic diag = parsedGrid.takeError();
      diag.notes.insert(diag.notes.begin(), "in grid '" + raw.grid + "'");
      return diag;
    }
    kernel.grid = *parsedGrid;
  }
  if (Status s = addKernelExtras(raw, kernel); !s)
    return s.takeError();
  kernel.targets = targets;
  return kernel;
}

/// -o of a command-line kernel: a directory (ends with / or exists), else a path stem.
void setOutputLocation(const std::string &outPath, CompileOptions &opts) {
  std::error_code ec;
  bool isDir = !outPath.empty() && (outPath.back() == '/' || fs::is_directory(outPath, ec));
  if (outPath.empty() || isDir) {
    opts.outputDir = fs::absolute(outPath.empty() ? "." : outPath);
  } else {
    opts.outputStem = fs::absolute(outPath);
    opts.outputDir = opts.outputStem.parent_path();
  }
}

/// --prepare-workers: a project, its targets, no kernel; the installation is learned ahead
/// into a cache the build names, never a default one.
Status setPreparation(RawArguments &raw, const std::vector<Target> &targets, CommandLine &out) {
  if (!raw.kernelPath.empty() || !raw.spec.empty())
    return usage("--prepare-workers compiles nothing: drop the kernel file and --spec");
  if (raw.cacheArgs.sourceRoot.empty())
    return usage("--prepare-workers needs --source-root: the project whose builds lease the "
                 "workers");
  out.prepareWorkers = true;
  out.prepareTargets = targets;
  out.request.options.outputDir = fs::absolute(".");
  const char *env = std::getenv("TRITON_AOT_CACHE_DIR");
  raw.cacheArgs.noCache =
      raw.cacheArgs.noCache || (raw.cacheArgs.cacheDir.empty() && !(env && *env));
  return ok();
}

/// What the run does besides its kernels: workers, interpreter, what it writes beside them.
void setRunOptions(const RawArguments &raw, CompileOptions &opts) {
  opts.verbose = raw.verbose;
  opts.writePtx = !raw.noPtx;
  opts.jobs = raw.jobs > 0 ? raw.jobs : defaultJobs();
  opts.workerPool = !raw.noWorkerPool && workerPoolWanted();
  opts.workerIdleSeconds = workerIdleSeconds();
  opts.python = raw.python.empty() ? defaultPython() : raw.python;
  opts.workerScript = defaultWorkerScript();
  if (!raw.depfile.empty())
    opts.depfile = fs::absolute(raw.depfile);
  if (!raw.index.empty()) {
    opts.index = fs::absolute(raw.index);
    opts.indexAsGiven = raw.index;
  }
  opts.relativeOutputs = raw.outPath.empty() || fs::path(raw.outPath).is_relative();
  if (!raw.emitIr.empty())
    opts.irDir = fs::absolute(raw.emitIr);
}

/// The kernels to build (of --spec, or the command line's one), each with a target; or the
/// preparation of --prepare-workers.
Status setWhatToBuild(RawArguments &raw, const CLI::App &app, const std::vector<Target> &targets,
                      CommandLine &out) {
  if (raw.prepareWorkers)
    return setPreparation(raw, targets, out);
  if (!raw.spec.empty()) {
    if (Status s = addSpecKernels(raw, app, targets, out); !s)
      return s;
  } else {
    auto kernel = commandLineKernel(raw, app, targets);
    if (!kernel)
      return kernel.takeError();
    out.request.kernels.push_back(std::move(*kernel));
    setOutputLocation(raw.outPath, out.request.options);
  }
  for (const KernelSpec &k : out.request.kernels)
    if (k.targets.empty())
      return usage("no target: give -t/--target, e.g. -t cuda:90a (triton-aot-cc cross-compiles "
                   "and never looks for a GPU)");
  return ok();
}

} // namespace

Expected<CommandLine> parseCommandLine(const std::vector<std::string> &rawArgs) {
  CLI::App app{"triton-aot-cc: compile Triton kernels ahead of time, for any GPU target, "
               "on any machine",
               "triton-aot-cc"};
  app.footer("Exit status: 0 success, 1 kernel error, 2 usage error, 3 Python/Triton problem,\n"
             "4 output cannot be written, 5 internal error, 130 interrupted. See docs/compiler.md.");
  app.get_formatter()->column_width(34);
  RawArguments raw;
  addOptions(app, raw);

  std::vector<std::string> args = rewriteUpstreamSpellings(rawArgs);
  std::vector<std::string> reversed(args.rbegin(), args.rend());   // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp &) {
    CommandLine help;
    help.earlyExitText = app.help();
    return help;
  } catch (const CLI::ParseError &e) {
    Diagnostic diag = usage(e.what());
    diag.notes.push_back("run 'triton-aot-cc --help' for the options");
    return diag;
  }
  if (!raw.newRemoteCacheKey.empty()) {
    CommandLine out;
    out.newRemoteCacheKey = fs::absolute(raw.newRemoteCacheKey).string();
    return out;
  }
  if (raw.version) {
    CommandLine out;
    out.earlyExitText = std::string("triton-aot-cc ") + TRITON_AOT_VERSION +
                        " (frontend: Triton " + kMinTritonVersion + " to " + kTestedTritonVersion +
                        ")\n";
    return out;
  }
  if (Status s = checkWarpsAndStages(raw); !s)
    return s.takeError();
  auto parsedTargets = parseAll<Target>(raw.targets, parseTarget, "target", "command line");
  if (!parsedTargets)
    return parsedTargets.takeError();

  CommandLine out;
  out.summary = raw.summary;
  CompileOptions &opts = out.request.options;
  setRunOptions(raw, opts);
  if (Status s = setWhatToBuild(raw, app, *parsedTargets, out); !s)
    return s.takeError();
  if (Status s = applyCacheArguments(raw.cacheArgs, opts); !s)
    return s.takeError();
  opts.workerProject = workerProject(raw.cacheArgs.sourceRoot, opts.sourceRoot, out.request.kernels);
  auto timeout = compileTimeout(raw.compileTimeoutText);
  if (!timeout)
    return timeout.takeError();
  opts.compileTimeoutSeconds = *timeout;
  return out;
}

} // namespace tta
