// What a target can build and run, for configs that some targets of a kernel cannot: the
// shared memory and threads a block may use per target, the launches and options a backend has,
// and the checks that leave a config out for a target (with a warning and a record) instead of
// failing the build.
#pragma once

#include "compiler/config.h"
#include "contract/target.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tta {

/// Bytes of shared memory (LDS on AMD) one block may use on \p target, with the opt-in where
/// there is one: 227 KiB on sm_90/100/110, 327 KiB on sm_107, 163 KiB on sm_80, 99 KiB on
/// sm_86/89/120, 64 KiB on gfx942, 160 KiB on gfx950, 320 KiB on gfx1250. Every target the
/// frontend builds has one; none for another (the check is then left to the device).
std::optional<std::uint64_t> sharedMemoryLimit(const Target &target);

/// Threads one block may have: 1024 on every CUDA capability and every AMD GPU (HIP's
/// maxThreadsPerBlock; LLVM's AMDGPU flat work-group size is at most 1024), so num_warps up to
/// 32 on CUDA and RDNA (32-thread warps), up to 16 on CDNA/GCN (64-thread wavefronts).
inline constexpr int kMaxThreadsPerBlock = 1024;

/// Why \p target cannot launch blocks of \p numWarps warps ("num_warps=32 makes blocks of 2048
/// threads (64 a wavefront on gfx942), more than the 1024 a block may have"); "" when they fit.
std::string threadsRefusal(const Target &target, int numWarps);

/// Why \p target cannot build or run \p config at all, known before compiling: archs= leaves
/// it out; num_warps above the target's threads per block; num_ctas > 1 (clusters) or
/// launch_pdl=True before sm_90 and on HIP. "" when nothing is known against it.
std::string refusalBeforeCompiling(const Config &config, const Target &target);

/// Why \p target cannot run what was compiled: \p sharedBytes (dynamic plus static) above the
/// target's limit. "" when it fits.
std::string refusalOfCompiled(const Target &target, std::uint64_t sharedBytes);

} // namespace tta
