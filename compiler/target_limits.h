// What a target can build and run, for configs that some targets of a kernel cannot: the
// threads, launches and options a config needs that a target lacks, checked to leave the config
// out for that target (with a warning and a record) instead of failing the build. The limits
// themselves are the contract's (contract/target_limits.h), which the linker holds every variant
// to.
#pragma once

#include "compiler/config.h"
#include "contract/target.h"
#include "contract/target_limits.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tta {

/// Why \p target cannot launch blocks of \p numWarps warps ("num_warps=32 makes blocks of 2048
/// threads (64 a wavefront on gfx942), more than the 1024 a block may have"); "" when they fit.
/// 1024 threads on every CUDA capability and every AMD GPU: num_warps up to 32 on CUDA and RDNA
/// (32-thread warps), up to 16 on CDNA/GCN (64-thread wavefronts).
std::string threadsRefusal(const Target &target, int numWarps);

/// Why \p target cannot build or run \p config at all, known before compiling: archs= leaves
/// it out; num_warps above the target's threads per block; num_ctas > 1 (clusters) or
/// launch_pdl=True before sm_90 and on HIP. "" when nothing is known against it.
std::string refusalBeforeCompiling(const Config &config, const Target &target);

/// Why \p target cannot run what was compiled: \p sharedBytes (dynamic plus static) above the
/// target's limit (sharedMemoryRefusal()). "" when it fits.
std::string refusalOfCompiled(const Target &target, std::uint64_t sharedBytes);

} // namespace tta
