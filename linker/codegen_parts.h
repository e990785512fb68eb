// The pieces generateSources() (codegen.h) puts together; split so each file is one output.
#pragma once

#include "linker/codegen.h"
#include "linker/codegen_plan.h"
#include "linker/grid_codegen.h"

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace tta::link {

inline bool isPointer(const CParam &param) { return !param.cType.empty() && param.cType.back() == '*'; }

inline bool isTensorPart(const CParam &param) { return param.tensorPart != CParam::TensorPart::None; }

/// Indices (into Kernel::cParams) of each host tensor descriptor's base parameter, in order.
inline std::vector<std::size_t> tensorBases(const Kernel &kernel) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p)
    if (kernel.cParams[p].tensorPart == CParam::TensorPart::Base)
      out.push_back(p);
  return out;
}


/// What the dispatchers call, so that <lib>.c defines only those helpers.
struct DispatcherNeeds {
  GridHelpers grid;
  std::set<std::string> heuristicHelpers;   ///< helper functions heuristic tests call
  bool invalid = false; ///< tta_invalid()
  bool launch = false;  ///< tta_launch()
  bool launchTensors = false;  ///< tta_launch_tensors()
  bool launchAt = false;       ///< tta_launch_at(): a tuned kernel's, with the target query's place
  bool launchTensorsAt = false; ///< tta_launch_tensors_at()
};


/// The dispatcher of kernel \p k (codegen_dispatcher.cpp): tta_<kernel>_dispatch(), noting in
/// \p used the helpers it calls.
void writeDispatcher(std::ostream &out, const Library &library, const CodegenPlan &plan,
                     std::size_t k, DispatcherNeeds &used);

/// <lib>.h (docs/generated-api.md).
std::string generateHeader(const Library &library, const CodegenPlan &plan);
/// <lib>.c: the runtime's descriptor tables and one dispatcher per kernel.
std::string generateSource(const Library &library, const CodegenPlan &plan, const ImageBlob &blob);
/// <lib>.images.S: the blob under the hidden symbol blobSymbol(library).
std::string generateAssembly(const Library &library, const CodegenOptions &options);

/// <api>_select_config's parameters: the target, then the runtime parameters.
std::vector<std::string> selectConfigParameters(const Kernel &kernel, const KernelPlan &plan);
/// Tuned dispatch (codegen_tuning.cpp): whether any kernel has a tuning; tta_snap(); a tuned
/// kernel's tables and tta_<K>_tuned_config(target, key...); <api>_select_config() (every
/// kernel); the arguments of a call of tta_<K>_tuned_config: \p target, then each key value.
bool anyTuned(const Library &library);
void writeSnapHelper(std::ostream &out);
void writeTunedConfig(std::ostream &out, const Kernel &kernel, const KernelPlan &kp);
void writeSelectConfig(std::ostream &out, const Kernel &kernel, const KernelPlan &kp);
std::vector<std::string> tunedConfigCall(const Kernel &kernel, const KernelPlan &kp,
                                         const std::string &target);

/// "<prefix>_tta_blob".
std::string blobSymbol(const Library &library);
/// "<prefix>.h" include guard: TRITON_AOT_LIB_<NAME>_H with every non-alphanumeric byte as "_".
std::string includeGuard(const Library &library);

/// "const void *x", "int32_t n".
std::string cDeclaration(const std::string &type, const std::string &name);
/// head + open + items joined by ", " + close + tail, broken after commas so no line passes
/// 100 columns; continuation lines line up after \p open (or indent 4 when that is far right).
std::string wrapList(const std::string &head, const std::string &open,
                     const std::vector<std::string> &items, const std::string &close,
                     const std::string &tail);
/// wrapList with parentheses; "(void)" when there are no items.
std::string wrapCall(const std::string &head, const std::vector<std::string> &items,
                     const std::string &tail);
/// \p text as adjacent string literals, broken at spaces: the first starts at \p column, the
/// others on new lines indented by \p indent; \p reserve columns stay free after each for
/// what follows the literal (");").
std::string wrappedStringLiteral(const std::string &text, std::size_t column, std::size_t indent,
                                 std::size_t reserve);
/// The public functions' parameter declarations: stream, then (with \p withConfig) config, then
/// (for a kernel without grid expressions) grid_x, grid_y, grid_z, then the runtime parameters.
std::vector<std::string> apiParameters(const Kernel &kernel, const KernelPlan &plan,
                                       bool withConfig);

} // namespace tta::link
