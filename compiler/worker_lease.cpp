#include "compiler/worker_lease.h"

#include "compiler/cache.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tta {

namespace fs = std::filesystem;

std::vector<std::string> frontendCommand(const std::string &python, const std::string &script) {
  static const char *const kLauncher =
      "import os, runpy, sys; script = sys.argv[1]; sys.path[0] = os.path.dirname(script); "
      "del sys.argv[0]; runpy.run_module(os.path.splitext(os.path.basename(script))[0], "
      "run_name='__main__', alter_sys=True)";
  return {python, "-B", "-c", kLauncher, script};
}

namespace {

constexpr const char kLeaseHeader[] = "lease 1 ";
constexpr const char kStatusHeader[] = "status 1 ";   ///< then a worker's pid: how it ended
constexpr const char kPrepareHeader[] = "prepare 1 ";  ///< then how many workers, for what

Diagnostic poolError(const std::string &message) {
  return makeError(ExitCode::EnvironmentError, message);
}

std::string fileText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Variables that differ between two commands of one build without changing what a worker
/// does; triton-aot's own configure triton-aot-cc, which passes on what the worker needs.
bool bookkeeping(const std::string &entry) {
  std::string key = entry.substr(0, entry.find('='));
  if (key.rfind("TRITON_AOT_", 0) == 0)
    return true;
  for (const char *name : {"PWD", "OLDPWD", "SHLVL", "_", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"})
    if (key == name)
      return true;
  return false;
}

/// A connected socket to the pool, or -1. A path longer than sockaddr_un holds (108 bytes) is
/// reached through its directory's descriptor, /proc/self/fd/<fd>/<name>, as the pool binds it.
int connectTo(const std::string &socket) {
  fs::path path(socket);
  int directory = -1;
  std::string reachable = socket;
  if (socket.size() >= sizeof(sockaddr_un::sun_path)) {
    directory = ::open(path.parent_path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0)
      return -1;
    reachable = "/proc/self/fd/" + std::to_string(directory) + "/" + path.filename().string();
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, reachable.c_str(), reachable.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
    ::close(fd);
    fd = -1;
  }
  if (directory >= 0)
    ::close(directory);
  return fd;
}

/// Starts worker_pool.py, which forks the pool and exits; waits for that first exit only.
Status startPool(const std::string &socket, const std::string &python,
                 const std::string &workerScript, int idleSeconds,
                 const std::vector<std::string> &environment) {
  std::string poolScript = (fs::path(workerScript).parent_path() / "worker_pool.py").string();
  if (::access(poolScript.c_str(), R_OK) != 0)
    return poolError("the worker pool script '" + poolScript + "' is missing");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd = 0; fd < 3; ++fd)
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  std::vector<std::string> args = frontendCommand(python, poolScript);
  args.insert(args.end(), {"--socket", socket, "--worker", workerScript, "--python", python,
                           "--idle", std::to_string(idleSeconds)});
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> envStrings = environment;
  std::vector<char *> envp;
  for (std::string &entry : envStrings)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return poolError("cannot start the worker pool with '" + python + "': " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return ok();
}

/// Sends the worker's ends of the three pipes to the pool, with what the run sets itself.
bool sendLease(int connection, const int fds[3], const std::string &settings) {
  return sendWithFds(connection, kLeaseHeader + settings + '\n', fds);
}

} // namespace

bool sendWithFds(int socket, std::string_view text, const int fds[3]) {
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  iovec data{const_cast<char *>(text.data()), text.size()};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(3 * sizeof(int));
  std::memcpy(CMSG_DATA(header), fds, 3 * sizeof(int));
  ssize_t sent;
  do
    sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent == static_cast<ssize_t>(text.size());
}

Expected<std::string> workerPoolDirectory() {
  fs::path directory;
  if (const char *env = std::getenv("TRITON_AOT_WORKER_POOL_DIR"); env && *env)
    directory = env;
  else if (const char *runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    directory = fs::path(runtime) / "triton-aot";
  else
    directory = "/tmp/triton-aot-" + std::to_string(::getuid());
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    return poolError("cannot create the worker pool directory '" + directory.string() +
                     "': " + std::strerror(errno));
  struct stat st{};
  if (::lstat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() ||
      (st.st_mode & 077) != 0)
    return poolError("the worker pool directory '" + directory.string() +
                     "' must be a directory of this user's alone (mode 0700)");
  return directory.string();
}

std::string workerPoolSocket(const std::string &directory, const std::string &project,
                             const std::string &python, const std::string &workerScript,
                             const std::vector<std::string> &environment) {
  std::string key = "triton-aot worker pool 2\n" + project + '\0' + python + '\n';
  // Every module of the frontend: a pool started by another version must not serve this one.
  std::vector<fs::path> modules;
  std::error_code ec;
  for (const fs::directory_entry &entry :
       fs::directory_iterator(fs::path(workerScript).parent_path(), ec))
    if (entry.path().extension() == ".py")
      modules.push_back(entry.path());
  std::sort(modules.begin(), modules.end());
  for (const fs::path &module : modules)
    key += module.filename().string() + ' ' + sha256Hex(fileText(module)) + '\n';
  // A variable set empty counts as unset: CMake's configure, which prepares the pool, leaves
  // LC_ALL= and LC_MESSAGES= behind after probing the compilers; the build has neither.
  std::vector<std::string> entries;
  for (const std::string &entry : environment)
    if (!entry.empty() && entry.back() != '=' && !bookkeeping(entry))
      entries.push_back(entry);
  std::sort(entries.begin(), entries.end());
  for (const std::string &entry : entries)
    key += entry + '\0';
  return (fs::path(directory) / ("pool-" + sha256Hex(key).substr(0, 24) + ".sock")).string();
}

namespace {

/// A connection to the pool at \p socket, started (detached) when none listens.
Expected<int> connectOrStart(const std::string &socket, const std::string &python,
                             const std::string &workerScript, int idleSeconds,
                             const std::vector<std::string> &environment) {
  if (fs::path(socket).filename().string().size() + 24 >= sizeof(sockaddr_un::sun_path))
    return poolError("the worker pool's socket name is too long: '" + socket + "'");
  int connection = connectTo(socket);
  if (connection >= 0)
    return connection;
  if (Status started = startPool(socket, python, workerScript, idleSeconds, environment); !started)
    return started.takeError();
  // The pool binds its socket within a few milliseconds of starting (it imports nothing).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((connection = connectTo(socket)) < 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (connection < 0)
    return poolError("the worker pool did not start listening on '" + socket + "' (see '" +
                     socket + ".log')");
  return connection;
}

} // namespace

Status prepareWorkers(const std::string &socket, const std::string &python,
                      const std::string &workerScript, int idleSeconds,
                      const std::vector<std::string> &environment,
                      const nlohmann::json &preparation) {
  auto connection = connectOrStart(socket, python, workerScript, idleSeconds, environment);
  if (!connection)
    return connection.takeError();
  const std::string message = kPrepareHeader + preparation.dump() + '\n';
  ssize_t sent;
  do
    sent = ::send(*connection, message.data(), message.size(), MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  ::close(*connection);
  if (sent != static_cast<ssize_t>(message.size()))
    return poolError("the worker pool at '" + socket + "' did not take the request for workers");
  return ok();
}

Expected<LeasedWorker> leaseWorker(const std::string &socket, const std::string &python,
                                   const std::string &workerScript, int idleSeconds,
                                   const std::vector<std::string> &environment,
                                   const nlohmann::json &runSettings) {
  auto connected = connectOrStart(socket, python, workerScript, idleSeconds, environment);
  if (!connected)
    return connected.takeError();
  const int connection = *connected;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    int error = errno;
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0)
        ::close(fd);
    ::close(connection);
    return poolError(std::string("cannot create pipes for a frontend worker: ") +
                     std::strerror(error));
  }
  const int theirs[3] = {in[0], out[1], err[1]};
  bool sent = sendLease(connection, theirs, runSettings.dump());
  ::close(connection);
  for (int fd : theirs)
    ::close(fd);
  if (!sent) {
    for (int fd : {in[1], out[0], err[0]})
      ::close(fd);
    return poolError("the worker pool at '" + socket + "' did not take the lease");
  }
  return LeasedWorker{in[1], out[0], err[0]};
}

WorkerEnd leasedWorkerEnd(const std::string &socket, long pid) {
  WorkerEnd end;
  int connection = connectTo(socket);
  if (connection < 0)
    return end;
  // The pool reaps its worker within milliseconds of its death; it answers once it has.
  timeval timeout{5, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  const std::string question = std::string(kStatusHeader) + std::to_string(pid) + '\n';
  std::string answer;
  if (::send(connection, question.data(), question.size(), MSG_NOSIGNAL) ==
      static_cast<ssize_t>(question.size())) {
    char chunk[64];
    ssize_t n;
    while (answer.find('\n') == std::string::npos &&
           ((n = ::recv(connection, chunk, sizeof chunk, 0)) > 0 || (n < 0 && errno == EINTR)))
      if (n > 0)
        answer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(connection);
  // "exited N" or "signaled N"; anything else: unknown.
  std::istringstream in(answer);
  std::string how;
  int value = 0;
  if (in >> how >> value) {
    if (how == "exited")
      end = {WorkerEnd::Kind::Exited, value};
    else if (how == "signaled")
      end = {WorkerEnd::Kind::Signaled, value};
  }
  return end;
}

} // namespace tta
