// triton-aot-ld: parse the command line, link (or inspect), report. Everything else is in
// tta_linker.
#include "linker/inspect.h"
#include "linker/torch_ops.h"
#include "linker/linker.h"
#include "linker/linker_options.h"

#include <csignal>
#include <cstdio>

namespace {

volatile std::sig_atomic_t interruptSignal = 0;

extern "C" void onInterrupt(int signal) { interruptSignal = signal; }

void report(const tta::Diagnostic &diag, bool verbose) {
  std::string text = tta::formatDiagnostic(diag, verbose);
  if (diag.file.empty())
    text = "triton-aot-ld: " + text;
  std::fputs(text.c_str(), stderr);
}

/// A command line that does not parse may still name the outputs (--name and -o); remove them
/// so no library from an earlier run outlives this failure (as triton-aot-cc does).
void removeNamedOutputs(const std::vector<std::string> &args) {
  tta::link::LinkOptions named;
  std::string dir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&](const std::string &flag, std::string &out) {
      if (args[i] == flag && i + 1 < args.size())
        out = args[i + 1];
      else if (args[i].rfind(flag + "=", 0) == 0)
        out = args[i].substr(flag.size() + 1);
    };
    value("--name", named.name);
    value("-o", dir);
    value("--output-dir", dir);
  }
  if (named.name.empty() || dir.empty())
    return;
  named.outputDir = dir;
  tta::link::removeOutputs(named);
}

int run(const std::vector<std::string> &args) {
  auto commandLine = tta::link::parseLinkCommandLine(args);
  if (!commandLine) {
    removeNamedOutputs(args);
    report(commandLine.error(), false);
    return static_cast<int>(commandLine.error().code);
  }
  if (!commandLine->earlyExitText.empty()) {
    std::fputs(commandLine->earlyExitText.c_str(), stdout);
    return 0;
  }
  if (!commandLine->inspect.empty()) {
    auto table = tta::link::inspectFile(commandLine->inspect);
    if (!table) {
      report(table.error(), false);
      return static_cast<int>(table.error().code);
    }
    std::fputs(table->c_str(), stdout);
    return 0;
  }

  if (!commandLine->torchManifest.empty()) {
    tta::Status written = tta::link::writeTorchOps(commandLine->torchManifest,
                                                   commandLine->options.torchNamespace,
                                                   commandLine->options.outputDir);
    if (!written) {
      report(written.error(), false);
      return static_cast<int>(written.error().code);
    }
    return 0;
  }

  // A signal only raises a flag: the linker stops at its next check and removes what it
  // staged; then the process dies by the signal, as shells expect.
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
    ::sigaction(signal, &action, nullptr);
  tta::link::LinkOptions &options = commandLine->options;
  options.interrupted = [] { return interruptSignal != 0; };

  tta::Status status = tta::link::link(options, [](std::string_view line) {
    std::fprintf(stderr, "triton-aot-ld: %.*s\n", static_cast<int>(line.size()), line.data());
  });
  if (!status)
    report(status.error(), options.verbose);
  if (interruptSignal != 0) {
    int signal = interruptSignal;
    std::fflush(stderr);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  return status ? 0 : static_cast<int>(status.error().code);
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "triton-aot-ld: error: unexpected error: %s\n"
                         "note: this is a bug in triton-aot; rerun with --verbose and report it\n",
                 e.what());
    return static_cast<int>(tta::ExitCode::InternalError);
  }
}
