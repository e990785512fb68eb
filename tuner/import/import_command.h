// The command that imports Triton's autotune cache into a tuning table:
//   triton-aot-tune --import-triton-cache DIR --manifest lib.json --kernel K --target cuda:90a
//                   --output T.json
// Its options go onto any CLI11 app (the tuner's), and runTritonCacheImport() does the work,
// writing messages only to the streams it is given.
#pragma once

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace tta {

struct TritonCacheImportCommand {
  std::vector<std::string> cachePaths; ///< files and directories of Triton's autotune cache
  std::string manifest;                ///< the library's <lib>.json
  std::string kernel;
  std::string target;
  std::string output;              ///< the tuning table: written, or merged into
  std::vector<std::string> dtypes; ///< the key's dtype strings, when the manifest cannot say
  std::string device;
};

/// Adds --import-triton-cache and its companions to \p app, filling \p command. Does not mark
/// them required: an app with other modes checks that through importRequested().
void addTritonCacheImportOptions(CLI::App &app, TritonCacheImportCommand &command);

/// Whether the command line asked for the import (--import-triton-cache given).
bool importRequested(const TritonCacheImportCommand &command);

/// Imports and writes the table (merged into --output when that exists: shapes of the same key
/// replaced, others kept). Warnings and the error go to \p err prefixed with \p tool, one
/// summary line to \p out. Returns the exit status (0, or the error's ExitCode).
int runTritonCacheImport(const TritonCacheImportCommand &command, const std::string &tool,
                         std::ostream &out, std::ostream &err);

/// A whole command line (without the program name) for the import alone, as tests and a
/// standalone tool call it.
int tritonCacheImportMain(const std::vector<std::string> &args, const std::string &tool,
                          std::ostream &out, std::ostream &err);

} // namespace tta
