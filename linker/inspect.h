// triton-aot-ld --inspect: what a built library (its <lib>.json manifest), a metadata file or a
// device image (.cubin, .hsaco) holds, as an aligned table.
#pragma once

#include "contract/diagnostic.h"
#include "contract/library_manifest.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tta::link {

/// Columns padded to their widest cell; the columns in \p numeric are right-aligned. Trailing
/// blanks are trimmed; every line ends with a newline.
std::string formatTable(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows,
                        const std::vector<bool> &numeric);

/// A summary line, then one row per function: kernel, config, variant (hints), target,
/// registers, spills, shared memory (dynamic, static), image bytes (and stored bytes when some
/// image is compressed). Unknown figures are "-".
std::string formatManifest(const LibraryManifest &manifest);

/// What --inspect prints for a library manifest given as its JSON text (<lib>.json): the
/// linker embeds it as <prefix>_inventory(). Errors (text that is no manifest) are UsageError.
Expected<std::string> inspectManifestText(std::string_view manifestText);

/// Reads \p path: a library manifest (schema "triton-aot-library"), a kernel metadata file
/// ("triton-aot-kernel"), or else a cubin / HSACO, and formats it. Errors are UsageError.
Expected<std::string> inspectFile(const std::filesystem::path &path);

} // namespace tta::link
