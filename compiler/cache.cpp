// On disk (layout "v2"; a new layout gets a new directory, so old and new tools can share a
// root without reading each other's entries):
//
//   <root>/v2/<key[0:2]>/<key>/entry.json   key, result, {role: {size}}
//   <root>/v2/<key[0:2]>/<key>/<role>       one file per role ("image", "ptx")
//   <root>/v2/tmp/                          entries being written, and replaced ones being deleted
#include "compiler/cache.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tta {

namespace {

constexpr const char *kLayout = "v2";
constexpr const char *kEntryFile = "entry.json";

/// Keys and roles become file names: keep them to characters that are safe everywhere.
bool isSafeName(std::string_view name) {
  return !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                              std::string_view::npos;
}

class UniqueFd {
public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

private:
  int fd_;
};

std::optional<std::string> readAll(const UniqueFd &fd) {
  if (!fd)
    return std::nullopt;
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return std::nullopt;
    if (n == 0)
      return bytes;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

/// Creates \p path holding \p bytes; returns 0 or the errno of the failure.
int writeNewFile(const fs::path &path, std::string_view bytes) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (!fd)
    return errno;
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// Makes a new, empty directory under \p parent with a name no other run or thread uses.
/// mkdir (not mkdtemp) so that the entry gets the umask's permissions, like everything else.
std::optional<fs::path> makeUniqueDirectory(const fs::path &parent, std::string_view prefix) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  for (int attempt = 0; attempt < 16; ++attempt) {
    fs::path dir = parent / (std::string(prefix) + std::to_string(::getpid()) + "-" +
                             std::to_string(counter++) + "-" + std::to_string(random() % 1000000));
    if (::mkdir(dir.c_str(), 0777) == 0)
      return dir;
    if (errno != EEXIST)
      return std::nullopt;
  }
  errno = EEXIST;
  return std::nullopt;
}

Diagnostic cacheError(const std::string &what, const fs::path &path, int error) {
  return makeError(ExitCode::OutputError, "cannot " + what + " '" + path.string() +
                                              "': " + std::strerror(error));
}

} // namespace

CompileCache::CompileCache(fs::path root) : root_(std::move(root)) {}

std::optional<CacheEntry> CompileCache::lookup(const std::string &key) const {
  if (!enabled() || !isSafeName(key))
    return std::nullopt;
  // Everything is read through one directory descriptor. store() replaces an entry by moving
  // the old directory away whole, so a reader sees one entry or the other, never a mix.
  fs::path dirPath = root_ / kLayout / key.substr(0, 2) / key;
  UniqueFd dir(::open(dirPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir)
    return std::nullopt;
  auto readFile = [&](const std::string &name) {
    return readAll(UniqueFd(::openat(dir.get(), name.c_str(), O_RDONLY | O_CLOEXEC)));
  };
  std::optional<std::string> text = readFile(kEntryFile);
  if (!text)
    return std::nullopt;
  json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // A damaged or foreign entry is a miss, never an error: the job is simply compiled again.
  try {
    if (doc.is_discarded() || doc.at("key") != key)
      return std::nullopt;
    CacheEntry entry;
    entry.result = doc.at("result");
    for (const auto &[role, info] : doc.at("files").items()) {
      std::optional<std::string> bytes = isSafeName(role) ? readFile(role) : std::nullopt;
      if (!bytes || bytes->size() != info.at("size").get<std::uint64_t>())
        return std::nullopt;
      entry.files[role] = std::move(*bytes);
    }
    return entry;
  } catch (const json::exception &) {
    return std::nullopt;
  }
}

Status CompileCache::store(const std::string &key, const CacheEntry &entry) const {
  if (!enabled())
    return ok();
  if (!isSafeName(key) || key.size() < 2)
    return makeError(ExitCode::InternalError, "invalid cache key '" + key + "'");
  for (const auto &[role, bytes] : entry.files)
    if (!isSafeName(role))
      return makeError(ExitCode::InternalError, "invalid cache file role '" + role + "'");

  fs::path tmpRoot = root_ / kLayout / "tmp";
  fs::path finalDir = root_ / kLayout / key.substr(0, 2) / key;
  std::error_code ec;
  for (const fs::path &dir : {tmpRoot, finalDir.parent_path()}) {
    fs::create_directories(dir, ec);
    if (ec)
      return cacheError("create cache directory", dir, ec.value());
  }
  std::optional<fs::path> staging = makeUniqueDirectory(tmpRoot, "new-");
  if (!staging)
    return cacheError("create cache directory in", tmpRoot, errno);

  // Built completely in the staging directory, then published with one rename.
  json files = json::object();
  for (const auto &[role, bytes] : entry.files)
    files[role] = {{"size", bytes.size()}};
  json doc = {{"key", key}, {"result", entry.result}, {"files", files}};
  std::vector<std::pair<std::string, std::string>> toWrite{{kEntryFile, doc.dump(2) + "\n"}};
  for (const auto &[role, bytes] : entry.files)
    toWrite.emplace_back(role, bytes);
  for (const auto &[name, bytes] : toWrite) {
    if (int error = writeNewFile(*staging / name, bytes)) {
      fs::remove_all(*staging, ec);
      return cacheError("write cache file", *staging / name, error);
    }
  }

  // Last writer wins: an existing entry for the key (stale, or just stored by a concurrent
  // run) is moved away whole, then deleted. Every such move is followed by another rename, so
  // the key is never left without an entry; if the place is still taken after a few rounds,
  // the entry there (another run's, complete, for the same job) is kept.
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    if (::rename(staging->c_str(), finalDir.c_str()) == 0)
      return ok();
    if (errno != ENOTEMPTY && errno != EEXIST) {
      int error = errno;
      fs::remove_all(*staging, ec);
      return cacheError("store cache entry", finalDir, error);
    }
    if (attempt == kAttempts)
      break;
    // rename() may replace an empty directory: the old entry moves onto a fresh one.
    std::optional<fs::path> old = makeUniqueDirectory(tmpRoot, "old-");
    if (!old)
      break;
    if (::rename(finalDir.c_str(), old->c_str()) != 0)
      ::rmdir(old->c_str()); // someone else moved it first; just try again
    fs::remove_all(*old, ec);
  }
  fs::remove_all(*staging, ec);
  return ok();
}

} // namespace tta
