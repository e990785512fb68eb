#include "contract/target_limits.h"

#include <map>

namespace tta {

namespace {

// The most any device of a backend has, for targets the table below does not know: sm_107's
// 327 KiB; gfx1250's 320 KiB.
constexpr std::uint64_t kCudaMostShared = 327 * 1024;
constexpr std::uint64_t kHipMostShared = 320 * 1024;

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

LaunchLimits launchLimits(const Target &target) {
  const bool cuda = target.backend == Backend::Cuda;
  LaunchLimits limits;
  limits.sharedBytes = sharedMemoryLimit(target).value_or(cuda ? kCudaMostShared : kHipMostShared);
  // 1024 threads per block on every NVIDIA GPU since Fermi, and per workgroup on AMD's.
  limits.threadsPerBlock = 1024;
  // Thread block clusters start at sm_90, 16 CTAs at most (the non-portable size; 8 portable).
  // Triton builds multi-CTA kernels for gfx1250, but the runtime has no HIP cluster launch, and
  // HIP has no programmatic dependent launch: the compiler leaves such configs out there.
  limits.clusterSize = cuda && target.capability >= 90 ? 16 : 1;
  limits.pdl = cuda && target.capability >= 90;
  // Tensor memory: 512 columns per SM on sm_100 and the targets of its family up to sm_110;
  // sm_120 and every earlier GPU have none.
  limits.tensorMemoryColumns = cuda && target.capability >= 100 && target.capability < 120 ? 512 : 0;
  // Scratch is allocated per program, times the grid: one program's cannot exceed a device's
  // memory, and no GPU has a TiB (the largest hold 288 GB).
  limits.scratchBytes = std::uint64_t{1} << 40;
  // Triton aligns scratch to its types (128 bytes at most); a page is more than any needs.
  limits.scratchAlign = 4096;
  return limits;
}

std::string deviceName(const Target &target) {
  return target.backend == Backend::Cuda ? "sm_" + target.arch : target.processor;
}

std::string sharedMemoryRefusal(const Target &target, std::uint64_t sharedBytes) {
  const std::uint64_t limit = launchLimits(target).sharedBytes;
  if (sharedBytes <= limit)
    return {};
  return "it needs " + std::to_string(sharedBytes) + " bytes of shared memory, more than the " +
         kib(limit) + " a block has on " + deviceName(target);
}

} // namespace tta
