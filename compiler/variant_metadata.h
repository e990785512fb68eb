// Builds one variant's metadata from the request, the frontend's answer and the image itself.
#pragma once

#include "compiler/compiler.h"
#include "compiler/naming.h"

#include <map>
#include <string>

namespace tta {

/// Launch facts come from Triton's metadata in \p result (never from the command line: Triton
/// rewrites num_warps for warp-specialised kernels); resource figures from the image in
/// \p files ("image", "ptx"), which must match \p target.
Expected<KernelMetadata> buildMetadata(const KernelSpec &kernel, const std::string &name,
                                       const Target &target, const Signature &signature,
                                       const Config &config, const std::string &id,
                                       const OutputPaths &paths,
                                       const nlohmann::json &result,
                                       const std::map<std::string, std::string> &files,
                                       bool writePtx);

} // namespace tta
