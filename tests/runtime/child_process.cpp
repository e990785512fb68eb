#include "child_process.h"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern char **environ;

namespace tta::test {
namespace {

std::string selfPath() {
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "/proc/self/exe";
  path[length] = '\0';
  return path;
}

std::string nameOf(const std::string &entry) { return entry.substr(0, entry.find('=')); }

} // namespace

bool ChildResult::passedOne() const {
  return exitStatus == 0 && out.find("[  PASSED  ] 1 test.") != std::string::npos &&
         out.find("[  SKIPPED ]") == std::string::npos;
}

std::string ChildResult::describe() const {
  return "child exit status " + std::to_string(exitStatus) + "\n--- stdout:\n" + out +
         "\n--- stderr:\n" + err;
}

ChildResult runChild(const std::string &mode, const std::string &gtestFilter,
                     const std::vector<std::string> &set, const std::vector<std::string> &unset) {
  std::vector<std::string> environment;
  std::vector<std::string> changes = set;
  changes.push_back("TTA_RUNTIME_CHILD=" + mode);
  for (char **entry = environ; *entry != nullptr; ++entry) {
    std::string name = nameOf(*entry);
    bool drop = false;
    for (const auto &change : changes) drop = drop || nameOf(change) == name;
    for (const auto &removed : unset) drop = drop || removed == name;
    if (!drop) environment.emplace_back(*entry);
  }
  environment.insert(environment.end(), changes.begin(), changes.end());
  std::vector<char *> envp;
  for (auto &entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  std::string program = selfPath(), filter = "--gtest_filter=" + gtestFilter;
  std::vector<char *> argv = {program.data(), filter.data(), nullptr};

  ChildResult result;
  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0 || pipe(errPipe) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    result.err = std::string("posix_spawn failed: ") + std::strerror(spawned);
    return result;
  }
  // Read both pipes until both close, so a chatty child never blocks on a full pipe.
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string *texts[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        texts[i]->append(buffer, static_cast<std::size_t>(got));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

bool childMode(const char *mode) {
  const char *value = std::getenv("TTA_RUNTIME_CHILD");
  return value != nullptr && std::strcmp(value, mode) == 0;
}

} // namespace tta::test
