// triton-aot-ld as a library: read and validate every input, lay out the images, write the
// manifest and the C sources, all-or-nothing.
#pragma once

#include "contract/diagnostic.h"
#include "contract/log_sink.h"
#include "linker/link_input.h"

#include <filesystem>
#include <vector>

namespace tta::link {

/// The outputs for \p options, in the order they are committed: <name>.images, <name>.json,
/// <name>.h, <name>.c, <name>.images.S, and with --torch-ops <name>_torch_ops.cpp (all in
/// LinkOptions::outputDir).
std::vector<std::filesystem::path> outputPaths(const LinkOptions &options);

/// Removes earlier outputs of the names \p options gives (regular files and links, never a
/// directory), so a failure leaves no stale library that a build system would take as current.
void removeOutputs(const LinkOptions &options);

/// buildLibrary -> packImages -> manifestJson -> appendManifest -> generateSources, then the
/// five outputs are staged and committed in one OutputTransaction. Nothing is written before
/// every input has been validated; on any failure (or when LinkOptions::interrupted says so)
/// nothing is left, and earlier outputs of the same names are removed too, so a build never
/// sees a stale library beside a failed link. Warnings and --verbose lines go to \p log.
Status link(const LinkOptions &options, const LogSink &log = {});

} // namespace tta::link
