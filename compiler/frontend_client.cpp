#include "compiler/frontend_client.h"

#include "compiler/compiler.h"
#include "contract/json_access.h"
#include "contract/spelling.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <set>
#include <sstream>

namespace tta {

int compareVersions(const std::string &a, const std::string &b) {
  auto parts = [](const std::string &v) {
    std::vector<long> out;
    std::stringstream in(v.substr(0, v.find_first_of("+-")));
    std::string piece;
    while (std::getline(in, piece, '.')) {
      long n = 0;
      for (char c : piece) {
        if (c < '0' || c > '9')
          break;
        n = n * 10 + (c - '0');
      }
      out.push_back(n);
    }
    out.resize(3, 0);
    return out;
  };
  auto pa = parts(a), pb = parts(b);
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

std::string warmedUpTargets(const nlohmann::json &hello) {
  std::string names;
  for (const nlohmann::json &entry : arrayOf(hello, "warmed_up")) {
    if (!entry.is_string())
      continue;
    const std::string &name = entry.get_ref<const std::string &>();
    const bool plain = !name.empty() && name.size() <= 32 &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == ':' ||
                                c == '_' || c == '-';
                       });
    if (plain)
      names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

Status checkHello(const nlohmann::json &hello, const std::string &python) {
  const std::string install = python + " -m pip install triton==" + kTestedTritonVersion;
  auto environmentError = [&](std::string message) {
    Diagnostic diag = makeError(ExitCode::EnvironmentError, std::move(message));
    diag.notes.push_back("install it with '" + install +
                         "' (tools/bootstrap.sh does this in the project's .venv), or point "
                         "--python or TRITON_AOT_PYTHON at an interpreter that has it");
    return diag;
  };
  if (integerOf(hello, "protocol") != 1) {
    const nlohmann::json *protocol = member(hello, "protocol");
    return makeError(ExitCode::InternalError,
                     "the frontend worker speaks protocol " +
                         (protocol ? protocol->dump() : std::string("(none)")) +
                         ", not 1: its files do not belong to this triton-aot-cc");
  }
  std::string version = stringOr(hello, "triton_version");
  std::string importError = stringOr(hello, "import_error");
  if (version.empty())
    return environmentError("cannot import triton with " + python + ": " +
                            (importError.empty() ? "unknown error" : importError));
  // An old Triton also fails the adapter's imports: say it is old, which is the fix.
  if (compareVersions(version, kMinTritonVersion) < 0) {
    Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                "Triton " + version + " at " + python + " is older than " +
                                    kMinTritonVersion + ", the oldest triton-aot-cc supports");
    diag.notes.push_back("upgrade it with '" + install + "'");
    return diag;
  }
  if (!importError.empty())
    return environmentError("Triton " + version + " at " + python +
                            " is incomplete or broken: " + importError);
  return ok();
}

namespace {

std::string displayPath(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path rel = fs::proximate(path, fs::current_path(ec), ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0)
    return path;
  return rel.string();
}

} // namespace

Diagnostic diagnosticFromResponse(const nlohmann::json &response, const std::string &fallbackFile) {
  const nlohmann::json &error = objectOf(response, "error");
  const std::string kind = stringOr(error, "kind", "internal");
  ExitCode code = kind == "kernel"        ? ExitCode::KernelError
                  : kind == "usage"       ? ExitCode::UsageError
                  : kind == "environment" ? ExitCode::EnvironmentError
                  : kind == "output"      ? ExitCode::OutputError
                                          : ExitCode::InternalError;
  Diagnostic diag = makeError(code, stringOr(error, "message", "the frontend failed"));
  std::string file = stringOr(error, "file");
  diag.file = displayPath(file.empty() ? fallbackFile : file);
  diag.line = static_cast<int>(integerOf(error, "line").value_or(0));
  diag.column = static_cast<int>(integerOf(error, "column").value_or(0));
  diag.sourceLine = stringOr(error, "source_line");
  for (const auto &note : arrayOf(error, "notes"))
    if (note.is_string())
      diag.notes.push_back(note.get<std::string>());
  diag.detail = stringOr(error, "traceback");
  if (code == ExitCode::InternalError)
    diag.notes.push_back("this is a bug in triton-aot; rerun with --verbose and report it");
  return diag;
}

namespace {

/// The default of a described parameter as a constexpr entry, or why it cannot be one.
Expected<SignatureEntry> defaultEntry(const nlohmann::json &param, const std::string &name) {
  const nlohmann::json &spec = objectOf(param, "default");
  const std::string kind = stringOr(spec, "type");
  ConstexprValue value;
  const nlohmann::json *raw = member(spec, "value");
  if (kind == "int" && raw && raw->is_number_integer()) {
    value.intValue = raw->get<std::int64_t>();
  } else if (kind == "float" && raw && raw->is_number()) {
    value.kind = ConstexprValue::Kind::Float;
    value.floatValue = raw->get<double>();
  } else if (kind == "bool" && raw && raw->is_boolean()) {
    value.kind = ConstexprValue::Kind::Bool;
    value.intValue = raw->get<bool>() ? 1 : 0;
  } else if ((kind == "str" || kind == "dtype") && raw && raw->is_string()) {
    value.kind = kind == "str" ? ConstexprValue::Kind::String : ConstexprValue::Kind::Dtype;
    value.text = raw->get<std::string>();
  } else if (kind == "none") {
    value.kind = ConstexprValue::Kind::None;
  } else {
    return makeError(ExitCode::UsageError,
                     "parameter '" + name + "' was left out of the signature, and its default " +
                         stringOr(spec, "repr", "(unknown)") +
                         " cannot be compiled in; give it an entry (" + name + "=<value>)");
  }
  SignatureEntry entry;
  entry.kind = SignatureEntry::Kind::Constexpr;
  entry.value = value;
  entry.text = name + "=" + formatConstexpr(value);
  return entry;
}

/// The parameters a positional signature one entry short may lack (names of the candidates),
/// told from which entries are values and which parameters are tl.constexpr: in
/// "*fp32, *fp32, i32, 1024" for (x_ptr, y_ptr, out_ptr, n_elements, BLOCK), 1024 is BLOCK's, so
/// one of the first four is missing, not BLOCK. A value may also specialise a runtime parameter;
/// that reading is tried only when no other fits. Empty where this cannot be told (an entry
/// given by name, a parameter with a default, more than one entry short).
std::vector<std::string> parametersPossiblyMissing(const Signature &signature,
                                                   const nlohmann::json &params,
                                                   const std::vector<std::string> &names) {
  const std::size_t count = signature.entries.size();
  if (names.size() != count + 1)
    return {};
  for (const SignatureEntry &entry : signature.entries)
    if (!entry.keyword.empty())
      return {};
  for (const auto &param : params)
    if (member(param, "default"))
      return {};
  auto fits = [&](const SignatureEntry &entry, const nlohmann::json &param, bool valuesSpecialise) {
    const bool value = entry.kind == SignatureEntry::Kind::Constexpr;
    if (boolOr(param, "constexpr", false))
      return value;
    return !value || valuesSpecialise;
  };
  for (bool valuesSpecialise : {false, true}) {
    std::vector<std::string> candidates;
    for (std::size_t gap = 0; gap < names.size(); ++gap) {
      bool all = true;
      for (std::size_t i = 0; i < count && all; ++i)
        all = fits(signature.entries[i], params[i < gap ? i : i + 1], valuesSpecialise);
      if (all)
        candidates.push_back(names[gap]);
    }
    if (candidates.size() == names.size())
      return {};   // any of them: nothing better than the positional reading
    if (!candidates.empty())
      return candidates;
  }
  return {};
}

std::string oneOf(const std::vector<std::string> &names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

} // namespace

Expected<Signature> completeSignature(const Signature &signature, const nlohmann::json &describe,
                                      const std::string &function, const std::string &file) {
  const nlohmann::json &params = arrayOf(describe, "params");
  std::vector<std::string> names;
  for (const auto &p : params)
    names.push_back(stringOr(p, "name"));
  auto locate = [&](Diagnostic diag) {
    diag.file = displayPath(file);
    diag.line = static_cast<int>(integerOf(describe, "line").value_or(0));
    diag.notes.push_back("signature: " + signature.text);
    return diag;
  };
  auto countError = [&](std::string note) {
    Diagnostic diag = makeError(ExitCode::UsageError,
                                "signature has " + std::to_string(signature.entries.size()) +
                                    " entries but '" + function + "' has " +
                                    std::to_string(names.size()) + " parameters (" + joinNames(names) + ")");
    diag.notes.push_back(std::move(note));
    return locate(diag);
  };
  // Each parameter's entry: by position, then by name.
  std::vector<const SignatureEntry *> given(names.size(), nullptr);
  std::size_t position = 0;
  for (const SignatureEntry &entry : signature.entries) {
    std::size_t index = position;
    if (!entry.keyword.empty()) {
      index = std::find(names.begin(), names.end(), entry.keyword) - names.begin();
      if (index == names.size())
        return locate(makeError(ExitCode::UsageError, "signature entry '" + entry.text + "' names no parameter of '" +
                                                          function + "' (" + joinNames(names) + ")"));
      if (given[index])
        return locate(makeError(ExitCode::UsageError, "signature entry '" + entry.text + "' gives '" +
                                                          entry.keyword + "' a second time"));
    } else if (position++ >= names.size()) {
      return countError("entry " + std::to_string(position) + " '" + entry.text + "' has no parameter");
    }
    given[index] = &entry;
  }
  Signature complete;
  complete.text = signature.text;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!given[i] && !member(params[i], "default")) {
      missing.push_back(names[i]);
      continue;
    }
    SignatureEntry entry;
    if (given[i]) {
      entry = *given[i];
      entry.keyword.clear();
    } else {
      Expected<SignatureEntry> fallback = defaultEntry(params[i], names[i]);
      if (!fallback)
        return locate(fallback.takeError());
      entry = *fallback;
    }
    if (boolOr(params[i], "constexpr", false) && entry.kind != SignatureEntry::Kind::Constexpr)
      return locate(makeError(ExitCode::UsageError,
                              "signature entry " + std::to_string(i + 1) + " '" + entry.text +
                                  "' is a type, but '" + names[i] +
                                  "' is declared tl.constexpr: give its value (e.g. 128) or a config name"));
    complete.entries.push_back(std::move(entry));
  }
  if (!missing.empty()) {
    std::vector<std::string> candidates = parametersPossiblyMissing(signature, params, names);
    if (candidates.size() == 1)
      return countError("no entry for " + candidates[0]);
    if (candidates.size() > 1)
      return countError("no entry for " + oneOf(candidates) +
                        " (the entries' kinds do not tell which)");
    return countError("no entry for " + joinNames(missing));
  }
  return complete;
}

Expected<Signature> resolveKernelNames(const Signature &signature, const std::string &configLabel,
                                       const nlohmann::json &describe, const std::string &function,
                                       const std::string &file) {
  const nlohmann::json &params = arrayOf(describe, "params");
  std::vector<std::string> names;
  for (const auto &p : params)
    names.push_back(stringOr(p, "name"));
  std::set<std::string> setByHeuristics;
  for (const auto &h : arrayOf(describe, "heuristics"))
    setByHeuristics.insert(stringOr(h, "name"));
  auto locate = [&](std::string message, std::vector<std::string> notes) {
    Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
    diag.file = displayPath(file);
    diag.line = static_cast<int>(integerOf(describe, "line").value_or(0));
    diag.notes = std::move(notes);
    diag.notes.push_back("signature: " + signature.text);
    return diag;
  };
  // Each entry's parameter. An entry without one (one too many by position, a keyword that
  // names none) is reported as completeSignature reports it, with the signature as written.
  std::vector<std::size_t> indices;
  std::size_t position = 0;
  for (const SignatureEntry &entry : signature.entries) {
    indices.push_back(
        entry.keyword.empty()
            ? position++
            : static_cast<std::size_t>(std::find(names.begin(), names.end(), entry.keyword) -
                                       names.begin()));
    if (indices.back() >= names.size())
      if (auto complete = completeSignature(signature, describe, function, file); !complete)
        return complete.takeError();
  }
  Signature resolved;
  resolved.text = signature.text;
  bool byNameFromHere = false; // an entry by position was left out: the rest go by name
  for (std::size_t n = 0; n < signature.entries.size(); ++n) {
    SignatureEntry entry = signature.entries[n];
    const std::size_t index = indices[n];
    if (index >= names.size()) { // reported above
      resolved.entries.push_back(std::move(entry));
      continue;
    }
    if (entry.kind != SignatureEntry::Kind::Constexpr ||
        entry.value.kind != ConstexprValue::Kind::Name) {
      if (byNameFromHere && entry.keyword.empty()) {
        entry.keyword = names[index];
        entry.text = names[index] + "=" + entry.text;
      }
      resolved.entries.push_back(std::move(entry));
      continue;
    }
    const std::string &name = entry.value.text;
    const std::string &param = names[index];
    const std::string where = "signature entry " + std::to_string(n + 1) + " '" + entry.text + "'";
    const std::string unset = configLabel.empty() ? "no config gives " + name + " a value"
                                                  : configLabel + " gives " + name + " no value";
    const std::string inConfigs = "each config (--config '" + name +
                                  "=<value> ...'; CMake: CONFIG \"" + name + "=<value> ...\")";
    if (name != param) {
      if (auto other = std::find(names.begin(), names.end(), name); other != names.end()) {
        // The other parameter's own heuristic or default would give it a value in its place.
        const nlohmann::json &otherParam = params[static_cast<std::size_t>(other - names.begin())];
        const bool decided = setByHeuristics.count(name) || member(otherParam, "default");
        return locate(
            where + " stands for parameter '" + param + "', not for '" + name + "', and " + unset,
            {"entries by position follow the parameters of '" + function + "': " + joinNames(names),
             "write it in the place of '" + name + "' (or as " + name + "=" + name + ")" +
                 (decided ? "" : ", or give " + name + " a value in " + inConfigs)});
      }
      std::string message = where + " has no value: " + unset + ", and '" + function +
                            "' has no parameter " + name + " (its parameters: " + joinNames(names) +
                            ")";
      if (std::optional<std::string> guess = closestMatch(name, names))
        message += "; did you mean " + *guess + "?";
      return locate(std::move(message),
                    {"a name takes its value from " + inConfigs +
                     ", or, when it is the name of the parameter in its place, from that "
                     "parameter's @triton.heuristics or default"});
    }
    if (setByHeuristics.count(param)) {
      byNameFromHere = byNameFromHere || entry.keyword.empty();
      continue; // left out: expandHeuristics gives it its heuristic's value per variant
    }
    const bool constexprParam = boolOr(params[index], "constexpr", false);
    if (!member(params[index], "default")) {
      if (!constexprParam)
        return locate(where + " names the parameter '" + param + "', which is not tl.constexpr " +
                          "and has no default: give its type",
                      {"e.g. i32 or *fp32 (docs/compiler.md#signatures)"});
      return locate(where + " has no value: " + unset + ", and '" + function +
                        "' has no default or @triton.heuristics for " + param,
                    {"give it a value in the signature (" + param +
                     "=128, or 128 in its place) or in " + inConfigs});
    }
    Expected<SignatureEntry> fallback = defaultEntry(params[index], param);
    if (!fallback)
      return locate(where + " takes the default of '" + param + "', " +
                        stringOr(objectOf(params[index], "default"), "repr", "(unknown)") +
                        ", which cannot be compiled in",
                    {"give its value instead (" + param + "=<value>)"});
    entry.value = fallback->value;
    if (byNameFromHere && entry.keyword.empty()) {
      entry.keyword = param;
      entry.text = param + "=" + entry.text;
    }
    resolved.entries.push_back(std::move(entry));
  }
  return resolved;
}

std::vector<std::string> entryParamNames(const Signature &signature, const nlohmann::json &describe) {
  std::vector<std::string> declared;
  for (const auto &p : arrayOf(describe, "params"))
    declared.push_back(stringOr(p, "name"));
  std::vector<std::string> names;
  std::size_t position = 0;
  for (const SignatureEntry &entry : signature.entries) {
    if (!entry.keyword.empty()) {
      names.push_back(entry.keyword);
      continue;
    }
    names.push_back(position < declared.size() ? declared[position] : std::string());
    ++position;
  }
  return names;
}

Status checkDoNotSpecialize(const Signature &signature, const nlohmann::json &describe,
                            const std::string &function, const std::string &file) {
  const std::vector<std::string> names = entryParamNames(signature, describe);
  auto listed = [&](const char *key, const std::string &name) {
    for (const auto &item : arrayOf(describe, key))
      if (item.is_string() && item.get<std::string>() == name)
        return true;
    return false;
  };
  for (std::size_t e = 0; e < signature.entries.size(); ++e) {
    const SignatureEntry &entry = signature.entries[e];
    const std::string &name = names[e];
    if (entry.kind == SignatureEntry::Kind::Constexpr || entry.hint == 0 || name.empty())
      continue;
    const char *rule = listed("do_not_specialize", name) ? "do_not_specialize"
                       : entry.hint == 16 && listed("do_not_specialize_on_alignment", name)
                           ? "do_not_specialize_on_alignment"
                           : nullptr;
    if (!rule)
      continue;
    Diagnostic diag = makeError(
        ExitCode::UsageError,
        "signature entry " + std::to_string(e + 1) + " '" + entry.text + "' asks for a :" +
            std::to_string(entry.hint) + " hint on '" + name + "', which '" + function +
            "' excludes from specialization (@triton.jit(" + rule + "=...))");
    diag.file = displayPath(file);
    diag.line = static_cast<int>(integerOf(describe, "line").value_or(0));
    diag.notes.push_back("write '" + name + "' without ':" + std::to_string(entry.hint) +
                         "' (no variant dispatches on it, as Triton's launch never specializes it)");
    diag.notes.push_back("signature: " + signature.text);
    return diag;
  }
  return ok();
}

nlohmann::json constexprJson(const ConstexprValue &value) {
  switch (value.kind) {
  case ConstexprValue::Kind::Int:
    return value.intValue;
  case ConstexprValue::Kind::Float:
    return value.floatValue;
  case ConstexprValue::Kind::Bool:
    return value.intValue != 0;
  case ConstexprValue::Kind::String:
    return value.text;
  case ConstexprValue::Kind::Dtype:
    return "tl." + value.text;
  case ConstexprValue::Kind::None:
  case ConstexprValue::Kind::Name:
    break;
  }
  return nullptr;
}

namespace {

nlohmann::json requestValue(const ConstexprValue &value) {
  switch (value.kind) {
  case ConstexprValue::Kind::Int:
    return {{"type", "int"}, {"value", value.intValue}};
  case ConstexprValue::Kind::Float:
    return {{"type", "float"}, {"value", value.floatValue}};
  case ConstexprValue::Kind::Bool:
    return {{"type", "bool"}, {"value", value.intValue != 0}};
  case ConstexprValue::Kind::String:
    return {{"type", "str"}, {"value", value.text}};
  case ConstexprValue::Kind::Dtype:
    return {{"type", "dtype"}, {"value", value.text}};
  case ConstexprValue::Kind::None:
  case ConstexprValue::Kind::Name:   // resolved before requests are built
    break;
  }
  return {{"type", "none"}};
}

} // namespace

nlohmann::json requestParams(const Signature &signature, const nlohmann::json &describe) {
  nlohmann::json params = nlohmann::json::array();
  for (std::size_t i = 0; i < signature.entries.size(); ++i) {
    const SignatureEntry &entry = signature.entries[i];
    nlohmann::json p = {{"name", stringOr(arrayOf(describe, "params").at(i), "name")}};
    switch (entry.kind) {
    case SignatureEntry::Kind::Pointer:
      p["kind"] = "pointer";
      p["type"] = std::string(typeInfo(entry.type).name);
      p["hint"] = entry.hint;
      break;
    case SignatureEntry::Kind::Scalar:
      p["kind"] = "scalar";
      p["type"] = std::string(typeInfo(entry.type).name);
      p["hint"] = entry.hint;
      break;
    case SignatureEntry::Kind::Constexpr:
      p["kind"] = "constexpr";
      p["value"] = requestValue(entry.value);
      break;
    case SignatureEntry::Kind::TensorDesc:
      p["kind"] = "tensordesc";
      SignatureEntry bare = entry;
      bare.keyword.clear();
      p["type"] = formatEntry(bare);
      p["hint"] = 0;
      break;
    }
    params.push_back(std::move(p));
  }
  return params;
}

nlohmann::json requestTarget(const Target &target) {
  if (target.backend == Backend::Cuda)
    return {{"backend", "cuda"}, {"arch", target.capability}, {"warp_size", target.warpSize}};
  return {{"backend", "hip"}, {"arch", target.processor}, {"warp_size", target.warpSize}};
}

nlohmann::json requestOptions(const Config &config) {
  nlohmann::json options = nlohmann::json::object();
  if (config.numWarps)
    options["num_warps"] = *config.numWarps;
  if (config.numStages)
    options["num_stages"] = *config.numStages;
  if (config.numCtas)
    options["num_ctas"] = *config.numCtas;
  if (config.maxnreg)
    options["maxnreg"] = *config.maxnreg;
  for (const auto &[key, value] : config.options)
    options[key] = constexprJson(value);
  return options;
}

nlohmann::json requestOptions(const Config &config, Backend backend) {
  nlohmann::json options = requestOptions(config);
  for (auto it = options.begin(); it != options.end();)
    it = backendHasOption(backend, it.key()) ? std::next(it) : options.erase(it);
  return options;
}

} // namespace tta
