// What a device of a target can launch, in one place: the per-target limits that the metadata
// reader holds every launch fact to (so triton-aot-ld refuses a variant no device of its target
// could run), and that the compiler uses to leave a config out for a target it does not fit.
#pragma once

#include "contract/target.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tta {

/// Bytes of shared memory (LDS on AMD) one block may use on \p target, with the opt-in where
/// there is one: 227 KiB on sm_90/100/110, 327 KiB on sm_107, 163 KiB on sm_80, 99 KiB on
/// sm_86/89/120, 64 KiB on gfx942, 160 KiB on gfx950, 320 KiB on gfx1250. Every target the
/// frontend builds has one; none for another.
std::optional<std::uint64_t> sharedMemoryLimit(const Target &target);

/// The most any device of \p target can launch with. Where the tables do not know the target,
/// the most any device of its backend has (a variant beyond that runs nowhere).
struct LaunchLimits {
  std::uint64_t sharedBytes = 0;      ///< per block, dynamic plus static, with the opt-in
  int threadsPerBlock = 1024;         ///< num_warps * warp_size
  int clusterSize = 1;                ///< CTAs per cluster (num_ctas, cluster_dims' product)
  bool pdl = false;                   ///< programmatic dependent launch
  std::uint64_t tensorMemoryColumns = 0;   ///< tmem_size: 512 on sm_100 and its family
  std::uint64_t scratchBytes = 0;     ///< global or profile scratch per program (CTA)
  std::uint64_t scratchAlign = 0;     ///< the largest scratch alignment
};

LaunchLimits launchLimits(const Target &target);

/// "sm_90a", "gfx942": the target as messages about its devices name it.
std::string deviceName(const Target &target);

/// Why \p target cannot run a block of \p sharedBytes (dynamic plus static) shared memory ("it
/// needs 300000 bytes of shared memory, more than the 227 KiB a block has on sm_90a"); "" when
/// it fits.
std::string sharedMemoryRefusal(const Target &target, std::uint64_t sharedBytes);

} // namespace tta
