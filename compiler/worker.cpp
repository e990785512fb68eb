#include "compiler/worker.h"

#include "compiler/frontend_client.h"
#include "compiler/worker_lease.h"
#include "contract/json_access.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <optional>
#include <thread>

extern char **environ;

namespace tta {

namespace {

constexpr std::size_t kStderrTail = 16 * 1024;

std::string errnoText(int error) { return std::strerror(error); }

/// Writes all of \p data, retrying on EINTR and short writes.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// A worker's three pipes: \p ours (to its stdin, from its stdout, from its stderr) and
/// \p theirs (its stdin, stdout and stderr). On failure none is left open.
Status openWorkerPipes(int (&ours)[3], int (&theirs)[3]) {
  int pipes[3][2];
  for (int i = 0; i < 3; ++i) {
    if (::pipe2(pipes[i], O_CLOEXEC) != 0) {
      const int error = errno;
      for (int j = 0; j < i; ++j) {
        ::close(pipes[j][0]);
        ::close(pipes[j][1]);
      }
      return makeError(ExitCode::EnvironmentError,
                       "cannot create pipes for the frontend worker: " + errnoText(error));
    }
  }
  // stdin: the worker reads; stdout and stderr: the worker writes.
  ours[0] = pipes[0][1], theirs[0] = pipes[0][0];
  for (int i = 1; i < 3; ++i)
    ours[i] = pipes[i][0], theirs[i] = pipes[i][1];
  return ok();
}

void closeAll(const int (&fds)[3]) {
  for (int fd : fds)
    ::close(fd);
}

std::string describeExit(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

} // namespace

Expected<std::string> resolveProgram(const std::string &program) {
  namespace fs = std::filesystem;
  auto isExecutable = [](const fs::path &p) {
    return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
  };
  if (program.find('/') != std::string::npos) {
    fs::path path = fs::absolute(program).lexically_normal();
    if (isExecutable(path))
      return path.string();
    return makeError(ExitCode::EnvironmentError,
                     "Python interpreter '" + program + "' does not exist or is not executable");
  }
  const char *pathEnv = std::getenv("PATH");
  std::string_view dirs = pathEnv ? pathEnv : "/usr/bin:/bin";
  while (true) {
    std::size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / program;
    if (isExecutable(candidate))
      return fs::absolute(candidate).lexically_normal().string();
    if (colon == std::string_view::npos)
      break;
    dirs.remove_prefix(colon + 1);
  }
  return makeError(ExitCode::EnvironmentError,
                   "Python interpreter '" + program + "' is not on PATH");
}

/// One Python worker process and the buffers of its pipes.
class WorkerProcess {
public:
  pid_t pid = -1;
  int input = -1;    ///< its stdin
  int output = -1;   ///< its stdout: protocol lines
  int errors = -1;   ///< its stderr: kept as a tail, logged when verbose
  std::string outputBuffer;
  std::string errorBuffer;
  std::string errorTail;
  bool saidHello = false;
  bool leased = false;  ///< from the worker pool: not our child, pid is -1
  bool forked = false;  ///< from the zygote: our child once orphaned, pid known from its hello
  bool dead = false;
  bool toldToEnd = false;   ///< nothing was left for it in the run's last requests
  long busyWith = -1;   ///< index of the request in flight, or -1
  std::chrono::steady_clock::time_point busySince;   ///< when that request was sent
  int exitStatus = 0;
  /// The worker's process as its hello names it: for a leased worker the only way to stop it
  /// when it is stuck (the pool, not the run, is its parent), and to ask the pool how it ended.
  long helloPid = -1;
  /// The target this worker serves only (its installed modules answered for it), as requests
  /// spell it; null while it serves any.
  nlohmann::json servesTarget;

  ~WorkerProcess() { stop(); }

  void closeFd(int &fd) {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }

  /// Asks the worker to finish (EOF on stdin), then makes sure it does. A leased worker is not
  /// ours to wait for: it ends the lease by closing its end, after telling the pool it is free,
  /// so the build's next run finds it idle. A worker still busy is killed instead: its answer
  /// is not wanted, and it may be stuck (a leased one must not go back to the pool so).
  void stop() {
    if (busyWith >= 0) {
      kill();
      return;
    }
    closeFd(input);
    if (leased && output >= 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      char chunk[4096];
      while (std::chrono::steady_clock::now() < deadline) {
        pollfd fd{output, POLLIN, 0};
        if (::poll(&fd, 1, 100) < 0 && errno != EINTR)
          break;
        if (fd.revents == 0)
          continue;
        ssize_t n = ::read(output, chunk, sizeof chunk);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
          break;
      }
    }
    if (pid > 0 && !dead) {
      using namespace std::chrono;
      auto deadline = steady_clock::now() + seconds(5);
      int status = 0;
      while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (steady_clock::now() > deadline) {
          ::kill(pid, SIGKILL);
          ::waitpid(pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(milliseconds(5));
      }
      dead = true;
    }
    closeFd(output);
    closeFd(errors);
  }

  /// Ends the worker now. A leased one that is busy is killed too (by its hello's pid; the pool
  /// sees it go and forgets it); an idle leased one just has its lease closed.
  void kill() {
    if (pid > 0 && !dead) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &exitStatus, 0);
      dead = true;
    }
    if (leased && busyWith >= 0 && helloPid > 1 && helloPid != ::getpid() && !dead) {
      ::kill(static_cast<pid_t>(helloPid), SIGKILL);
      dead = true;
    }
    closeFd(input);
    closeFd(output);
    closeFd(errors);
  }

  /// Asks a stuck worker for its threads' Python stacks (SIGUSR1: the worker's faulthandler
  /// prints them on its stderr) and keeps what it prints within about a second.
  void dumpStacks(const std::function<void(std::string_view)> &log) {
    const long process = leased ? helloPid : static_cast<long>(pid);
    if (process <= 1 || process == ::getpid() || dead || errors < 0)
      return;
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + seconds(1);
    std::size_t before = errorTail.size();
    ::kill(static_cast<pid_t>(process), SIGUSR1);
    char chunk[65536];
    while (steady_clock::now() < deadline) {
      pollfd fd{errors, POLLIN, 0};
      // Once it has printed, 100 ms of silence ends the wait.
      const int wait = errorTail.size() > before ? 100 : 50;
      int ready = ::poll(&fd, 1, wait);
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready <= 0) {
        if (errorTail.size() > before)
          break;
        continue;
      }
      ssize_t n = ::read(errors, chunk, sizeof chunk);
      if (n <= 0)
        break;
      keepStderr(std::string_view(chunk, static_cast<std::size_t>(n)), log);
    }
  }

  /// Marks the process dead after its stdout closed and records how it ended.
  void reap() {
    // A forked worker is ours from the moment its zygote's middle process is gone: the zygote
    // waits for that before it reads the next request, so this is at most a moment. One that
    // ended before its hello (pid unknown) and a leased one are dead all the same.
    if (pid > 0 && !dead)
      for (int tries = 0; ::waitpid(pid, &exitStatus, 0) < 0 && errno == ECHILD && forked &&
                          tries < 200;
           ++tries)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    dead = true;
    closeFd(input);
    closeFd(output);
  }

  void keepStderr(std::string_view chunk, const std::function<void(std::string_view)> &log) {
    errorTail.append(chunk);
    if (errorTail.size() > kStderrTail)
      errorTail.erase(0, errorTail.size() - kStderrTail);
    if (!log)
      return;
    errorBuffer.append(chunk);
    std::size_t newline;
    while ((newline = errorBuffer.find('\n')) != std::string::npos) {
      log("frontend[" + std::to_string(pid) + "]: " + errorBuffer.substr(0, newline));
      errorBuffer.erase(0, newline + 1);
    }
  }
};

WorkerPool::WorkerPool(WorkerSettings settings, int maxWorkers)
    : settings_(std::move(settings)), maxWorkers_(maxWorkers < 1 ? 1 : maxWorkers) {}

WorkerPool::~WorkerPool() {
  release();   // every stdin closed first, so that the workers shut down in parallel
  workers_.clear();
  stopZygote();
}

void WorkerPool::release() {
  released_ = true;
  for (auto &worker : workers_)
    if (worker->busyWith < 0)
      worker->closeFd(worker->input);
  dismissZygote();
}

void WorkerPool::dismissZygote() {
  if (zygoteControl_ >= 0)
    ::close(zygoteControl_);
  zygoteControl_ = -1;
  if (zygotePid_ > 0)
    ::kill(zygotePid_, SIGKILL);   // reaped by stopZygote(), once it had time to go
}

std::vector<std::string> WorkerPool::userEnvironment() const {
  std::vector<std::string> entries;
  for (char **e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string name(entry.substr(0, entry.find('=')));
    // The remote cache's settings (its URL may hold a password; the signing key, tokens) are
    // the compiler's alone: a worker runs the kernels' code, which can read its environment.
    if (!settings_.environment.count(name) && name.rfind("TRITON_AOT_REMOTE_CACHE", 0) != 0)
      entries.emplace_back(entry);
  }
  return entries;
}

std::vector<std::string> WorkerPool::environment() const {
  std::vector<std::string> entries = userEnvironment();
  for (const auto &[key, value] : settings_.environment)
    entries.push_back(key + '=' + value);
  return entries;
}

void WorkerPool::givePoolUp(const std::string &why) {
  poolGivenUp_ = true;
  if (settings_.log)
    settings_.log("frontend: " + why + "; starting workers directly");
}

Status WorkerPool::findPoolSocket(const std::vector<std::string> &user) {
  // The pool is keyed by the project and the user's environment; what the run sets travels
  // with the lease.
  if (!poolSocket_.empty())
    return ok();
  auto directory = workerPoolDirectory();
  if (!directory)
    return directory.takeError();
  poolSocket_ =
      workerPoolSocket(*directory, settings_.project, settings_.python, settings_.script, user);
  return ok();
}

Status WorkerPool::prepare(int count) {
  const std::vector<std::string> user = userEnvironment();
  if (Status found = findPoolSocket(user); !found)
    return found;
  return prepareWorkers(poolSocket_, settings_.python, settings_.script,
                        settings_.poolIdleSeconds, user,
                        {{"workers", count},
                         {"targets", settings_.targets},
                         {"environment", settings_.environment}});
}

Expected<WorkerProcess *> WorkerPool::lease() {
  const std::vector<std::string> user = userEnvironment();
  if (Status found = findPoolSocket(user); !found)
    return found.takeError();
  std::error_code ec;
  nlohmann::json runSettings = {{"cwd", std::filesystem::current_path(ec).string()},
                                {"environment", settings_.environment},
                                {"targets", settings_.targets}};
  auto leased = leaseWorker(poolSocket_, settings_.python, settings_.script,
                            settings_.poolIdleSeconds, user, runSettings);
  if (!leased)
    return leased.takeError();
  WorkerProcess *worker = addWorker({leased->input, leased->output, leased->errors});
  worker->leased = true;
  return worker;
}

Expected<pid_t> WorkerPool::startInterpreter(const std::vector<std::string> &arguments,
                                             const int (&stdio)[3], int extraFd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd = 0; fd < 3; ++fd)
    posix_spawn_file_actions_adddup2(&actions, stdio[fd], fd);
  if (extraFd >= 0)
    posix_spawn_file_actions_adddup2(&actions, extraFd, 3);

  std::vector<std::string> envStrings = environment();
  std::vector<char *> envp;
  for (std::string &s : envStrings)
    envp.push_back(s.data());
  envp.push_back(nullptr);

  std::vector<std::string> args = frontendCommand(settings_.python, settings_.script);
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, settings_.python.c_str(), &actions, nullptr, argv.data(),
                         envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return makeError(ExitCode::EnvironmentError,
                     "cannot start the frontend worker '" + settings_.python + "': " + errnoText(rc));
  return pid;
}

Status WorkerPool::startZygote() {
  // Its workers are forked twice over, so that they are orphaned at once: as a subreaper the
  // run adopts them, and waits for, kills and describes them as workers it spawned itself.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    return makeError(ExitCode::EnvironmentError,
                     "cannot become a child subreaper: " + errnoText(errno));
  int control[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
    return makeError(ExitCode::EnvironmentError,
                     "cannot create the zygote's socket: " + errnoText(errno));
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) {
    const int error = errno;
    ::close(control[0]);
    ::close(control[1]);
    return makeError(ExitCode::EnvironmentError, "cannot open /dev/null: " + errnoText(error));
  }
  const int stdio[3] = {null, null, null};
  auto pid = startInterpreter({"--zygote", "3"}, stdio, control[1]);
  ::close(null);
  ::close(control[1]);
  if (!pid) {
    ::close(control[0]);
    return pid.takeError();
  }
  zygotePid_ = *pid;
  zygoteControl_ = control[0];
  if (settings_.log)
    settings_.log("frontend: workers forked from a zygote (" + std::to_string(zygotePid_) + ")");
  return ok();
}

void WorkerPool::stopZygote() {
  if (zygoteControl_ >= 0)
    ::close(zygoteControl_);
  zygoteControl_ = -1;
  if (zygotePid_ > 0) {
    // Nothing of it is worth waiting for: its workers are ours, and each ended already.
    ::kill(zygotePid_, SIGKILL);
    ::waitpid(zygotePid_, nullptr, 0);
  }
  zygotePid_ = -1;
}

void WorkerPool::giveZygoteUp(const std::string &why) {
  zygoteGivenUp_ = true;
  stopZygote();
  if (settings_.log)
    settings_.log("frontend: " + why + "; starting workers as interpreters");
}

Expected<WorkerProcess *> WorkerPool::forkFromZygote() {
  if (zygotePid_ < 0)
    if (Status started = startZygote(); !started)
      return started.takeError();
  int ours[3], theirs[3];
  if (Status opened = openWorkerPipes(ours, theirs); !opened)
    return opened.takeError();
  // "fork 1\n" with the three fds a spawned worker would have as stdin, stdout and stderr.
  const bool sent = sendWithFds(zygoteControl_, "fork 1\n", theirs);
  const int sendError = errno;
  closeAll(theirs);
  if (!sent) {
    closeAll(ours);
    return makeError(ExitCode::EnvironmentError,
                     "the zygote did not take a fork request: " + errnoText(sendError));
  }
  WorkerProcess *worker = addWorker(ours);
  worker->forked = true;
  return worker;
}

Expected<WorkerProcess *> WorkerPool::spawn() {
  if (settings_.usePool && !poolGivenUp_) {
    auto leased = lease();
    if (leased)
      return leased;
    givePoolUp("the worker pool is unavailable (" + leased.takeError().message + ")");
  }
  if (settings_.useZygote && !zygoteGivenUp_) {
    auto forked = forkFromZygote();
    if (forked)
      return forked;
    giveZygoteUp("the zygote is unavailable (" + forked.takeError().message + ")");
  }
  int ours[3], theirs[3];
  if (Status opened = openWorkerPipes(ours, theirs); !opened)
    return opened.takeError();
  auto pid = startInterpreter({}, theirs, -1);
  closeAll(theirs);
  if (!pid) {
    closeAll(ours);
    return pid.takeError();
  }
  WorkerProcess *worker = addWorker(ours);
  worker->pid = *pid;
  return worker;
}

WorkerProcess *WorkerPool::addWorker(const int (&ours)[3]) {
  // A worker that dies must not kill us with SIGPIPE when we write its next request.
  ::signal(SIGPIPE, SIG_IGN);
  auto worker = std::make_unique<WorkerProcess>();
  worker->input = ours[0];
  worker->output = ours[1];
  worker->errors = ours[2];
  workers_.push_back(std::move(worker));
  return workers_.back().get();
}

namespace {

nlohmann::json internalFailure(const std::string &message, const std::string &detail) {
  return {{"ok", false},
          {"error", {{"kind", "internal"}, {"message", message}, {"traceback", detail}}}};
}

/// The last line of \p text that reads like a fatal error (LLVM, MLIR, Python), if any.
std::string lastFatalLine(const std::string &text) {
  std::string found;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line(text.data() + start, (end == std::string::npos ? text.size() : end) - start);
    for (std::string_view marker : {"LLVM ERROR", "Assertion", "error:", "Error:", "Fatal", "fatal"})
      if (line.find(marker) != std::string_view::npos) {
        found = std::string(line);
        break;
      }
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return found;
}

/// The line a worker writes when its process is ended by os._exit() in its own code or the
/// kernel's (triton_aot_worker.py, _report_ends): "triton-aot: os._exit(3) at FILE:LINE".
constexpr std::string_view kExitMarker = "triton-aot: os._exit(";

/// That line of \p text, the last one, if any.
std::string exitCall(const std::string &text) {
  std::size_t at = text.rfind(kExitMarker);
  if (at == std::string::npos)
    return {};
  std::size_t end = text.find('\n', at);
  return text.substr(at + std::string_view("triton-aot: ").size(),
                     (end == std::string::npos ? text.size() : end) - at -
                         std::string_view("triton-aot: ").size());
}

/// How a process ended, from waitpid().
WorkerEnd endOf(int status) {
  if (WIFEXITED(status))
    return {WorkerEnd::Kind::Exited, WEXITSTATUS(status)};
  if (WIFSIGNALED(status))
    return {WorkerEnd::Kind::Signaled, WTERMSIG(status)};
  return {};
}

std::string signalName(int signal) {
  switch (signal) {
  case SIGKILL: return "SIGKILL";
  case SIGSEGV: return "SIGSEGV";
  case SIGABRT: return "SIGABRT";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  default: return "signal " + std::to_string(signal);
  }
}

/// A worker that died with a request in flight, named for what ended it: the kernel's own code
/// (os._exit, another exit from C), the system (SIGKILL: most often the out-of-memory killer),
/// or a crash in Triton, LLVM or an extension (a fatal signal, a fatal error line). Each is a
/// kernel error, not a triton-aot bug.
nlohmann::json crashFailure(const WorkerEnd &end, const std::string &stderrTail) {
  nlohmann::json notes = nlohmann::json::array();
  nlohmann::json error = {{"kind", "kernel"}, {"traceback", stderrTail}};
  const std::string fatal = lastFatalLine(stderrTail);
  std::string message;
  if (std::string call = exitCall(stderrTail); !call.empty()) {
    // "os._exit(3) at /src/k.py:12": the diagnostic points at the line that called it.
    message = "the kernel's code ended the frontend worker with " +
              call.substr(0, call.find(" at ")) + " while it compiled this kernel";
    if (std::size_t at = call.find(" at "); at != std::string::npos) {
      std::string place = call.substr(at + 4);
      std::size_t colon = place.rfind(':');
      error["file"] = place.substr(0, colon);
      if (colon != std::string::npos)
        error["line"] = std::atoi(place.c_str() + colon + 1);
    }
    notes.push_back("os._exit() ends the process at once, with no error for triton-aot to "
                    "report: a kernel module must not call it at import or compile time");
  } else if (end.kind == WorkerEnd::Kind::Signaled && end.value == SIGKILL) {
    message = "the frontend worker was killed (SIGKILL) while it compiled this kernel";
    notes.push_back("the out-of-memory killer sends SIGKILL when memory runs out (see "
                    "'dmesg' or the container's memory events): try fewer -j/--jobs; else "
                    "another process killed it");
  } else if (end.kind == WorkerEnd::Kind::Signaled) {
    message = "Triton crashed compiling this kernel (the frontend worker was killed by " +
              signalName(end.value) + ", in Triton, LLVM or an extension module the kernel "
              "imports)";
  } else if (end.kind == WorkerEnd::Kind::Exited && fatal.empty()) {
    message = "the frontend worker exited with status " + std::to_string(end.value) +
              " while it compiled this kernel, without an error from Python: something it ran "
              "ended the process (os._exit() from C or an extension, exit() in native code)";
  } else if (end.kind == WorkerEnd::Kind::Exited) {
    message = "Triton crashed compiling this kernel (the frontend worker exited with status " +
              std::to_string(end.value) + ")";
  } else {
    message = "the frontend worker from the pool ended while it compiled this kernel (how, the "
              "pool could not say)";
  }
  if (!fatal.empty() && exitCall(stderrTail).empty())
    message += ": " + fatal;
  notes.push_back("rerun with --verbose to see the whole output");
  error["message"] = message;
  error["notes"] = notes;
  return {{"ok", false}, {"error", error}};
}

/// How a request is named in messages: "compiling kernel 'f' for cuda:80", "importing kernel
/// 'f' (...)"; the diagnostic's location names the file.
std::string requestWhat(const nlohmann::json &request) {
  const std::string op = stringOr(request, "op");
  const std::string function = stringOr(request, "function");
  const nlohmann::json &target = objectOf(request, "target");
  std::string targetText;
  if (const nlohmann::json *arch = member(target, "arch"))
    targetText = stringOr(target, "backend") + ":" +
                 (arch->is_string() ? arch->get<std::string>() : arch->dump());
  std::string kernel = function.empty() ? std::string("the kernel") : "kernel '" + function + "'";
  if (op == "compile")
    return "compiling " + kernel + (targetText.empty() ? "" : " for " + targetText);
  if (op == "describe")
    return "importing " + kernel + " (its module and what that imports)";
  return "the frontend's '" + op + "' request";
}

/// Where a stuck worker was, from the stacks its faulthandler printed (most recent call first):
/// the first frame in \p directory (the kernel file's), as {file, line}; none if none is.
std::optional<std::pair<std::string, int>> stuckAt(const std::string &stacks,
                                                   const std::string &directory) {
  // '  File "/src/kernels/k.py", line 11 in <module>'
  const std::string prefix = "File \"" + directory + "/";
  for (std::size_t at = stacks.find(prefix); at != std::string::npos;
       at = stacks.find(prefix, at + 1)) {
    const std::size_t close = stacks.find('"', at + 6);
    const std::size_t line = stacks.find("\", line ", at);
    if (close == std::string::npos || line != close)
      continue;
    return std::pair{stacks.substr(at + 6, close - at - 6),
                     std::atoi(stacks.c_str() + close + std::string_view("\", line ").size())};
  }
  return std::nullopt;
}

/// A request its worker did not answer within the limit (the worker is killed).
nlohmann::json timeoutFailure(const nlohmann::json &request, int seconds,
                              const std::string &stderrTail) {
  nlohmann::json notes = nlohmann::json::array(
      {"the limit is --compile-timeout or TRITON_AOT_COMPILE_TIMEOUT, in seconds per request "
       "(0: none)",
       "an import that never returns (a loop, a sleep, input(), a lock or a server that does not "
       "answer) in the kernel's module or one it imports stops the compile so; a compile that is "
       "only slow needs a higher limit"});
  nlohmann::json error = {
      {"kind", "kernel"},
      {"message", requestWhat(request) + " did not finish within " + std::to_string(seconds) +
                      " s; the frontend worker was stopped"},
      {"notes", notes},
      {"traceback", stderrTail}};
  if (const std::string source = stringOr(request, "source"); !source.empty()) {
    error["file"] = source;
    // Located where it was stuck, if that is in the kernel's directory.
    if (auto place = stuckAt(stderrTail, std::filesystem::path(source).parent_path().string())) {
      error["file"] = place->first;
      error["line"] = place->second;
    }
  }
  return {{"ok", false}, {"error", error}};
}

/// The pending request \p worker should take: the first for the target it serves only, if it
/// is bound to one and one is pending, else the first (a bound worker then starts afresh for
/// it: correct, only slower).
std::size_t takeRequestFor(const WorkerProcess &worker, const std::vector<nlohmann::json> &requests,
                           std::deque<std::size_t> &pending) {
  auto chosen = pending.begin();
  if (!worker.servesTarget.is_null()) {
    auto same = std::find_if(pending.begin(), pending.end(), [&](std::size_t i) {
      auto target = requests[i].find("target");
      return target != requests[i].end() && *target == worker.servesTarget;
    });
    if (same != pending.end())
      chosen = same;
  }
  std::size_t index = *chosen;
  pending.erase(chosen);
  return index;
}

} // namespace

Expected<nlohmann::json> WorkerPool::start(int count) {
  count = std::min(count, maxWorkers_);
  // Three times at most: pooled workers first, then, if the pool failed them, forked from the
  // zygote, then, if it failed them too, started as interpreters.
  for (int attempt = 0; attempt < 3 && hello_.is_null(); ++attempt) {
    auto alive = [&] {
      return std::count_if(workers_.begin(), workers_.end(), [](auto &w) { return !w->dead; });
    };
    while (alive() < count) {
      auto spawned = spawn();
      if (!spawned)
        return spawned.takeError();
    }
    // Wait for the first hello only: forked from the zygote one after another, the others say
    // theirs while the first compiles, and each gets its first request as it does.
    awaitingFirstHello_ = true;
    Status waited = run({}, {});
    awaitingFirstHello_ = false;
    if (!waited)
      return waited.takeError();
  }
  if (hello_.is_null())
    return makeError(ExitCode::EnvironmentError, "no frontend worker said hello");
  return hello_;
}

Status WorkerPool::run(const std::vector<nlohmann::json> &requests,
                       const std::function<void(std::size_t, nlohmann::json)> &onResponse,
                       AfterRun after) {
  if (released_)
    return makeError(ExitCode::InternalError, "a request after the workers were released");
  Answers answered;
  Status status = serve(requests, answered, onResponse, after);
  released_ = released_ || after == AfterRun::EndIdleWorkers;
  deliver(answered, onResponse);   // those read before it stopped
  return status;
}

void WorkerPool::deliver(Answers &answered,
                         const std::function<void(std::size_t, nlohmann::json)> &onResponse) {
  for (auto &[index, message] : answered)
    if (onResponse)
      onResponse(index, std::move(message));
  answered.clear();
}

std::size_t WorkerPool::startingCount() const {
  std::size_t n = 0;
  for (auto &w : workers_)
    n += !w->dead && !w->saidHello;
  return n;
}

Status WorkerPool::serve(const std::vector<nlohmann::json> &requests, Answers &answered,
                         const std::function<void(std::size_t, nlohmann::json)> &onResponse,
                         AfterRun after) {
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < requests.size(); ++i)
    pending.push_back(i);
  std::size_t inFlight = 0;
  while (true) {
    if (Status handed = handOut(requests, pending, inFlight); !handed)
      return handed;
    if (pending.empty() && after == AfterRun::EndIdleWorkers)
      endIdleWorkers();
    // Answers are handled once their workers have their next request: a worker never waits
    // on the run's storing of another answer.
    deliver(answered, onResponse);
    // Done once every request is answered: workers still starting say hello during the next
    // run (the zygote forks them one after another; waiting for the last held up the first
    // compiles by tens of ms at 16 workers).
    if (pending.empty() && inFlight == 0 &&
        (!awaitingFirstHello_ || !hello_.is_null() || startingCount() == 0))
      return ok();
    if (Status read = readWorkers(inFlight, answered); !read)
      return read;
    stopOverdue(requests, inFlight, answered);
  }
}

Status WorkerPool::handOut(const std::vector<nlohmann::json> &requests,
                           std::deque<std::size_t> &pending, std::size_t &inFlight) {
  // A dead worker is replaced while work remains.
  std::size_t alive = 0;
  for (auto &w : workers_)
    alive += !w->dead;
  if (!pending.empty() && alive < static_cast<std::size_t>(maxWorkers_) &&
      alive < pending.size() + inFlight) {
    auto spawned = spawn();
    if (!spawned)
      return spawned.takeError();
  }
  for (auto &w : workers_) {
    if (pending.empty())
      break;
    if (w->dead || !w->saidHello || w->busyWith >= 0)
      continue;
    std::size_t index = takeRequestFor(*w, requests, pending);
    nlohmann::json request = requests[index];
    request["id"] = index;
    std::string line = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    w->busyWith = static_cast<long>(index);
    w->busySince = std::chrono::steady_clock::now();
    ++inFlight;
    if (!writeAll(w->input, line))
      w->closeFd(w->input);   // its death shows up as EOF on stdout (readWorkers)
  }
  return ok();
}

void WorkerPool::endIdleWorkers() {
  // Its exit overlaps the last compiles; a worker still starting is told once it says hello.
  for (auto &w : workers_)
    if (!w->dead && w->saidHello && w->busyWith < 0 && w->input >= 0) {
      w->toldToEnd = true;
      w->closeFd(w->input);
    }
  if (startingCount() == 0)
    dismissZygote();   // no worker will be forked again
}

Status WorkerPool::readWorkers(std::size_t &inFlight, Answers &answered) {
  std::vector<pollfd> fds;
  std::vector<std::pair<WorkerProcess *, bool>> owners;   // (worker, is stdout)
  for (auto &w : workers_) {
    if (w->output >= 0) {
      fds.push_back({w->output, POLLIN, 0});
      owners.push_back({w.get(), true});
    }
    if (w->errors >= 0) {
      fds.push_back({w->errors, POLLIN, 0});
      owners.push_back({w.get(), false});
    }
  }
  if (settings_.interruptFd >= 0) {
    fds.push_back({settings_.interruptFd, POLLIN, 0});
    owners.push_back({nullptr, false});
  }
  if (fds.empty())
    return makeError(ExitCode::InternalError, "no frontend worker is left to run requests");
  if (::poll(fds.data(), fds.size(), pollTimeout()) < 0)
    return errno == EINTR ? ok()
                          : makeError(ExitCode::InternalError, "poll failed: " + errnoText(errno));

  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    auto [worker, isOutput] = owners[i];
    if (!worker) {
      for (auto &w : workers_)
        w->kill();
      return makeError(ExitCode::Interrupted, "interrupted");
    }
    char chunk[65536];
    ssize_t n = ::read(fds[i].fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (!isOutput) {
      if (n <= 0)
        worker->closeFd(worker->errors);
      else
        worker->keepStderr(std::string_view(chunk, static_cast<std::size_t>(n)), settings_.log);
      continue;
    }
    Status taken = n <= 0 ? workerEnded(*worker, inFlight, answered)
                          : takeOutput(*worker, std::string_view(chunk, static_cast<std::size_t>(n)),
                                       inFlight, answered);
    if (!taken)
      return taken;
  }
  return ok();
}

/// A worker's stdout at EOF: the request it had fails saying how it ended; one that ended
/// before its hello is an environment error (or, from the pool, the pool is given up).
Status WorkerPool::workerEnded(WorkerProcess &worker, std::size_t &inFlight, Answers &answered) {
  // Drain what is left of its stderr for the report.
  if (worker.errors >= 0) {
    char chunk[65536];
    ssize_t m;
    while ((m = ::read(worker.errors, chunk, sizeof chunk)) > 0)
      worker.keepStderr(std::string_view(chunk, static_cast<std::size_t>(m)), settings_.log);
    worker.closeFd(worker.errors);
  }
  worker.reap();
  if (worker.toldToEnd && worker.busyWith < 0) {
    if (settings_.log)
      settings_.log("frontend: worker " + std::to_string(worker.helloPid) +
                    " released: nothing was left for it");
    return ok();
  }
  if (worker.busyWith >= 0) {
    // Asked now, while the pool remembers it: how the process ended names the cause.
    WorkerEnd end = endOf(worker.exitStatus);
    if (worker.leased)
      end = worker.helloPid > 0 ? leasedWorkerEnd(poolSocket_, worker.helloPid) : WorkerEnd{};
    std::size_t index = static_cast<std::size_t>(worker.busyWith);
    worker.busyWith = -1;
    --inFlight;
    answered.emplace_back(index, crashFailure(end, worker.errorTail));
    return ok();
  }
  if (!worker.saidHello && worker.leased) {
    givePoolUp("a worker from the pool ended before its hello");
    return ok();   // start() or the replacement in serve() starts one directly
  }
  if (!worker.saidHello && worker.forked) {
    giveZygoteUp("a worker from the zygote ended before its hello");
    return ok();   // as for the pool
  }
  if (!worker.saidHello) {
    Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                "the frontend worker (" + settings_.python + " -B " +
                                    settings_.script + ") " + describeExit(worker.exitStatus) +
                                    " before it was ready");
    diag.notes.push_back("check that '" + settings_.python +
                         "' is a working Python 3 interpreter (--python, TRITON_AOT_PYTHON)");
    diag.detail = worker.errorTail;
    return diag;
  }
  return ok();
}

/// What a worker printed on stdout: whole lines are its hello, then one answer per request.
Status WorkerPool::takeOutput(WorkerProcess &worker, std::string_view chunk,
                              std::size_t &inFlight, Answers &answered) {
  worker.outputBuffer.append(chunk);
  std::size_t newline;
  while ((newline = worker.outputBuffer.find('\n')) != std::string::npos) {
    std::string line = worker.outputBuffer.substr(0, newline);
    worker.outputBuffer.erase(0, newline + 1);
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (!worker.saidHello) {
      if (stringOr(message, "event") == "hello") {
        worker.saidHello = true;
        worker.helloPid = static_cast<long>(integerOf(message, "pid").value_or(-1));
        if (worker.forked && worker.helloPid > 1)
          worker.pid = static_cast<pid_t>(worker.helloPid);   // our child: the zygote's grandchild
        if (const std::string warmed = warmedUpTargets(message); settings_.log && !warmed.empty())
          settings_.log("frontend: worker " + std::to_string(worker.helloPid) +
                        " was prepared before the run, warmed up for " + warmed);
        if (hello_.is_null())
          hello_ = message;
        continue;
      }
      worker.kill();
      Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                  "the frontend worker did not start: it printed '" +
                                      line.substr(0, 200) + "' instead of its hello");
      diag.detail = worker.errorTail;
      return diag;
    }
    if (worker.busyWith < 0)
      continue;   // nothing asked: ignore
    if (message.is_object() && message.contains("worker_target"))
      worker.servesTarget = message["worker_target"];
    std::size_t index = static_cast<std::size_t>(worker.busyWith);
    worker.busyWith = -1;
    --inFlight;
    if (!message.is_object())
      message = internalFailure("the frontend worker answered with a line that is not JSON",
                                line.substr(0, 2000));
    answered.emplace_back(index, std::move(message));
  }
  return ok();
}

int WorkerPool::pollTimeout() const {
  if (settings_.requestTimeoutSeconds <= 0)
    return -1;
  using namespace std::chrono;
  const auto now = steady_clock::now();
  long wait = -1;
  for (const auto &w : workers_)
    if (!w->dead && w->busyWith >= 0) {
      const auto left = w->busySince + seconds(settings_.requestTimeoutSeconds) - now;
      const long ms = std::max<long>(0, static_cast<long>(ceil<milliseconds>(left).count()));
      wait = wait < 0 ? ms : std::min(wait, ms);
    }
  return static_cast<int>(std::min<long>(wait, 60'000));
}

void WorkerPool::stopOverdue(const std::vector<nlohmann::json> &requests, std::size_t &inFlight,
                             Answers &answered) {
  if (settings_.requestTimeoutSeconds <= 0)
    return;
  const auto now = std::chrono::steady_clock::now();
  for (auto &w : workers_) {
    if (w->dead || w->busyWith < 0 ||
        now - w->busySince < std::chrono::seconds(settings_.requestTimeoutSeconds))
      continue;
    // Killed, pooled or not: a worker stuck in a kernel's import must not outlive the run, nor
    // serve another. What it wrote so far is kept for --verbose.
    const std::size_t index = static_cast<std::size_t>(w->busyWith);
    w->dumpStacks(settings_.log);
    w->kill();
    w->busyWith = -1;
    --inFlight;
    if (settings_.log)
      settings_.log("frontend: " + requestWhat(requests[index]) + " did not finish within " +
                    std::to_string(settings_.requestTimeoutSeconds) + " s: worker stopped");
    answered.emplace_back(index, timeoutFailure(requests[index], settings_.requestTimeoutSeconds,
                                                w->errorTail));
  }
}

} // namespace tta
