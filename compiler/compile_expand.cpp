// The jobs of a run: decorator configs adopted, kernels x targets x signatures x configs
// expanded, @triton.heuristics assignments multiplied in, and every job named.
#include "compiler/compile_run.h"

#include "compiler/frontend_client.h"
#include "compiler/heuristics.h"
#include "compiler/target_limits.h"
#include "contract/json_access.h"
#include "contract/lexing.h"

#include <algorithm>
#include <set>

namespace fs = std::filesystem;

namespace tta {

namespace {

/// The first "tt.func ... @name" of an IR file: the default entry point name of IR sources.
std::string irFunctionName(const fs::path &path) {
  auto text = readFile(path);
  if (!text)
    return {};
  std::size_t at = text->find("tt.func");
  at = at == std::string::npos ? at : text->find('@', at);
  if (at == std::string::npos)
    return {};
  std::size_t end = at + 1;
  while (end < text->size() &&
         (isIdentChar((*text)[end]) || (*text)[end] == '$' || (*text)[end] == '.'))
    ++end;
  return text->substr(at + 1, end - at - 1);
}

/// Entry point names become C identifiers in the linked library.
bool isIdentifier(const std::string &name) {
  if (name.empty() || !isIdentStart(name[0]))
    return false;
  for (char c : name)
    if (!isIdentChar(c))
      return false;
  return true;
}

/// Fills in Triton's defaults so equal variants get equal names and cache keys.
Config withBackendDefaults(Config config, const Target &target, const std::string &sourceKind) {
  if (sourceKind == "ttgir")
    return config; // warps and stages are fixed by the IR
  if (!config.numWarps)
    config.numWarps = 4;
  if (!config.numStages)
    config.numStages = target.backend == Backend::Cuda ? 3 : 2;
  return config;
}

/// How messages name \p job's config: "config big", "config 'BLOCK=128 num_warps=4'" as
/// declared, or "" where the kernel declares none.
std::string configLabel(const Job &job) {
  if (!job.config.name.empty())
    return "config " + job.config.name;
  if (job.kernel->configsFromDecorator)
    return "";
  for (const Config &declared : job.kernel->configs)
    if (withBackendDefaults(declared, job.target, job.kernel->sourceKind) == job.config)
      return "config '" + formatConfig(declared) + "'";
  return "config '" + formatConfig(job.config) + "'";
}

/// Triton (3.5 through 3.9) compiles CUDA capability 90 and later only arch-specifically
/// (sm_arch_from_capability appends "a"), so "cuda:90" is "cuda:90a" in fact.
Expected<Target> effectiveTarget(Target target) {
  if (target.backend != Backend::Cuda)
    return target;
  if (target.archSuffix == 'f')
    return makeError(ExitCode::UsageError,
                     "target " + target.spelling() +
                         ": Triton cannot build family-portable ('f') "
                         "cubins (no release up to 3.9 does: it always compiles for sm_<cc>a); use "
                         "cuda:" +
                         std::to_string(target.capability) + "a");
  if (target.capability >= 90 && target.archSuffix == 0) {
    target.archSuffix = 'a';
    target.arch += 'a';
  }
  return target;
}

/// Decorator config lists that differ per target (chosen with is_cuda() at import): their
/// union, each config limited (archs=) to the targets that list it.
std::vector<Config>
unionOfTargetConfigs(const std::vector<std::pair<std::string, DecoratorConfigs>> &perTarget) {
  std::vector<Config> all;
  for (const auto &[arch, adopted] : perTarget)
    for (const Config &config : adopted.configs) {
      auto it = std::find_if(all.begin(), all.end(), [&](const Config &c) {
        Config a = c, b = config;
        a.archs.clear();
        b.archs.clear();
        return a == b;
      });
      if (it == all.end()) {
        all.push_back(config);
        all.back().archs = {arch};
      } else {
        it->archs.push_back(arch);
      }
    }
  for (Config &config : all)
    if (config.archs.size() == perTarget.size())
      config.archs.clear();
  return all;
}

} // namespace

/// Kernels declared without configs: described first, per target (a module may choose its
/// autotune configs by backend), and a @triton.autotune'd one gets the decorator's configs
/// (after its build-time pruning), named from their values, and a signature entry for each value
/// they set. A config some targets' lists lack is limited to the others (archs=).
bool CompileRun::adoptDecoratorConfigs() {
  std::vector<std::size_t> undeclared;
  std::vector<DescribeWanted> wanted;
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const KernelSpec &kernel = kernels_[k];
    if (!kernel.configsFromDecorator || kernel.sourceKind != "python")
      continue;
    undeclared.push_back(k);
    for (const Target &requested : kernel.targets)
      if (auto target = effectiveTarget(requested)) // the others fail in expand()
        wanted.push_back({{k, target->spelling()}, &kernel, *target});
  }
  if (undeclared.empty())
    return true;
  // As many workers as the compiles will want at least, started together (Triton imports in
  // parallel), rather than one now and the rest after describing.
  std::size_t variants = 0;
  for (const KernelSpec &kernel : kernels_)
    variants += std::max<std::size_t>(1, kernel.signatures.size()) * kernel.targets.size() *
                std::max<std::size_t>(1, kernel.configs.size());
  const int workers = static_cast<int>(
      std::clamp<std::size_t>(variants, 1, static_cast<std::size_t>(std::max(1, opts_.jobs))));
  if (!describe(wanted, workers, DescribeCache::Use) || !outcome_.errors.empty())
    return false;
  for (std::size_t k : undeclared) {
    KernelSpec &kernel = kernels_[k];
    auto perTarget = decoratorConfigsPerTarget(k, wanted);
    if (!perTarget || perTarget->empty())
      continue;
    bool same = true;
    for (const auto &[arch, adopted] : *perTarget)
      same = same && adopted.configs == perTarget->front().second.configs;
    DecoratorConfigs merged = perTarget->front().second;
    if (!same) {
      merged.configs = unionOfTargetConfigs(*perTarget);
      say("note: " + kernel.name +
          ": the decorator's configs differ per target; each is built "
          "for the targets that list it");
    }
    for (const std::string &warning : merged.warnings)
      if (log_)
        log_("warning: " + warning);
    std::string names;
    for (const Config &config : merged.configs)
      names += (names.empty() ? "" : ", ") + config.name;
    say("note: " + kernel.name + ": " + std::to_string(merged.configs.size()) +
        " config(s) from @triton.autotune: " + names);
    kernel.configs = std::move(merged.configs);
    kernel.signatures = std::move(merged.signatures);
  }
  return outcome_.errors.empty();
}

/// Kernel \p k's @triton.autotune configs per target arch, from its describe answers (none
/// where it has no such decorator); nullopt after reporting a config that cannot be taken.
std::optional<std::vector<std::pair<std::string, DecoratorConfigs>>>
CompileRun::decoratorConfigsPerTarget(std::size_t k, const std::vector<DescribeWanted> &wanted) {
  const KernelSpec &kernel = kernels_[k];
  std::vector<std::pair<std::string, DecoratorConfigs>> perTarget;
  for (const DescribeWanted &w : wanted) {
    if (w.key.first != k)
      continue;
    const nlohmann::json &info = described_[w.key];
    const nlohmann::json *autotune = member(info, "autotune");
    if (!autotune)
      continue;
    auto adopted = configsFromDecorator(*autotune, kernel.signatures, info, kernel.function,
                                        kernel.dropPreHooks);
    if (!adopted) {
      failAt(adopted.takeError(), kernel);
      return std::nullopt;
    }
    perTarget.emplace_back(w.target.arch, std::move(*adopted));
  }
  return perTarget;
}

/// Kernels x targets x signatures x configs, each with its resolved signature and output names.
bool CompileRun::expand() {
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const KernelSpec &kernel = kernels_[k];
    std::string name = kernel.name;
    if (name.empty())
      name = kernel.sourceKind == "python" ? kernel.function : irFunctionName(kernel.sourcePath);
    if (name.empty())
      name = kernel.sourcePath.stem().string();
    if (!isIdentifier(name)) {
      failAt(makeError(ExitCode::UsageError, "entry point name '" + name +
                                                 "' is not a C identifier; give one with "
                                                 "-on/--out-name (or \"name\" in a spec file)"),
             kernel);
      continue;
    }
    std::vector<Signature> signatures = kernel.signatures;
    if (signatures.empty())
      signatures.emplace_back(); // IR sources: the signature is in the IR
    for (const Target &requested : kernel.targets) {
      auto target = effectiveTarget(requested);
      if (!target) {
        failAt(target.takeError(), kernel);
        continue;
      }
      if (!(*target == requested))
        say("note: " + requested.spelling() + " compiles as " + target->spelling() +
            " (Triton builds sm_90 and later arch-specifically)");
      for (const Signature &signature : signatures) {
        for (std::size_t c = 0; c < kernel.configs.size(); ++c) {
          const Config &config = kernel.configs[c];
          Job job;
          job.kernel = &kernel;
          job.kernelIndex = k;
          job.name = name;
          job.requested = requested.spelling();
          job.target = *target;
          job.config = withBackendDefaults(config, *target, kernel.sourceKind);
          job.configIndex = static_cast<int>(c);
          job.refusal = refusalBeforeCompiling(job.config, job.target);
          // Before the defaults: an option names a constexpr only where the config sets it.
          auto resolved = resolveSignature(signature, config);
          if (!resolved) {
            failAt(resolved.takeError(), kernel);
            continue;
          }
          job.signature = *resolved;
          jobs_.push_back(std::move(job));
        }
      }
    }
  }
  return outcome_.errors.empty();
}

/// Output names of every job (after heuristics expanded them), and no two alike.
bool CompileRun::nameJobs() {
  std::map<std::string, const Job *> seen; // metadata path -> the job that writes it
  for (Job &job : jobs_) {
    const KernelSpec &kernel = *job.kernel;
    fs::path stem = opts_.outputStem.empty() ? opts_.outputDir / job.name : opts_.outputStem;
    std::string digest = variantDigest(kernel.function.empty() ? job.name : kernel.function,
                                       kernel.sourceKind, job.signature, job.config);
    job.id = variantId(job.name, job.target, digest);
    job.paths = outputPaths(stem, job.target, digest);
  }
  // Two variants that would write the same files: say which declarations collide.
  for (const Job &job : jobs_) {
    auto [it, inserted] = seen.emplace(job.paths.metadata.string(), &job);
    if (inserted)
      continue;
    const Job &first = *it->second;
    std::string why = first.kernel == job.kernel
                          ? "the same signature, config and target are declared twice"
                          : "two kernels have the same name; give each its own name";
    if (first.requested != job.requested)
      why += " (cuda:90 and later compile as the 'a' target, so cuda:90 and cuda:90a are the same)";
    failAt(makeError(ExitCode::UsageError, "variant " + job.id + " would be written twice: " + why),
           *job.kernel);
  }
  return outcome_.errors.empty();
}

/// --specialize-for: each job of such a kernel gets a job per signature its calls specialize
/// its own to (specializedSignatures), unless an equal one is declared or added already; the
/// declared one stays, the generic fallback of the calls no variant fits.
bool CompileRun::specialize() {
  std::map<std::size_t, std::vector<ExampleCall>> callsOf;   // kernel index -> its calls
  std::set<std::string> present;
  auto keyOf = [](const Job &job, const std::string &signature) {
    return std::to_string(job.kernelIndex) + '|' + job.target.spelling() + '|' +
           std::to_string(job.configIndex) + '|' + signature;
  };
  for (const Job &job : jobs_)
    present.insert(keyOf(job, formatSignature(job.signature)));
  std::vector<Job> added;
  for (const Job &job : jobs_) {
    const KernelSpec &kernel = *job.kernel;
    if (kernel.specialize.empty() || kernel.sourceKind != "python")
      continue;
    auto info = described_.find(describeKey(job));
    if (info == described_.end())
      continue;
    auto calls = callsOf.find(job.kernelIndex);
    if (calls == callsOf.end()) {
      auto resolved = resolveCalls(kernel.specialize);
      if (!resolved) {
        failAt(resolved.takeError(), kernel);
        callsOf[job.kernelIndex] = {};
        continue;
      }
      calls = callsOf.emplace(job.kernelIndex, std::move(*resolved)).first;
    }
    for (const ExampleCall &call : calls->second) {
      std::optional<Signature> signature = specializeFor(job.signature, info->second, call);
      if (!signature || !present.insert(keyOf(job, signature->text)).second)
        continue;
      Job variant = job;
      variant.signature = std::move(*signature);
      for (const auto &[name, value] : call)
        variant.specializedFor += (variant.specializedFor.empty() ? "" : ", ") + name + "=" +
                                  std::to_string(value);
      added.push_back(std::move(variant));
    }
  }
  for (Job &job : added)
    jobs_.push_back(std::move(job));
  return outcome_.errors.empty();
}

/// The names a job's config gives no value decided by the kernel (resolveKernelNames: a
/// heuristic's value, a default); then each job of a kernel with @triton.heuristics becomes one
/// job per assignment of them.
bool CompileRun::applyHeuristics() {
  std::map<DescribeKey, std::vector<KernelHeuristic>> translated;
  std::vector<Job> expanded;
  for (Job &job : jobs_) {
    auto info = described_.find(describeKey(job));
    if (info == described_.end()) {
      expanded.push_back(std::move(job));
      continue;
    }
    const KernelSpec &kernel = *job.kernel;
    const std::string file = kernel.sourcePath.string();
    auto known = translated.find(describeKey(job));
    if (known == translated.end()) {
      auto heuristics = translateHeuristics(info->second, kernel.heuristics, kernel.function, file);
      if (!heuristics) {
        failAt(heuristics.takeError(), kernel);
        continue;
      }
      known = translated.emplace(describeKey(job), std::move(*heuristics)).first;
    }
    if (Status s = checkDoNotSpecialize(job.signature, info->second, kernel.function, file); !s) {
      failAt(s.takeError(), kernel);
      continue;
    }
    auto named =
        resolveKernelNames(job.signature, configLabel(job), info->second, kernel.function, file);
    if (!named) {
      failAt(named.takeError(), kernel);
      continue;
    }
    job.signature = std::move(*named);
    auto assignments = expandHeuristics(job.signature, known->second, kernel.heuristics,
                                        info->second, kernel.function, file);
    if (!assignments) {
      failAt(assignments.takeError(), kernel);
      continue;
    }
    for (HeuristicAssignment &a : *assignments) {
      Job copy = job;
      copy.signature = std::move(a.signature);
      copy.heuristics = std::move(a.record);
      for (const auto &[option, value] : a.launchOptions)
        setLaunchOption(option, value, copy.config);   // checked by expandHeuristics
      expanded.push_back(std::move(copy));
    }
  }
  jobs_ = std::move(expanded);
  return outcome_.errors.empty();
}

} // namespace tta
