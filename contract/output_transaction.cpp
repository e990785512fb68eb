#include "contract/output_transaction.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tta {

namespace {

Diagnostic outputError(const std::string &what, const fs::path &path, int error) {
  return makeError(ExitCode::OutputError,
                   "cannot " + what + " '" + path.string() + "': " + std::strerror(error));
}

/// ".<name>.tmp.<pid>.<n>" beside \p destination: hidden, in the same file system (so the
/// rename is atomic), and unique between threads and concurrent runs.
fs::path temporaryFor(const fs::path &destination) {
  static std::atomic<unsigned> counter{0};
  std::string name = "." + destination.filename().string() + ".tmp." +
                     std::to_string(::getpid()) + "." + std::to_string(counter++);
  return destination.parent_path() / name;
}

/// Writes \p bytes to a new file at \p path; returns 0 or the errno of the failure.
int writeNewFile(const fs::path &path, std::span<const char> bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return errno;
  int error = 0;
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && error == 0)
    error = errno; // e.g. a deferred write error on NFS
  if (error != 0)
    ::unlink(path.c_str());
  return error;
}

} // namespace

OutputTransaction::~OutputTransaction() {
  if (!committed_)
    rollback();
}

Status OutputTransaction::stage(const fs::path &destination, std::span<const char> bytes) {
  if (committed_) { // a committed transaction is done: this starts the next one
    destinations_.clear();
    committed_ = false;
  }
  fs::path parent = destination.parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec)
      return outputError("create directory", parent, ec.value());
  }
  fs::path temporary = temporaryFor(destination);
  if (int error = writeNewFile(temporary, bytes))
    return outputError("write", destination, error);

  // Staging a destination again replaces its earlier contents.
  for (std::size_t i = 0; i < destinations_.size(); ++i) {
    if (destinations_[i] == destination) {
      ::unlink(temporaries_[i].c_str());
      temporaries_[i] = std::move(temporary);
      return ok();
    }
  }
  temporaries_.push_back(std::move(temporary));
  destinations_.push_back(destination);
  return ok();
}

namespace {

bool sameBytes(const fs::path &a, const fs::path &b) {
  std::error_code ec;
  if (fs::file_size(a, ec) != fs::file_size(b, ec) || ec)
    return false;
  std::ifstream first(a, std::ios::binary), second(b, std::ios::binary);
  std::vector<char> x(1 << 16), y(1 << 16);
  while (first && second) {
    first.read(x.data(), static_cast<std::streamsize>(x.size()));
    second.read(y.data(), static_cast<std::streamsize>(y.size()));
    if (first.gcount() != second.gcount() ||
        !std::equal(x.begin(), x.begin() + first.gcount(), y.begin()))
      return false;
  }
  return first.eof() && second.eof();
}

} // namespace

Status OutputTransaction::commit() {
  std::vector<bool> keep(temporaries_.size(), false);
  for (std::size_t i = 0; i < temporaries_.size(); ++i)
    keep[i] = keepIdentical_ && sameBytes(temporaries_[i], destinations_[i]);
  // Every destination that changes goes first, then the new files are renamed in: a run killed
  // part-way leaves new files and missing ones, never new ones beside the older versions of the
  // rest (a linker would take them as one set). A directory is not unlinked; its rename fails.
  for (std::size_t i = 0; i < temporaries_.size(); ++i)
    if (!keep[i])
      ::unlink(destinations_[i].c_str());
  for (std::size_t i = 0; i < temporaries_.size(); ++i) {
    if (keep[i]) {
      ::unlink(temporaries_[i].c_str());
      continue;
    }
    if (::rename(temporaries_[i].c_str(), destinations_[i].c_str()) != 0) {
      // All or nothing: the outputs renamed so far go too, with the older versions of the
      // rest, so no mix of new and stale outputs is left behind.
      Diagnostic error = outputError("write", destinations_[i], errno);
      rollback();
      return error;
    }
  }
  temporaries_.clear();
  committed_ = true;
  return ok();
}

void OutputTransaction::rollback() {
  for (const fs::path &temporary : temporaries_)
    ::unlink(temporary.c_str());
  // unlink, not remove_all: a destination that is a directory was never ours to delete.
  for (const fs::path &destination : destinations_)
    ::unlink(destination.c_str());
  temporaries_.clear();
  destinations_.clear();
  committed_ = false;
}

} // namespace tta
