// Output names: deterministic, readable, and distinct across kernels, targets and variants
// (upstream's hash ignores the target, so its sm_80 and sm_90 outputs collide).
#pragma once

#include "compiler/config.h"
#include "compiler/signature.h"
#include "contract/target.h"

#include <filesystem>
#include <string>

namespace tta {

/// 12 hex digits of SHA-256 over what makes a variant (function, source kind, resolved
/// signature, config with defaults applied). The source's contents are left out on purpose:
/// names stay stable while a kernel is edited, so build systems see the same outputs.
std::string variantDigest(const std::string &function, const std::string &sourceKind,
                          const Signature &resolved, const Config &config);

/// "<name>.<target tag>.<digest>", e.g. "add.sm90a.3f2a9c0d11b7": the variant's id.
std::string variantId(const std::string &name, const Target &target, const std::string &digest);

struct OutputPaths {
  std::filesystem::path image;         ///< <stem>.<tag>.<digest>.cubin | .hsaco
  std::filesystem::path ptx;           ///< <stem>.<tag>.<digest>.ptx (CUDA only, else empty)
  std::filesystem::path metadata;      ///< <stem>.<tag>.<digest>.json
};

OutputPaths outputPaths(const std::filesystem::path &stem, const Target &target,
                        const std::string &digest);

} // namespace tta
