// Turns Triton's autotune cache (triton_cache_file.h) into a tuning table (docs/tuning.md), so a
// team that already tunes in its PyTorch test suite reuses that work: for one kernel of a built
// library and one target, each cached tuning key becomes a tuned shape, each cached config the
// library config with the same values.
#pragma once

#include "contract/diagnostic.h"
#include "contract/tuning_table.h"
#include "tuner/import/triton_cache_file.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tta {

inline constexpr const char *kTritonCacheSource = "triton-autotune-cache";

struct TritonCacheImportOptions {
  std::string kernel; ///< the kernel's name in the library (kernels[].name)
  std::string target; ///< the target the cache was tuned on ("cuda:90a"): not in the files
  /// The dtypes an entry's key must end with ("torch.float16", ...), one per tensor argument in
  /// call order. Empty: those of the kernel's pointer parameters, in order, where Triton's
  /// types map to torch's (*fp16 -> torch.float16); else entries must all have the same ones.
  std::vector<std::string> dtypes;
  std::string device;      ///< the GPU it ran on, if the caller knows (the files do not say)
  std::string libraryHash; ///< sha256 of the manifest's text
};

struct TritonCacheImport {
  TuningTable table;                 ///< one kernel, one target
  std::vector<std::string> warnings; ///< one line each: a skipped entry or config, and why
  std::size_t filesRead = 0;         ///< entries of the kernel's function that were read
};

/// Imports \p entries for the kernel and target of \p options from the library manifest
/// \p manifest (schema "triton-aot-library"). Per entry:
/// - of another function (the file's name; "" matches any): ignored;
/// - key: the autotune key's values, then dtype strings. Fewer values than key names, or a
///   trailing value that is not a string: error naming the file. Other dtypes than the
///   kernel's: skipped with a warning (Triton tuned another signature). A key name that is a
///   constexpr of the library's kernel (or ":1" in it) whose value differs: skipped (another
///   specialization); the rest, integer runtime parameters, are the table's key;
/// - each config: the library config with the same kwargs (as constexprs or options),
///   num_warps, num_stages, num_ctas and maxnreg; none: skipped with a warning. Its median,
///   ms -> us; null where Triton recorded inf or the library refuses the config on the target;
/// - best: Triton's choice (the smallest [median, p20, p80], the first on a tie) among the
///   configs kept.
/// Errors also: the kernel is not in the manifest or not autotuned, a key name that is not an
/// integer parameter, one key in two files (pass one: they come from different Triton
/// versions, environments or config lists), nothing left to import (the reasons as notes).
Expected<TritonCacheImport>
importTritonAutotuneEntries(const std::vector<TritonCacheEntry> &entries,
                            const nlohmann::json &manifest,
                            const TritonCacheImportOptions &options);

/// Finds (findTritonAutotuneCacheFiles), reads and imports the files and directories \p paths.
Expected<TritonCacheImport> importTritonAutotuneCache(const std::vector<std::string> &paths,
                                                      const nlohmann::json &manifest,
                                                      const TritonCacheImportOptions &options);

} // namespace tta
