// The record, <cache>/installations/<id>.json, <id> from the interpreter's path, PYTHONPATH and
// PYTHONHOME (what decides which files an import finds):
//   {"python", "pythonpath", "pythonhome",
//    "files": [{"path", "size", "mtime_ns"}],   every toolchain file hashed
//    "dirs": [{"path", "mtime_ns"}],            the site directories
//    "installation": {"fingerprint", "python_version", "triton_version", "site_dirs",
//                     "distributions", "triton_key"}}
#include "compiler/installation.h"

#include "compiler/cache.h"
#include "compiler/portable_paths.h"
#include "contract/json_access.h"
#include "contract/read_file.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringExtras.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <unistd.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tta {

namespace {

std::string environmentValue(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

fs::path recordPath(const fs::path &cacheDir, const std::string &python) {
  std::string id = sha256Hex(python + "\n" + environmentValue("PYTHONPATH") + "\n" +
                             environmentValue("PYTHONHOME"));
  return cacheDir / "installations" / (id.substr(0, 32) + ".json");
}

/// A file's or directory's stat identity as the record keeps it; null when it is missing.
json statIdentity(const std::string &path, bool withSize) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return nullptr;
  json identity = {{"path", path},
                   {"mtime_ns", static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                                    st.st_mtim.tv_nsec}};
  if (withSize)
    identity["size"] = static_cast<std::uint64_t>(st.st_size);
  return identity;
}

json installationJson(const Installation &installation) {
  return {{"fingerprint", installation.fingerprint},
          {"python_version", installation.pythonVersion},
          {"triton_version", installation.tritonVersion},
          {"site_dirs", installation.siteDirs},
          {"distributions", installation.distributions},
          {"triton_key", installation.tritonKey}};
}

std::optional<Installation> installationFromJson(const json &value) {
  try {
    Installation installation;
    installation.fingerprint = value.at("fingerprint").get<std::string>();
    installation.pythonVersion = value.at("python_version").get<std::string>();
    installation.tritonVersion = value.at("triton_version").get<std::string>();
    installation.siteDirs = value.at("site_dirs").get<std::vector<std::string>>();
    installation.distributions =
        value.at("distributions").get<std::map<std::string, std::string>>();
    if (installation.fingerprint.size() != 64)
      return std::nullopt;
    // A record made before the key was recorded has none: its workers hash as they did.
    installation.tritonKey = stringOr(value, "triton_key");
    if (!installation.tritonKey.empty() &&
        !isTritonKey(installation.tritonKey, installation.tritonVersion))
      return std::nullopt;
    return installation;
  } catch (const json::exception &) {
    return std::nullopt;
  }
}

/// Writes \p text to \p path through a temporary file and a rename; false on any failure.
bool writeAtomically(const fs::path &path, const std::string &text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  fs::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!(out << text))
      return false;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    fs::remove(temporary, ec);
    return false;
  }
  return true;
}

} // namespace

InstallationLock::InstallationLock(const fs::path &cacheDir, const std::string &python) {
  if (cacheDir.empty())
    return;
  fs::path path = recordPath(cacheDir, python);
  path.replace_extension(".lock");
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {   // blocks while another run learns
    ::close(fd_);
    fd_ = -1;
  }
}

InstallationLock::~InstallationLock() {
  if (fd_ >= 0)
    ::close(fd_);   // releases the lock
}

std::optional<std::string> sha256OfFile(const fs::path &path) {
  // A regular file only, and no more of it than its size: the paths come from cache records
  // too, and a device (/dev/zero), a FIFO or a file of /proc would never end or never answer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return std::nullopt;
  std::unique_ptr<int, void (*)(int *)> closer(&fd, [](int *f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  // OpenSSL's SHA-256, not LLVM's: it uses the CPU's SHA instructions, three times as fast on
  // the ~800 MB of a Triton installation.
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                   &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    return std::nullopt;
  std::vector<char> buffer(1 << 20);
  for (auto left = static_cast<std::uint64_t>(st.st_size); left > 0;) {
    ssize_t got = ::read(fd, buffer.data(), std::min<std::uint64_t>(buffer.size(), left));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)   // an error, or shorter than its size: changed while read
      return std::nullopt;
    if (EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(got)) != 1)
      return std::nullopt;
    left -= static_cast<std::uint64_t>(got);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    return std::nullopt;
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest, length), /*LowerCase=*/true);
}

std::optional<Installation> recallInstallation(const fs::path &cacheDir,
                                               const std::string &python) {
  if (cacheDir.empty())
    return std::nullopt;
  std::optional<std::string> text = readFile(recordPath(cacheDir, python));
  if (!text)
    return std::nullopt;
  json record = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || stringOr(record, "python") != python ||
      stringOr(record, "pythonpath") != environmentValue("PYTHONPATH") ||
      stringOr(record, "pythonhome") != environmentValue("PYTHONHOME"))
    return std::nullopt;
  // Anything changed since: learn it again (a record that cannot be trusted costs a hashing).
  for (const char *list : {"files", "dirs"}) {
    for (const json &identity : arrayOf(record, list)) {
      std::string path = stringOr(identity, "path");
      if (path.empty() || statIdentity(path, identity.contains("size")) != identity)
        return std::nullopt;
    }
  }
  const json *installation = member(record, "installation");
  return installation ? installationFromJson(*installation) : std::nullopt;
}

bool isTritonKey(const std::string &key, const std::string &version) {
  if (version.empty() || key.size() > 64 * 1024 || key.compare(0, version.size(), version) != 0)
    return false;
  return std::all_of(key.begin() + static_cast<std::ptrdiff_t>(version.size()), key.end(),
                     [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
                     });
}

Expected<Installation> learnInstallation(const json &hello, const json &answer) {
  // A key of another form (a later Triton's) is left out: the workers hash as before.
  std::string tritonKey = stringOr(answer, "triton_key");
  if (!isTritonKey(tritonKey, stringOr(answer, "triton_version")))
    tritonKey.clear();
  std::optional<Installation> parsed = installationFromJson(
      {{"fingerprint", std::string(64, '0')},
       {"python_version", stringOr(answer, "python_version")},
       {"triton_version", stringOr(answer, "triton_version")},
       {"site_dirs", member(answer, "site_dirs") ? answer.at("site_dirs") : json::array()},
       {"distributions",
        member(answer, "distributions") ? answer.at("distributions") : json::object()},
       {"triton_key", tritonKey}});
  if (!parsed)
    return makeError(ExitCode::InternalError,
                     "the frontend's answer about the Python installation is malformed");
  Installation installation = std::move(*parsed);

  // Names, never paths: relative to the site directory a file is installed in, else the file
  // name (the frontend's own files, a ptxas named by TRITON_PTXAS_PATH).
  PortablePaths names({}, installation.siteDirs);
  json contents = json::array();
  for (const json &file : arrayOf(hello, "toolchain_files")) {
    std::string path = file.is_string() ? file.get<std::string>() : "";
    std::optional<std::string> sha256 = path.empty() ? std::nullopt : sha256OfFile(path);
    if (!sha256)
      return makeError(ExitCode::EnvironmentError,
                       "cannot read '" + path + "', a file of the Triton installation");
    std::string name = names.portable(path);
    if (name == path)
      name = fs::path(path).filename().string();
    contents.push_back({name, *sha256});
  }
  std::sort(contents.begin(), contents.end());
  installation.fingerprint = sha256Hex(
      json{{"python", installation.pythonVersion}, {"files", contents}}.dump());

  return installation;
}

void recordInstallation(const fs::path &cacheDir, const std::string &python, const json &hello,
                        const Installation &installation) {
  if (cacheDir.empty())
    return;
  json files = json::array(), dirs = json::array();
  for (const json &file : arrayOf(hello, "toolchain_files")) {
    json identity = file.is_string() ? statIdentity(file.get<std::string>(), true) : json();
    if (identity.is_null())
      return;   // gone since it was hashed: no record, the next run learns again
    files.push_back(std::move(identity));
  }
  for (const std::string &dir : installation.siteDirs)
    if (json identity = statIdentity(dir, false); !identity.is_null())
      dirs.push_back(std::move(identity));
  json record = {{"python", python},
                 {"pythonpath", environmentValue("PYTHONPATH")},
                 {"pythonhome", environmentValue("PYTHONHOME")},
                 {"files", files},
                 {"dirs", dirs},
                 {"installation", installationJson(installation)}};
  writeAtomically(recordPath(cacheDir, python), record.dump(1) + "\n");
}

} // namespace tta
