// What a target can build and run, for configs that some targets of a kernel cannot: the
// checks that leave a config out for a target (with a warning and a record) instead of failing
// the build. The limits themselves are the contract's (contract/target_limits.h), which the
// linker holds every variant to.
#pragma once

#include "compiler/config.h"
#include "contract/target.h"
#include "contract/target_limits.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tta {

/// Why \p target cannot build or run \p config at all, known before compiling: archs= leaves
/// it out, num_ctas > 1 or launch_pdl before sm_90. "" when nothing is known against it.
std::string refusalBeforeCompiling(const Config &config, const Target &target);

/// Why \p target cannot run what was compiled: \p sharedBytes (dynamic plus static) above the
/// target's limit (sharedMemoryRefusal()). "" when it fits.
std::string refusalOfCompiled(const Target &target, std::uint64_t sharedBytes);

} // namespace tta
