// Portable cache keys: made of contents only, never of a path, a modification time, the build
// tree or the user, so another checkout, build tree or virtual environment with the same inputs
// computes the same keys and hits in a cache another machine filled.
//
// A key is found in two steps, as ccache's manifests do, because which modules a kernel
// imports is known only once it has been compiled:
//   first key    the tool's version, the installation's fingerprint (compiler/installation.h),
//                the Triton-affecting environment, the kernel file's portable name and
//                contents, the function, and the job (signature, config, target) or "describe";
//   its record   the project modules (portable names) and installed distributions the kernel
//                imported when it was compiled, stored under the first key;
//   content key  the first key plus each of those modules' contents and each distribution's
//                version on this machine: the key of the entry that holds the outputs.
// Changing a helper module or upgrading a package changes the content key of exactly the
// kernels that import it; a kernel that starts importing something new stores a new record.
#pragma once

#include "compiler/installation.h"
#include "compiler/portable_paths.h"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tta {

/// What a compiled kernel imported: a record's contents.
struct ImportRecord {
  std::vector<std::string> modules;    ///< portable names ("${root}/pkg/helpers.py")
  std::vector<std::string> packages;   ///< PEP 503 distribution names

  nlohmann::json toJson() const;
  static std::optional<ImportRecord> fromJson(const nlohmann::json &value);
};

/// SHA-256 of source files, each read once per run; files modified at or after the run's
/// start are never trusted (ccache's rule: they may have changed while being compiled).
class SourceHashes {
public:
  explicit SourceHashes(std::int64_t runStartNs) : started_(runStartNs) {}
  /// nullopt when the file cannot be read or changed during the run.
  std::optional<std::string> of(const std::string &path);

private:
  std::int64_t started_;
  std::mutex mutex_;
  std::map<std::string, std::optional<std::string>> known_;
};

/// The parts of a first key every job of a run shares.
struct KeyContext {
  const Installation *installation = nullptr;
  nlohmann::json environment;   ///< tritonEnvironment(), without path-valued variables
  PortablePaths paths;
};

/// The record's content key on this machine; nullopt when one of its modules cannot be read
/// here or one of its distributions is not installed (a miss).
std::optional<std::string> contentKey(const std::string &firstKey, const ImportRecord &record,
                                      const KeyContext &context, SourceHashes &hashes);

/// The record of what a compile answer says it imported: its "deps" without the kernel file
/// itself (which is in the first key), and its "packages".
ImportRecord importsOf(const nlohmann::json &answer, const std::string &kernelFile,
                       const PortablePaths &paths);

/// The environment variables in a key: tritonEnvironment() without those naming a file (their
/// contents are in the installation's fingerprint) or the import path (modules are in the
/// record by content).
nlohmann::json portableEnvironment(const nlohmann::json &environment);

} // namespace tta
