#include "linker/link_group.h"

#include "contract/c_names.h"
#include "contract/grid.h"
#include "contract/types.h"
#include "linker/kernel_agreement.h"
#include "linker/link_input.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <set>

namespace tta::link {

namespace {

std::string quoted(const std::string &text) { return "'" + text + "'"; }

// ---------------------------------------------------------------------------------------------
// Grouping.

struct HintGroup {
  std::vector<int> hints;
  std::string heuristicKey;                   ///< the tested heuristics' values (JSON text)
  std::vector<HeuristicRecord> heuristics;
  std::map<std::string, nlohmann::json> constexprs;
  std::map<std::string, Function> byTarget;   ///< target spelling -> function
  std::map<std::string, std::string> fileOf;  ///< target spelling -> metadata file
};

struct ConfigGroup {
  KernelConfig config;                    ///< without variants yet
  std::string base;                       ///< constexprs, num_warps, options (JSON text)
  std::map<Backend, int> stages;          ///< num_stages per backend
  std::vector<std::pair<std::string, std::string>> constexprTexts;  ///< for derived names
  std::string file;                       ///< where it first appeared
  std::vector<HintGroup> hints;           ///< order of first appearance
};

std::string targetKey(const Target &t) { return t.spelling(); }

/// CUDA before HIP; CUDA by capability ("90" before "90a"), HIP by target ID.
bool targetLess(const Target &a, const Target &b) {
  if (a.backend != b.backend)
    return a.backend == Backend::Cuda;
  if (a.capability != b.capability)
    return a.capability < b.capability;
  if (a.archSuffix != b.archSuffix)
    return a.archSuffix < b.archSuffix;
  return a.arch < b.arch;
}

std::string stagesText(const std::map<Backend, int> &stages) {
  std::set<int> values;
  for (const auto &[backend, n] : stages)
    values.insert(n);
  if (values.size() == 1)
    return std::to_string(*values.begin());
  std::string out;
  for (const auto &[backend, n] : stages)
    out += (out.empty() ? "" : "/") + std::string(backendName(backend)) + ":" + std::to_string(n);
  return out;
}

/// "BLOCK=1024,num_warps=4" (num_stages only where it tells two configs apart).
std::string derivedName(const ConfigGroup &group, bool withStages) {
  std::string name;
  auto add = [&](const std::string &item) { name += (name.empty() ? "" : ",") + item; };
  for (const auto &[param, text] : group.constexprTexts)
    add(param + "=" + text);
  add("num_warps=" + std::to_string(group.config.numWarps));
  if (withStages)
    add("num_stages=" + stagesText(group.stages));
  for (const auto &[key, value] : group.config.options.items())
    add(key + "=" + value.dump());
  return name;
}

/// For messages: 'name', or the derived name (with num_stages while names are not final).
std::string configLabel(const ConfigGroup &group) {
  if (group.config.named)
    return "'" + group.config.name + "'";
  return group.config.name.empty() ? derivedName(group, true) : group.config.name;
}

class KernelBuilder {
public:
  KernelBuilder(std::vector<const ReadVariant *> variants, std::vector<const Refusal *> refusals)
      : variants_(std::move(variants)), refusals_(std::move(refusals)) {}

  Expected<Kernel> build() {
    const ReadVariant &first = *variants_.front();
    kernel_.name = first.meta.name;
    kernel_.function = first.meta.function;
    kernel_.source = first.meta.source;
    kernel_.params = first.meta.params;
    kernel_.grid = first.meta.grid;
    kernel_.autotune = first.meta.variant.autotune;
    for (const ParamInfo &p : kernel_.params) {
      kernel_.globalScratchArg |= p.kind == ParamInfo::Kind::GlobalScratch;
      kernel_.profileScratchArg |= p.kind == ParamInfo::Kind::ProfileScratch;
    }
    if (!isCIdentifier(kernel_.name))
      return errorIn(first.file, "kernel name '" + kernel_.name + "' is not a C identifier");
    // triton-aot-cc refuses these for HIP; a hand-made metadata file must not get through.
    for (const ReadVariant *v : variants_)
      for (const ParamInfo &p : v->meta.params)
        if (p.kind == ParamInfo::Kind::TensorDesc && v->meta.target.backend != Backend::Cuda)
          return errorIn(v->file, "kernel '" + kernel_.name + "' takes the host tensor descriptor '" +
                                      p.name + "' for " + v->meta.target.spelling() +
                                      ": the runtime encodes such descriptors for CUDA (TMA) only");
    for (const ReadVariant *v : variants_) {
      if (v != &first)
        if (Status s = checkSameKernel(first, *v); !s)
          return s.takeError();
      if (Status s = checkGridNames(*v); !s)
        return s.takeError();
    }
    if (Status s = buildParams(); !s)
      return s.takeError();
    for (const ReadVariant *v : variants_)
      if (Status s = place(*v); !s)
        return s.takeError();
    if (Status s = finish(); !s)
      return s.takeError();
    return std::move(kernel_);
  }

private:
  /// The C parameters: every pointer and scalar that is runtime in at least one variant.
  Status buildParams() {
    const ReadVariant &first = *variants_.front();
    std::map<std::string, std::string> cNames;   // C name -> parameter
    for (std::size_t i = 0; i < kernel_.params.size(); ++i) {
      const ParamInfo &p = kernel_.params[i];
      if (p.name.rfind("tta_", 0) == 0)
        return errorIn(first.file, "parameter '" + p.name + "' of kernel '" + kernel_.name +
                                       "': names starting with 'tta_' are reserved for the "
                                       "generated code; rename the parameter");
      if (p.kind == ParamInfo::Kind::TensorDescShape || p.kind == ParamInfo::Kind::TensorDescStride)
        continue;   // C parameters of their tensordesc, made below
      if (p.kind == ParamInfo::Kind::TensorDesc) {
        if (Status s = addTensorDescParams(i, cNames); !s)
          return s;
        continue;
      }
      ParamClass c = classOf(p.kind);
      if (c != ParamClass::Pointer && c != ParamClass::Scalar)
        continue;
      const ReadVariant *runtime = nullptr;
      for (const ReadVariant *v : variants_)
        if (isRuntime(v->meta.params[i].kind) ||
            v->meta.params[i].kind == ParamInfo::Kind::HeuristicInput) {
          runtime = v;
          break;
        }
      if (!runtime) {
        kernel_.oneOnly.push_back(p.name);
        continue;
      }
      CParam param;
      param.name = p.name;
      param.cName = cParameterName(p.name);
      param.tritonType = p.type;
      param.cType = cTypeOf(p.type);
      param.size = runtime->meta.params[i].size;
      param.kernelIndex = i;
      // Every variant agrees on the kind (checkSameKernel); the C function takes it at its width.
      param.heuristicInput = p.kind == ParamInfo::Kind::HeuristicInput;
      if (auto scalar = parseScalarType(p.type); param.heuristicInput && scalar)
        param.size = typeInfo(*scalar).size;
      if (param.cType.empty())
        return errorIn(runtime->file, "parameter '" + p.name + "' of kernel '" + kernel_.name +
                                          "' has type '" + p.type +
                                          "', which a C function cannot take");
      auto [it, inserted] = cNames.emplace(param.cName, p.name);
      if (!inserted)
        return errorIn(first.file, "parameters '" + it->second + "' and '" + p.name +
                                       "' of kernel '" + kernel_.name + "' are both '" +
                                       param.cName + "' in C (a C keyword gets a trailing '_'); "
                                       "rename one of them");
      kernel_.cParams.push_back(std::move(param));
    }
    return ok();
  }

  /// The C parameters of the tensordesc kernel parameter \p i: X_base, X_shape<d>, X_stride<d>
  /// (int64_t, as TensorDescriptor holds shapes and strides), one per kernel argument Triton
  /// lowers it to (the metadata reader checked that the rank's entries follow it).
  Status addTensorDescParams(std::size_t i, std::map<std::string, std::string> &cNames) {
    const ReadVariant &first = *variants_.front();
    const ParamInfo &p = kernel_.params[i];
    const int rank = p.tensordesc ? p.tensordesc->rank : 0;
    for (int e = 0; e < 1 + 2 * rank; ++e) {
      CParam param;
      param.tensor = p.name;
      param.kernelIndex = i + static_cast<std::size_t>(e);
      param.size = 8;
      if (e == 0) {
        param.tensorPart = CParam::TensorPart::Base;
        param.name = p.name;
        param.cName = p.name + "_base";
        param.tritonType = p.type;
        param.cType = "const void *";
      } else {
        const bool shape = e <= rank;
        param.tensorPart = shape ? CParam::TensorPart::Shape : CParam::TensorPart::Stride;
        param.dim = shape ? e - 1 : e - 1 - rank;
        param.name = kernel_.params[param.kernelIndex].name;   // "a_desc.shape0"
        param.cName = p.name + (shape ? "_shape" : "_stride") + std::to_string(param.dim);
        param.tritonType = "i64";
        param.cType = "int64_t";
      }
      auto [it, inserted] = cNames.emplace(param.cName, param.name);
      if (!inserted)
        return errorIn(first.file, "parameters '" + it->second + "' and '" + param.name +
                                       "' of kernel '" + kernel_.name + "' are both '" +
                                       param.cName + "' in C (a tensor descriptor X takes X_base, "
                                       "X_shape<d> and X_stride<d>); rename one of them");
      kernel_.cParams.push_back(std::move(param));
    }
    return ok();
  }

  ConfigGroup &configFor(const ReadVariant &v, Status &status) {
    const KernelMetadata &m = v.meta;
    std::map<std::string, nlohmann::json> constexprs = m.variant.constexprs;
    std::set<std::string> decidedAtLaunch;   // heuristics the dispatcher tests: not the config's
    for (const HeuristicRecord &h : m.variant.heuristics)
      if (h.runtime) {
        decidedAtLaunch.insert(h.name);
        constexprs.erase(h.name);
      }
    std::vector<std::pair<std::string, std::string>> texts;
    for (const ParamInfo &p : m.params) {
      if (p.kind == ParamInfo::Kind::SpecializedToOne)
        constexprs.erase(p.name);
      if (p.kind == ParamInfo::Kind::Constexpr && !decidedAtLaunch.count(p.name))
        texts.emplace_back(p.name, p.valueText.empty() ? p.value.dump() : p.valueText);
    }
    // A launch option a heuristic decides at launch (num_warps from n) differs between the
    // variants of one config: it does not tell configs apart.
    nlohmann::json options = m.variant.options;
    for (const std::string &option : decidedAtLaunch)
      options.erase(option);
    const int warps = decidedAtLaunch.count("num_warps") ? 0 : m.variant.numWarps;
    nlohmann::json base = {{"constexprs", constexprs}, {"num_warps", warps}, {"options", options}};
    const std::string baseText = base.dump();
    const Backend backend = m.target.backend;
    const int stages = decidedAtLaunch.count("num_stages") ? 0 : m.variant.numStages;

    std::string key;
    if (!m.variant.config.empty()) {
      key = "named:" + m.variant.config;
    } else {
      // The compiler records the backend's default num_stages (CUDA 3, HIP 2) when none was
      // asked for, so num_stages cannot identify a config across backends. Within a backend
      // it does: the k-th distinct num_stages of a base matches the k-th config of that base.
      auto &seen = stagesSeen_[backend][baseText];
      auto at = std::find(seen.begin(), seen.end(), stages);
      if (at == seen.end())
        at = seen.insert(seen.end(), stages);
      key = "derived:" + baseText + "#" + std::to_string(at - seen.begin());
    }
    auto [it, inserted] = configIndex_.emplace(key, groups_.size());
    if (inserted) {
      ConfigGroup group;
      group.config.name = m.variant.config;
      group.config.named = !m.variant.config.empty();
      group.config.constexprs = constexprs;
      group.config.numWarps = m.variant.numWarps;
      group.config.numStages = m.variant.numStages;   // the first one seen; per backend in `stages`
      group.config.options = m.variant.options;
      group.base = baseText;
      group.constexprTexts = texts;
      group.file = v.file;
      group.stages[backend] = stages;
      groups_.push_back(std::move(group));
      return groups_.back();
    }
    ConfigGroup &group = groups_[it->second];
    auto stagesAt = group.stages.find(backend);
    bool stagesDiffer = stagesAt != group.stages.end() && stagesAt->second != stages;
    if (group.base != baseText || stagesDiffer) {
      ConfigGroup here;
      here.config.numWarps = m.variant.numWarps;
      here.config.options = m.variant.options;
      here.constexprTexts = texts;
      here.stages[backend] = stages;
      ConfigGroup there = group;
      there.stages = {{backend, stagesDiffer ? stagesAt->second : stages}};
      status = errorIn(v.file, "config '" + m.variant.config + "' of kernel '" + m.name + "' is " +
                                   derivedName(here, true) + " here but " +
                                   derivedName(there, true) + " in '" + group.file +
                                   "': two configs of one kernel cannot share a name");
    }
    group.stages.emplace(backend, stages);
    return group;
  }

  /// The dispatcher computes a heuristic once, before it knows the device: every target must
  /// compute it alike. One that reads the device (a heuristic function asking torch for the SM
  /// count, answered per target when compiling) differs between targets, and is refused here
  /// rather than computed with one target's answer on another's devices.
  Status sameHeuristics(const HintGroup &group, const std::vector<HeuristicRecord> &tested,
                        const ReadVariant &v, const std::string &target) const {
    for (const HeuristicRecord &h : tested)
      for (const HeuristicRecord &seen : group.heuristics)
        if (seen.name == h.name && seen.expression != h.expression) {
          const std::string &where = group.fileOf.begin()->first;
          auto shown = [](const std::string &e) {
            return e.size() <= 80 ? e : e.substr(0, 77) + "...";
          };
          return errorIn(v.file, "heuristic '" + h.name + "' of kernel '" + kernel_.name +
                                     "' is computed differently for " + target + " (" +
                                     shown(h.expression) + ") than for " + where + " (" +
                                     shown(seen.expression) + "): it depends on the device (its "
                                     "answers differ between targets), and a library computes "
                                     "it one way for all; build one library per target, or give "
                                     "the heuristic by hand (--heuristic, CMake HEURISTIC)");
        }
    return ok();
  }

  /// A tested heuristic must become C over this kernel's C parameters and constexprs.
  Status checkHeuristic(const HeuristicRecord &h, const ReadVariant &v) const {
    auto expr = parseHeuristic(h.expression, HeuristicDialect::C);
    std::vector<std::string> cNames;
    for (const CParam &c : kernel_.cParams)
      cNames.push_back(c.cName);
    Expected<std::string> emitted =
        expr ? emitHeuristicC(*expr, heuristicResolver(kernel_, cNames, v.meta.variant.constexprs,
                                                       h.name))
             : Expected<std::string>(expr.takeError());
    if (!emitted)
      return errorIn(v.file, "heuristic '" + h.name + "' of kernel '" + kernel_.name + "' (" +
                                 h.expression + ") cannot be computed in C: " +
                                 emitted.error().message);
    return ok();
  }

  std::vector<int> hintsOf(const ReadVariant &v) const {
    std::vector<int> hints;
    for (const CParam &c : kernel_.cParams) {
      const ParamInfo &p = v.meta.params[c.kernelIndex];
      hints.push_back(p.kind == ParamInfo::Kind::SpecializedToOne ? 1 : p.hint);
    }
    return hints;
  }

  Status place(const ReadVariant &v) {
    Status status = ok();
    ConfigGroup &group = configFor(v, status);
    if (!status)
      return status;
    groupOfVariant_.push_back(static_cast<std::size_t>(&group - groups_.data()));
    std::vector<int> hints = hintsOf(v);
    std::vector<HeuristicRecord> tested;
    nlohmann::json values = nlohmann::json::object();
    for (const HeuristicRecord &h : v.meta.variant.heuristics)
      if (h.runtime) {
        if (Status s = checkHeuristic(h, v); !s)
          return s;
        tested.push_back(h);
        values[h.name] = h.value;
      }
    const std::string heuristicKey = values.dump();
    auto hint = std::find_if(group.hints.begin(), group.hints.end(), [&](const HintGroup &h) {
      return h.hints == hints && h.heuristicKey == heuristicKey;
    });
    const std::string target = targetKey(v.meta.target);
    if (hint == group.hints.end()) {
      group.hints.push_back({hints, heuristicKey, tested, v.meta.variant.constexprs, {}, {}});
      hint = group.hints.end() - 1;
    } else if (Status s = sameHeuristics(*hint, tested, v, target); !s) {
      return s;
    }
    if (auto other = hint->fileOf.find(target); other != hint->fileOf.end())
      return errorIn(v.file, "duplicate: kernel '" + kernel_.name + "', config " +
                                 configLabel(group) + ", variant (" +
                                 hintsText(kernel_.cParams, hints) + ") for " + target +
                                 " is also in '" + other->second + "'");
    if (!targets_.count(target))
      targets_.emplace(target, v.meta.target);

    Function f;
    f.metadataFile = v.file;
    f.variantId = v.meta.variant.id;
    f.entry = v.meta.launch.entry;
    f.binary = v.binary;
    f.ptx = v.ptx;
    f.launch = v.meta.launch;
    f.resources = v.resources;
    f.imageSize = v.imageSize;
    f.tritonVersion = v.meta.tritonVersion;
    for (const ParamInfo &p : v.meta.params)
      if (p.kind == ParamInfo::Kind::TensorDesc && p.tensordesc)
        f.tensorMaps.push_back(*p.tensordesc);
    hint->byTarget.emplace(target, std::move(f));
    hint->fileOf.emplace(target, v.file);
    return ok();
  }

  Status finish() {
    for (const auto &[spelling, target] : targets_)
      kernel_.targets.push_back(target);
    std::sort(kernel_.targets.begin(), kernel_.targets.end(), targetLess);

    // Derived names show num_stages only where two configs differ in nothing else.
    std::map<std::string, int> sameBase;
    for (const ConfigGroup &g : groups_)
      ++sameBase[g.base];
    std::map<std::string, std::string> names;   // config name -> file
    for (ConfigGroup &g : groups_) {
      if (!g.config.named)
        g.config.name = derivedName(g, sameBase[g.base] > 1);
      auto [it, inserted] = names.emplace(g.config.name, g.file);
      if (!inserted)
        return errorIn(g.file, "kernel '" + kernel_.name + "' has two configs called '" +
                                   g.config.name + "' (the other is in '" + it->second +
                                   "'): name the configs (name=...) so they can be told apart");
    }

    for (const ConfigGroup &g : groups_)
      groupNames_.push_back(g.config.name);
    for (ConfigGroup &g : groups_) {
      for (HintGroup &h : g.hints) {
        HintVariant variant;
        variant.hints = h.hints;
        variant.heuristics = h.heuristics;
        variant.constexprs = h.constexprs;
        for (const Target &t : kernel_.targets) {
          auto f = h.byTarget.find(targetKey(t));
          if (f == h.byTarget.end()) {
            const Refusal *refused = refusalFor(g.config.name, targetKey(t));
            if (refused) {
              variant.functions.push_back(refusedFunction(g.config.name, *refused));
              continue;
            }
            if (!decoratorLeftOut(g, t))
              return missing(g, h, t);
            Function function;
            function.metadataFile = h.fileOf.begin()->second;
            function.refusal = "config " + g.config.name + " is not built for " + targetKey(t) +
                               ": the kernel's @triton.autotune does not list it for that target "
                               "(its module chose the configs by backend)";
            variant.functions.push_back(std::move(function));
            continue;
          }
          variant.functions.push_back(std::move(f->second));
        }
        g.config.variants.push_back(std::move(variant));
      }
      // Most specialised first; ties keep declaration order.
      std::stable_sort(g.config.variants.begin(), g.config.variants.end(),
                       [](const HintVariant &a, const HintVariant &b) {
                         auto count = [](const HintVariant &v) {
                           return std::count_if(v.hints.begin(), v.hints.end(),
                                                [](int x) { return x != 0; });
                         };
                         return count(a) > count(b);
                       });
      kernel_.configs.push_back(std::move(g.config));
    }
    if (Status s = addConfigsRefusedEverywhere(names); !s)
      return s;
    orderAsDeclared();
    return checkEveryTargetHasAConfig();
  }

  /// The kernel's configs in their declared order, whichever targets built them: each target's
  /// configs (its variants and refusal records) by their config_index, ties and records without
  /// one in order of first appearance; the first target's list first (targets in order of first
  /// appearance), then each other target's configs not yet placed. Where every target has the
  /// same list, that is the declaration; where a module chose its @triton.autotune list by
  /// backend and each target was compiled on its own, the lists follow one another, as the
  /// compiler merges them in one run.
  void orderAsDeclared() {
    struct Mention {
      std::string target;
      std::string config;
      std::optional<int> index;
    };
    std::vector<Mention> mentions;   // variants, then refusal records, in input order
    for (std::size_t i = 0; i < variants_.size(); ++i)
      mentions.push_back({targetKey(variants_[i]->meta.target), groupNames_[groupOfVariant_[i]],
                          variants_[i]->meta.variant.configIndex});
    for (const Refusal *r : refusals_)
      mentions.push_back({r->target, r->config, r->configIndex});
    std::vector<std::string> targets;
    std::map<std::string, std::vector<const Mention *>> byTarget;
    for (const Mention &m : mentions) {
      auto &list = byTarget[m.target];
      if (list.empty())
        targets.push_back(m.target);
      list.push_back(&m);
    }
    std::map<std::string, std::size_t> place;   // config name -> its place in the library
    for (const std::string &target : targets) {
      std::vector<const Mention *> &list = byTarget[target];
      std::stable_sort(list.begin(), list.end(), [](const Mention *a, const Mention *b) {
        return a->index.value_or(INT_MAX) < b->index.value_or(INT_MAX);
      });
      for (const Mention *m : list)
        place.emplace(m->config, place.size());
    }
    auto placeOf = [&](const KernelConfig &config) {
      auto found = place.find(config.name);   // every config has a variant or a record
      return found == place.end() ? place.size() : found->second;
    };
    std::stable_sort(kernel_.configs.begin(), kernel_.configs.end(),
                     [&](const KernelConfig &a, const KernelConfig &b) {
                       return placeOf(a) < placeOf(b);
                     });
  }

  /// A config with refusal records and no variant (every target refused it) stays a config of
  /// the kernel (orderAsDeclared() puts it in its place): one generic variant whose launch on any
  /// target says why, rather than a config that silently disappears from the library.
  Status addConfigsRefusedEverywhere(const std::map<std::string, std::string> &built) {
    std::vector<std::string> order;
    for (const Refusal *r : refusals_)
      if (!built.count(r->config) && std::find(order.begin(), order.end(), r->config) == order.end())
        order.push_back(r->config);
    for (const std::string &name : order) {
      KernelConfig config;
      config.name = name;
      config.named = true;
      HintVariant variant;
      variant.hints.assign(kernel_.cParams.size(), 0);
      for (const Target &t : kernel_.targets) {
        const Refusal *refused = refusalFor(name, targetKey(t));
        if (!refused)
          return errorIn(refusalFor(name)->file,
                         "kernel '" + kernel_.name + "', config " + name +
                             " has neither a function nor a refusal record for " + targetKey(t) +
                             " (other configs of the kernel are built for it): compile it for " +
                             targetKey(t) + " too, or leave " + targetKey(t) + " out of the library");
        config.numWarps = refused->numWarps;
        config.numStages = refused->numStages;
        config.options = refused->options;
        config.constexprs = refused->constexprs;   // the launch's grid reads them
        variant.constexprs = refused->constexprs;
        variant.functions.push_back(refusedFunction(name, *refused));
      }
      if (Status s = checkGridValues(config, *refusalFor(name)); !s)
        return s;
      config.variants.push_back(std::move(variant));
      kernel_.configs.push_back(std::move(config));
    }
    return ok();
  }

  /// A config refused everywhere still computes the grid at launch (before it refuses): its
  /// records must give every constexpr the grid reads.
  Status checkGridValues(const KernelConfig &config, const Refusal &refused) const {
    if (!kernel_.grid)
      return ok();
    auto grid = parseGrid(std::vector<std::string>(kernel_.grid->begin(), kernel_.grid->end()));
    if (!grid)
      return ok();   // checked with the variants
    for (const std::set<std::string> &names : grid->names)
      for (const std::string &name : names) {
        const ParamInfo *p = findParam(kernel_.params, name);
        if (p && p->kind == ParamInfo::Kind::Constexpr && !config.constexprs.count(name))
          return errorIn(refused.file, "kernel '" + kernel_.name + "', config " + config.name +
                                           " is refused on every target, and its refusal record "
                                           "does not give the value of '" + name +
                                           "', which the grid uses: compile it again with this "
                                           "triton-aot-cc");
      }
    return ok();
  }

  /// Whether config group \p g is absent for \p t because the @triton.autotune decorator did
  /// not list it there: the configs are the decorator's, other configs of the kernel are built
  /// for \p t, and no variant of \p g is. A module that picks its list with is_cuda() at import
  /// gives each backend its own configs, and each target is compiled in a run of its own (one
  /// build edge per architecture), which knows only its own list.
  bool decoratorLeftOut(const ConfigGroup &g, const Target &t) const {
    if (!kernel_.autotune || kernel_.autotune->configsFrom != "decorator")
      return false;
    const std::string spelling = targetKey(t);
    auto builtFor = [&](const ConfigGroup &group) {
      return std::any_of(group.hints.begin(), group.hints.end(),
                         [&](const HintGroup &h) { return h.byTarget.count(spelling) > 0; });
    };
    if (builtFor(g))
      return false;
    return std::any_of(groups_.begin(), groups_.end(), builtFor);
  }

  static Function refusedFunction(const std::string &config, const Refusal &refused) {
    Function function;
    function.metadataFile = refused.file;
    function.refusal =
        "config " + config + " is not built for " + refused.target + ": " + refused.reason;
    return function;
  }

  /// The refusal of \p config for \p target ("": for any target), or null.
  const Refusal *refusalFor(const std::string &config, const std::string &target = "") const {
    for (const Refusal *r : refusals_)
      if (r->config == config && (target.empty() || r->target == target))
        return r;
    return nullptr;
  }

  /// A target (of its variants or of its refusals) for which every config is refused.
  Status checkEveryTargetHasAConfig() const {
    std::map<std::string, std::string> targets;   // spelling -> a file that names it
    for (const Target &t : kernel_.targets)
      targets.emplace(targetKey(t), "");
    for (const Refusal *r : refusals_)
      targets.emplace(r->target, r->file);
    for (const auto &[spelling, file] : targets) {
      std::string reasons, where = file;
      bool built = false;
      const std::string &key = spelling;   // clang 14 cannot capture a structured binding
      const auto position = std::find_if(kernel_.targets.begin(), kernel_.targets.end(),
                                         [&](const Target &t) { return targetKey(t) == key; });
      for (const KernelConfig &config : kernel_.configs)
        for (const HintVariant &variant : config.variants)
          if (position != kernel_.targets.end()) {
            const Function &f = variant.functions[position - kernel_.targets.begin()];
            built = built || f.refusal.empty();
          }
      if (built)
        continue;
      for (const Refusal *r : refusals_)
        if (r->target == spelling) {
          reasons += (reasons.empty() ? "" : "; ") + r->config + ": " + r->reason;
          where = r->file;
        }
      return errorIn(where, "kernel '" + kernel_.name + "' has no config built for " + spelling +
                                " (" + (reasons.empty() ? "none" : reasons) +
                                "); give it a config that target can build, or leave " + spelling +
                                " out of the library");
    }
    return ok();
  }

  Diagnostic missing(const ConfigGroup &g, const HintGroup &h, const Target &t) const {
    const std::string spelling = targetKey(t);
    std::string others;
    for (const auto &[target, file] : h.fileOf)
      others += (others.empty() ? "" : ", ") + target;
    // Another variant of the kernel that was built for the missing target.
    std::string example;
    for (const ConfigGroup &group : groups_)
      for (const HintGroup &hint : group.hints)
        if (auto f = hint.fileOf.find(spelling); f != hint.fileOf.end() && example.empty())
          example = f->second;
    Diagnostic diag = errorIn(
        h.fileOf.begin()->second,
        "kernel '" + kernel_.name + "', config " + configLabel(g) + ", variant (" +
            hintsText(kernel_.cParams, h.hints) + ") has no function for " + spelling +
            " (it is built for " + others + "), but other variants of the kernel are (" +
            example + "): every variant must be built for every target of its kernel; "
            "compile it for " + spelling + " too, or leave " + spelling + " out of the library");
    return diag;
  }

  std::vector<const ReadVariant *> variants_;
  std::vector<const Refusal *> refusals_;
  Kernel kernel_;
  std::vector<ConfigGroup> groups_;
  std::map<std::string, std::size_t> configIndex_;
  std::map<Backend, std::map<std::string, std::vector<int>>> stagesSeen_;
  std::map<std::string, Target> targets_;
  std::vector<std::size_t> groupOfVariant_;   ///< per variants_ entry: its groups_ index
  std::vector<std::string> groupNames_;       ///< per groups_ entry: its final name
};

/// Every public symbol of the library is <prefix>_<name>: no two may be the same.
Status checkGeneratedNames(const Library &library,
                           const std::vector<std::string> &firstFileOfKernel) {
  std::map<std::string, std::string> owner;   // name after the prefix -> what defines it
  for (const char *name : kLibraryWideFunctions)
    owner.emplace(name, "the library-wide function " + library.prefix + "_" + name);
  for (std::size_t k = 0; k < library.kernels.size(); ++k) {
    const std::string &kernel = library.kernels[k].name;
    const std::pair<std::string, std::string> names[] = {
        {kernel, "the launcher"},
        {kernel + "_config", "the config launcher"},
        {kernel + "_config_count", "the config count"},
        {kernel + "_config_name", "the config names"}};
    for (const auto &[name, what] : names) {
      std::string description = what + " of kernel '" + kernel + "' ('" + firstFileOfKernel[k] + "')";
      auto [it, inserted] = owner.emplace(name, description);
      if (!inserted)
        return errorIn(firstFileOfKernel[k],
                       "kernel '" + kernel + "': " + what + " would be " + library.prefix + "_" +
                           name + ", which is already " + it->second +
                           "; give the kernel another name (--out-name)");
    }
  }
  return ok();
}

} // namespace

HeuristicResolver heuristicResolver(const Kernel &kernel, std::vector<std::string> cNames,
                                    std::map<std::string, nlohmann::json> constexprs,
                                    std::string heuristic) {
  std::vector<CParam> params = kernel.cParams;
  return [params, cNames = std::move(cNames), constexprs = std::move(constexprs),
          heuristic = std::move(heuristic)](const std::string &name)
             -> std::optional<HeuristicBinding> {
    for (std::size_t i = 0; i < params.size() && i < cNames.size(); ++i) {
      // The caller's value of a heuristic's parameter is read by that heuristic only: any
      // other expression reads the value the heuristic computed (the variant's constexpr).
      if (params[i].name != name || (params[i].heuristicInput && name != heuristic))
        continue;
      const std::string &type = params[i].tritonType;
      HeuristicBinding b;
      b.cExpr = cNames[i];
      if (!type.empty() && type[0] == '*')
        b.kind = HeuristicBinding::Kind::Pointer;
      else if (type == "fp32" || type == "fp64")
        b.kind = HeuristicBinding::Kind::Float;
      else if (type == "fp16" || type == "bf16")
        return std::nullopt;   // passed as bits: no arithmetic on them in C
      else
        b.kind = HeuristicBinding::Kind::Int;
      return b;
    }
    if (name == heuristic &&
        std::any_of(params.begin(), params.end(),
                    [&](const CParam &p) { return p.heuristicInput && p.name == name; }))
      return std::nullopt;   // the caller's value: known only at launch
    auto it = constexprs.find(name);
    if (it == constexprs.end())
      return std::nullopt;
    HeuristicBinding b;
    const nlohmann::json &v = it->second;
    if (v.is_boolean())
      b.value = {HeuristicValue::Kind::Bool, v.get<bool>() ? 1 : 0, 0};
    else if (v.is_number_integer())
      b.value = {HeuristicValue::Kind::Int, v.get<std::int64_t>(), 0};
    else if (v.is_number())
      b.value = {HeuristicValue::Kind::Float, 0, v.get<double>()};
    else if (v.is_null())
      b.value = {HeuristicValue::Kind::None, 0, 0};
    else
      return std::nullopt;
    return b;
  };
}

std::string hintsText(const std::vector<CParam> &params, const std::vector<int> &hints,
                      const std::string &separator, const std::string &none) {
  std::string out;
  for (std::size_t i = 0; i < params.size() && i < hints.size(); ++i)
    if (hints[i] != 0)
      out += (out.empty() ? "" : separator) + params[i].name + ":" + std::to_string(hints[i]);
  return out.empty() ? none : out;
}

std::string variantText(const std::vector<CParam> &params, const HintVariant &variant,
                        const std::string &separator, const std::string &none) {
  std::string out = hintsText(params, variant.hints, separator, "");
  for (const HeuristicRecord &h : variant.heuristics)
    out += (out.empty() ? "" : separator) + h.name + "=" + h.value.dump();
  return out.empty() ? none : out;
}

Diagnostic errorIn(const std::string &file, std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.file = file;
  return diag;
}

bool isOutputName(const std::string &name) {
  return !name.empty() && name[0] != '.' && name[0] != '-' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
                  c == '+';
         });
}

std::vector<std::string> defaultConfigWarnings(const Library &library) {
  std::vector<std::string> warnings;
  for (const Kernel &kernel : library.kernels) {
    if (kernel.configs.empty())
      continue;
    const KernelConfig &first = kernel.configs.front();
    std::string missing;
    for (std::size_t t = 0; t < kernel.targets.size(); ++t) {
      if (kernel.tuning && t < kernel.tuning->targets.size() && kernel.tuning->targets[t])
        continue;   // the table picks the config there
      const bool built =
          std::any_of(first.variants.begin(), first.variants.end(),
                      [&](const HintVariant &v) { return v.functions[t].refusal.empty(); });
      if (!built)
        missing += (missing.empty() ? "" : ", ") + kernel.targets[t].spelling();
    }
    if (missing.empty())
      continue;
    const std::string api = library.prefix + "_" + kernel.name;
    warnings.push_back("kernel '" + kernel.name + "': its first config, " + first.name +
                       ", is not built for " + missing + ", so " + api +
                       "(), which runs the first config, returns TRITON_AOT_ERROR_NO_IMAGE on " +
                       "such a device; call " + api + "_config() with a config built there, " +
                       "tune the kernel (--tuning), or declare first a config every target builds");
  }
  return warnings;
}

Status checkLibraryNames(const Library &library) {
  const std::string &name = library.name;
  if (!isOutputName(name))
    return makeError(ExitCode::UsageError,
                     "library name " + quoted(name) +
                         " cannot name the output files: use letters, digits, '_', '-', '.' "
                         "and '+', not starting with '.' or '-'");
  if (!isCIdentifier(library.prefix))
    return makeError(ExitCode::UsageError,
                     library.prefix == name
                         ? "library name " + quoted(name) +
                               " is not a C identifier, so it cannot be the prefix of the C "
                               "API: give --prefix"
                         : "prefix " + quoted(library.prefix) + " is not a C identifier");
  // <triton_aot/runtime.h> declares triton_aot_preload() and friends with other signatures.
  if (library.prefix.rfind("triton_aot", 0) == 0)
    return makeError(ExitCode::UsageError,
                     "prefix " + quoted(library.prefix) +
                         " would clash with the runtime's names (triton_aot_*): " +
                         (library.prefix == name ? "give --prefix" : "choose another prefix"));
  return ok();
}

Status groupVariants(const std::vector<ReadVariant> &variants, Library &library,
                     const std::vector<Refusal> &refusals) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ReadVariant *>> byKernel;
  for (const ReadVariant &v : variants) {
    auto &list = byKernel[v.meta.name];
    if (list.empty())
      order.push_back(v.meta.name);
    list.push_back(&v);
  }
  std::map<std::string, std::vector<const Refusal *>> refusedOf;
  for (const Refusal &r : refusals) {
    if (!byKernel.count(r.kernel))
      return errorIn(r.file, "kernel '" + r.kernel + "' has no config built for " + r.target +
                                 " (" + r.config + ": " + r.reason + ") nor for any other target");
    refusedOf[r.kernel].push_back(&r);
  }
  std::vector<std::string> firstFiles;
  for (const std::string &name : order) {
    auto kernel = KernelBuilder(byKernel[name], refusedOf[name]).build();
    if (!kernel)
      return kernel.takeError();
    library.kernels.push_back(std::move(*kernel));
    firstFiles.push_back(byKernel[name].front()->file);
  }
  return checkGeneratedNames(library, firstFiles);
}

} // namespace tta::link
