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

std::string readText(const std::filesystem::path &path);
/// Every regular file under \p dir (recursively), relative to it, skipping \p skipDir.
std::vector<std::string> listFiles(const std::filesystem::path &dir, const std::string &skipDir = "");

} // namespace tta::testing
