// The caches in a run: portable keys in two steps (compiler/cache_keys.h) over two tiers, the
// local cache and, when one is configured, the remote one. A remote hit is also stored locally;
// what this run compiles is stored in both. Entries name no path of the machine that made them:
// results are stored with the source root and site directories as tokens and rebased on read.
#include "compiler/compile_run.h"

#include "compiler/frontend_client.h"
#include "compiler/json_access.h"

namespace fs = std::filesystem;

namespace tta {

/// The installation's fingerprint and the paths' roots, from the record beside the local cache
/// or, when it is stale, from the frontend (started now if it is not yet). False when the
/// frontend cannot say (reported).
bool CompileRun::prepareKeys() {
  if (keysReady_)
    return true;
  if (!resolvePython())
    return false;
  std::optional<Installation> installation = recallInstallation(opts_.cacheDir, python_);
  if (!installation) {
    // The runs a build starts at once in a new environment learn it once: one hashes, the
    // others wait here and then find its record.
    InstallationLock lock(opts_.cacheDir, python_);
    installation = recallInstallation(opts_.cacheDir, python_);
    if (!installation && !(installation = learnInstallation()))
      return false;
  }
  installation_ = std::move(*installation);
  keys_.installation = &installation_;
  keys_.environment = portableEnvironment(tritonEnvironment());
  keys_.paths = PortablePaths(opts_.sourceRoot, installation_.siteDirs);
  keysReady_ = true;
  say("cache keys: Triton " + installation_.tritonVersion + ", installation " +
      installation_.fingerprint.substr(0, 12) + ", source root " + opts_.sourceRoot.string());
  return true;
}

/// Asks the frontend about the installation (starting it if needed), hashes its files and
/// records what it learned beside the local cache. nullopt when that fails (reported).
std::optional<Installation> CompileRun::learnInstallation() {
  say("learning the Python installation (hashing Triton's files, once per installation)");
  if (Status s = startPool(1); !s) {
    fail(s.takeError());
    return std::nullopt;
  }
  nlohmann::json answer;
  Status ran = pool_->run({{{"op", "installation"}}},
                          [&](std::size_t, nlohmann::json reply) { answer = std::move(reply); });
  if (!ran) {
    fail(ran.takeError());
    return std::nullopt;
  }
  if (!boolOr(answer, "ok", false)) {
    fail(diagnosticFromResponse(answer, ""));
    return std::nullopt;
  }
  auto learned = tta::learnInstallation(hello_, answer);
  if (!learned) {
    fail(learned.takeError());
    return std::nullopt;
  }
  recordInstallation(opts_.cacheDir, python_, hello_, *learned);
  return std::move(*learned);
}

std::optional<std::string> CompileRun::firstKey(const KernelSpec &kernel, nlohmann::json job) {
  std::optional<std::string> source = hashes_.of(kernel.sourcePath.string());
  if (!source)
    return std::nullopt;   // unreadable, or changed during the run: neither looked up nor stored
  job["format"] = 3;
  job["tool"] = TRITON_AOT_VERSION;
  job["installation"] = installation_.fingerprint;
  job["environment"] = keys_.environment;
  job["source"] = keys_.paths.portable(kernel.sourcePath.string());
  job["source_sha256"] = *source;
  job["source_kind"] = kernel.sourceKind;
  job["function"] = kernel.function;
  return sha256Hex(job.dump());
}

std::optional<CacheEntry> CompileRun::fetch(const std::string &key, CacheOrigin *origin) {
  if (auto entry = cache_.lookup(key)) {
    *origin = CacheOrigin::Local;
    return entry;
  }
  std::optional<CacheEntry> entry = fetchRemote(key);
  if (entry) {
    *origin = CacheOrigin::Remote;
    if (Status s = cache_.store(key, *entry); !s)
      say("remote hit not kept locally: " + s.error().message);
  }
  return entry;
}

void CompileRun::keep(const std::string &key, const CacheEntry &entry) {
  if (Status s = cache_.store(key, entry); !s && log_)
    log_("warning: " + s.error().message + " (the outputs are written; only caching failed)");
  storeRemote(key, entry);
}

std::optional<CacheEntry> CompileRun::lookupTwoStep(const std::string &first,
                                                    CacheOrigin *origin) {
  CacheOrigin recordOrigin = CacheOrigin::Local;
  std::optional<CacheEntry> record = fetch(first, &recordOrigin);
  if (!record)
    return std::nullopt;
  std::optional<ImportRecord> imports = ImportRecord::fromJson(record->result);
  std::optional<std::string> content =
      imports ? contentKey(first, *imports, keys_, hashes_) : std::nullopt;
  if (!content)
    return std::nullopt;
  std::optional<CacheEntry> entry = fetch(*content, origin);
  if (entry)
    entry->result = keys_.paths.localJson(entry->result);
  return entry;
}

bool CompileRun::storeTwoStep(const std::string &first, const KernelSpec &kernel,
                              const nlohmann::json &answer, CacheEntry entry) {
  ImportRecord imports = importsOf(answer, kernel.sourcePath.string(), keys_.paths);
  std::optional<std::string> content = contentKey(first, imports, keys_, hashes_);
  if (!content)
    return false;   // an import changed during the run, or cannot be read
  entry.result = keys_.paths.portableJson(entry.result);
  keep(*content, entry);
  keep(first, CacheEntry{imports.toJson(), {}});
  return true;
}

// The remote tier: none yet in this build.
bool CompileRun::remoteInUse() const { return false; }
std::optional<CacheEntry> CompileRun::fetchRemote(const std::string &) { return std::nullopt; }
void CompileRun::storeRemote(const std::string &, const CacheEntry &) {}

} // namespace tta
