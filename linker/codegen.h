// Writes the C sources of a library: <lib>.h (docs/generated-api.md), <lib>.c (descriptor
// tables for the runtime, runtime-shim/include/triton_aot/runtime.h, and the dispatchers) and
// <lib>.images.S (the blob, by .incbin).
#pragma once

#include "linker/image_blob.h"
#include "linker/link_model.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tta::link {

struct GeneratedSources {
  std::string header;     ///< <lib>.h
  std::string source;     ///< <lib>.c
  std::string assembly;   ///< <lib>.images.S
};

struct CodegenOptions {
  std::filesystem::path blobPath;   ///< absolute path of <lib>.images, for the .incbin
};

GeneratedSources generateSources(const Library &library, const ImageBlob &blob,
                                 const CodegenOptions &options);

/// Every function <lib>.h declares, in declaration order: per kernel <p>_<K>, <p>_<K>_config,
/// <p>_<K>_config_count, <p>_<K>_config_name; then <p>_preload, <p>_unload, <p>_version,
/// <p>_manifest, <p>_inventory, <p>_last_error, <p>_set_allocator. These are all a shared library built from
/// the generated sources exports.
std::vector<std::string> apiSymbols(const Library &library);

/// Fails when two generated C functions would have one name (kernel "a_config" beside kernel
/// "a", a kernel called "preload" or "tta_blob"). Run before writing anything.
Status checkApiNames(const Library &library);

} // namespace tta::link
