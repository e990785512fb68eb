// The command line of triton-aot-cc: a superset of upstream `python -m triton.tools.compile`
// (same flags, including its "-ns" and "-on" spellings), plus spec files and build-system
// options. Parsing only: nothing here touches the file system beyond reading a spec file.
#pragma once

#include "compiler/compiler.h"
#include "contract/diagnostic.h"

#include <string>
#include <vector>

namespace tta {

struct CommandLine {
  CompileRequest request;
  bool summary = false;          ///< print the table of what was built
  std::string earlyExitText;     ///< --help / --version: print this and exit 0
  /// --new-remote-cache-key FILE: write a new signing key there and exit (nothing compiles).
  std::string newRemoteCacheKey;
  /// --prepare-workers: ask the worker pool for warm workers for these targets and exit.
  bool prepareWorkers = false;
  std::vector<Target> prepareTargets;
};

/// Parses argv (argv[0] excluded). Resolves paths against the current directory, reads a
/// --spec file, and fills defaults (python, worker script, cache dir, jobs).
Expected<CommandLine> parseCommandLine(const std::vector<std::string> &args);

/// Reads a spec file: {"targets": [...], "kernels": [{"source", "function", "name",
/// "signatures", "configs", "grid", "targets"}]} (docs/compiler.md). Relative paths are
/// relative to the spec file. \p defaultTargets apply to kernels that name none.
Expected<std::vector<KernelSpec>> loadSpecFile(const std::string &path,
                                               const std::vector<Target> &defaultTargets);

/// Where the frontend worker is: $TRITON_AOT_FRONTEND_DIR, else <exe dir>/../share/triton-aot/frontend.
std::string defaultWorkerScript();

} // namespace tta
