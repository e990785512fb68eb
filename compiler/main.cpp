// triton-aot-cc: parse the command line, compile, report. Everything else is in tta_compiler.
#include "compiler/compiler.h"
#include "compiler/options.h"
#include "compiler/remote/remote_cache.h"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace {

int interruptPipe[2] = {-1, -1};
volatile std::sig_atomic_t interruptSignal = 0;

extern "C" void onInterrupt(int signal) {
  // Only async-signal-safe work here: wake the compiler's poll loop, which cleans up.
  interruptSignal = signal;
  char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(interruptPipe[1], &byte, 1);
}

void report(const tta::Diagnostic &diag, bool verbose) {
  std::string text = tta::formatDiagnostic(diag, verbose);
  if (diag.file.empty())
    text = "triton-aot-cc: " + text;
  std::fputs(text.c_str(), stderr);
}

/// A command line that does not parse still names the build system's outputs; remove them so
/// no index or depfile from an earlier run outlives this failure.
void removeNamedOutputs(const std::vector<std::string> &args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    for (const std::string flag : {"--index", "--depfile"}) {
      std::string path;
      if (args[i] == flag && i + 1 < args.size())
        path = args[i + 1];
      else if (args[i].rfind(flag + "=", 0) == 0)
        path = args[i].substr(flag.size() + 1);
      std::error_code ec;
      if (!path.empty() && std::filesystem::is_regular_file(path, ec))
        std::filesystem::remove(path, ec);
    }
}

/// --declared-at's value from the raw arguments (also when they do not parse), or "".
std::string declaredAt(const std::vector<std::string> &args) {
  std::string found;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--declared-at" && i + 1 < args.size())
      found = args[i + 1];
    else if (args[i].rfind("--declared-at=", 0) == 0)
      found = args[i].substr(std::string("--declared-at=").size());
  return found;
}

/// After the errors of a failed run: where the build declared what failed, so an error found
/// only when compiling still leads to the line to fix.
void noteDeclaration(const std::vector<std::string> &args) {
  if (std::string where = declaredAt(args); !where.empty())
    std::fprintf(stderr, "note: the kernel is declared at %s\n", where.c_str());
}

/// The installation learned and recorded by a detached child, so that --prepare-workers
/// returns at once (CMake's configure waits for it) and the build's first run recalls the
/// record instead of hashing Triton's files (runs that start before it is written wait for it:
/// InstallationLock). Where fork() fails, the build's first run learns it, as without
/// --prepare-workers.
void recordInstallationInTheBackground(const tta::CompileOptions &options,
                                       const tta::LogSink &log) {
  const pid_t child = ::fork();
  if (child != 0) {
    if (child > 0 && options.verbose)
      log("learning the Python installation in the background (process " +
          std::to_string(child) + ")");
    return;
  }
  ::setsid();
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; ++fd)
    ::dup2(null, fd);
  tta::CompileOptions quiet = options;
  quiet.interruptFd = -1;
  ::_exit(tta::learnInstallationAhead(quiet) ? 0 : 1);
}

/// --prepare-workers: the project's pool asked for warm workers, the installation learned.
int prepare(const tta::CommandLine &commandLine, const tta::LogSink &log) {
  const tta::CompileOptions &options = commandLine.request.options;
  auto prepared = tta::prepareWorkers(options, commandLine.prepareTargets, log);
  if (!prepared) {
    report(prepared.error(), options.verbose);
    return static_cast<int>(prepared.error().code);
  }
  if (!prepared->installationRecorded)
    recordInstallationInTheBackground(options, log);
  return 0;
}

int run(const std::vector<std::string> &args) {
  auto commandLine = tta::parseCommandLine(args);
  if (!commandLine) {
    removeNamedOutputs(args);
    report(commandLine.error(), false);
    noteDeclaration(args);
    return static_cast<int>(commandLine.error().code);
  }
  if (!commandLine->newRemoteCacheKey.empty()) {
    const std::string &file = commandLine->newRemoteCacheKey;
    if (tta::Status written = tta::writeNewSigningKey(file); !written) {
      report(written.error(), false);
      return static_cast<int>(written.error().code);
    }
    std::printf("triton-aot-cc: wrote a new signing key to %s (readable by you alone)\n"
                "give the builds that share the remote cache:\n"
                "  TRITON_AOT_REMOTE_CACHE_KEY_FILE=%s\n",
                file.c_str(), file.c_str());
    return 0;
  }
  if (!commandLine->earlyExitText.empty()) {
    std::fputs(commandLine->earlyExitText.c_str(), stdout);
    return 0;
  }

  if (::pipe2(interruptPipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      ::sigaction(signal, &action, nullptr);
    commandLine->request.options.interruptFd = interruptPipe[0];
  }

  const bool verbose = commandLine->request.options.verbose;
  auto log = [](std::string_view line) {
    std::fprintf(stderr, "triton-aot-cc: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  if (commandLine->prepareWorkers)
    return prepare(*commandLine, log);
  tta::CompileOutcome outcome = tta::compile(commandLine->request, log);
  for (const tta::Diagnostic &diag : outcome.errors)
    report(diag, verbose);
  if (!outcome.errors.empty())
    noteDeclaration(args);
  if (outcome.code == tta::ExitCode::Success && commandLine->summary)
    std::fputs(tta::formatSummary(outcome).c_str(), stdout);
  if (outcome.code == tta::ExitCode::Interrupted && interruptSignal != 0) {
    // Die by the signal, as shells expect, so a loop around us stops too (exit status 128+n).
    int signal = interruptSignal;
    std::fflush(stderr);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  return static_cast<int>(outcome.code);
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "triton-aot-cc: error: unexpected error: %s\n"
                         "note: this is a bug in triton-aot; rerun with --verbose and report it\n",
                 e.what());
    return static_cast<int>(tta::ExitCode::InternalError);
  }
}
