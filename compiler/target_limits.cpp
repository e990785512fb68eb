#include "compiler/target_limits.h"

namespace tta {

std::string threadsRefusal(const Target &target, int numWarps) {
  const long long threads = static_cast<long long>(numWarps) * target.warpSize;
  const int most = launchLimits(target).threadsPerBlock;
  if (threads <= most)
    return {};
  const bool cuda = target.backend == Backend::Cuda;
  return "num_warps=" + std::to_string(numWarps) + " makes blocks of " + std::to_string(threads) +
         " threads (" + std::to_string(target.warpSize) + (cuda ? " a warp" : " a wavefront") +
         " on " + deviceName(target) + "), more than the " + std::to_string(most) +
         " a block may have";
}

std::string refusalBeforeCompiling(const Config &config, const Target &target) {
  if (!archsInclude(config.archs, target.arch)) {
    std::string archs;
    for (const std::string &arch : config.archs)
      archs += (archs.empty() ? "" : ",") + arch;
    return "the config is limited to archs=" + archs;
  }
  if (config.numWarps)
    if (std::string why = threadsRefusal(target, *config.numWarps); !why.empty())
      return why;
  const bool hip = target.backend == Backend::Hip;
  if (!hip && target.capability >= 90)
    return {};
  // Clusters and programmatic dependent launch: CUDA from sm_90 on. Triton refuses num_ctas > 1
  // on most AMD GPUs itself; where it builds one (gfx1250), the runtime has no HIP cluster launch.
  const char *where =
      hip ? ", which triton-aot launches on CUDA only (sm_90 or newer)" : " (sm_90 or newer)";
  if (config.numCtas && *config.numCtas > 1)
    return "num_ctas=" + std::to_string(*config.numCtas) + " needs thread block clusters" + where;
  // Triton's HIP backend has no launch_pdl option at all: a config asking for it is CUDA's (its
  // kernel waits with tl.extra.cuda.gdc_wait()), as one before sm_90 is.
  if (auto pdl = config.options.find("launch_pdl");
      pdl != config.options.end() && pdl->second.kind == ConstexprValue::Kind::Bool &&
      pdl->second.intValue != 0)
    return hip ? "launch_pdl=True needs programmatic dependent launch, which HIP does not have "
                 "(CUDA sm_90 or newer)"
               : "launch_pdl=True needs programmatic dependent launch (sm_90 or newer)";
  return {};
}

std::string refusalOfCompiled(const Target &target, std::uint64_t sharedBytes) {
  return sharedMemoryRefusal(target, sharedBytes);
}

} // namespace tta
