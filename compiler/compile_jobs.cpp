// The jobs' results: served from the cache where it can, compiled by frontend workers, in
// parallel, where it cannot (each miss's signature checked against its kernel's description
// first).
#include "compiler/compile_run.h"

#include "compiler/frontend_client.h"
#include "contract/json_access.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace fs = std::filesystem;

namespace tta {

/// Serves every job it can from the caches; the rest become misses.
bool CompileRun::lookupCache() {
  openCache();   // describe() opens it too, but a run of IR files only never describes
  if (cache_.enabled() && !prepareKeys())
    return false;
  for (Job &job : jobs_) {
    nlohmann::json fields = {{"signature", formatSignature(job.signature)},
                             {"config", formatConfig(job.config)},
                             {"target", job.target.spelling()}};
    if (job.config.preHook >= 0) // the hook's block shapes are compiled in
      fields["pre_hook"] = job.config.preHook;
    std::optional<std::string> first =
        cache_.enabled() ? firstKey(*job.kernel, std::move(fields)) : std::nullopt;
    job.cacheKey = first.value_or("");
    if (!job.refusal.empty())
      continue; // nothing to compile
    // An entry is what an earlier compile of this job answered: a refusal by the target, or
    // an answer and an image for that target.
    auto check = [&job](const CacheEntry &entry) -> std::string {
      if (const nlohmann::json *refused = member(entry.result, "refused"))
        return refused->is_string() && !refused->get_ref<const std::string &>().empty()
                   ? ""
                   : "its refusal is not a message";
      if (Status s = checkCompileAnswer(entry.result); !s)
        return s.error().message;
      return cachedImageTrouble(entry.files, job.target);
    };
    CacheOrigin origin = CacheOrigin::Local;
    auto entry = first ? lookupTwoStep(*first, *job.kernel, check, &origin) : std::nullopt;
    const char *tier = origin == CacheOrigin::Remote ? "remote" : "local";
    if (entry && member(entry->result, "refused")) { // the target refused it last time
      if (Status s = checkRefusedAnswer(entry->result); !s) {
        warnDamagedEntry(job.id, s.error());
        misses_.push_back(&job);
        continue;
      }
      job.refusal = stringOr(entry->result, "refused");
      job.result = std::move(entry->result);
      job.origin = origin;
      say(std::string(tier) + " cache hit (refused for " + job.target.spelling() + "): " + job.id);
      continue;
    }
    if (entry) {
      job.result = std::move(entry->result);
      job.files = std::move(entry->files);
      job.origin = origin;
      say(std::string(tier) + " cache hit: " + job.id);
    } else {
      misses_.push_back(&job);
    }
  }
  return true;
}

/// Compiles the misses through frontend workers: describe the IR sources (Python kernels were
/// described before), check every variant's signature against its kernel's description, then
/// compile all variants in parallel.
bool CompileRun::compileMisses() {
  if (misses_.empty())
    return true;
  orderLongestFirst();
  auto started = std::chrono::steady_clock::now();
  const int workers =
      static_cast<int>(std::min<std::size_t>(misses_.size(), std::max(1, opts_.jobs)));
  if (Status s = startPool(workers); !s) {
    fail(s.takeError());
    return false;
  }
  // IR sources are described with their compile (one request each), uncached.
  std::vector<DescribeWanted> wanted;
  for (Job *job : misses_)
    wanted.push_back({describeKey(*job), job->kernel, job->target});
  if (!describe(wanted, workers, DescribeCache::Skip))
    return false;

  std::vector<nlohmann::json> requests;
  std::vector<Job *> compiling;
  for (Job *job : misses_)
    if (auto request = compileRequest(*job)) {
      requests.push_back(std::move(*request));
      compiling.push_back(job);
    }
  Status ran = pool_->run(requests, [&](std::size_t i, nlohmann::json answer) {
    finishCompile(*compiling[i], std::move(answer));
    storeDescriptions();   // once, with the first answer: while the workers compile
  }, WorkerPool::AfterRun::EndIdleWorkers);
  for (auto &[hook, refusal] : hookRefusals_)
    fail(std::move(refusal.second));
  hookRefusals_.clear();
  if (!ran) {
    fail(ran.takeError());
    return false;
  }
  say("frontend: " + std::to_string(misses_.size()) + " variant(s) in " +
      millisecondsSince(started));
  return outcome_.errors.empty();
}

/// The compile request of \p job, after checking its grid and signature against the kernel's
/// description; none (reported) when they do not fit or the description failed.
std::optional<nlohmann::json> CompileRun::compileRequest(Job &job) {
  const nlohmann::json &info = described_[describeKey(job)];
  const std::string file = job.kernel->sourcePath.string();
  if (!boolOr(info, "ok", false)) {
    fail(diagnosticFromResponse(info, file));
    return std::nullopt;
  }
  if (Status s = checkDescribeAnswer(info); !s) {
    fail(unusableAnswer(s.takeError(), "describe", *job.kernel));
    return std::nullopt;
  }
  // Grid names are checked now, before anything compiles.
  std::vector<std::string> names;
  for (const auto &param : arrayOf(info, "params"))
    names.push_back(stringOr(param, "name"));
  if (Status s = job.kernel->grid ? checkGridNames(*job.kernel->grid, names) : ok(); !s) {
    failAt(s.takeError(), *job.kernel);
    return std::nullopt;
  }
  nlohmann::json params = nlohmann::json::array();
  if (job.kernel->sourceKind == "python") {
    auto complete = completeSignature(job.signature, info, job.kernel->function, file);
    if (!complete) {
      fail(complete.takeError());
      return std::nullopt;
    }
    params = requestParams(*complete, info);
  }
  const fs::path &scratch = scratch_.path;
  const bool cuda = job.target.backend == Backend::Cuda;
  nlohmann::json outputs = {
      {"image", (scratch / job.paths.image.filename()).string()},
      {"ptx",
       cuda ? nlohmann::json((scratch / job.paths.ptx.filename()).string()) : nlohmann::json()},
      {"ir_dir",
       opts_.irDir.empty() ? nlohmann::json() : nlohmann::json((scratch / "ir").string())}};
  job.result = nlohmann::json{{"describe", info}};
  nlohmann::json request = {{"op", "compile"},
                            {"source", file},
                            {"source_kind", job.kernel->sourceKind},
                            {"function", job.kernel->function},
                            {"params", params},
                            {"target", requestTarget(job.target)},
                            {"options", requestOptions(job.config, job.target.backend)},
                            {"outputs", outputs},
                            {"source_names", sourceNames().request()}};
  if (job.config.preHook >= 0)
    request["pre_hook"] = {{"index", job.config.preHook},
                           {"number", job.config.preHook + 1},
                           {"name", job.config.name}};
  return request;
}

/// " (Triton 0.85 s)" when \p answer says how long Triton's compile took: -v's timeline.
static std::string compileTimeNote(const nlohmann::json &answer) {
  const nlohmann::json &record =
      boolOr(answer, "ok", false) ? answer : objectOf(answer, "error");
  if (!member(record, "compile_ms"))
    return "";
  auto ms = readCompileTimeRecord(record);
  if (!ms)
    return "";
  char text[32];
  std::snprintf(text, sizeof text, " (Triton %.2f s)", static_cast<double>(*ms) / 1000.0);
  return text;
}

/// Takes one compile answer: keeps the result and reads the files the worker wrote.
void CompileRun::finishCompile(Job &job, nlohmann::json answer) {
  say("compiled: " + job.id + compileTimeNote(answer));
  if (!boolOr(answer, "ok", false) && stringOr(objectOf(answer, "error"), "kind") == "target") {
    job.refusal = stringOr(objectOf(answer, "error"), "message", "Triton refused it");
    job.result = nlohmann::json{{"refused", job.refusal},
                                {"describe", std::move(job.result["describe"])},
                                {"deps", nlohmann::json::array()},
                                {"source_name", sourceNames().name(job.kernel->sourcePath)}};
    // Triton's time all the same: it counts in the floor and orders the next build.
    if (member(objectOf(answer, "error"), "compile_ms"))
      if (auto ms = readCompileTimeRecord(objectOf(answer, "error")))
        job.result["compile_ms"] = *ms;
    stageAndStore(job);
    return;
  }
  if (!boolOr(answer, "ok", false)) {
    Diagnostic diag = diagnosticFromResponse(answer, job.kernel->sourcePath.string());
    if (job.config.preHook < 0) {
      fail(std::move(diag));
      return;
    }
    const std::string hookKey = job.kernel->name + " " + job.kernel->function + " " + diag.file +
                                ":" + std::to_string(diag.line);
    auto [it, first] = hookRefusals_.try_emplace(hookKey, job.config.preHook, diag);
    if (!first && job.config.preHook < it->second.first)
      it->second = {job.config.preHook, std::move(diag)};
    return;
  }
  if (const nlohmann::json *why = member(answer, "cache_unwritable"); why && why->is_string())
    cacheUnwritable("cannot write the cache '" + opts_.cacheDir.string() + "' (" +
                    why->get<std::string>() + ")");
  answer.erase("cache_unwritable");
  answer["describe"] = std::move(job.result["describe"]);
  // The kernel file as the metadata names it, kept in the cache entry with the images.
  answer["source_name"] = sourceNames().name(job.kernel->sourcePath);
  if (Status s = checkCompileAnswer(answer); !s) {
    fail(unusableAnswer(s.takeError(), "compile", *job.kernel));
    return;
  }
  job.result = std::move(answer);
  const nlohmann::json &written = objectOf(job.result, "written");
  for (const char *role : {"image", "ptx"}) {
    std::string path = stringOr(written, role);
    if (path.empty())
      continue;
    auto bytes = readFile(path);
    if (!bytes) {
      fail(makeError(ExitCode::InternalError, "the frontend reported " + std::string(role) + " '" +
                                                  path + "' but did not write it"));
      return;
    }
    job.files[role] = std::move(*bytes);
  }
  for (const auto &[stage, path] : objectOf(written, "ir").items())
    if (path.is_string())
      if (auto bytes = readFile(path.get<std::string>()))
        job.files["ir:" + fs::path(path.get<std::string>()).filename().string()] =
            std::move(*bytes);
  stageAndStore(job);
}

/// A compiled job's outputs staged and its answer cached now, while the workers compile the
/// rest: a build's last compile is followed by little more than the commit.
void CompileRun::stageAndStore(Job &job) {
  const std::size_t errors = outcome_.errors.size();
  stageVariant(job);
  if (outcome_.errors.size() == errors)
    storeCompiled(job);
}

} // namespace tta
