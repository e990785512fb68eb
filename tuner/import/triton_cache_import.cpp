#include "tuner/import/triton_cache_import.h"

#include "linker/manifest.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace tta {
namespace {

/// Triton cuts the function's name at 150 characters in the file name
/// (f"{fn.__name__[:150]}.autotune.json", Autotuner.check_disk_cache).
constexpr std::size_t kFunctionNameLimit = 150;

Diagnostic fileError(const std::string &file, const std::string &message) {
  Diagnostic diag = makeError(ExitCode::UsageError, message);
  diag.file = file;
  return diag;
}

/// The member \p name of \p object; null where \p object is no object or lacks it. Manifest
/// readers ignore what they do not know, and a malformed manifest must not throw.
const nlohmann::json &field(const nlohmann::json &object, const char *name) {
  static const nlohmann::json kNull;
  if (!object.is_object())
    return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

/// The string member \p name of \p object, or "".
std::string text(const nlohmann::json &object, const char *name) {
  const nlohmann::json &value = field(object, name);
  return value.is_string() ? value.get<std::string>() : "";
}

Diagnostic manifestError(const std::string &message) {
  return makeError(ExitCode::UsageError, "manifest: " + message);
}

/// A library config, as far as matching a cached one needs.
struct LibraryConfig {
  std::string name;
  nlohmann::json constexprs;
  nlohmann::json options;
  nlohmann::json numWarps;
  nlohmann::json numStages;
  bool refused = false; ///< not built for the target in any variant
};

/// How the kernel's autotune key names map onto the table: a runtime integer parameter becomes
/// a key dimension; a constexpr (or ":1") parameter is fixed in the library, so an entry tuned
/// for another value belongs to another specialization.
struct KeyName {
  std::string name;
  bool runtime = false;
  nlohmann::json fixedValue; ///< when not runtime
};

struct LibraryKernel {
  std::string name;
  std::string function;
  std::string library;
  std::string tritonVersion;
  std::vector<KeyName> key;
  std::vector<std::string> dtypes; ///< expected trailing key strings; empty: unknown
  std::vector<LibraryConfig> configs;
};

bool contains(const nlohmann::json &list, const std::string &name) {
  return list.is_array() && std::find(list.begin(), list.end(), name) != list.end();
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

Expected<std::vector<KeyName>> keyNames(const nlohmann::json &kernel, const std::string &member,
                                        const std::string &name) {
  const nlohmann::json &autotune = field(kernel, "autotune");
  if (!autotune.is_object() || !field(autotune, "key").is_array())
    return manifestError("kernel '" + name +
                         "' is not @triton.autotune'd (no autotune.key): Triton caches no "
                         "autotuning for it");
  const nlohmann::json &constexprParams = field(kernel, "constexpr_params");
  const nlohmann::json &oneParams = field(kernel, "specialized_to_one_params");
  const nlohmann::json &configs = field(kernel, "configs");
  std::vector<KeyName> out;
  for (const nlohmann::json &keyName : autotune["key"]) {
    if (!keyName.is_string())
      return manifestError(member + ".autotune.key: expected names, got " + keyName.dump());
    KeyName key{keyName.get<std::string>(), false, nullptr};
    if (contains(constexprParams, key.name)) {
      nlohmann::json constexprs = configs.is_array() && !configs.empty()
                                      ? field(configs[0], "constexprs")
                                      : nlohmann::json();
      if (!constexprs.is_object() || !constexprs.contains(key.name))
        return manifestError(member + ".configs[0].constexprs: no value for the key name '" +
                             key.name + "'");
      key.fixedValue = constexprs[key.name];
    } else if (contains(oneParams, key.name)) {
      key.fixedValue = 1;
    } else {
      const nlohmann::json *param = nullptr;
      for (const nlohmann::json &p : field(kernel, "params"))
        if (p.is_object() && text(p, "name") == key.name)
          param = &p;
      if (!param)
        return manifestError("kernel '" + name + "': the key name '" + key.name +
                             "' is not one of its parameters");
      std::string type = text(*param, "type");
      if (text(*param, "kind") != "scalar" || type.empty() || (type[0] != 'i' && type[0] != 'u'))
        return manifestError("kernel '" + name + "': the key name '" + key.name + "' is a '" +
                             type + "' parameter; a tuning table keys on integer parameters");
      key.runtime = true;
    }
    out.push_back(std::move(key));
  }
  return out;
}

/// Is the config built for \p target in some variant? The manifest lists each variant's
/// functions per target; a refused one has "refused" (docs/linker.md).
bool builtFor(const nlohmann::json &config, const std::string &target) {
  for (const nlohmann::json &variant : field(config, "variants"))
    for (const nlohmann::json &function : field(variant, "functions"))
      if (function.is_object() && text(function, "target") == target &&
          !function.contains("refused"))
        return true;
  return false;
}

std::string tritonVersionFor(const nlohmann::json &manifest, const nlohmann::json &kernel,
                             const std::string &target) {
  for (const nlohmann::json &config : field(kernel, "configs"))
    for (const nlohmann::json &variant : field(config, "variants"))
      for (const nlohmann::json &function : field(variant, "functions"))
        if (function.is_object() && text(function, "target") == target &&
            field(function, "triton_version").is_string())
          return function["triton_version"].get<std::string>();
  const nlohmann::json &versions = field(manifest, "triton_versions");
  return !versions.empty() && versions.back().is_string() ? versions.back().get<std::string>() : "";
}

Expected<LibraryKernel> libraryKernel(const nlohmann::json &manifest,
                                      const TritonCacheImportOptions &options) {
  if (!manifest.is_object() || text(manifest, "schema") != link::kManifestSchema)
    return manifestError(std::string("expected a library manifest (schema \"") +
                         link::kManifestSchema + "\")");
  if (field(manifest, "schema_version").is_number() &&
      field(manifest, "schema_version").get<double>() > link::kManifestSchemaVersion)
    return manifestError("schema_version " + manifest["schema_version"].dump() +
                         " is newer than this tool reads (" +
                         std::to_string(link::kManifestSchemaVersion) + ")");
  const nlohmann::json &kernels = field(manifest, "kernels");
  if (!kernels.is_array())
    return manifestError("kernels: expected a list");
  std::vector<std::string> names;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const nlohmann::json &kernel = kernels[k];
    if (!kernel.is_object() || !field(kernel, "name").is_string())
      return manifestError("kernels[" + std::to_string(k) + "].name: expected a string");
    names.push_back(kernel["name"].get<std::string>());
    if (names.back() != options.kernel)
      continue;
    const std::string member = "kernels[" + std::to_string(k) + "]";
    LibraryKernel out;
    out.name = options.kernel;
    out.function = text(kernel, "function").empty() ? options.kernel : text(kernel, "function");
    out.library = text(manifest, "name");
    if (!contains(field(kernel, "targets"), options.target)) {
      std::vector<std::string> targets;
      for (const nlohmann::json &t : field(kernel, "targets"))
        targets.push_back(t.dump());
      return manifestError("kernel '" + options.kernel + "' is not built for '" + options.target +
                           "' (its targets: " + joined(targets) + ")");
    }
    out.tritonVersion = tritonVersionFor(manifest, kernel, options.target);
    auto key = keyNames(kernel, member, options.kernel);
    if (!key)
      return key.takeError();
    out.key = std::move(*key);
    bool dtypesKnown = true;
    for (const nlohmann::json &param : field(kernel, "params"))
      if (param.is_object() && text(param, "kind") == "pointer") {
        out.dtypes.push_back(torchDtypeOfPointer(text(param, "type")));
        dtypesKnown = dtypesKnown && !out.dtypes.back().empty();
      }
    if (!options.dtypes.empty())
      out.dtypes = options.dtypes;
    else if (!dtypesKnown)
      out.dtypes.clear();
    const nlohmann::json &configs = field(kernel, "configs");
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const nlohmann::json &config = configs[c];
      const std::string configMember = member + ".configs[" + std::to_string(c) + "]";
      if (!config.is_object() || !field(config, "name").is_string())
        return manifestError(configMember + ".name: expected a string");
      LibraryConfig library{config["name"].get<std::string>(), field(config, "constexprs"),
                            field(config, "options"),          field(config, "num_warps"),
                            field(config, "num_stages"),       !builtFor(config, options.target)};
      out.configs.push_back(std::move(library));
    }
    return out;
  }
  return manifestError("no kernel named '" + options.kernel + "' (kernels: " + joined(names) + ")");
}

/// Triton's Config and a library config agree on every value Triton's Config.all_kwargs() passes
/// to the compile: the kwargs (the library keeps them as constexprs, or as options such as
/// waves_per_eu), num_warps, num_stages, num_ctas (1 unless set) and maxnreg.
bool sameConfig(const TritonCachedConfig &cached, const LibraryConfig &library) {
  if (cached.irOverride)
    return false; // a config that swaps the kernel's IR for a file is not the library's kernel
  for (const auto &[name, value] : cached.kwargs.items()) {
    const nlohmann::json *held = nullptr;
    if (library.constexprs.is_object() && library.constexprs.contains(name))
      held = &library.constexprs[name];
    else if (library.options.is_object() && library.options.contains(name))
      held = &library.options[name];
    if (!held || *held != value)
      return false;
  }
  nlohmann::json options = library.options.is_object() ? library.options : nlohmann::json::object();
  nlohmann::json maxnreg = field(options, "maxnreg");
  return library.numWarps == cached.numWarps && library.numStages == cached.numStages &&
         (field(options, "num_ctas").is_null() ? nlohmann::json(1) : field(options, "num_ctas")) ==
             cached.numCtas &&
         (cached.maxnreg ? maxnreg == *cached.maxnreg : maxnreg.is_null());
}

std::string describe(const TritonCachedConfig &config) {
  std::string out;
  for (const auto &[name, value] : config.kwargs.items())
    out += name + "=" + value.dump() + ", ";
  out += "num_warps=" + std::to_string(config.numWarps) +
         ", num_stages=" + std::to_string(config.numStages);
  if (config.numCtas != 1)
    out += ", num_ctas=" + std::to_string(config.numCtas);
  if (config.maxnreg)
    out += ", maxnreg=" + std::to_string(*config.maxnreg);
  if (config.irOverride)
    out += ", ir_override";
  return out;
}

std::string keyText(const std::vector<std::int64_t> &key) {
  std::string out = "[";
  for (std::size_t i = 0; i < key.size(); ++i)
    out += (i ? ", " : "") + std::to_string(key[i]);
  return out + "]";
}

/// Triton's milliseconds as microseconds, to the nanosecond: finer digits are the binary
/// fraction's noise (0.0112 ms is 11.200000000000001 us), which only makes tables diff badly.
double microseconds(double ms) { return std::round(ms * 1e6) / 1e3; }

/// What Triton's min() over the timing lists compares: [median, p20, p80] in order (a single
/// figure on its own); inf sorts last.
std::vector<double> rank(const TritonCachedConfig &config) {
  if (!config.timesMs.empty())
    return config.timesMs;
  return {config.medianMs.value_or(INFINITY)};
}

/// The importer's state over the entries of one kernel and target.
class Importer {
public:
  Importer(const LibraryKernel &kernel, TritonCacheImport &out) : kernel_(kernel), out_(out) {}

  /// Adds one entry's shape, or a warning why not; errors for what cannot be right.
  Status add(const TritonCacheEntry &entry) {
    const std::size_t keyCount = kernel_.key.size();
    const nlohmann::json &key = entry.key;
    if (key.size() < keyCount)
      return arityError(entry);
    std::vector<std::string> dtypes;
    for (std::size_t i = keyCount; i < key.size(); ++i) {
      if (!key[i].is_string())
        return arityError(entry);
      dtypes.push_back(key[i].get<std::string>());
    }
    if (auto skip = checkDtypes(entry, dtypes))
      return std::move(*skip);
    std::vector<std::int64_t> shape;
    for (std::size_t i = 0; i < keyCount; ++i) {
      const KeyName &name = kernel_.key[i];
      if (!name.runtime) {
        if (key[i] != name.fixedValue) {
          warn(entry.file + ": skipped: tuned for " + name.name + "=" + key[i].dump() +
               ", the library's kernel '" + kernel_.name + "' has " + name.name + "=" +
               name.fixedValue.dump());
          return ok();
        }
        continue;
      }
      if (key[i].is_boolean())
        shape.push_back(key[i].get<bool>() ? 1 : 0);
      else if (key[i].is_number_integer())
        shape.push_back(key[i].get<std::int64_t>());
      else
        return fileError(entry.file, "key[" + std::to_string(i) + "]: expected an integer for '" +
                                         name.name + "', got " + key[i].dump());
    }
    if (auto [it, added] = shapeFiles_.emplace(shape, entry.file); !added)
      return fileError(entry.file,
                       "key " + keyText(shape) + " is tuned in this file and in " + it->second +
                           " (another Triton, environment or config list): pass one of them");
    return addShape(entry, std::move(shape));
  }

  std::vector<TunedShape> &shapes() { return shapes_; }

private:
  Diagnostic arityError(const TritonCacheEntry &entry) const {
    std::vector<std::string> names;
    for (const KeyName &name : kernel_.key)
      names.push_back(name.name);
    return fileError(entry.file, "key: " + entry.key.dump() +
                                     " does not fit the autotune key of '" + kernel_.name + "' (" +
                                     joined(names) +
                                     "): expected a value per name, then dtype strings");
  }

  std::optional<Status> checkDtypes(const TritonCacheEntry &entry,
                                    const std::vector<std::string> &dtypes) {
    if (!kernel_.dtypes.empty()) {
      if (dtypes == kernel_.dtypes)
        return std::nullopt;
      warn(entry.file + ": skipped: tuned for the dtypes (" + joined(dtypes) +
           "), the library's kernel '" + kernel_.name + "' takes (" + joined(kernel_.dtypes) + ")");
      return ok();
    }
    if (firstDtypesFile_.empty()) {
      firstDtypes_ = dtypes;
      firstDtypesFile_ = entry.file;
    } else if (dtypes != firstDtypes_) {
      return Status(fileError(entry.file, "tuned for the dtypes (" + joined(dtypes) + "), " +
                                              firstDtypesFile_ + " for (" + joined(firstDtypes_) +
                                              "): name the kernel's dtypes to pick one"));
    }
    return std::nullopt;
  }

  Status addShape(const TritonCacheEntry &entry, std::vector<std::int64_t> key) {
    TunedShape shape;
    shape.key = std::move(key);
    const TritonCachedConfig *best = nullptr;    // among the configs the library runs here
    const TritonCachedConfig *fastest = nullptr; // Triton's own choice, over all of them
    std::string bestName;
    for (const TritonCachedConfig &cached : entry.configs) {
      if (!fastest || rank(cached) < rank(*fastest))
        fastest = &cached;
      const LibraryConfig *library = nullptr;
      for (const LibraryConfig &candidate : kernel_.configs)
        if (sameConfig(cached, candidate)) {
          library = &candidate;
          break;
        }
      if (!library) {
        if (unmatched_.insert(describe(cached)).second)
          warn(entry.file + ": skipped the config (" + describe(cached) +
               "): the library's kernel '" + kernel_.name + "' has no config with these values");
        continue;
      }
      if (shape.timesUs.contains(library->name))
        continue;
      std::optional<double> us;
      if (cached.medianMs && !library->refused)
        us = microseconds(*cached.medianMs);
      shape.timesUs[library->name] = us;
      if (us && (!best || rank(cached) < rank(*best))) {
        best = &cached;
        bestName = library->name;
      }
    }
    if (!best) {
      warn(entry.file + ": skipped: no config of the library has a time for key " +
           keyText(shape.key));
      return ok();
    }
    if (fastest != best)
      warn(entry.file + ": Triton's fastest config for key " + keyText(shape.key) + " (" +
           describe(*fastest) + ") is not one the library runs on this target; best is '" +
           bestName + "'");
    shape.best = bestName;
    shapes_.push_back(std::move(shape));
    return ok();
  }

  void warn(std::string warning) { out_.warnings.push_back(std::move(warning)); }

  const LibraryKernel &kernel_;
  TritonCacheImport &out_;
  std::map<std::vector<std::int64_t>, std::string> shapeFiles_;
  std::set<std::string> unmatched_; ///< configs already warned about
  std::vector<TunedShape> shapes_;
  /// The dtypes of the first entry, where the manifest could not say which to expect.
  std::vector<std::string> firstDtypes_;
  std::string firstDtypesFile_;
};

} // namespace

std::string torchDtypeOfPointer(const std::string &tritonType) {
  // The inverse of Triton's torch-name canonicalization (triton/_utils.py,
  // type_canonicalisation_dict) for the dtypes torch has; str(tensor.dtype) is what the autotuner's
  // key holds.
  static const std::map<std::string, std::string> kTorchNames = {
      {"i1", "torch.bool"},
      {"u1", "torch.bool"},
      {"i8", "torch.int8"},
      {"i16", "torch.int16"},
      {"i32", "torch.int32"},
      {"i64", "torch.int64"},
      {"u8", "torch.uint8"},
      {"u16", "torch.uint16"},
      {"u32", "torch.uint32"},
      {"u64", "torch.uint64"},
      {"fp16", "torch.float16"},
      {"bf16", "torch.bfloat16"},
      {"fp32", "torch.float32"},
      {"fp64", "torch.float64"},
      {"fp8e4nv", "torch.float8_e4m3fn"},
      {"fp8e5", "torch.float8_e5m2"},
      {"fp8e4b8", "torch.float8_e4m3fnuz"},
      {"fp8e5b16", "torch.float8_e5m2fnuz"}};
  if (tritonType.size() < 2 || tritonType[0] != '*')
    return "";
  auto it = kTorchNames.find(tritonType.substr(1));
  return it == kTorchNames.end() ? "" : it->second;
}

Expected<TritonCacheImport>
importTritonAutotuneEntries(const std::vector<TritonCacheEntry> &entries,
                            const nlohmann::json &manifest,
                            const TritonCacheImportOptions &options) {
  auto kernel = libraryKernel(manifest, options);
  if (!kernel)
    return kernel.takeError();
  TritonCacheImport out;
  Importer importer(*kernel, out);
  const std::string function = kernel->function.substr(0, kFunctionNameLimit);
  for (const TritonCacheEntry &entry : entries) {
    // A directory of Triton's cache holds every function's files: the others are not ours.
    if (!entry.function.empty() && entry.function != function)
      continue;
    ++out.filesRead;
    if (Status status = importer.add(entry); !status)
      return status.takeError();
  }
  if (importer.shapes().empty()) {
    Diagnostic diag = makeError(
        ExitCode::UsageError,
        out.filesRead == 0
            ? "no autotune cache file of the function '" + function + "' (kernel '" + kernel->name +
                  "'): Triton names them " + function + kTritonAutotuneSuffix
            : "nothing to import for kernel '" + kernel->name + "' from " +
                  std::to_string(out.filesRead) + " files of function '" + function + "'");
    diag.notes = out.warnings;
    return diag;
  }
  std::sort(importer.shapes().begin(), importer.shapes().end(),
            [](const TunedShape &a, const TunedShape &b) { return a.key < b.key; });
  TunedTarget target;
  target.target = options.target;
  target.device = options.device;
  target.tritonVersion = kernel->tritonVersion;
  target.library = kernel->library;
  target.libraryHash = options.libraryHash;
  target.source = kTritonCacheSource;
  target.method = {{"statistic", "median"},
                   {"benchmarker", "Triton's autotuner (triton.testing.do_bench unless the "
                                   "decorator passed its own do_bench)"}};
  target.shapes = std::move(importer.shapes());
  TunedKernel tuned;
  tuned.kernel = kernel->name;
  for (const KeyName &name : kernel->key)
    if (name.runtime)
      tuned.key.push_back(name.name);
  tuned.targets.push_back(std::move(target));
  out.table.kernels.push_back(std::move(tuned));
  return out;
}

Expected<TritonCacheImport> importTritonAutotuneCache(const std::vector<std::string> &paths,
                                                      const nlohmann::json &manifest,
                                                      const TritonCacheImportOptions &options) {
  auto kernel = libraryKernel(manifest, options);
  if (!kernel)
    return kernel.takeError();
  auto files = findTritonAutotuneCacheFiles(paths);
  if (!files)
    return files.takeError();
  // Only the kernel's function's files are read: a whole cache directory holds every
  // function's, and none of the others' defects is this import's business.
  const std::string function = kernel->function.substr(0, kFunctionNameLimit);
  std::vector<TritonCacheEntry> entries;
  for (const std::string &file : *files) {
    std::string name = std::filesystem::path(file).filename().string();
    if (name.ends_with(kTritonAutotuneSuffix) && name != function + kTritonAutotuneSuffix)
      continue;
    auto entry = readTritonAutotuneCache(file);
    if (!entry)
      return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  return importTritonAutotuneEntries(entries, manifest, options);
}

} // namespace tta
