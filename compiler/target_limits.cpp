#include "compiler/target_limits.h"

#include <map>

namespace tta {

namespace {

std::string kib(std::uint64_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KiB" : std::to_string(bytes) + " bytes";
}

} // namespace

std::optional<std::uint64_t> sharedMemoryLimit(const Target &target) {
  // CUDA: the per-block maximum with the opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin), by
  // capability, from the CUDA C++ Programming Guide's "Technical Specifications per Compute
  // Capability" table: 64 KB on 7.5; 163 KB on 8.0 and 8.7; 99 KB on 8.6, 8.8, 8.9 and 12.x;
  // 227 KB on 9.0, 10.x and 11.0 (228 KB per SM, less the 1 KB the driver keeps per block).
  // 10.7 (Rubin) is not in the table yet: it has 328 KB per SM (triton-lang/triton#10936,
  // "Increase SMEM capacity per SM to 328KB"), which a block uses beyond the opt-in through the
  // oversized mode (CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK, as Triton 3.9's
  // driver and runtime-shim/src/library_cuda.c read it): 327 KB, the same 1 KB kept per block.
  // AMD: LDS per workgroup, LLVM's AMDGPU getAddressableLocalMemorySize(): 64 KiB from gfx7
  // on, 160 KiB on gfx950, 320 KiB on gfx1250 (also triton-lang/triton#8517).
  // tests/unit/target_limits_test.cpp checks every target the frontend builds has an entry.
  static const std::map<int, std::uint64_t> cuda = {
      {75, 64 * 1024},   {80, 163 * 1024},  {86, 99 * 1024},   {87, 163 * 1024},
      {88, 99 * 1024},   {89, 99 * 1024},   {90, 227 * 1024},  {100, 227 * 1024},
      {101, 227 * 1024}, {103, 227 * 1024}, {107, 327 * 1024}, {110, 227 * 1024},
      {120, 99 * 1024},  {121, 99 * 1024}};
  static const std::map<std::string, std::uint64_t> hip = {
      {"gfx908", 64 * 1024},  {"gfx90a", 64 * 1024},  {"gfx942", 64 * 1024},
      {"gfx950", 160 * 1024}, {"gfx1030", 64 * 1024}, {"gfx1100", 64 * 1024},
      {"gfx1101", 64 * 1024}, {"gfx1102", 64 * 1024}, {"gfx1150", 64 * 1024},
      {"gfx1151", 64 * 1024}, {"gfx1200", 64 * 1024}, {"gfx1201", 64 * 1024},
      {"gfx1250", 320 * 1024}};
  if (target.backend == Backend::Cuda) {
    auto found = cuda.find(target.capability);
    return found == cuda.end() ? std::nullopt : std::optional(found->second);
  }
  auto found = hip.find(target.processor);
  return found == hip.end() ? std::nullopt : std::optional(found->second);
}

std::string threadsRefusal(const Target &target, int numWarps) {
  const long long threads = static_cast<long long>(numWarps) * target.warpSize;
  if (threads <= kMaxThreadsPerBlock)
    return {};
  const bool cuda = target.backend == Backend::Cuda;
  return "num_warps=" + std::to_string(numWarps) + " makes blocks of " + std::to_string(threads) +
         " threads (" + std::to_string(target.warpSize) + (cuda ? " a warp" : " a wavefront") +
         " on " + (cuda ? "sm_" + target.arch : target.processor) + "), more than the " +
         std::to_string(kMaxThreadsPerBlock) + " a block may have";
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
  std::optional<std::uint64_t> limit = sharedMemoryLimit(target);
  if (!limit || sharedBytes <= *limit)
    return {};
  return "it needs " + std::to_string(sharedBytes) + " bytes of shared memory, more than the " +
         kib(*limit) + " a block has on " +
         (target.backend == Backend::Cuda ? "sm_" + target.arch : target.processor);
}

} // namespace tta
