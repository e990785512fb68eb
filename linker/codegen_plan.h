// How a Library maps onto generated C, decided once so that <lib>.h and <lib>.c agree: the C
// names of parameters and dispatcher locals, the runtime's kernel table and the variant
// numbering.
//
// The runtime's triton_aot_kernel has one argument count, but a variant compiled with a ":1"
// parameter does not take that parameter. So a kernel whose variants pass different argument
// lists gets one runtime kernel entry per list ("entry" below); most kernels have exactly one.
#pragma once

#include "linker/link_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tta::link {

/// One triton_aot_kernel row: a kernel's variants that pass the same arguments.
struct RuntimeEntry {
  std::size_t kernel = 0;     ///< index in Library::kernels
  std::vector<bool> passed;   ///< per C parameter: passed to the GPU function
  std::uint32_t argCount = 0; ///< number of `true` in passed
  /// Its variants as (config, hint variant) indices, config-major; the row index is the
  /// variant number triton_aot_launch() gets, and the row of the functions table.
  std::vector<std::pair<std::size_t, std::size_t>> rows;
  std::uint32_t firstSlot = 0; ///< sum of the rows of the entries before it
  std::string argsName;        ///< the dispatcher's argument array for this entry
};

/// Where one hint variant of one config went.
struct VariantRef {
  std::size_t entry = 0;     ///< index in CodegenPlan::entries
  std::uint32_t variant = 0; ///< row in that entry
};

struct KernelPlan {
  std::string api;                 ///< "<prefix>_<kernel>": the public function's name
  std::string statics;             ///< "tta_<kernel>": prefix of the file-local names
  std::vector<std::string> params; ///< C names of Kernel::cParams in generated code
  /// Names of the dispatcher's own parameters and locals, none equal to a parameter's.
  std::string stream, config, grid, variant, entry, args;
  /// The target parameter of <api>_select_config() in the header ("target" may be a parameter's).
  std::string target;
  /// The caller's grid parameters (grid_x, grid_y, grid_z); set only for a kernel without grid
  /// expressions.
  std::string gridX, gridY, gridZ;
  std::vector<std::size_t> entries;              ///< its runtime entries, in table order
  std::vector<std::vector<VariantRef>> variants; ///< [config][hint variant]
  std::vector<std::uint32_t> targets; ///< Kernel::targets as CodegenPlan::targets indices
};

struct CodegenPlan {
  std::vector<Target> targets; ///< every kernel's targets, in order of first appearance
  std::vector<RuntimeEntry> entries;
  std::vector<KernelPlan> kernels; ///< parallel to Library::kernels
};

CodegenPlan planCodegen(const Library &library);

/// The name the runtime prints for a target: "sm_90a", "gfx90a:xnack-".
std::string targetDisplayName(const Target &target);

/// Whether a C parameter name would be shadowed by, or shadow, a name the generated files use
/// (a <stdint.h> type or macro, a runtime or tta_ name); such a parameter gets a trailing "_".
bool clashesWithGeneratedNames(const std::string &name);

} // namespace tta::link
