// Runs triton-aot-cc as a user would, capturing its exit status, stdout and stderr.
#pragma once

#include <filesystem>
#include <functional>
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

/// Starts the program, sends it \p signal as soon as \p ready() holds (polled every 5 ms, for
/// at most 60 s), and waits for it to end.
RunResult runAndSignal(const std::string &program, const std::vector<std::string> &args,
                       const std::filesystem::path &dir, int signal,
                       const std::function<bool()> &ready);

/// The interpreter the integration tests compile with: TTA_TEST_PYTHON when set (the suite runs
/// once per supported Triton that way), else the one the build was configured with.
const std::string &testPython();
/// Triton's version in testPython() ("3.9.0"), asked once.
const std::string &testTritonVersion();
/// Where the tests write: TTA_TEST_WORK_DIR when set, else one directory per TTA_TEST_PYTHON
/// beside TTA_WORK_DIR, else TTA_WORK_DIR.
std::filesystem::path testWorkDir();

std::string readText(const std::filesystem::path &path);
/// Every regular file under \p dir (recursively), relative to it, skipping \p skipDir.
std::vector<std::string> listFiles(const std::filesystem::path &dir, const std::string &skipDir = "");

} // namespace tta::testing
