#include "compiler/target_limits.h"

namespace tta {

std::string refusalBeforeCompiling(const Config &config, const Target &target) {
  if (!archsInclude(config.archs, target.arch)) {
    std::string archs;
    for (const std::string &arch : config.archs)
      archs += (archs.empty() ? "" : ",") + arch;
    return "the config is limited to archs=" + archs;
  }
  if (target.backend != Backend::Cuda || target.capability >= 90)
    return {};
  if (config.numCtas && *config.numCtas > 1)
    return "num_ctas=" + std::to_string(*config.numCtas) +
           " needs thread block clusters (sm_90 or newer)";
  if (auto pdl = config.options.find("launch_pdl");
      pdl != config.options.end() && pdl->second.kind == ConstexprValue::Kind::Bool &&
      pdl->second.intValue != 0)
    return "launch_pdl=True needs programmatic dependent launch (sm_90 or newer)";
  return {};
}

std::string refusalOfCompiled(const Target &target, std::uint64_t sharedBytes) {
  return sharedMemoryRefusal(target, sharedBytes);
}

} // namespace tta
