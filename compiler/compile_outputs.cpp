// Everything a run writes, staged in its transaction (committed all or nothing by run()):
// images and metadata of every variant, refusal records, the index and the depfile.
#include "compiler/compile_run.h"

#include "compiler/depfile.h"
#include "compiler/frontend_client.h"
#include "compiler/target_limits.h"
#include "compiler/variant_metadata.h"
#include "contract/index_file.h"
#include "contract/json_access.h"

#include <set>

namespace fs = std::filesystem;

namespace tta {

namespace {

/// \p text on one line: its lines joined by "; ", other control characters as spaces.
std::string oneLine(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      if (!out.empty() && out.back() != ';')
        out += "; ";
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out += byte < 0x20 || byte == 0x7f ? ' ' : c;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';'))
    out.pop_back();
  return out;
}

/// Triton's compile time of \p job when it was compiled in this run (its answer's compile_ms).
std::optional<double> compiledNowSeconds(const Job &job) {
  const nlohmann::json *ms = member(job.result, "compile_ms");
  if (job.origin != CacheOrigin::Compiled || !ms || !ms->is_number_unsigned())
    return std::nullopt;
  return static_cast<double>(ms->get<std::uint64_t>()) / 1000.0;
}

} // namespace

/// Checks every image, builds every metadata file, and stages all outputs, the depfile and
/// the index in the transaction.
bool CompileRun::stageOutputs() {
  std::vector<std::string> depends;
  for (const KernelSpec &kernel : kernels_)
    if (kernel.origin != "command line")
      depends.push_back(fs::absolute(kernel.origin).lexically_normal().string());
  for (Job &job : jobs_) {
    if (!job.staged.done)
      stageVariant(job);
    collectStaged(job, depends);
  }
  if (!outcome_.errors.empty())
    return false;
  if (!opts_.index.empty())
    stageIndex();
  if (!opts_.depfile.empty()) {
    // Each prerequisite once, in order of first mention.
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string &path : depends)
      if (seen.insert(path).second)
        unique.push_back(path);
    stageDepfile(unique);
  }
  return outcome_.errors.empty();
}

/// What staging \p job added, into the run: its variant, the files it read (to \p depends),
/// its refusal record and warning.
void CompileRun::collectStaged(Job &job, std::vector<std::string> &depends) {
  Job::Staged &staged = job.staged;
  if (!staged.warning.empty() && log_ && refusalsWarned_.insert(staged.warningKey).second)
    log_(staged.warning);
  depends.insert(depends.end(), staged.depends.begin(), staged.depends.end());
  if (staged.variant)
    outcome_.variants.push_back(std::move(*staged.variant));
  if (staged.refusal)
    refusals_.push_back(*staged.refusal);
  if (staged.refusedCompileSeconds)
    outcome_.refusedCompileSeconds.push_back(*staged.refusedCompileSeconds);
  staged = Job::Staged();
  staged.done = true;
}

/// One job's outputs: its refusal record, or its image, PTX, IR and checked metadata, staged
/// in the transaction; what the run lists of it goes to job.staged (collectStaged).
void CompileRun::stageVariant(Job &job) {
  job.staged = Job::Staged();
  job.staged.done = true;
  std::vector<std::string> &depends = job.staged.depends;
  if (!job.refusal.empty()) {
    stageRefusal(job);
    depends.push_back(job.kernel->sourcePath.string());
    return;
  }
  // Parameters left to their defaults, from the describe answer (kept in cache entries too).
  Signature signature = job.signature;
  if (job.kernel->sourceKind == "python") {
    auto complete = completeSignature(job.signature, objectOf(job.result, "describe"),
                                      job.kernel->function, job.kernel->sourcePath.string());
    if (!complete) {
      fail(complete.takeError());
      return;
    }
    signature = std::move(*complete);
  }
  auto meta = buildMetadata(*job.kernel, job.name, job.target, signature, job.config, job.id,
                            job.paths, job.result, job.files, opts_.writePtx);
  if (!meta) {
    failAt(meta.takeError(), *job.kernel);
    return;
  }
  meta->source = stringOr(job.result, "source_name", sourceNames().name(job.kernel->sourcePath));
  meta->variant.configIndex = job.configIndex;
  for (const auto &h : job.heuristics)
    meta->variant.heuristics.push_back({stringOr(h, "name"), stringOr(h, "expression"),
                                        stringOr(h, "written"), boolOr(h, "runtime", false),
                                        h.contains("value") ? h["value"] : nlohmann::json()});
  // A heuristic computed at launch from the caller's value of the parameter it sets: the C API
  // takes that value (of the recorded type); the kernel gets the heuristic's, compiled in.
  for (const auto &h : job.heuristics)
    if (const std::string type = stringOr(h, "input"); !type.empty())
      for (ParamInfo &p : meta->params)
        if (p.name == stringOr(h, "name") && p.kind == ParamInfo::Kind::Constexpr) {
          p.kind = ParamInfo::Kind::HeuristicInput;
          p.type = type;
        }
  // A config whose blocks (a .ttgir fixes its own warps) or shared memory exceed the target's
  // limits is left out for it.
  std::string why = threadsRefusal(job.target, meta->launch.numWarps);
  if (why.empty())
    why = refusalOfCompiled(job.target,
                            meta->launch.shared + meta->resources.staticShared.value_or(0));
  if (!why.empty()) {
    job.refusal = why;
    stageRefusal(job);
    return;
  }
  // What we write must be what the linker accepts: read it back with the strict reader.
  if (auto readBack = parseMetadata(toJson(*meta)); !readBack) {
    fail(makeError(ExitCode::InternalError,
                   "metadata of " + job.id + " fails its own schema: " + readBack.error().message));
    return;
  }
  for (const auto &[role, bytes] : job.files) {
    fs::path destination;
    if (role == "image")
      destination = job.paths.image;
    else if (role == "ptx" && opts_.writePtx)
      destination = job.paths.ptx;
    else if (role.rfind("ir:", 0) == 0 && !opts_.irDir.empty())
      destination = opts_.irDir / role.substr(3);
    if (destination.empty())
      continue;
    if (Status s = transaction_.stage(destination, std::string_view(bytes)); !s)
      fail(s.takeError());
  }
  if (Status s = transaction_.stage(job.paths.metadata, toJson(*meta).dump(2) + "\n"); !s)
    fail(s.takeError());
  depends.push_back(job.kernel->sourcePath.string());
  for (const auto &dep : arrayOf(job.result, "deps"))
    if (dep.is_string())
      depends.push_back(dep.get<std::string>());
  job.staged.variant = CompiledVariant{std::move(*meta), job.paths.metadata, job.origin,
                                       job.specializedFor, compiledNowSeconds(job)};
}

/// --index: every metadata file and refusal record of the run, relative to the index.
void CompileRun::stageIndex() {
  nlohmann::json list = nlohmann::json::array();
  std::vector<fs::path> listed;
  for (const CompiledVariant &v : outcome_.variants)
    listed.push_back(v.metadataPath);
  listed.insert(listed.end(), refusals_.begin(), refusals_.end());
  for (const fs::path &path : listed) {
    std::error_code ec;
    fs::path relative = fs::proximate(path, opts_.index.parent_path(), ec);
    list.push_back(ec ? path.string() : relative.string());
  }
  // Where the variants came from, for the linker's one line per library (not in its outputs).
  std::uint64_t from[3] = {0, 0, 0};   // indexed by CacheOrigin
  for (const CompiledVariant &v : outcome_.variants)
    ++from[static_cast<int>(v.origin)];
  IndexFile index;
  for (const nlohmann::json &entry : list)
    index.metadata.push_back(entry.get<std::string>());
  index.variantsFrom = VariantsFrom{from[0], from[1], from[2], remoteInUse()};
  if (Status s = transaction_.stage(opts_.index, toJson(index).dump(2) + "\n"); !s)
    fail(s.takeError());
}

/// --depfile: the run's outputs (the index alone when there is one) and \p depends.
void CompileRun::stageDepfile(const std::vector<std::string> &depends) {
  // With an index, it is the one output the build system knows by name; the others have
  // digests in their names.
  // Targets are spelled as the command line spelled them (GCC's -MT rule): Make and Ninja
  // match them against their own outputs textually.
  std::vector<std::string> targets;
  if (!opts_.index.empty()) {
    targets.push_back(opts_.indexAsGiven.empty() ? opts_.index.string() : opts_.indexAsGiven);
  } else {
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    for (const fs::path &p : transaction_.destinations()) {
      fs::path relative = opts_.relativeOutputs && !ec ? fs::relative(p, cwd, ec) : fs::path();
      targets.push_back(relative.empty() ? p.string() : relative.string());
    }
  }
  for (const std::string &path : targets)
    if (!depfileCanRepresent(path))
      fail(makeError(ExitCode::OutputError,
                     "'" + path +
                         "' cannot be written into a depfile (Make and Ninja would "
                         "misread it); choose an output path without such characters"));
  for (const std::string &path : depends)
    if (!depfileCanRepresent(path))
      fail(makeError(ExitCode::OutputError,
                     "'" + path +
                         "' cannot be written into a depfile (Make and Ninja would "
                         "misread it); rename it or drop --depfile"));
  if (!outcome_.errors.empty())
    return;
  if (Status s = transaction_.stage(opts_.depfile, formatDepfile(targets, depends)); !s)
    fail(s.takeError());
}

/// A config the target cannot build or run: one warning line, and a refusal record where its
/// metadata would be (the build's outputs stay complete; the linker makes the library refuse
/// the config on such a device).
void CompileRun::stageRefusal(Job &job) {
  // Compiled now and refused: Triton's time was spent all the same, so it counts in the floor.
  job.staged.refusedCompileSeconds = compiledNowSeconds(job);
  const std::string config = job.config.name.empty() ? formatConfig(job.config) : job.config.name;
  // Once per config and target, not once per signature (hint variant) it covers.
  job.staged.warningKey = job.name + " " + config + " " + job.target.spelling();
  job.staged.warning = "warning: config " + config + " of " + job.name + " is not built for " +
                       job.target.spelling() + ": " + job.refusal;
  nlohmann::json options = requestOptions(job.config);
  options.erase("num_warps");
  options.erase("num_stages");
  RefusalRecord record;
  record.generator = std::string("triton-aot-cc ") + TRITON_AOT_VERSION;
  record.kernel = job.name;
  record.function = job.kernel->function;
  record.source = stringOr(job.result, "source_name", sourceNames().name(job.kernel->sourcePath));
  record.sourceKind = job.kernel->sourceKind;
  record.target = job.target;
  record.variantId = job.id;
  record.config = job.config.name;
  record.configIndex = job.configIndex;
  record.signature = formatSignature(job.signature);
  record.numWarps = job.config.numWarps.value_or(0);
  record.numStages = job.config.numStages.value_or(0);
  record.options = options;
  const nlohmann::json constexprs = refusedConstexprs(job);
  for (const auto &[name, value] : constexprs.items())
    record.constexprs[name] = value;
  // The reason is one line in the library (a launch returns it): Triton's own may be several.
  record.reason = oneLine(job.refusal);
  // What we write must be what the linker accepts: read it back with the strict reader.
  if (auto readBack = parseRefusal(toJson(record)); !readBack) {
    fail(makeError(ExitCode::InternalError, "refusal record of " + job.id +
                                                " fails its own schema: " + readBack.error().message));
    return;
  }
  if (Status s = transaction_.stage(job.paths.metadata, toJson(record).dump(2) + "\n"); !s) {
    fail(s.takeError());
    return;
  }
  job.staged.refusal = job.paths.metadata;
}

/// The constexpr values of a refused \p job by parameter name, as its metadata would list them
/// (a library refusing the config on every target still computes its grid from them): from the
/// signature completed by the kernel's description, else the config's own values.
nlohmann::json CompileRun::refusedConstexprs(const Job &job) {
  nlohmann::json constexprs = nlohmann::json::object();
  for (const auto &[name, value] : job.config.constexprs)
    constexprs[name] = constexprJson(value);
  auto info = described_.find(describeKey(job));
  if (job.kernel->sourceKind != "python" || info == described_.end())
    return constexprs;
  auto complete = completeSignature(job.signature, info->second, job.kernel->function,
                                    job.kernel->sourcePath.string());
  if (!complete)
    return constexprs;
  const nlohmann::json &declared = arrayOf(info->second, "params");
  for (std::size_t i = 0; i < complete->entries.size() && i < declared.size(); ++i)
    if (complete->entries[i].kind == SignatureEntry::Kind::Constexpr)
      constexprs[stringOr(declared[i], "name")] = constexprJson(complete->entries[i].value);
  return constexprs;
}

/// With --no-ptx, a .ptx an earlier run wrote beside a cubin would be stale: remove it.
void CompileRun::removeUnwantedPtx() {
  if (opts_.writePtx)
    return;
  std::error_code ec;
  for (const Job &job : jobs_)
    if (!job.paths.ptx.empty())
      fs::remove(job.paths.ptx, ec);
}

} // namespace tta
