// The manifest of a linked library (<lib>.json, and <prefix>_manifest() at run time): every
// kernel, config, hint variant and target with its launch facts, resource figures and image
// sizes. Documented field by field in docs/linker.md; read by contract/library_manifest.h.
#pragma once

#include "contract/diagnostic.h"
#include "contract/library_manifest.h"   // its reader, and kManifestSchema
#include "linker/image_blob.h"
#include "linker/link_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tta::link {

/// The manifest of \p library whose images are laid out in \p blob (for the stored sizes).
nlohmann::json manifestJson(const Library &library, const ImageBlob &blob);

/// The C condition under which the promises of \p variant hold, over the C parameter names:
/// "((uintptr_t)x_ptr % 16 == 0) && (n % 16 == 0) && (stride == 1)"; "1" for no hints.
std::string hintCondition(const Kernel &kernel, const HintVariant &variant);

} // namespace tta::link
