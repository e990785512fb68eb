// On disk (layout "v3"; a new layout gets a new directory, so old and new tools can share a
// root without reading each other's entries):
//
//   <root>/v3/<key[0:2]>/<key>/entry.json   key, result, {role: {size, sha256}}, and "sha256":
//                                           that of the rest, written compact with sorted keys
//   <root>/v3/<key[0:2]>/<key>/<role>       one file per role ("image", "ptx")
//   <root>/v3/tmp/                          entries being written, and replaced ones being deleted
#include "compiler/cache.h"

#include "contract/bounded_json.h"

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

constexpr const char *kLayout = "v3";
constexpr const char *kEntryFile = "entry.json";
/// entry.json holds the worker's answer, tens of kilobytes: a larger one is damaged.
constexpr std::uint64_t kMaxEntryJsonBytes = 16u << 20;
/// The most bytes of a file a lookup reads, whatever entry.json says.
constexpr std::uint64_t kMaxFileBytes = 1ull << 32;

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

/// The bytes of \p name in the directory \p dir: a regular file of at most \p limit bytes, not
/// a link, read whole. nullopt with \p why set when it is not.
std::optional<std::string> readRegularFile(int dir, const std::string &name, std::uint64_t limit,
                                           std::string &why) {
  UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    why = errno == ENOENT ? name + " is missing" : name + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    why = name + " is not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    why = name + " is " + std::to_string(st.st_size) + " bytes, over " + std::to_string(limit);
    return std::nullopt;
  }
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      why = name + ": " + (n < 0 ? std::strerror(errno) : "shorter than its size");
      return std::nullopt;
    }
    done += static_cast<std::size_t>(n);
  }
  return bytes;
}

/// The SHA-256 entry.json carries: over its other members, written compact with sorted keys.
std::string entryDigest(const json &doc) {
  json rest = doc;
  rest.erase("sha256");
  return sha256Hex(rest.dump());
}

/// Whether \p dir (an open directory) is still the one at \p path: store() moves a replaced
/// entry away before deleting it, so a reader that raced with it finds files missing.
bool stillAt(int dir, const fs::path &path) {
  struct stat opened {}, now {};
  return ::fstat(dir, &opened) == 0 && ::stat(path.c_str(), &now) == 0 &&
         opened.st_dev == now.st_dev && opened.st_ino == now.st_ino;
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

fs::path CompileCache::entryPath(const std::string &key) const {
  return root_ / kLayout / key.substr(0, 2) / key;
}

std::optional<CacheEntry> CompileCache::lookup(const std::string &key, std::string *damage) const {
  if (!enabled() || !isSafeName(key))
    return std::nullopt;
  // Everything is read through one directory descriptor. store() replaces an entry by moving
  // the old directory away whole, so a reader sees one entry or the other, never a mix; one
  // that raced with the move reads again.
  const fs::path dirPath = entryPath(key);
  for (int attempt = 0; attempt < 3; ++attempt) {
    UniqueFd dir(::open(dirPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir)
      return std::nullopt;
    std::string why;
    std::optional<CacheEntry> entry = readEntry(dir.get(), key, why);
    if (entry)
      return entry;
    if (!stillAt(dir.get(), dirPath))
      continue;
    if (damage)
      *damage = why;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<CacheEntry> CompileCache::readEntry(int dir, const std::string &key,
                                                  std::string &why) const {
  std::optional<std::string> text = readRegularFile(dir, kEntryFile, kMaxEntryJsonBytes, why);
  if (!text)
    return std::nullopt;
  auto parsed = parseBoundedJson(*text, kMaxEntryJsonBytes);
  if (!parsed) {
    why = std::string(kEntryFile) + " is " + parsed.error().message;
    return std::nullopt;
  }
  const json &doc = *parsed;
  try {
    if (!doc.is_object() || !doc.contains("sha256") || !doc["sha256"].is_string() ||
        !doc.contains("result") || !doc.contains("files") || !doc["files"].is_object()) {
      why = std::string(kEntryFile) + " is not an entry of this layout";
      return std::nullopt;
    }
    if (doc["sha256"].get<std::string>() != entryDigest(doc)) {
      why = std::string(kEntryFile) + " does not match its SHA-256";
      return std::nullopt;
    }
    if (doc.value("key", "") != key) {
      why = std::string(kEntryFile) + " is the entry of another key";
      return std::nullopt;
    }
    CacheEntry entry;
    entry.result = doc["result"];
    for (const auto &[role, info] : doc["files"].items()) {
      const std::uint64_t size = info.at("size").get<std::uint64_t>();
      const std::string sha256 = info.at("sha256").get<std::string>();
      if (!isSafeName(role) || size > kMaxFileBytes) {
        why = std::string(kEntryFile) + " names a bad file '" + role + "'";
        return std::nullopt;
      }
      std::optional<std::string> bytes = readRegularFile(dir, role, size, why);
      if (!bytes)
        return std::nullopt;
      if (bytes->size() != size) {
        why = role + " is " + std::to_string(bytes->size()) + " bytes, not the " +
              std::to_string(size) + " " + kEntryFile + " names";
        return std::nullopt;
      }
      if (sha256Hex(*bytes) != sha256) {
        why = role + " differs from the SHA-256 " + kEntryFile + " names";
        return std::nullopt;
      }
      entry.files[role] = std::move(*bytes);
    }
    return entry;
  } catch (const json::exception &) {   // a member of another type than written
    why = std::string(kEntryFile) + " is not an entry of this layout";
    return std::nullopt;
  }
}

void CompileCache::discard(const std::string &key) const {
  if (!enabled() || !isSafeName(key) || key.size() < 2)
    return;
  // Moved away whole, then deleted, as store() replaces one: a reader sees it or nothing.
  std::error_code ec;
  const fs::path tmpRoot = root_ / kLayout / "tmp";
  fs::create_directories(tmpRoot, ec);
  std::optional<fs::path> old = makeUniqueDirectory(tmpRoot, "old-");
  if (!old)
    return;
  if (::rename(entryPath(key).c_str(), old->c_str()) != 0)
    ::rmdir(old->c_str());
  fs::remove_all(*old, ec);
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
  fs::path finalDir = entryPath(key);
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
    files[role] = {{"size", bytes.size()}, {"sha256", sha256Hex(bytes)}};
  json doc = {{"key", key}, {"result", entry.result}, {"files", files}};
  std::string text;
  try {
    doc["sha256"] = entryDigest(doc);
    text = doc.dump(2) + "\n";
  } catch (const json::exception &e) {   // a string that is not UTF-8
    fs::remove_all(*staging, ec);
    return makeError(ExitCode::InternalError,
                     std::string("cannot write the cache entry: ") + e.what());
  }
  std::vector<std::pair<std::string, std::string>> toWrite{{kEntryFile, std::move(text)}};
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
