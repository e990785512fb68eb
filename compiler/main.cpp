// triton-aot-cc: parse the command line, compile, report. Everything else is in tta_compiler.
#include "compiler/compiler.h"
#include "compiler/options.h"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace {

int interruptPipe[2] = {-1, -1};

extern "C" void onInterrupt(int) {
  // Only async-signal-safe work here: wake the compiler's poll loop, which cleans up.
  char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(interruptPipe[1], &byte, 1);
}

void report(const tta::Diagnostic &diag, bool verbose) {
  std::string text = tta::formatDiagnostic(diag, verbose);
  if (diag.file.empty())
    text = "triton-aot-cc: " + text;
  std::fputs(text.c_str(), stderr);
}

} // namespace

int main(int argc, char **argv) {
  auto commandLine = tta::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!commandLine) {
    report(commandLine.error(), false);
    return static_cast<int>(commandLine.error().code);
  }
  if (!commandLine->earlyExitText.empty()) {
    std::fputs(commandLine->earlyExitText.c_str(), stdout);
    return 0;
  }

  if (::pipe2(interruptPipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    commandLine->request.options.interruptFd = interruptPipe[0];
  }

  const bool verbose = commandLine->request.options.verbose;
  tta::CompileOutcome outcome = tta::compile(commandLine->request, [](std::string_view line) {
    std::fprintf(stderr, "triton-aot-cc: %.*s\n", static_cast<int>(line.size()), line.data());
  });
  for (const tta::Diagnostic &diag : outcome.errors)
    report(diag, verbose);
  if (outcome.code == tta::ExitCode::Success && commandLine->summary)
    std::fputs(tta::formatSummary(outcome.variants).c_str(), stdout);
  return static_cast<int>(outcome.code);
}
