// Runs triton-aot-cc as a user would, capturing its exit status, stdout and stderr; and what
// every integration test needs around that: fresh directories, kernel files, metadata read back.
#pragma once

#include "contract/metadata.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tta::testing {

struct RunResult {
  int status = -1;          ///< exit status, or 128 + signal
  std::string out;
  std::string err;
};

/// Runs \p program with \p args in \p dir, with extra "KEY=VALUE" \p env entries.
RunResult run(const std::string &program, const std::vector<std::string> &args,
              const std::filesystem::path &dir, const std::vector<std::string> &env = {});

/// Starts the program (with extra \p env entries), sends it \p signal as soon as \p ready()
/// holds (polled every 5 ms, for at most 60 s), and waits for it to end.
RunResult runAndSignal(const std::string &program, const std::vector<std::string> &args,
                       const std::filesystem::path &dir, int signal,
                       const std::function<bool()> &ready,
                       const std::vector<std::string> &env = {});

/// The interpreter the integration tests compile with: TTA_TEST_PYTHON when set (the suite runs
/// once per supported Triton that way), else the one the build was configured with.
const std::string &testPython();
/// Triton's version in testPython() ("3.9.0"), asked once.
const std::string &testTritonVersion();
/// Where the tests write: TTA_TEST_WORK_DIR when set, else one directory per TTA_TEST_PYTHON
/// beside TTA_WORK_DIR, else TTA_WORK_DIR.
std::filesystem::path testWorkDir();

/// Runs triton-aot-cc with the test interpreter (--python testPython(), then \p args) in \p dir.
RunResult runCompiler(std::vector<std::string> args, const std::filesystem::path &dir,
                      const std::vector<std::string> &env = {});

/// An empty directory <testWorkDir()>/<suite>.<pid>/<name>, made afresh: one tree per test
/// process (CTest runs the suites of several Triton versions at once, in one work directory),
/// removed when the process ends.
std::filesystem::path freshDir(const std::string &suite, const std::string &name);

/// The path of \p file in tests/kernels.
std::string kernel(const std::string &file);

/// Every kernel metadata file under \p dir (not index.json, not the cache), parsed with the
/// strict reader; a file that does not parse fails the test.
std::vector<KernelMetadata> metadataIn(const std::filesystem::path &dir);

/// How often \p what occurs in \p text.
std::size_t occurrences(const std::string &text, const std::string &what);

/// "key rest of line" per line of a program's output, as {key: rest}.
std::map<std::string, std::string> keyedLines(const std::string &text);

/// The build's C compiler, and gcc and clang where installed, each once (by canonical path):
/// the compilers generated C must build with.
std::vector<std::string> cCompilers();

std::string readText(const std::filesystem::path &path);
/// Every regular file under \p dir (recursively), relative to it, skipping \p skipDir.
std::vector<std::string> listFiles(const std::filesystem::path &dir, const std::string &skipDir = "");

} // namespace tta::testing
