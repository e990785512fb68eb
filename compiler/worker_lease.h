// Leasing a warm frontend worker from the worker pool (compiler/frontend/worker_pool.py), which
// outlives one triton-aot-cc run so that the imports of Triton and of the kernel's modules
// (torch: seconds) are paid once per worker, not once per run. See docs/frontend-protocol.md.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace tta {

/// Where pools listen: $TRITON_AOT_WORKER_POOL_DIR, else $XDG_RUNTIME_DIR/triton-aot, else
/// /tmp/triton-aot-<uid>; created 0700. Errors: it cannot be made, or it is not ours alone
/// (another user could hand us a worker).
Expected<std::string> workerPoolDirectory();

/// The socket of the pool for this project, interpreter, worker scripts (by content) and
/// environment (the user's "KEY=value" list, without what the run sets itself): a run
/// differing in any of them gets a pool of its own. \p project is the trust domain (the run's
/// source root, or its kernel files' directories: docs/security.md, "Workers"): a worker that
/// ran one project's kernel code never serves another's. Left out: triton-aot's own
/// TRITON_AOT_* (they configure the run, which passes on what a worker needs), shell
/// bookkeeping (PWD, SHLVL, _...), MAKEFLAGS (its jobserver fds differ per make), and variables
/// set empty, which count as unset.
std::string workerPoolSocket(const std::string &directory, const std::string &project,
                             const std::string &python, const std::string &workerScript,
                             const std::vector<std::string> &environment);

/// The three pipe ends the run keeps for a leased worker: what it writes requests to, reads
/// responses and the worker's output from.
struct LeasedWorker {
  int input = -1;
  int output = -1;
  int errors = -1;
};

/// Asks the pool at \p socket for a worker, starting the pool (detached, with \p environment)
/// when none listens. \p runSettings ({"cwd", "environment": {KEY: value}}) is what differs
/// between runs sharing a pool: the worker takes them before it serves the lease. The worker
/// says hello on `output` as a spawned one does; a pool that accepted the lease but failed to
/// serve it shows as EOF before that hello. Errors: no pool could be reached or started.
Expected<LeasedWorker> leaseWorker(const std::string &socket, const std::string &python,
                                   const std::string &workerScript, int idleSeconds,
                                   const std::vector<std::string> &environment,
                                   const nlohmann::json &runSettings);

/// Asks the pool at \p socket (started as leaseWorker() starts it) for workers before a build
/// needs them: \p preparation is {"workers": N, "targets": [request targets], "environment":
/// what the runs set (Triton's key among it)}; the pool forks
/// idle workers until it holds N, from a zygote that compiled for each target first
/// (frontend/warm_up.py). Returns once the pool took the request, not when they are ready.
/// Errors: no pool could be reached or started.
Status prepareWorkers(const std::string &socket, const std::string &python,
                      const std::string &workerScript, int idleSeconds,
                      const std::vector<std::string> &environment,
                      const nlohmann::json &preparation);

/// Sends \p text and three fds (SCM_RIGHTS) in one message on the Unix socket \p socket, as a
/// lease to the pool and a fork request to the zygote are sent. False when it could not (errno
/// says why); the fds stay ours either way.
bool sendWithFds(int socket, std::string_view text, const int fds[3]);

/// The command that starts the frontend script \p script (a worker, the pool) under \p python:
/// `python -B -c <launcher> script`, the launcher running the script as `__main__` from its
/// bytecode beside it (runpy), which a script named on the command line never is: Python
/// compiles such a script from source each time. frontend/launch.py spells the same.
std::vector<std::string> frontendCommand(const std::string &python, const std::string &script);

/// How a process ended, as far as the run could learn it.
struct WorkerEnd {
  enum class Kind { Unknown, Exited, Signaled };
  Kind kind = Kind::Unknown;
  int value = 0;   ///< the exit status or the signal
};

/// How the pool's worker \p pid ended (the pool waited for it, not the run): asked of the pool at
/// \p socket, which answers for its own workers only. Unknown when the pool cannot say within
/// a few seconds.
WorkerEnd leasedWorkerEnd(const std::string &socket, long pid);

} // namespace tta
