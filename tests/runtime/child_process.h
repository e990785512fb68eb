// Runs this test program again as a child process, with one gtest filter and a changed
// environment: for what the runtime decides once per process (which driver it found, its
// version, TRITON_AOT_LOG), and for output on stderr.
#pragma once

#include <string>
#include <vector>

namespace tta::test {

struct ChildResult {
  int exitStatus = -1;   ///< exit code, or 128 + signal
  std::string out;       ///< stdout (gtest's report)
  std::string err;       ///< stderr
  /// Exactly one test ran and passed (not skipped, not filtered away).
  bool passedOne() const;
  std::string describe() const;
};

/// `set`: "NAME=value" entries added or replacing; `unset`: names removed. The child gets
/// TTA_RUNTIME_CHILD=<mode>: tests named Child* check it with childMode() and skip otherwise.
ChildResult runChild(const std::string &mode, const std::string &gtestFilter,
                     const std::vector<std::string> &set, const std::vector<std::string> &unset = {});

/// Whether this process is a child started for `mode`.
bool childMode(const char *mode);

} // namespace tta::test
