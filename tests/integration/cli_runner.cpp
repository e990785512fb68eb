#include "cli_runner.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

extern char **environ;
namespace fs = std::filesystem;

namespace tta::testing {

namespace {

pid_t spawnIn(const std::string &program, const std::vector<std::string> &args,
              const fs::path &dir, const std::vector<std::string> &env, const fs::path &outFile,
              const fs::path &errFile) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // posix_spawn_file_actions_addchdir_np is glibc 2.29+: Debian 12 has it.
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  std::vector<std::string> argvStrings = {program};
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &a : argvStrings)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e)
    envStrings.emplace_back(*e);
  envStrings.insert(envStrings.end(), env.begin(), env.end());
  std::vector<char *> envp;
  for (std::string &e : envStrings)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0)
    pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

RunResult finish(pid_t pid, const fs::path &outFile, const fs::path &errFile) {
  RunResult result;
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid)
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = readText(outFile);
  result.err = readText(errFile);
  fs::remove(outFile);
  fs::remove(errFile);
  return result;
}

fs::path captureFile(const char *what) {
  static int counter = 0;
  return fs::temp_directory_path() /
         ("tta-cli-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + what);
}

} // namespace

RunResult run(const std::string &program, const std::vector<std::string> &args,
              const fs::path &dir, const std::vector<std::string> &env) {
  fs::path out = captureFile(".out"), err = captureFile(".err");
  return finish(spawnIn(program, args, dir, env, out, err), out, err);
}

RunResult runAndSignal(const std::string &program, const std::vector<std::string> &args,
                       const fs::path &dir, int signal, const std::function<bool()> &ready,
                       const std::vector<std::string> &env) {
  fs::path out = captureFile(".out"), err = captureFile(".err");
  pid_t pid = spawnIn(program, args, dir, env, out, err);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (pid > 0)
    kill(pid, signal);
  return finish(pid, out, err);
}

const std::string &testPython() {
  static const std::string python = [] {
    const char *env = std::getenv("TTA_TEST_PYTHON");
    return std::string(env && *env ? env : TTA_PYTHON);
  }();
  return python;
}

const std::string &testTritonVersion() {
  static const std::string version = [] {
    fs::path dir = testWorkDir();
    fs::create_directories(dir);
    RunResult r = run(testPython(), {"-c", "import triton; print(triton.__version__)"}, dir);
    std::string text = r.out;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    return r.status == 0 ? text : std::string("(unknown: ") + r.err + ")";
  }();
  return version;
}

fs::path testWorkDir() {
  if (const char *env = std::getenv("TTA_TEST_WORK_DIR"); env && *env)
    return env;
  // One per interpreter: <work>-<its environment's directory>, e.g. work-venv-triton-3.6.0.
  if (const char *python = std::getenv("TTA_TEST_PYTHON"); python && *python) {
    std::string venv = fs::path(python).parent_path().parent_path().filename().string();
    while (!venv.empty() && venv.front() == '.')
      venv.erase(0, 1);
    return fs::path(TTA_WORK_DIR).string() + "-" + (venv.empty() ? "python" : venv);
  }
  return TTA_WORK_DIR;
}

RunResult runCompiler(std::vector<std::string> args, const fs::path &dir,
                      const std::vector<std::string> &env) {
  args.insert(args.begin(), {"--python", testPython()});
  return run(TTA_COMPILER, args, dir, env);
}

fs::path freshDir(const std::string &suite, const std::string &name) {
  static struct RemoveAtExit {
    std::set<fs::path> roots;
    ~RemoveAtExit() {
      std::error_code ec;
      for (const fs::path &root : roots)
        fs::remove_all(root, ec);
    }
  } removeAtExit;
  const fs::path root = testWorkDir() / (suite + "." + std::to_string(::getpid()));
  removeAtExit.roots.insert(root);
  fs::path dir = root / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string kernel(const std::string &file) { return std::string(TTA_KERNELS_DIR) + "/" + file; }

std::vector<KernelMetadata> metadataIn(const fs::path &dir) {
  std::vector<KernelMetadata> all;
  for (const std::string &file : listFiles(dir, ".triton-aot-cache")) {
    if (fs::path(file).extension() != ".json" || file == "index.json")
      continue;
    auto meta = parseMetadata(nlohmann::json::parse(readText(dir / file)));
    EXPECT_TRUE(meta) << file << ": " << (meta ? "" : meta.error().message);
    if (meta)
      all.push_back(std::move(*meta));
  }
  return all;
}

std::size_t occurrences(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::map<std::string, std::string> keyedLines(const std::string &text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return out;
}

std::vector<std::string> cCompilers() {
  std::vector<std::string> compilers;
  for (const std::string cc : {TTA_C_COMPILER, "/usr/bin/gcc", "/usr/bin/clang"}) {
    std::error_code ec;
    const fs::path real = fs::canonical(cc, ec);
    bool seen = false;
    for (const std::string &c : compilers)
      seen |= fs::canonical(c, ec) == real;
    if (!ec && !seen)
      compilers.push_back(cc);
  }
  return compilers;
}

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> listFiles(const fs::path &dir, const std::string &skipDir) {
  std::vector<std::string> files;
  if (!fs::exists(dir))
    return files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && !skipDir.empty() && it->path().filename() == skipDir) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file())
      files.push_back(fs::relative(it->path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace tta::testing
