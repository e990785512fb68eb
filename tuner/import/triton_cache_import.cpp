#include "tuner/import/triton_cache_import.h"

#include "contract/spelling.h"
#include "tuner/import/library_kernel.h"

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

/// Triton's Config and a library config agree on every value Triton's Config.all_kwargs() passes
/// to the compile: the kwargs (the library keeps them as constexprs, or as options such as
/// waves_per_eu), num_warps, num_stages, num_ctas (1 unless set) and maxnreg.
bool sameConfig(const TritonCachedConfig &cached, const LibraryConfig &library) {
  if (cached.irOverride)
    return false; // a config that swaps the kernel's IR for a file is not the library's kernel
  for (const auto &[name, value] : cached.kwargs.items()) {
    const nlohmann::json &where =
        library.constexprs.contains(name) ? library.constexprs : library.options;
    auto held = where.find(name);
    if (held == where.end() || *held != value)
      return false;
  }
  return library.numWarps == cached.numWarps && library.numStages == cached.numStages &&
         library.numCtas == cached.numCtas &&
         (cached.maxnreg ? library.maxnreg == *cached.maxnreg : library.maxnreg.is_null());
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
                                     joinNames(names) +
                                     "): expected a value per name, then dtype strings");
  }

  std::optional<Status> checkDtypes(const TritonCacheEntry &entry,
                                    const std::vector<std::string> &dtypes) {
    if (!kernel_.dtypes.empty()) {
      if (dtypes == kernel_.dtypes)
        return std::nullopt;
      warn(entry.file + ": skipped: tuned for the dtypes (" + joinNames(dtypes) +
           "), the library's kernel '" + kernel_.name + "' takes (" + joinNames(kernel_.dtypes) + ")");
      return ok();
    }
    if (firstDtypesFile_.empty()) {
      firstDtypes_ = dtypes;
      firstDtypesFile_ = entry.file;
    } else if (dtypes != firstDtypes_) {
      return Status(fileError(entry.file, "tuned for the dtypes (" + joinNames(dtypes) + "), " +
                                              firstDtypesFile_ + " for (" + joinNames(firstDtypes_) +
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

Expected<TritonCacheImport>
importTritonAutotuneEntries(const std::vector<TritonCacheEntry> &entries,
                            const nlohmann::json &manifest,
                            const TritonCacheImportOptions &options) {
  auto kernel = readLibraryKernel(manifest, options.kernel, options.target, options.dtypes);
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
  auto kernel = readLibraryKernel(manifest, options.kernel, options.target, options.dtypes);
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