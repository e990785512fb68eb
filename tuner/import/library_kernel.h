// A kernel of a library manifest (<lib>.json, docs/linker.md), as far as importing tuning
// results for it needs: its autotune key mapped onto the tuning table, the dtypes Triton's
// autotuner keys its tensors by, and each config's values and whether a target builds it.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tta {

/// A library config, as far as matching a cached one needs.
struct LibraryConfig {
  std::string name;
  nlohmann::json constexprs = nlohmann::json::object(); ///< always an object
  nlohmann::json options = nlohmann::json::object();    ///< always an object
  nlohmann::json numWarps;
  nlohmann::json numStages;
  nlohmann::json numCtas = 1; ///< options.num_ctas, else Triton's default
  nlohmann::json maxnreg;     ///< options.maxnreg, else null
  bool refused = false;       ///< not built for the target in any variant
};

/// How the kernel's autotune key names map onto the table: a runtime integer parameter becomes
/// a key dimension; a constexpr (or ":1") parameter is fixed in the library, so an entry tuned
/// for another value belongs to another specialization.
struct KeyName {
  std::string name;
  bool runtime = false;
  nlohmann::json fixedValue; ///< when not runtime
};

/// One kernel of the manifest.
struct LibraryKernel {
  std::string name;                ///< kernels[].name, the entry point
  std::string function;            ///< the @jit function, whose name Triton's cache files carry
  std::string library;             ///< the manifest's name
  std::string tritonVersion;       ///< of the target's functions, else the manifest's newest
  std::vector<KeyName> key;        ///< the autotune key, in the decorator's order
  std::vector<std::string> dtypes; ///< expected trailing key strings; empty: unknown
  std::vector<LibraryConfig> configs;
};

/// The kernel \p kernel of \p manifest (schema "triton-aot-library") for \p target. \p dtypes,
/// when not empty, replaces the dtypes read from the pointer parameters. Errors (messages start
/// "manifest: "): another schema or a newer version, no such kernel, not built for the target,
/// not autotuned, a key name that is not an integer parameter or a constexpr without a value.
Expected<LibraryKernel> readLibraryKernel(const nlohmann::json &manifest, const std::string &kernel,
                                          const std::string &target,
                                          const std::vector<std::string> &dtypes);

/// torch's name for a pointer parameter's Triton type ("*fp16" -> "torch.float16"); "" where
/// there is none.
std::string torchDtypeOfPointer(const std::string &tritonType);

} // namespace tta
