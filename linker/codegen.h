// Writes the C sources of a library: <lib>.h (docs/generated-api.md), <lib>.c (descriptor
// tables for the runtime, runtime-shim/include/triton_aot/runtime.h, and the dispatchers) and
// <lib>.images.S (the blob, by .incbin).
#pragma once

#include "linker/image_blob.h"
#include "linker/link_model.h"

#include <filesystem>
#include <string>

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

} // namespace tta::link
