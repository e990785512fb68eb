// The caches in a run: portable keys in two steps (compiler/cache_keys.h) over two tiers, the
// local cache and, when one is configured, the remote one. A remote hit is also stored locally;
// what this run compiles is stored in both. Entries name no path of the machine that made them:
// results are stored with the source root and site directories as tokens and rebased on read.
#include "compiler/compile_run.h"

#include "compiler/frontend_client.h"
#include "compiler/source_names.h"
#include "contract/json_access.h"

#include <fstream>

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
  // The names the images spell files with (compiler/source_names.h), their directories named
  // as every path in a key is.
  nlohmann::json maps = nlohmann::json::array();
  for (const PrefixMapping &mapping : opts_.filePrefixMap)
    maps.push_back({keys_.paths.portable(mapping.from.string()), mapping.to});
  job["file_prefix_map"] = std::move(maps);
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

// --- The remote tier ---------------------------------------------------------------------
//
// Never worse than no cache: a server that is down, slow, full or refusing costs one warning
// per build and the build goes on locally. "Per build": the first run that finds it down
// leaves a mark beside the local cache, and the runs of the next minute skip it silently.

namespace {

constexpr auto kRemoteDownFor = std::chrono::seconds(60);

fs::path remoteDownMark(const fs::path &cacheDir) { return cacheDir / "remote-unavailable"; }

bool markedDown(const fs::path &cacheDir) {
  std::error_code ec;
  auto written = fs::last_write_time(remoteDownMark(cacheDir), ec);
  return !ec && fs::file_time_type::clock::now() - written < kRemoteDownFor;
}

} // namespace

/// Opens the remote cache the options or the environment name (nothing when none does, or
/// without a local cache). False for a setting that is wrong (reported: a usage error).
bool CompileRun::openRemote() {
  auto settings = RemoteCacheSettings::fromEnvironment(opts_.remoteCache);
  if (!settings) {
    fail(settings.takeError());
    return false;
  }
  if (!settings->enabled() || !cache_.enabled())
    return true;
  settings->readOnly = settings->readOnly || opts_.remoteReadOnly;
  auto remote = RemoteCache::open(*settings);
  if (!remote) {
    fail(remote.takeError());
    return false;
  }
  remote_ = std::move(*remote);
  if (markedDown(opts_.cacheDir)) {
    say("remote cache " + remote_->describe() + " skipped: unavailable less than a minute ago");
    remoteDown_ = true;
  } else {
    say(std::string("remote cache: ") + remote_->describe() +
        (settings->readOnly ? " (read-only)" : ""));
  }
  return true;
}

bool CompileRun::remoteInUse() const { return remote_ != nullptr; }

/// The first trouble with the remote cache: one warning; "down" also skips it from now on.
void CompileRun::remoteTrouble(const std::string &what, bool down) {
  if (down) {
    remoteDown_ = true;
    std::error_code ec;
    fs::create_directories(opts_.cacheDir, ec);
    std::ofstream(remoteDownMark(opts_.cacheDir)) << remote_->describe() << "\n";
  }
  if (remoteWarned_.exchange(true)) {
    say(what);
    return;
  }
  if (log_)
    log_("warning: remote cache " + remote_->describe() + ": " + what +
         (down ? "; building without it" : ""));
}

std::optional<CacheEntry> CompileRun::fetchRemote(const std::string &key) {
  if (!remote_ || remoteDown_)
    return std::nullopt;
  RemoteLookup found = remote_->lookup(key);
  switch (found.outcome) {
  case RemoteOutcome::Hit:
    return CacheEntry{std::move(found.entry->result), std::move(found.entry->files)};
  case RemoteOutcome::Miss:
    return std::nullopt;
  case RemoteOutcome::Rejected:   // compiled again, and overwritten when stored
    remoteTrouble("entry " + key.substr(0, 12) + " rejected (" + found.detail +
                      "); compiling it again",
                  false);
    return std::nullopt;
  case RemoteOutcome::Unavailable:
    remoteTrouble(found.detail, true);
    return std::nullopt;
  }
  return std::nullopt;
}

void CompileRun::storeRemote(const std::string &key, const CacheEntry &entry) {
  if (!remote_ || remoteDown_)
    return;
  if (Status s = remote_->store(key, RemoteEntry{entry.result, entry.files}); !s)
    remoteTrouble("cannot store: " + s.error().message, !remote_->available());
}

} // namespace tta
