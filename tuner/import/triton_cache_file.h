// One file of Triton's autotune disk cache, as its autotuner writes it with
// @triton.autotune(..., cache_results=True) or TRITON_CACHE_AUTOTUNING=1 (Autotuner.
// check_disk_cache in triton/runtime/autotuner.py; the same format in every Triton from 3.5.1
// to 3.9.0). Where and what, by those sources:
//   $TRITON_CACHE_DIR (default ~/.triton/cache) / <base32 of a sha256> /
//   <fn.__name__[:150]>.autotune.json
//   {"key": [<values of the key names, in the decorator's order>, <str(arg.dtype) of each
//            argument with a dtype, in call order: "torch.float16", ...>],
//    "configs_timings": [[<Config.__dict__: {"kwargs": {...}, "num_warps": 4, "num_ctas": 1,
//                          "num_stages": 3, "maxnreg": null, "pre_hook": null,
//                          "ir_override": null}>, [<median ms>, <p20 ms>, <p80 ms>]], ...]}
// Lines, in the installed wheels' triton/runtime/autotuner.py (3.5.1 / 3.6.0 and 3.7.x / 3.8.0 /
// 3.9.0): check_disk_cache at 168 / 170 / 175 / 190: the file name f"{fn.__name__[:150]}
// .autotune.json" at 190 / 192 / 197 / 212, cache.put(json.dumps({"key": tuning_key,
// "configs_timings": [(config.__dict__, timings) ...]})) at 201 / 203 / 208 / 223; the key built
// in run() at 216-219 / 218-221 / 223-226 / 238-241; the timings from _bench's
// do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8)) at 162 / 164 / 169 / 184, or
// [inf, inf, inf] on OutOfResources, CompileTimeAssertionFailure or PTXASError at 166 / 168 /
// 173 / 188. The directory: runtime/cache.py get_cache_manager(key) -> FileCacheManager(
// _base32(key)) under knobs.cache.dir. tests/data/triton_autotune_cache/generate.py writes the
// test fixtures by calling check_disk_cache itself.
// The hash covers Triton's own key, the GPU backend, the function's source, the environment,
// the tuning key and the configs; it cannot be inverted, so the GPU a file was tuned on is not
// in it, and the function is known only by the file's name.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tta {

/// The suffix of every autotune cache file: "<function>.autotune.json".
inline constexpr const char *kTritonAutotuneSuffix = ".autotune.json";

/// One config Triton timed for one key.
struct TritonCachedConfig {
  nlohmann::json kwargs = nlohmann::json::object(); ///< the config's meta-parameters
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  std::optional<int> maxnreg;
  bool irOverride = false; ///< the config replaces the kernel's IR with a file
  /// Median milliseconds: the first of do_bench's quantiles (0.5, 0.2, 0.8), or the one number a
  /// custom do_bench returned. nullopt: Triton recorded inf (the config failed to compile or
  /// ran out of resources) or NaN.
  std::optional<double> medianMs;
  std::vector<double> timesMs; ///< every figure, for Triton's order of configs (inf kept)
};

/// What one cache file holds.
struct TritonCacheEntry {
  std::string file;     ///< as given, for messages
  std::string function; ///< from the file name (Triton cuts it at 150 characters)
  nlohmann::json key;   ///< the "key" array as written
  std::vector<TritonCachedConfig> configs; ///< in the file's order (Triton's config order)
};

/// Parses the text of one cache file named \p file. Python's json.dumps writes inf as
/// Infinity (and NaN), which JSON lacks: outside strings both read as a failed config. Errors
/// name the file and the member ("configs_timings[2][0].num_warps: expected an integer").
Expected<TritonCacheEntry> parseTritonAutotuneCache(const std::string &text,
                                                    const std::string &file);

/// Reads and parses one file.
Expected<TritonCacheEntry> readTritonAutotuneCache(const std::string &file);

/// The cache files among \p paths: a file as given (whatever its name), a directory searched
/// recursively for "*.autotune.json" (Triton's whole cache directory will do). Sorted per
/// directory so the result does not depend on the file system's order. Errors: a path that
/// does not exist, a directory that cannot be read.
Expected<std::vector<std::string>>
findTritonAutotuneCacheFiles(const std::vector<std::string> &paths);

} // namespace tta
