// Diagnostics and the error model of the triton-aot libraries.
//
// Library code never prints and never exits: it returns Expected<T> / Status carrying a
// Diagnostic, and the tool's main() formats it once (GCC style, so IDEs and CI annotate it).
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tta {

/// Exit status of triton-aot-cc, also the category of a Diagnostic. Values are documented in
/// docs/compiler.md and never reused.
enum class ExitCode : int {
  Success = 0,
  KernelError = 1,      ///< the kernel does not compile, or does not match its signature
  UsageError = 2,       ///< bad command line, signature, target, spec file or config
  EnvironmentError = 3, ///< Python or Triton missing, too old, or the worker cannot start
  OutputError = 4,      ///< an output or the cache cannot be written
  InternalError = 5,    ///< a bug: the worker crashed or broke the protocol
  Interrupted = 130,    ///< SIGINT / SIGTERM; nothing was left behind
};

struct Diagnostic {
  ExitCode code = ExitCode::UsageError;
  std::string file;          ///< may be empty (then no location is printed)
  int line = 0;              ///< 1-based; 0 = unknown
  int column = 0;            ///< 1-based; 0 = unknown
  std::string message;       ///< lower-case start, no final period
  std::string sourceLine;    ///< the offending line, printed under the message with a caret
  std::vector<std::string> notes;   ///< each printed as "note: ..."
  std::string detail;        ///< printed only with --verbose (e.g. a Python traceback)
};

/// Builds a diagnostic with no location.
Diagnostic makeError(ExitCode code, std::string message);

/// "file:line:col: error: message", then the source line and a caret, then the notes; with
/// \p verbose also the detail. Ends with a newline.
std::string formatDiagnostic(const Diagnostic &diag, bool verbose = false);

/// A value or the Diagnostic that explains why there is none. Must be checked.
template <class T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Diagnostic diag) : storage_(std::move(diag)) {}

  explicit operator bool() const { return storage_.index() == 0; }
  T &operator*() { return std::get<0>(storage_); }
  const T &operator*() const { return std::get<0>(storage_); }
  T *operator->() { return &std::get<0>(storage_); }
  const T *operator->() const { return &std::get<0>(storage_); }
  const Diagnostic &error() const { return std::get<1>(storage_); }
  Diagnostic takeError() { return std::move(std::get<1>(storage_)); }

private:
  std::variant<T, Diagnostic> storage_;
};

struct Ok {};
/// Success or a Diagnostic.
using Status = Expected<Ok>;
inline Status ok() { return Ok{}; }

} // namespace tta
