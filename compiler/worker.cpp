#include "compiler/worker.h"

#include "compiler/worker_lease.h"
#include "contract/json_access.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
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
  bool dead = false;
  long busyWith = -1;   ///< index of the request in flight, or -1
  int exitStatus = 0;
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
  /// so the build's next run finds it idle.
  void stop() {
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

  void kill() {
    if (pid > 0 && !dead) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &exitStatus, 0);
      dead = true;
    }
    closeFd(input);
    closeFd(output);
    closeFd(errors);
  }

  /// Marks the process dead after its stdout closed and records how it ended.
  void reap() {
    if (pid > 0 && !dead) {
      ::waitpid(pid, &exitStatus, 0);
      dead = true;
    }
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
  // Close every stdin first so the workers shut down in parallel.
  for (auto &worker : workers_)
    worker->closeFd(worker->input);
  workers_.clear();
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

Expected<WorkerProcess *> WorkerPool::lease() {
  // The pool is keyed by the user's environment; what the run sets travels with the lease.
  const std::vector<std::string> user = userEnvironment();
  if (poolSocket_.empty()) {
    auto directory = workerPoolDirectory();
    if (!directory)
      return directory.takeError();
    poolSocket_ = workerPoolSocket(*directory, settings_.python, settings_.script, user);
  }
  std::error_code ec;
  nlohmann::json runSettings = {{"cwd", std::filesystem::current_path(ec).string()},
                                {"environment", settings_.environment},
                                {"targets", settings_.targets}};
  auto leased = leaseWorker(poolSocket_, settings_.python, settings_.script,
                            settings_.poolIdleSeconds, user, runSettings);
  if (!leased)
    return leased.takeError();
  ::signal(SIGPIPE, SIG_IGN);
  auto worker = std::make_unique<WorkerProcess>();
  worker->leased = true;
  worker->input = leased->input;
  worker->output = leased->output;
  worker->errors = leased->errors;
  workers_.push_back(std::move(worker));
  return workers_.back().get();
}

Expected<WorkerProcess *> WorkerPool::spawn() {
  if (settings_.usePool && !poolGivenUp_) {
    auto leased = lease();
    if (leased)
      return leased;
    givePoolUp("the worker pool is unavailable (" + leased.takeError().message + ")");
  }
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    return makeError(ExitCode::EnvironmentError,
                     "cannot create pipes for the frontend worker: " + errnoText(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);

  std::vector<std::string> envStrings = environment();
  std::vector<char *> envp;
  for (std::string &s : envStrings)
    envp.push_back(s.data());
  envp.push_back(nullptr);

  std::string python = settings_.python, flag = "-B", script = settings_.script;
  char *argv[] = {python.data(), flag.data(), script.data(), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, python.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    return makeError(ExitCode::EnvironmentError,
                     "cannot start the frontend worker '" + python + "': " + errnoText(rc));
  }
  // A worker that dies must not kill us with SIGPIPE when we write its next request.
  ::signal(SIGPIPE, SIG_IGN);
  auto worker = std::make_unique<WorkerProcess>();
  worker->pid = pid;
  worker->input = in[1];
  worker->output = out[0];
  worker->errors = err[0];
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

/// A worker that died mid-compile: Triton or LLVM crashed on this kernel (or the system ran
/// out of memory). Not a triton-aot bug, so it is reported as a kernel error with the cause.
nlohmann::json crashFailure(bool leased, int status, const std::string &stderrTail) {
  std::string message = "Triton crashed compiling this kernel (the frontend worker " +
                        (leased ? std::string("from the worker pool died") : describeExit(status)) +
                        ")";
  if (std::string fatal = lastFatalLine(stderrTail); !fatal.empty())
    message += ": " + fatal;
  nlohmann::json notes = nlohmann::json::array({"rerun with --verbose to see the whole output"});
  if (!leased && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
    notes.push_back("a worker killed by SIGKILL was often out of memory: try fewer -j/--jobs");
  return {{"ok", false},
          {"error",
           {{"kind", "kernel"}, {"message", message}, {"notes", notes}, {"traceback", stderrTail}}}};
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
  // Twice at most: pooled workers first, then, if the pool failed them, started directly.
  for (int attempt = 0; attempt < 2 && hello_.is_null(); ++attempt) {
    auto alive = [&] {
      return std::count_if(workers_.begin(), workers_.end(), [](auto &w) { return !w->dead; });
    };
    while (alive() < count) {
      auto spawned = spawn();
      if (!spawned)
        return spawned.takeError();
    }
    // Wait for every hello: the first request would wait for it anyway.
    Status waited = run({}, {});
    if (!waited)
      return waited.takeError();
  }
  if (hello_.is_null())
    return makeError(ExitCode::EnvironmentError, "no frontend worker said hello");
  return hello_;
}

Status WorkerPool::run(const std::vector<nlohmann::json> &requests,
                       const std::function<void(std::size_t, nlohmann::json)> &onResponse) {
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < requests.size(); ++i)
    pending.push_back(i);
  std::size_t inFlight = 0;

  auto startingCount = [&] {
    std::size_t n = 0;
    for (auto &w : workers_)
      n += !w->dead && !w->saidHello;
    return n;
  };

  while (true) {
    // Hand work to idle workers; replace dead ones while work remains.
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
      ++inFlight;
      if (!writeAll(w->input, line))
        w->closeFd(w->input);   // its death shows up as EOF on stdout below
    }
    if (pending.empty() && inFlight == 0 && startingCount() == 0)
      return ok();

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
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR)
        continue;
      return makeError(ExitCode::InternalError, "poll failed: " + errnoText(errno));
    }

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
      if (n <= 0) {
        // The worker is gone. Drain what is left of its stderr for the report.
        if (worker->errors >= 0) {
          ssize_t m;
          while ((m = ::read(worker->errors, chunk, sizeof chunk)) > 0)
            worker->keepStderr(std::string_view(chunk, static_cast<std::size_t>(m)), settings_.log);
          worker->closeFd(worker->errors);
        }
        worker->reap();
        if (!worker->saidHello && worker->leased) {
          givePoolUp("a worker from the pool ended before its hello");
          continue;   // start() or the replacement below starts one directly
        }
        if (!worker->saidHello) {
          Diagnostic diag = makeError(
              ExitCode::EnvironmentError,
              "the frontend worker (" + settings_.python + " -B " + settings_.script + ") " +
                  describeExit(worker->exitStatus) + " before it was ready");
          diag.notes.push_back("check that '" + settings_.python +
                               "' is a working Python 3 interpreter (--python, TRITON_AOT_PYTHON)");
          diag.detail = worker->errorTail;
          return diag;
        }
        if (worker->busyWith >= 0) {
          std::size_t index = static_cast<std::size_t>(worker->busyWith);
          worker->busyWith = -1;
          --inFlight;
          if (onResponse)
            onResponse(index, crashFailure(worker->leased, worker->exitStatus, worker->errorTail));
        }
        continue;
      }
      worker->outputBuffer.append(chunk, static_cast<std::size_t>(n));
      std::size_t newline;
      while ((newline = worker->outputBuffer.find('\n')) != std::string::npos) {
        std::string line = worker->outputBuffer.substr(0, newline);
        worker->outputBuffer.erase(0, newline + 1);
        nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
        if (!worker->saidHello) {
          if (stringOr(message, "event") == "hello") {
            worker->saidHello = true;
            if (hello_.is_null())
              hello_ = message;
            continue;
          }
          worker->kill();
          Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                      "the frontend worker did not start: it printed '" +
                                          line.substr(0, 200) + "' instead of its hello");
          diag.detail = worker->errorTail;
          return diag;
        }
        if (worker->busyWith < 0)
          continue;   // nothing asked: ignore
        if (message.is_object() && message.contains("worker_target"))
          worker->servesTarget = message["worker_target"];
        std::size_t index = static_cast<std::size_t>(worker->busyWith);
        worker->busyWith = -1;
        --inFlight;
        if (!message.is_object())
          message = internalFailure("the frontend worker answered with a line that is not JSON",
                                    line.substr(0, 2000));
        if (onResponse)
          onResponse(index, std::move(message));
      }
    }
  }
}

} // namespace tta
