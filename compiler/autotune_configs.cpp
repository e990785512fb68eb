#include "compiler/autotune_configs.h"

#include "contract/json_access.h"
#include "contract/lexing.h"

#include <algorithm>
#include <map>
#include <set>

namespace tta {

namespace {

/// A config value as part of a C identifier.
std::string nameOfValue(std::string value) {
  if (value.rfind("tl.", 0) == 0)
    value = value.substr(3);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  std::string out;
  for (char c : value)
    out += c == '-' ? 'm' : c == '.' ? 'p' : isIdentChar(c) ? c : '_';
  return out;
}

const std::map<std::string, std::string> kShortOptions = {
    {"num_warps", "w"}, {"num_stages", "s"}, {"num_ctas", "c"}, {"maxnreg", "r"}};

std::string joined(const std::vector<std::string> &items, const char *separator = ", ") {
  std::string out;
  for (const std::string &item : items)
    out += (out.empty() ? "" : separator) + item;
  return out;
}

} // namespace

std::string derivedConfigName(const std::vector<std::pair<std::string, std::string>> &values) {
  std::vector<std::string> parts, typed;
  for (const auto &[key, value] : values) {
    auto shortName = kShortOptions.find(key);
    if (shortName == kShortOptions.end())
      parts.push_back(key + nameOfValue(value));
    else if (!(key == "num_ctas" && value == "1"))
      typed.push_back(shortName->second + nameOfValue(value));
  }
  // w, s, c, r in that order, after the kwargs and other options.
  std::sort(typed.begin(), typed.end(), [](const std::string &a, const std::string &b) {
    static const std::string order = "wscr";
    return order.find(a[0]) < order.find(b[0]);
  });
  parts.insert(parts.end(), typed.begin(), typed.end());
  std::string name = joined(parts, "_");
  if (name.empty() || !isIdentStart(name[0]))
    name = "config_" + name;
  return name;
}

void makeNamesUnique(std::vector<std::string> &names) {
  std::set<std::string> taken(names.begin(), names.end());
  std::set<std::string> seen;
  for (std::string &name : names) {
    if (seen.insert(name).second)
      continue;
    for (int n = 2;; ++n) {
      std::string candidate = name + "_" + std::to_string(n);
      if (!taken.count(candidate)) {
        name = candidate;
        break;
      }
    }
    taken.insert(name);
    seen.insert(name);
  }
}

Expected<DecoratorConfigs> configsFromDecorator(const nlohmann::json &autotune,
                                                const std::vector<Signature> &signatures,
                                                const nlohmann::json &describe,
                                                const std::string &function, bool dropPreHooks) {
  DecoratorConfigs out;
  std::vector<std::string> names;
  std::set<std::string> setByConfigs;
  std::map<std::string, std::vector<std::string>> dropped;   // hook -> config names
  const nlohmann::json &configs = arrayOf(autotune, "configs");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::string text;
    std::vector<std::pair<std::string, std::string>> values;
    for (const auto &pair : arrayOf(configs[i], "values")) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        return makeError(ExitCode::InternalError, "the frontend's describe answer is malformed: "
                                                  "autotune.configs[].values: expected [key, value] pairs");
      values.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
      text += (text.empty() ? "" : " ") + values.back().first + "=" + values.back().second;
      setByConfigs.insert(values.back().first);
    }
    auto config = parseConfig(text);
    if (!config) {
      Diagnostic diag = config.takeError();
      diag.message = "config " + std::to_string(i + 1) + " of the @triton.autotune of '" + function +
                     "' (" + text + "): " + diag.message;
      diag.sourceLine.clear();
      diag.column = 0;
      diag.notes.push_back("give the configs with --config (CONFIG in CMake) instead; they replace "
                           "the decorator's");
      return diag;
    }
    out.configs.push_back(std::move(*config));
    names.push_back(derivedConfigName(values));
  }
  if (out.configs.empty())
    return makeError(ExitCode::UsageError, "the @triton.autotune of '" + function + "' has no config");
  makeNamesUnique(names);
  for (std::size_t i = 0; i < out.configs.size(); ++i) {
    out.configs[i].name = names[i];
    const nlohmann::json &hook = objectOf(configs[i], "pre_hook");
    if (hook.empty())
      continue;
    const std::string hookName = stringOr(hook, "name", "(unknown)");
    if (dropPreHooks) {
      dropped[hookName].push_back(names[i]);
      continue;
    }
    // The frontend runs it when compiling the config: a hook that only sets tensor descriptors'
    // block shapes is compiled in, any other is refused there, with what it did.
    const std::optional<long long> place = integerOf(hook, "config");
    if (!place || *place < 0)
      return makeError(ExitCode::InternalError, "the frontend did not say which config of '" +
                                                    function + "' has the pre_hook " + hookName);
    out.configs[i].preHook = static_cast<int>(*place);
  }
  for (const auto &[hook, configNames] : dropped)
    out.warnings.push_back("dropped the pre_hook " + hook + " of '" + function + "' (configs " +
                           joined(configNames) + "), as --drop-pre-hooks asks: the library never runs it");
  for (const auto &note : arrayOf(autotune, "notes"))
    if (note.is_string())
      out.warnings.push_back(note.get<std::string>());

  // Each parameter the signature leaves to the configs gets an entry NAME=NAME.
  std::vector<std::string> params;
  for (const auto &p : arrayOf(describe, "params"))
    params.push_back(stringOr(p, "name"));
  for (const Signature &signature : signatures) {
    std::set<std::string> covered;
    std::size_t position = 0;
    for (const SignatureEntry &entry : signature.entries) {
      std::string param = !entry.keyword.empty()       ? entry.keyword
                          : position < params.size() ? params[position++]
                                                     : std::string();
      if (param.empty())
        continue;
      covered.insert(param);
      const bool byName = entry.kind == SignatureEntry::Kind::Constexpr &&
                          entry.value.kind == ConstexprValue::Kind::Name;
      if (setByConfigs.count(param) && !byName) {
        Diagnostic diag = makeError(
            ExitCode::UsageError,
            "signature entry '" + entry.text + "' gives '" + param + "' a value, but the " +
                "@triton.autotune configs of '" + function + "' set it (Triton refuses such "
                "conflicting meta-parameters)");
        diag.column = static_cast<int>(entry.column);
        diag.sourceLine = signature.text;
        diag.notes.push_back("leave '" + param + "' out of the signature (or write it as " + param +
                             "), or give the configs with --config (CONFIG in CMake)");
        return diag;
      }
    }
    std::string text = signature.text;
    for (const std::string &param : params)
      if (!covered.count(param) && setByConfigs.count(param))
        text += (text.empty() ? "" : ", ") + param + "=" + param;
    auto extended = parseSignature(text);
    if (!extended)
      return extended.takeError();
    out.signatures.push_back(std::move(*extended));
  }
  return out;
}

} // namespace tta
