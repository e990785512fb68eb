// The command line of triton-aot-tune. Parsing only: nothing here reads the inputs.
//   triton-aot-tune --library <lib.so> --spec <x.tune.json> --output <x.tuning.json>
//                   [--prefix p] [--device N] [--kernel NAME]... [--repetitions N]
//                   [--warmup-ms MS] [--max-ms-per-measurement MS]
#pragma once

#include "compiler/diagnostic.h"
#include "tuner/tuner.h"

#include <string>
#include <vector>

namespace tta::tune {

struct TuneCommandLine {
  TuneOptions options;
  std::string earlyExitText;   ///< --help / --version: print this and exit 0
};

/// Parses argv (argv[0] excluded). Usage errors carry ExitCode::UsageError and a note pointing
/// at --help.
Expected<TuneCommandLine> parseTuneCommandLine(const std::vector<std::string> &args);

} // namespace tta::tune
