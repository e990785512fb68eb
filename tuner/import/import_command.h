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
  std::vector<std::string> kernels;    ///< names in the library; each imported, then merged
  std::string target;
  std::string output;              ///< the tuning table: written, or merged into
  std::vector<std::string> dtypes; ///< the key's dtype strings, when the manifest cannot say
  std::string deviceName;          ///< the GPU's name, for the record
};

/// Adds the options only the import has to \p app, filling \p command:
/// --import-triton-cache, --manifest, --target, --dtypes and --device-name. --kernel and
/// --output are the tuner's own (triton-aot-tune: its --kernel, repeatable, and --output fill
/// command.kernels and command.output); addKernelAndOutputOptions() adds them to an app without.
/// Nothing is marked required: an app with other modes checks through importRequested().
void addTritonCacheImportOptions(CLI::App &app, TritonCacheImportCommand &command);

/// Adds --kernel (repeatable) and --output, for an app that has no such options.
void addKernelAndOutputOptions(CLI::App &app, TritonCacheImportCommand &command);

/// Whether the command line asked for the import (--import-triton-cache given).
bool importRequested(const TritonCacheImportCommand &command);

/// Imports each kernel and writes the table (merged into --output when that exists: shapes of
/// the same key replaced, others kept); nothing is written when one kernel fails. Warnings and the
/// error go to \p err prefixed with \p tool, one summary line to \p out. Returns the exit status
/// (0, or the error's ExitCode).
int runTritonCacheImport(const TritonCacheImportCommand &command, const std::string &tool,
                         std::ostream &out, std::ostream &err);

/// A whole command line (without the program name) for the import alone, as tests and a
/// standalone tool call it.
int tritonCacheImportMain(const std::vector<std::string> &args, const std::string &tool,
                          std::ostream &out, std::ostream &err);

} // namespace tta
