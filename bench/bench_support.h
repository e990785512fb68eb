// What the C++ benchmarks share: failing with the program's name, medians, the numbers of
// their command lines, and timing something in a fresh process (the program re-executes
// itself; the child prints "us <microseconds>").
#pragma once

#include <errno.h>     // program_invocation_short_name
#include <sys/wait.h>
#include <unistd.h>    // readlink

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tta::bench {

/// Prints "<program>: <what>" and exits with status 1.
[[noreturn]] inline void fail(const std::string &what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::exit(1);
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// The value of command-line flag \p flag as a count in [0, 2^30]; anything else goes to
/// \p usage, which exits.
inline int parseCount(const std::string &flag, const char *value, void (*usage)(const char *)) {
  char *end = nullptr;
  long parsed = std::strtol(value, &end, 10);
  if (*end || parsed < 0 || parsed > (1l << 30)) usage(("bad number for " + flag).c_str());
  return static_cast<int>(parsed);
}

/// This program's path, to run it again as a child.
inline std::string selfPath() {
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) fail(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(self, static_cast<size_t>(length));
}

/// \p text as one word for /bin/sh.
inline std::string shellQuote(const std::string &text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// What a child timing one thing printed: "us <microseconds>", optionally followed by
/// " faults <minor page faults>" (-1 when it printed none).
struct ChildFigures {
  double us = 0;
  long faults = -1;
};

/// Runs \p command (a child of this program that prints "us <value>") and returns its figures;
/// fails naming \p what and the child's output when it does not succeed.
inline ChildFigures childFigures(const std::string &command, const std::string &what) {
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) fail("cannot start " + command + ": " + std::strerror(errno));
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pclose(pipe);
  ChildFigures figures;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(output.c_str(), "us %lf faults %ld", &figures.us, &figures.faults) < 1)
    fail(what + " failed (status " + std::to_string(status) + "); its output: " + output);
  return figures;
}

inline double childMicroseconds(const std::string &command, const std::string &what) {
  return childFigures(command, what).us;
}

} // namespace tta::bench
