#include "compiler/heuristics.h"

#include "compiler/config.h"
#include "compiler/frontend_client.h"
#include "contract/json_access.h"
#include "contract/lexing.h"
#include "contract/spelling.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace tta {

namespace {

Diagnostic usage(std::string message) { return makeError(ExitCode::UsageError, std::move(message)); }

std::string shownPath(const std::string &path) {
  std::error_code ec;
  std::filesystem::path relative = std::filesystem::relative(path, std::filesystem::current_path(ec), ec);
  return !ec && !relative.empty() && relative.string().rfind("..", 0) != 0 ? relative.string() : path;
}

Expected<std::pair<std::string, std::string>> splitAssignment(std::string_view text, const char *flag) {
  std::size_t eq = text.find('=');
  std::string name(trim(text.substr(0, eq == std::string_view::npos ? 0 : eq)));
  bool identifier = !name.empty() && isIdentStart(name[0]) &&
                    std::all_of(name.begin(), name.end(), isIdentChar);
  if (eq == std::string_view::npos || !identifier)
    return usage(std::string(flag) + " '" + std::string(text) + "': expected NAME=" +
                 (std::string(flag) == "--heuristic" ? "EXPRESSION" : "V1,V2,...") +
                 " where NAME is the constexpr the heuristic sets");
  return std::make_pair(name, std::string(trim(text.substr(eq + 1))));
}

std::vector<std::string> paramNames(const nlohmann::json &describe) {
  std::vector<std::string> names;
  for (const auto &p : arrayOf(describe, "params"))
    names.push_back(stringOr(p, "name"));
  return names;
}

ConstexprValue toConstexpr(const HeuristicValue &v) {
  ConstexprValue c;
  switch (v.kind) {
  case HeuristicValue::Kind::Int: c.kind = ConstexprValue::Kind::Int; c.intValue = v.intValue; break;
  case HeuristicValue::Kind::Bool: c.kind = ConstexprValue::Kind::Bool; c.intValue = v.intValue; break;
  case HeuristicValue::Kind::Float: c.kind = ConstexprValue::Kind::Float; c.floatValue = v.floatValue; break;
  case HeuristicValue::Kind::None: c.kind = ConstexprValue::Kind::None; break;
  }
  c.text = formatHeuristicValue(v);
  return c;
}

std::optional<HeuristicValue> fromConstexpr(const ConstexprValue &c) {
  switch (c.kind) {
  case ConstexprValue::Kind::Int: return HeuristicValue{HeuristicValue::Kind::Int, c.intValue, 0};
  case ConstexprValue::Kind::Bool: return HeuristicValue{HeuristicValue::Kind::Bool, c.intValue, 0};
  case ConstexprValue::Kind::Float: return HeuristicValue{HeuristicValue::Kind::Float, 0, c.floatValue};
  case ConstexprValue::Kind::None: return HeuristicValue{HeuristicValue::Kind::None, 0, 0};
  default: return std::nullopt;   // strings and dtypes: no heuristic arithmetic on them
  }
}

nlohmann::json valueJson(const HeuristicValue &v) {
  switch (v.kind) {
  case HeuristicValue::Kind::Int: return v.intValue;
  case HeuristicValue::Kind::Bool: return v.intValue != 0;
  case HeuristicValue::Kind::Float: return v.floatValue;
  case HeuristicValue::Kind::None: return nullptr;
  }
  return nullptr;
}

} // namespace

Status addHeuristicOverride(std::string_view text, HeuristicDeclarations &into) {
  auto parts = splitAssignment(text, "--heuristic");
  if (!parts)
    return parts.takeError();
  if (auto parsed = parseHeuristic(parts->second, HeuristicDialect::C); !parsed) {
    Diagnostic diag = parsed.takeError();
    diag.message = "--heuristic " + parts->first + "='" + parts->second + "': " + diag.message;
    diag.notes.push_back("write a C expression over the kernel's parameter names: && || ! ?: "
                         "== != < <= > >= + - * / % **, min, max, abs, bool, int, float, cdiv, "
                         "next_power_of_2, NULL");
    return diag;
  }
  into.overrides[parts->first] = parts->second;
  return ok();
}

Status addHeuristicValues(std::string_view text, HeuristicDeclarations &into) {
  auto parts = splitAssignment(text, "--heuristic-values");
  if (!parts)
    return parts.takeError();
  std::vector<std::int64_t> values;
  std::string_view rest = parts->second;
  while (true) {
    std::size_t comma = rest.find(',');
    std::string item(trim(rest.substr(0, comma)));
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || errno != 0 || *end != '\0')
      return usage("--heuristic-values " + std::string(text) + ": '" + item +
                   "' is not an integer; list the values as NAME=256,512,1024");
    if (std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(v);
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  into.values[parts->first] = values;
  return ok();
}

Expected<std::vector<KernelHeuristic>> translateHeuristics(const nlohmann::json &describe,
                                                           const HeuristicDeclarations &declared,
                                                           const std::string &function,
                                                           const std::string &file) {
  const std::vector<std::string> names = paramNames(describe);
  std::set<std::string> constexprs;
  for (const auto &p : arrayOf(describe, "params"))
    if (boolOr(p, "constexpr", false))
      constexprs.insert(stringOr(p, "name"));
  std::vector<KernelHeuristic> out;
  std::set<std::string> seen;
  for (const auto &entry : arrayOf(describe, "heuristics")) {
    KernelHeuristic h;
    h.name = stringOr(entry, "name");
    h.file = stringOr(entry, "file");
    h.line = static_cast<int>(integerOf(entry, "line").value_or(0));
    auto locate = [&](Diagnostic diag) {
      diag.file = shownPath(h.file.empty() ? file : h.file);
      diag.line = h.line;
      diag.sourceLine = stringOr(entry, "source");
      return diag;
    };
    if (!seen.insert(h.name).second)
      continue;   // an inner layer's value is overwritten by the outer one's at launch
    const bool isParam = std::find(names.begin(), names.end(), h.name) != names.end();
    h.launchOption = !isParam && isLaunchOptionHeuristic(h.name);
    if (!constexprs.count(h.name) && !h.launchOption)
      return locate(usage("@triton.heuristics of '" + function + "' sets '" + h.name + "', which " +
                          (std::find(names.begin(), names.end(), h.name) == names.end()
                               ? "is not a parameter"
                               : "is not a tl.constexpr parameter") +
                          " of '" + function + "'" +
                          (isParam ? "" : " nor a launch option (num_warps, num_stages, num_ctas, "
                                          "maxnreg)")));
    Expected<HeuristicExpr> parsed = usage("");
    if (auto manual = declared.overrides.find(h.name); manual != declared.overrides.end()) {
      h.manual = true;
      h.written = manual->second;
      parsed = parseHeuristic(h.written, HeuristicDialect::C);
    } else if (const std::string why = stringOr(entry, "error"); !why.empty()) {
      parsed = usage(why);
    } else {
      h.written = stringOr(entry, "expression");
      parsed = parseHeuristic(h.written, HeuristicDialect::Python, stringOr(entry, "arg"));
    }
    if (!parsed) {
      Diagnostic diag = locate(usage("heuristic '" + h.name + "' of '" + function +
                                     "' cannot be translated to C: " + parsed.error().message));
      if (h.manual) {
        diag.message = "--heuristic " + h.name + ": " + parsed.error().message;
      } else {
        diag.notes.push_back("triton-aot translates lambdas over args[\"NAME\"] with arithmetic "
                             "(** too), comparisons, and/or/not, conditional expressions, "
                             "literals, min, max, abs, bool, int, float, triton.cdiv, "
                             "triton.next_power_of_2 and 'is None'");
        diag.notes.push_back("give the C expression by hand: --heuristic '" + h.name +
                             "=<C expression over parameter names>' (CMake: HEURISTIC " + h.name +
                             "=...), e.g. --heuristic '" + h.name + "=n_cols % BLOCK_N == 0'");
      }
      return diag;
    }
    h.expr = std::move(*parsed);
    for (const std::string &used : h.expr.names)
      if (std::find(names.begin(), names.end(), used) == names.end())
        return locate(usage("heuristic '" + h.name + "' of '" + function + "' reads '" + used +
                            "', which is not a parameter of '" + function + "' (" +
                            joinNames(names) + ")"));
    out.push_back(std::move(h));
  }
  for (const auto *table : {&declared.overrides})
    for (const auto &[name, text] : *table)
      if (!seen.count(name))
        return usage("--heuristic " + name + ": '" + function + "' has no heuristic setting '" +
                     name + "'" + (seen.empty() ? " (it has no @triton.heuristics)" : ""));
  for (const auto &[name, values] : declared.values)
    if (!seen.count(name))
      return usage("--heuristic-values " + name + ": '" + function + "' has no heuristic setting '" +
                   name + "'" + (seen.empty() ? " (it has no @triton.heuristics)" : ""));
  return out;
}

namespace {

/// Where the signature gives parameter \p name: its entry's index, or npos.
std::size_t entryFor(const Signature &signature, const std::vector<std::string> &names,
                     const std::string &name) {
  std::size_t positional = 0;
  for (std::size_t i = 0; i < signature.entries.size(); ++i) {
    const SignatureEntry &entry = signature.entries[i];
    if (entry.keyword == name)
      return i;
    if (entry.keyword.empty()) {
      if (positional < names.size() && names[positional] == name)
        return i;
      ++positional;
    }
  }
  return std::string::npos;
}

/// A heuristic that reads the parameter it sets (unsloth's "GEMMA": lambda args:
/// bool(args["GEMMA"])) normalises the caller's value: either given in the signature (a
/// value: evaluated at build time) or passed by the caller of the C API (a type, or left out).
struct CallerValue {
  std::optional<HeuristicValue> value;   ///< the signature gives it: known at build time
  std::optional<ScalarType> type;        ///< the C API takes it (launch time)
};

/// The type the C API takes a heuristic's input as when the signature leaves it out: a bool
/// for a heuristic whose value is a bool (bool(x), x != 0), else a 64-bit integer.
ScalarType defaultInputType(const KernelHeuristic &h) {
  return isBoolValued(h.expr) ? ScalarType::I1 : ScalarType::I64;
}

} // namespace

Expected<std::vector<HeuristicAssignment>>
expandHeuristics(const Signature &resolved, const std::vector<KernelHeuristic> &heuristics,
                 const HeuristicDeclarations &declared, const nlohmann::json &describe,
                 const std::string &function, const std::string &file) {
  if (heuristics.empty())
    return std::vector<HeuristicAssignment>{{resolved, nlohmann::json::array(), {}}};
  const std::vector<std::string> names = paramNames(describe);
  // The signature must leave the heuristics' parameters out (resolveKernelNames took out the
  // entries that name them; Triton's launch overwrites them), except one a heuristic reads: the
  // caller's value, which the heuristic normalises.
  Signature trial = resolved;
  std::map<std::string, CallerValue> inputs;
  for (const KernelHeuristic &h : heuristics) {
    const bool readsItself = h.expr.names.count(h.name) > 0;
    const std::size_t at = entryFor(resolved, names, h.name);
    auto locate = [&](Diagnostic diag) {
      diag.file = shownPath(h.file.empty() ? file : h.file);
      diag.line = h.line;
      diag.notes.push_back("signature: " + resolved.text);
      return diag;
    };
    if (at != std::string::npos && !readsItself)
      return locate(usage("the signature gives '" + h.name + "' a value, but @triton.heuristics of '" +
                          function + "' sets it: write its name, " + h.name +
                          ", in its place (the heuristic then gives the value), or leave it out"));
    if (h.launchOption)
      continue;   // the variant's config takes it, not the signature
    SignatureEntry placeholder;
    placeholder.kind = SignatureEntry::Kind::Constexpr;
    placeholder.keyword = h.name;
    placeholder.text = h.name + "=0";
    if (!readsItself) {
      trial.entries.push_back(placeholder);
      continue;
    }
    CallerValue &input = inputs[h.name];
    if (at == std::string::npos) {
      input.type = defaultInputType(h);
      trial.entries.push_back(placeholder);
      continue;
    }
    const SignatureEntry &given = resolved.entries[at];
    const std::string what = "the signature gives '" + h.name + "' as '" + given.text + "'; " +
                             "@triton.heuristics of '" + function + "' computes it from the " +
                             "caller's value (" + h.written + ")";
    if (given.kind == SignatureEntry::Kind::Constexpr) {
      input.value = fromConstexpr(given.value);
      if (!input.value)
        return locate(usage(what + ", which cannot be a string or a dtype"));
    } else if (given.kind == SignatureEntry::Kind::Scalar) {
      if (given.hint != 0)
        return locate(usage(what + ": a hint (:" + std::to_string(given.hint) +
                            ") means nothing for it; give the type alone ('" +
                            std::string(typeInfo(given.type).name) + "')"));
      if (given.type == ScalarType::FP16 || given.type == ScalarType::BF16)
        return locate(usage(what + ": C has no arithmetic on " +
                            std::string(typeInfo(given.type).name) + "; take it as fp32"));
      input.type = given.type;
    } else {
      return locate(usage(what + ": give a value (compiled in) or a scalar type (the C API "
                          "takes it), or leave it out (the C API takes it as " +
                          std::string(typeInfo(defaultInputType(h)).name) + ")"));
    }
    placeholder.keyword = given.keyword;
    trial.entries[at] = placeholder;
  }
  auto complete = completeSignature(trial, describe, function, file);
  if (!complete)
    return complete.takeError();

  std::map<std::string, HeuristicValue> constants;
  std::set<std::string> runtime;
  std::set<std::string> pointers;   // runtime arguments that may be NULL (None)
  std::set<std::string> heuristicNames;
  for (const KernelHeuristic &h : heuristics)
    heuristicNames.insert(h.name);
  for (std::size_t i = 0; i < names.size() && i < complete->entries.size(); ++i) {
    const SignatureEntry &entry = complete->entries[i];
    if (heuristicNames.count(names[i]))
      continue;
    if (entry.kind == SignatureEntry::Kind::Constexpr) {
      if (auto v = fromConstexpr(entry.value))
        constants[names[i]] = *v;
    } else {
      runtime.insert(names[i]);   // ":1" scalars too: the caller passes them
      if (entry.kind != SignatureEntry::Kind::Scalar)
        pointers.insert(names[i]);
    }
  }

  struct Branch {
    std::map<std::string, HeuristicValue> assigned;
    nlohmann::json record = nlohmann::json::array();
  };
  std::vector<Branch> branches(1);
  std::set<std::string> varying;   // heuristics whose value the dispatcher decides
  // A scalar argument is never None: one read only in tests against None needs no value.
  const HeuristicValue notNone{HeuristicValue::Kind::Int, 0, 0};
  for (const KernelHeuristic &h : heuristics) {
    auto locate = [&](Diagnostic diag) {
      diag.file = shownPath(h.file.empty() ? file : h.file);
      diag.line = h.line;
      return diag;
    };
    const std::set<std::string> values = namesReadAsValues(h.expr);
    const auto input = inputs.find(h.name);
    std::map<std::string, HeuristicValue> known;   // what this heuristic reads beyond the branch
    std::vector<std::string> read;                 // the runtime arguments it reads
    bool readsRuntime = false;   // a runtime argument: variants per value
    bool varies = false;         // or a heuristic that has them: differs within a config
    for (const std::string &used : h.expr.names) {
      if (input != inputs.end() && used == h.name) {   // the caller's value
        if (input->second.value) {
          known[used] = *input->second.value;
        } else if (values.count(used)) {
          readsRuntime = true;
          read.push_back(used);
        } else {
          known[used] = notNone;
        }
      } else if (runtime.count(used)) {
        if (values.count(used) || pointers.count(used)) {
          readsRuntime = true;
          read.push_back(used);
        } else {
          known[used] = notNone;
        }
      } else if (varying.count(used)) {
        varies = true;
      } else if (heuristicNames.count(used) && !branches[0].assigned.count(used)) {
        return locate(usage("heuristic '" + h.name + "' of '" + function + "' reads '" + used +
                            "', which a later heuristic sets (Triton evaluates them outer "
                            "decorator first, each dict in order)"));
      }
    }
    nlohmann::json base = {{"name", h.name},
                           {"expression", formatHeuristic(h.expr)},
                           {"written", h.written},
                           {"runtime", readsRuntime || varies}};
    if (input != inputs.end() && input->second.type && readsRuntime &&
        std::find(read.begin(), read.end(), h.name) != read.end())
      base["input"] = std::string(typeInfo(*input->second.type).name);
    if (readsRuntime || varies)
      varying.insert(h.name);
    std::vector<Branch> next;
    for (Branch &branch : branches) {
      if (!readsRuntime) {
        std::map<std::string, HeuristicValue> env = known;
        env.insert(branch.assigned.begin(), branch.assigned.end());
        env.insert(constants.begin(), constants.end());
        auto value = evaluateHeuristic(h.expr, env);
        if (!value)
          return locate(usage("heuristic '" + h.name + "' of '" + function + "' (" + h.written +
                              ") cannot be evaluated at build time: " + value.error().message));
        if (h.launchOption) {
          Config scratch;
          std::string why =
              value->kind != HeuristicValue::Kind::Int
                  ? h.name + " must be an integer, got " + formatHeuristicValue(*value)
                  : setLaunchOption(h.name, value->intValue, scratch);
          if (!why.empty())
            return locate(usage("heuristic '" + h.name + "' of '" + function + "' (" + h.written +
                                ") sets a launch option Triton would refuse: " + why));
        }
        branch.assigned[h.name] = *value;
        nlohmann::json item = base;
        item["value"] = valueJson(*value);
        branch.record.push_back(item);
        next.push_back(std::move(branch));
        continue;
      }
      std::vector<HeuristicValue> choices;
      if (h.launchOption && isBoolValued(h.expr)) {
        return locate(usage("heuristic '" + h.name + "' of '" + function + "' (" + h.written +
                            ") sets launch option " + h.name + " to a bool; it takes an integer"));
      } else if (isBoolValued(h.expr)) {
        choices = {{HeuristicValue::Kind::Bool, 1, 0}, {HeuristicValue::Kind::Bool, 0, 0}};
      } else if (auto listed = declared.values.find(h.name); listed != declared.values.end()) {
        for (std::int64_t v : listed->second) {
          Config scratch;
          if (std::string why = h.launchOption ? setLaunchOption(h.name, v, scratch) : "";
              !why.empty())
            return locate(usage("--heuristic-values " + h.name + ": " + std::to_string(v) +
                                " is not a value Triton accepts: " + why));
          choices.push_back({HeuristicValue::Kind::Int, v, 0});
        }
      } else {
        Diagnostic diag = locate(usage(
            "heuristic '" + h.name + "' of '" + function + "' (" + h.written +
            ") computes an integer from runtime arguments (" + joinNames(read) +
            "): list the values to compile"));
        diag.notes.push_back("--heuristic-values " + h.name + "=256,512,1024 (CMake: "
                             "HEURISTIC_VALUES " + h.name + "=256,512,1024); a launch whose value "
                             "is not listed fails with TRITON_AOT_ERROR_INVALID_ARGUMENT");
        return diag;
      }
      for (const HeuristicValue &v : choices) {
        Branch split = branch;
        split.assigned[h.name] = v;
        nlohmann::json item = base;
        item["value"] = valueJson(v);
        split.record.push_back(item);
        next.push_back(std::move(split));
      }
    }
    branches = std::move(next);
  }

  std::vector<HeuristicAssignment> out;
  for (const Branch &branch : branches) {
    HeuristicAssignment a;
    a.signature = resolved;
    for (const KernelHeuristic &h : heuristics) {
      if (h.launchOption) {
        a.launchOptions[h.name] = branch.assigned.at(h.name).intValue;
        continue;
      }
      SignatureEntry entry;
      entry.kind = SignatureEntry::Kind::Constexpr;
      entry.value = toConstexpr(branch.assigned.at(h.name));
      // The caller's entry (value or type) becomes the compiled-in value, where it stood.
      if (const std::size_t at = entryFor(resolved, names, h.name); at != std::string::npos) {
        entry.keyword = resolved.entries[at].keyword;
        entry.text = (entry.keyword.empty() ? "" : h.name + "=") + entry.value.text;
        a.signature.entries[at] = entry;
        continue;
      }
      entry.keyword = h.name;
      entry.text = h.name + "=" + entry.value.text;
      a.signature.entries.push_back(entry);
    }
    a.record = branch.record;
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace tta
