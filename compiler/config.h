// A config: compile options and constexpr values for one variant, written as
// "BLOCK=1024 num_warps=4 num_stages=3" (the CONFIG syntax of triton_add_kernel()).
// Keys that are Triton options are options; every other key is a constexpr value for a
// signature entry that names it.
#pragma once

#include "compiler/diagnostic.h"
#include "compiler/signature.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tta {

struct Config {
  std::string name;                                   ///< "name=..." or "" (then derived)
  std::optional<int> numWarps;                        ///< default: the backend's (4)
  std::optional<int> numStages;                       ///< default: the backend's (CUDA 3, HIP 2)
  std::optional<int> numCtas;
  std::optional<int> maxnreg;
  /// Other Triton options passed through as written (enable_fp_fusion, launch_pdl,
  /// launch_cooperative_grid, debug, waves_per_eu, matrix_instr_nonkdim, kpack ...).
  std::map<std::string, ConstexprValue> options;
  std::map<std::string, ConstexprValue> constexprs;   ///< the values of named signature entries

  bool operator==(const Config &) const = default;
};

/// Option keys a config may set besides constexprs.
bool isTritonOption(std::string_view key);

/// Parses "KEY=VALUE KEY=VALUE ...". Values use the constexpr grammar.
Expected<Config> parseConfig(std::string_view text);
/// Canonical "KEY=VALUE" list: name, options, then constexprs, each sorted.
std::string formatConfig(const Config &config);

/// Replaces every Name entry of \p signature with its value from \p config: its constexpr, else
/// the option of that name the config sets (num_stages=4 gives a `num_stages` entry 4, as
/// Triton's launch does). Errors: a name with no value ("signature entry 5 'BLOCK' has no
/// value: add BLOCK=<value> to the config"), and a config constexpr that no entry uses.
Expected<Signature> resolveSignature(const Signature &signature, const Config &config);

} // namespace tta
