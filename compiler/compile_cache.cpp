// The caches in a run: portable keys in two steps (compiler/cache_keys.h) over two tiers, the
// local cache and, when one is configured, the remote one. A remote hit is also stored locally;
// what this run compiles is stored in both. Entries name no path of the machine that made them:
// results are stored with the source root and site directories as tokens and rebased on read.
#include "compiler/compile_run.h"

#include "compiler/depfile.h"
#include "compiler/frontend_client.h"
#include "compiler/source_names.h"
#include "contract/image_info.h"
#include "contract/json_access.h"

#include <fstream>
#include <set>
#include <utility>

#include <sys/stat.h>

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

Status CompileRun::learnInstallationAhead() {
  if (prepareKeys())
    return ok();
  return outcome_.errors.empty() ? makeError(ExitCode::InternalError, "no installation learned")
                                 : outcome_.errors.front();
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

std::string CompileRun::timingKey(const Job &job) const {
  const KernelSpec &kernel = *job.kernel;
  return sha256Hex(std::string("triton-aot compile time 1\n") + TRITON_AOT_VERSION + '\n' +
                   keys_.paths.portable(kernel.sourcePath.string()) + '\n' + kernel.function +
                   '\n' + job.target.spelling() + '\n' + formatConfig(job.config) + '\n' +
                   formatSignature(job.signature));
}

void CompileRun::orderLongestFirst() {
  if (!cache_.enabled() || !keysReady_ || misses_.size() < 2)
    return;
  std::vector<std::optional<double>> known;
  std::vector<double> seen;
  for (const Job *job : misses_) {
    std::optional<double> ms;
    if (auto entry = cache_.lookup(timingKey(*job)))
      if (auto record = readCompileTimeRecord(entry->result))
        ms = static_cast<double>(*record);
    if (ms)
      seen.push_back(*ms);
    known.push_back(ms);
  }
  if (seen.empty())
    return;
  std::nth_element(seen.begin(), seen.begin() + seen.size() / 2, seen.end());
  const double median = seen[seen.size() / 2];
  std::vector<std::size_t> order(misses_.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return known[a].value_or(median) > known[b].value_or(median);
  });
  std::vector<Job *> sorted;
  for (std::size_t i : order)
    sorted.push_back(misses_[i]);
  misses_ = std::move(sorted);
  say("compiling the longest first: " + std::to_string(seen.size()) + " of " +
      std::to_string(misses_.size()) + " compile times known from earlier builds");
}

std::optional<std::string> CompileRun::firstKey(const KernelSpec &kernel, nlohmann::json job) {
  std::optional<std::string> source = hashes_.of(kernel.sourcePath.string());
  if (!source)
    return std::nullopt;   // unreadable, or changed during the run: neither looked up nor stored
  job["format"] = 4;   // 4: compile answers carry pointer_writes
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
  std::string damage;
  if (auto entry = cache_.lookup(key, &damage)) {
    *origin = CacheOrigin::Local;
    return entry;
  }
  if (!damage.empty())
    badEntry(CacheOrigin::Local, key, damage);
  std::optional<CacheEntry> entry = fetchRemote(key);
  if (entry)
    *origin = CacheOrigin::Remote;
  return entry;
}

void CompileRun::keep(const std::string &key, const CacheEntry &entry) {
  if (!localUnwritable_)
    if (Status s = cache_.store(key, entry); !s)
      cacheUnwritable(s.error().message);
  storeRemote(key, entry);
}

void CompileRun::cacheUnwritable(const std::string &why) {
  // A full disk fails every store alike: said once, and not tried again this run.
  if (localUnwritable_)
    return;
  localUnwritable_ = true;
  if (log_)
    log_("warning: " + why + "; compiling without the local cache (it costs speed only)");
}

void CompileRun::keepRemoteHit(const std::string &key, const CacheEntry &entry) {
  if (Status s = cache_.store(key, entry); !s)
    say("remote hit not kept locally: " + s.error().message);
}

namespace {

/// \p text as a message may quote it: what a cache hands over may hold anything, and a
/// terminal or a CI log must not take its control characters.
std::string quoted(const std::string &text) {
  std::string out = "'";
  for (char c : text.substr(0, 200))
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return out + (text.size() > 200 ? "...'" : "'");
}

std::string normalPath(const std::string &path) {
  return fs::path(path).lexically_normal().string();
}

} // namespace

std::string cachedImageTrouble(const std::map<std::string, std::string> &files,
                               const Target &target) {
  auto image = files.find("image");
  if (image == files.end())
    return "it holds no image";
  auto info = inspectImage(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t *>(image->second.data()), image->second.size()));
  if (!info)
    return "its image does not read as one: " + info.error().message;
  if (Status s = checkImageMatchesTarget(*info, target); !s)
    return "its image is not for " + target.spelling() + ": " + s.error().message;
  return {};
}

void CompileRun::badEntry(CacheOrigin tier, const std::string &key, const std::string &why) {
  if (tier == CacheOrigin::Remote) {   // overwritten when this run stores what it compiles
    remoteTrouble("entry " + key.substr(0, 12) + " rejected (" + why + "); compiling it again",
                  false);
    return;
  }
  // Dropped now, so that it costs one warning even if this run compiles nothing to replace it.
  cache_.discard(key);
  if (log_)
    log_("warning: damaged local cache entry " + cache_.entryPath(key).string() + ": " + why +
         "; compiling it again");
}

/// Why \p record cannot be used on this machine ("" when it can): every module it names must be
/// a portable name (under the source root's or a site directory's token) of a path a depfile
/// can hold, and a regular file where it exists. A module that does not exist here is a plain
/// miss (contentKey() says so); a device or a FIFO would never finish hashing.
std::string CompileRun::importRecordTrouble(const ImportRecord &record) const {
  for (const std::string &name : record.modules) {
    const std::string path = keys_.paths.local(name);
    if (path == name || name.find('\0') != std::string::npos)
      return "its import record names a module " + quoted(name) +
             " outside the project and the installation";
    if (!depfileCanRepresent(path))
      return "its import record names a module " + quoted(name) + " a depfile cannot hold";
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return "its import record names a module " + quoted(name) +
             " that is not a regular file here";
  }
  return {};
}

/// Why \p result's "deps" cannot be \p kernel's ("" when they can): a compile or describe
/// answer depends on its kernel file and on the modules of the record it was found through,
/// nothing else (they go into the depfile).
std::string CompileRun::dependencyTrouble(const nlohmann::json &result, const KernelSpec &kernel,
                                          const ImportRecord &record) const {
  std::set<std::string> known = {normalPath(kernel.sourcePath.string())};
  for (const std::string &name : record.modules)
    known.insert(normalPath(keys_.paths.local(name)));
  for (const nlohmann::json &dep : arrayOf(result, "deps"))
    if (!dep.is_string() || !known.count(normalPath(dep.get<std::string>())))
      return "its answer names a dependency " + quoted(dep.is_string() ? dep.get<std::string>()
                                                                       : dep.dump()) +
             " its import record does not";
  return {};
}

std::optional<CacheEntry> CompileRun::lookupTwoStep(const std::string &first,
                                                    const KernelSpec &kernel,
                                                    const EntryCheck &check,
                                                    CacheOrigin *origin) {
  CacheOrigin recordOrigin = CacheOrigin::Local;
  std::optional<CacheEntry> record = fetch(first, &recordOrigin);
  if (!record)
    return std::nullopt;
  std::optional<ImportRecord> imports = ImportRecord::fromJson(record->result);
  std::string why = imports ? importRecordTrouble(*imports) : "its import record is malformed";
  if (!why.empty()) {
    badEntry(recordOrigin, first, why);
    return std::nullopt;
  }
  if (recordOrigin == CacheOrigin::Remote)
    keepRemoteHit(first, *record);
  std::optional<std::string> content = contentKey(first, *imports, keys_, hashes_);
  if (!content)
    return std::nullopt;   // a module is not here, or not as it was: a miss
  std::optional<CacheEntry> entry = fetch(*content, origin);
  if (!entry)
    return std::nullopt;
  // Checked as this machine reads it; kept (a remote hit, locally) as it was stored.
  nlohmann::json stored = std::exchange(entry->result, keys_.paths.localJson(entry->result));
  why = dependencyTrouble(entry->result, kernel, *imports);
  if (why.empty() && check)
    why = check(*entry);
  if (!why.empty()) {
    badEntry(*origin, *content, why);
    return std::nullopt;
  }
  if (*origin == CacheOrigin::Remote) {
    std::swap(entry->result, stored);
    keepRemoteHit(*content, *entry);
    std::swap(entry->result, stored);
  }
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
fs::path unsignedMark(const fs::path &cacheDir) { return cacheDir / "remote-unsigned"; }

/// Whether \p mark was written less than a minute ago: by an earlier run of the same build.
bool markedRecently(const fs::path &mark) {
  std::error_code ec;
  auto written = fs::last_write_time(mark, ec);
  return !ec && fs::file_time_type::clock::now() - written < kRemoteDownFor;
}

/// Leaves \p mark for the runs of the next minute. It names the cache as messages do, with no
/// password; failing to write it costs only a repeated warning.
void writeMark(const fs::path &mark, const std::string &description) {
  std::error_code ec;
  fs::create_directories(mark.parent_path(), ec);
  std::ofstream(mark) << description << "\n";
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
  if (settings->signingKey.empty() && !settings->acceptUnsigned) {
    // Nothing could tell an entry someone forged from a true one: whoever can write to the
    // server could put images into this build. Off unless asked for, said once per build.
    if (!markedRecently(unsignedMark(opts_.cacheDir))) {
      writeMark(unsignedMark(opts_.cacheDir), (*remote)->describe());
      if (log_)
        log_("warning: remote cache " + (*remote)->describe() +
             " not used: without a signing key its entries cannot be verified. Make a key once "
             "(triton-aot-cc --new-remote-cache-key FILE) and give every build "
             "TRITON_AOT_REMOTE_CACHE_KEY_FILE=FILE, or accept unverified entries with "
             "TRITON_AOT_REMOTE_CACHE_UNSIGNED=1 (docs/security.md)");
    }
    return true;
  }
  remote_ = std::move(*remote);
  if (settings->signingKey.empty())
    say("remote cache: its entries are not verified (TRITON_AOT_REMOTE_CACHE_UNSIGNED=1)");
  if (markedRecently(remoteDownMark(opts_.cacheDir))) {
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
    writeMark(remoteDownMark(opts_.cacheDir), remote_->describe());
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
