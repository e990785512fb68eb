// The command line of triton-aot-tune. Parsing only: nothing here reads the inputs.
//   triton-aot-tune --library <lib.so> --spec <x.tune.json> --output <x.tuning.json>
//                   [--prefix p] [--device N] [--kernel NAME]... [--repetitions N]
//                   [--warmup-ms MS] [--max-ms-per-measurement MS]
//   triton-aot-tune --import-triton-cache DIR --manifest lib.json --kernel K --target cuda:90a
//                   --output T.json   (tuner/import/import_command.h)
#pragma once

#include "contract/diagnostic.h"
#include "tuner/import/import_command.h"
#include "tuner/tuner.h"

#include <string>
#include <vector>

namespace tta::tune {

struct TuneCommandLine {
  TuneOptions options;
  /// --import-triton-cache: the import instead of timing (importRequested(import)).
  TritonCacheImportCommand import;
  std::string earlyExitText;   ///< --help / --version: print this and exit 0
};

/// Parses argv (argv[0] excluded). Usage errors carry ExitCode::UsageError and a note pointing
/// at --help.
Expected<TuneCommandLine> parseTuneCommandLine(const std::vector<std::string> &args);

} // namespace tta::tune
