// Frontend workers: Python processes that run triton_aot_worker.py and answer JSON-line
// requests (docs/frontend-protocol.md). The pool starts them lazily, keeps each busy with one
// request at a time, and stops them all on an interrupt or when it is destroyed.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace tta {

struct WorkerSettings {
  std::string python;                         ///< absolute interpreter path
  std::string script;                         ///< triton_aot_worker.py
  std::map<std::string, std::string> environment;   ///< added to (or replacing in) ours
  int interruptFd = -1;                       ///< readable: stop everything (Interrupted)
  std::function<void(std::string_view)> log;  ///< worker stderr lines, when verbose
  /// Lease warm workers from the worker pool (worker_lease.h) instead of starting them; when
  /// the pool cannot be reached they are started as without it.
  bool usePool = false;
  /// Workers started by the run (not leased) are forked from one zygote process that imported
  /// Triton once (triton_aot_worker.py --zygote), not each started as an interpreter; they are
  /// the run's children all the same (it becomes a child subreaper). Started as interpreters
  /// when the zygote fails.
  bool useZygote = false;
  int poolIdleSeconds = 120;                  ///< an idle pooled worker exits after this
  /// The trust domain pooled workers are kept to (worker_lease.h, workerPoolSocket): a worker
  /// that ran one project's kernel code never serves another project.
  std::string project;
  /// A request not answered within this many seconds is failed as a kernel error naming the
  /// kernel and the limit, and its worker killed (never returned to the pool); 0: no limit.
  int requestTimeoutSeconds = 0;
  /// The targets this run compiles, as requests spell them: the pool leases a worker already
  /// serving one of them first (a worker whose installed modules answered for a target serves
  /// that target only; docs/frontend-protocol.md).
  nlohmann::json targets = nlohmann::json::array();
};

/// Looks \p program up on PATH unless it contains a '/', and makes it absolute.
Expected<std::string> resolveProgram(const std::string &program);

class WorkerProcess;

class WorkerPool {
public:
  WorkerPool(WorkerSettings settings, int maxWorkers);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  /// Starts \p count workers now and returns the first hello (the others say theirs later).
  /// Errors: the interpreter cannot be started, or it exited before saying hello.
  Expected<nlohmann::json> start(int count);

  /// Sends every request (each gets an "id") to the idle workers and calls \p onResponse for
  /// each answer as it arrives. A worker that dies fails its request with a "kernel" error
  /// response saying how it ended (and is replaced); so does one that outlives
  /// requestTimeoutSeconds, which is killed; an interrupt stops everything (busy workers are
  /// killed, pooled ones too) and returns Interrupted.
  /// With AfterRun::EndIdleWorkers, the run's last: a worker with nothing left to take is told
  /// to end (EOF on its stdin) while the others finish, and the pool takes no more requests.
  enum class AfterRun { KeepWorkers, EndIdleWorkers };
  Status run(const std::vector<nlohmann::json> &requests,
             const std::function<void(std::size_t index, nlohmann::json response)> &onResponse,
             AfterRun after = AfterRun::KeepWorkers);

  /// Asks the worker pool (settings_.usePool) to hold \p count workers for this project,
  /// warmed up for settings_.targets, before a run needs them (worker_lease.h,
  /// prepareWorkers); returns without waiting for them. Errors: the pool cannot be started.
  Status prepare(int count);

  /// Nothing more will be asked: every idle worker's stdin is closed (and the zygote stopped
  /// without waiting) so that they end while the run stages its outputs; the destructor
  /// waits for them as before.
  void release();

private:
  Expected<WorkerProcess *> spawn();
  Expected<WorkerProcess *> lease();
  /// poolSocket_ for this project, interpreter and \p user environment (userEnvironment()).
  Status findPoolSocket(const std::vector<std::string> &user);
  Expected<WorkerProcess *> forkFromZygote();
  /// A worker on the run's ends of its pipes (to its stdin, from its stdout and stderr).
  WorkerProcess *addWorker(const int (&ours)[3]);
  Status startZygote();
  void stopZygote();
  void dismissZygote();   ///< its control closed and SIGKILL sent, not waited for
  void giveZygoteUp(const std::string &why);
  /// posix_spawn()s the interpreter on the worker script with \p arguments after it, with
  /// \p stdio as its fds 0-2 and \p extraFd (if >= 0) as its fd 3.
  Expected<pid_t> startInterpreter(const std::vector<std::string> &arguments,
                                   const int (&stdio)[3], int extraFd);
  /// Ours, less what settings_ replaces and the remote cache's settings (secrets among them).
  std::vector<std::string> userEnvironment() const;
  std::vector<std::string> environment() const;       ///< a worker's: the user's plus settings_
  void givePoolUp(const std::string &why);
  /// Answers read and not yet handed to run()'s caller: (request index, answer).
  using Answers = std::vector<std::pair<std::size_t, nlohmann::json>>;
  /// Hands each of \p answered to \p onResponse, and empties it.
  static void deliver(Answers &answered,
                      const std::function<void(std::size_t, nlohmann::json)> &onResponse);
  /// run()'s loop: requests to idle workers, answers (and failures) into \p answered,
  /// delivered each time the workers have their next requests.
  Status serve(const std::vector<nlohmann::json> &requests, Answers &answered,
               const std::function<void(std::size_t, nlohmann::json)> &onResponse,
               AfterRun after);
  /// Replaces a dead worker while work remains, and gives each idle worker its next request.
  Status handOut(const std::vector<nlohmann::json> &requests, std::deque<std::size_t> &pending,
                 std::size_t &inFlight);
  /// The run's last requests are all handed out: each idle worker is told to end (EOF on its
  /// stdin), and the zygote is dismissed once no worker is starting.
  void endIdleWorkers();
  /// Waits for the workers' output (or the interrupt) and takes what they wrote.
  Status readWorkers(std::size_t &inFlight, Answers &answered);
  std::size_t startingCount() const;   ///< workers alive that have not said hello yet
  Status workerEnded(WorkerProcess &worker, std::size_t &inFlight, Answers &answered);
  Status takeOutput(WorkerProcess &worker, std::string_view chunk, std::size_t &inFlight,
                    Answers &answered);
  /// poll()'s timeout: until the first request in flight reaches the limit (-1: none).
  int pollTimeout() const;
  /// Fails every request in flight past the limit, killing its worker.
  void stopOverdue(const std::vector<nlohmann::json> &requests, std::size_t &inFlight,
                   Answers &answered);

  WorkerSettings settings_;
  int maxWorkers_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
  nlohmann::json hello_;
  std::string poolSocket_;   ///< empty until the first lease
  bool poolGivenUp_ = false; ///< the pool failed once: start workers directly from now on
  pid_t zygotePid_ = -1;
  int zygoteControl_ = -1;     ///< our end of its socket: fork requests
  bool zygoteGivenUp_ = false; ///< the zygote failed once: start interpreters from now on
  bool released_ = false;      ///< release() was called: no more requests
  bool awaitingFirstHello_ = false; ///< start(): run() returns at the first hello
};

} // namespace tta
