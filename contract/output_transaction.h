// All-or-nothing output: files are staged under temporary names next to their destinations
// and renamed into place only by commit(). Anything not committed is removed: on a failure, on
// destruction, and after an interrupt (the tool turns SIGINT into an error). rollback() also
// deletes earlier versions of the destinations, so a failed run leaves nothing stale behind.
#pragma once

#include "contract/diagnostic.h"

#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tta {

class OutputTransaction {
public:
  OutputTransaction() = default;
  OutputTransaction(const OutputTransaction &) = delete;
  OutputTransaction &operator=(const OutputTransaction &) = delete;
  ~OutputTransaction();

  /// Writes \p bytes to a temporary file beside \p destination (creating its directory),
  /// named ".<file name>.tmp.<pid>.<n>". Staging a destination again replaces its bytes.
  Status stage(const std::filesystem::path &destination, std::span<const char> bytes);
  Status stage(const std::filesystem::path &destination, std::string_view text) {
    return stage(destination, std::span<const char>(text.data(), text.size()));
  }
  // A std::string or a literal converts to both the span and the string_view: these two pick.
  Status stage(const std::filesystem::path &destination, const std::string &text) {
    return stage(destination, std::string_view(text));
  }
  Status stage(const std::filesystem::path &destination, const char *text) {
    return stage(destination, std::string_view(text));
  }
  /// Renames every staged file to its destination, in staging order, after removing every
  /// destination that changes: a process killed part-way leaves some outputs new and the rest
  /// missing, never new ones beside stale ones. If a rename fails, the whole transaction is
  /// rolled back (outputs renamed so far included) and the error names the destination and
  /// the system's reason.
  Status commit();
  /// With \p keep, commit() leaves a destination that already holds the staged bytes as it is
  /// (its modification time too), so a build tool that checks for changed outputs (Ninja's
  /// restat) does not rebuild what depends on it.
  void keepIdenticalDestinations(bool keep) { keepIdentical_ = keep; }
  /// Removes the staged files and every destination that was staged (the stale outputs; after
  /// commit(), the committed ones). Destinations that are directories are left alone.
  void rollback();
  const std::vector<std::filesystem::path> &destinations() const { return destinations_; }

private:
  std::vector<std::filesystem::path> temporaries_;
  std::vector<std::filesystem::path> destinations_;
  bool committed_ = false;
  bool keepIdentical_ = false;
};

} // namespace tta
