// The command line of triton-aot-ld. Parsing only: nothing here reads the inputs.
//   triton-aot-ld --name <lib> [--prefix <p>] -o <dir> [--no-ptx] [--compress [--compress-level N]]
//                 [-v] <metadata.json | index.json>...
//   triton-aot-ld --inspect <lib.json | metadata.json | image>
#pragma once

#include "contract/diagnostic.h"
#include "linker/link_input.h"

#include <string>
#include <vector>

namespace tta::link {

struct LinkCommandLine {
  LinkOptions options;           ///< a link (when inspect is empty)
  std::string inspect;           ///< --inspect FILE
  /// --torch-ops NS --manifest FILE: the operators of a library already linked (no link)
  std::string torchManifest;
  std::string earlyExitText;     ///< --help / --version: print this and exit 0
};

/// Parses argv (argv[0] excluded). Usage errors carry ExitCode::UsageError and a note
/// pointing at --help.
Expected<LinkCommandLine> parseLinkCommandLine(const std::vector<std::string> &args);

} // namespace tta::link
