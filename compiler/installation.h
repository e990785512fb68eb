// The Python installation a run compiles with, as portable cache keys need it: a fingerprint of
// the contents of every file that can change generated code (Triton's Python sources and
// libraries, the bundled ptxas and bitcode, files the environment substitutes for them, the
// frontend's own sources), the versions of the installed distributions, and the directories
// packages are installed in. Names, never paths: another virtual environment with the same
// Triton wheel has the same fingerprint.
//
// Hashing libtriton.so (~500 MB) costs a second or two, so what was learned is recorded beside
// the local cache, one record per interpreter (and PYTHONPATH), with the stat identity of every
// file it was made from and of the site directories (pip adds and renames dist-info directories
// in them): a later run checks the record with stat alone and needs no Python.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta {

struct Installation {
  std::string fingerprint;                           ///< sha256 hex of the toolchain's contents
  std::string pythonVersion;                         ///< "3.11.2"
  std::string tritonVersion;                         ///< "3.6.0"
  std::vector<std::string> siteDirs;                 ///< absolute, in sys.path order
  std::map<std::string, std::string> distributions;  ///< PEP 503 name -> version
  /// Triton's triton_key() (its version and its files' hashes), which its compile() puts in
  /// every cache key: passed to the workers (TRITON_AOT_TRITON_KEY) so that none hashes
  /// libtriton.so again while the record holds; empty when not known.
  std::string tritonKey;
};

/// Whether \p key reads as Triton \p version's triton_key(): the version, then lower-case hex
/// digests and dashes, at most 64 KiB.
bool isTritonKey(const std::string &key, const std::string &version);

/// The recorded installation of \p python under \p cacheDir, if every file it was made from
/// is as it was; nullopt otherwise (or without a cache directory).
std::optional<Installation> recallInstallation(const std::filesystem::path &cacheDir,
                                               const std::string &python);

/// The installation from the frontend's hello (its "toolchain_files") and its answer to the
/// "installation" request, the files hashed now.
Expected<Installation> learnInstallation(const nlohmann::json &hello,
                                         const nlohmann::json &answer);

/// Records \p installation, learned from \p hello, under \p cacheDir for recallInstallation()
/// (best effort: a record that cannot be written costs the next run the hashing).
void recordInstallation(const std::filesystem::path &cacheDir, const std::string &python,
                        const nlohmann::json &hello, const Installation &installation);

/// Held while one run learns an installation, so that the runs a build starts at once in a new
/// virtual environment hash it once: the others wait, then recall the record. Without a cache
/// directory, or where the lock cannot be taken, it holds nothing and each run learns alone.
class InstallationLock {
public:
  InstallationLock(const std::filesystem::path &cacheDir, const std::string &python);
  ~InstallationLock();
  InstallationLock(const InstallationLock &) = delete;
  InstallationLock &operator=(const InstallationLock &) = delete;

private:
  int fd_ = -1;
};

/// Lower-case hex SHA-256 of a regular file's contents, read in blocks; nullopt when it cannot
/// be read or is no regular file (a device, a FIFO: they may never end).
std::optional<std::string> sha256OfFile(const std::filesystem::path &path);

} // namespace tta
