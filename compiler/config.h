// A config: compile options and constexpr values for one variant, written as
// "BLOCK=1024 num_warps=4 num_stages=3" (the CONFIG syntax of triton_add_kernel()).
// Keys that are Triton options are options; every other key is a constexpr value for a
// signature entry that names it.
#pragma once

#include "compiler/signature.h"
#include "contract/diagnostic.h"
#include "contract/target.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  /// "archs=90a,100a,gfx942": the targets the config is built for (empty: every target). Not a
  /// Triton option: the compiler leaves the config out for other targets, with a record.
  std::vector<std::string> archs;
  /// A @triton.autotune config with a pre_hook: its place in the decorator's list, so that the
  /// frontend runs the hook at build time (it may only set tensor descriptors' block shapes);
  /// -1: none. Not spelled in the config grammar.
  int preHook = -1;

  bool operator==(const Config &) const = default;
};

/// Option keys a config may set besides constexprs.
bool isTritonOption(std::string_view key);

/// The launch options a @triton.heuristics entry may set in place of a parameter (Triton's
/// Heuristics.run puts its value into the launch's keywords, where JITFunction.run takes the
/// backend's options from): num_warps, num_stages, num_ctas, maxnreg.
bool isLaunchOptionHeuristic(std::string_view key);
/// Sets launch option \p key (isLaunchOptionHeuristic) of \p config to \p value, checked as a
/// config's KEY=VALUE is; returns why the value is wrong, or "".
std::string setLaunchOption(std::string_view key, std::int64_t value, Config &config);

/// Does Triton's \p backend have the option \p key (a field of its CUDAOptions / HIPOptions)?
/// The other backend's options are ignored there, as Triton's own launch ignores them (its
/// parse_options keeps only its fields): maxnreg, enable_reflect_ftz and ptx_options on HIP;
/// waves_per_eu, matrix_instr_nonkdim, kpack, schedule_hint and allow_flush_denorm on CUDA.
/// launch_pdl=True is the exception: it asks for a launch HIP does not have, so the config is
/// left out for HIP targets (compiler/target_limits.h).
bool backendHasOption(Backend backend, std::string_view key);

/// Does \p archs (a config's archs=) include the target arch \p arch ("90a", "80", "gfx942",
/// "gfx90a:xnack-")? "90" names "90a" too (Triton builds 90 only as 90a); a HIP processor names
/// its target IDs. Empty: every target.
bool archsInclude(const std::vector<std::string> &archs, const std::string &arch);

/// Parses "KEY=VALUE KEY=VALUE ...". Values use the constexpr grammar.
Expected<Config> parseConfig(std::string_view text);
/// Canonical "KEY=VALUE" list: name, options, then constexprs, each sorted.
std::string formatConfig(const Config &config);

/// Replaces every Name entry of \p signature with its value from \p config: its constexpr, else
/// the option of that name the config sets (num_stages=4 gives a `num_stages` entry 4, as
/// Triton's launch does). A name the config gives no value stays a name: the kernel's
/// parameters decide it (resolveKernelNames, compiler/frontend_client.h: a heuristic's value or
/// the default). Error: a config constexpr that no entry uses.
Expected<Signature> resolveSignature(const Signature &signature, const Config &config);

} // namespace tta
