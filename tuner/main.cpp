// triton-aot-tune: parse the command line, tune, report. Everything else is in tta_tuner.
#include "tuner/tune_options.h"

#include <cstdio>
#include <iostream>

namespace {

void report(const tta::Diagnostic &diag) {
  std::string text = tta::formatDiagnostic(diag);
  if (diag.file.empty())
    text = "triton-aot-tune: " + text;
  std::fputs(text.c_str(), stderr);
}

int run(const std::vector<std::string> &args) {
  auto commandLine = tta::tune::parseTuneCommandLine(args);
  if (!commandLine) {
    report(commandLine.error());
    return static_cast<int>(commandLine.error().code);
  }
  if (!commandLine->earlyExitText.empty()) {
    std::fputs(commandLine->earlyExitText.c_str(), stdout);
    return 0;
  }
  if (tta::importRequested(commandLine->import))
    return tta::runTritonCacheImport(commandLine->import, "triton-aot-tune", std::cout, std::cerr);
  tta::Status status = tta::tune::tuneAndWrite(commandLine->options, [](std::string_view line) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  });
  if (!status) {
    report(status.error());
    return static_cast<int>(status.error().code);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "triton-aot-tune: error: unexpected error: %s\n"
                         "note: this is a bug in triton-aot; report it\n",
                 e.what());
    return static_cast<int>(tta::ExitCode::InternalError);
  }
}
