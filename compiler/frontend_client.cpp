#include "compiler/frontend_client.h"

#include "compiler/compiler.h"

#include <filesystem>
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

Status checkHello(const nlohmann::json &hello, const std::string &python) {
  const std::string install = python + " -m pip install triton==" + kTestedTritonVersion;
  if (!hello.value("triton_version", nlohmann::json()).is_string()) {
    Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                "cannot import triton with " + python + ": " +
                                    hello.value("import_error", std::string("unknown error")));
    diag.notes.push_back("install it with '" + install +
                         "' (tools/bootstrap.sh does this in the project's .venv), or point "
                         "--python or TRITON_AOT_PYTHON at an interpreter that has it");
    return diag;
  }
  std::string version = hello["triton_version"].get<std::string>();
  if (compareVersions(version, kMinTritonVersion) < 0) {
    Diagnostic diag = makeError(ExitCode::EnvironmentError,
                                "Triton " + version + " at " + python + " is older than " +
                                    kMinTritonVersion + ", the oldest triton-aot-cc supports");
    diag.notes.push_back("upgrade it with '" + install + "'");
    return diag;
  }
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
  const nlohmann::json error = response.value("error", nlohmann::json::object());
  const std::string kind = error.value("kind", "internal");
  ExitCode code = kind == "kernel"        ? ExitCode::KernelError
                  : kind == "usage"       ? ExitCode::UsageError
                  : kind == "environment" ? ExitCode::EnvironmentError
                                          : ExitCode::InternalError;
  Diagnostic diag = makeError(code, error.value("message", std::string("the frontend failed")));
  std::string file = error.value("file", nlohmann::json()).is_string()
                         ? error["file"].get<std::string>()
                         : fallbackFile;
  diag.file = displayPath(file.empty() ? fallbackFile : file);
  diag.line = error.value("line", nlohmann::json()).is_number_integer() ? error["line"].get<int>() : 0;
  diag.column =
      error.value("column", nlohmann::json()).is_number_integer() ? error["column"].get<int>() : 0;
  if (error.value("source_line", nlohmann::json()).is_string())
    diag.sourceLine = error["source_line"].get<std::string>();
  if (error.contains("notes") && error["notes"].is_array())
    for (const auto &note : error["notes"])
      if (note.is_string())
        diag.notes.push_back(note.get<std::string>());
  if (error.value("traceback", nlohmann::json()).is_string())
    diag.detail = error["traceback"].get<std::string>();
  if (code == ExitCode::InternalError)
    diag.notes.push_back("this is a bug in triton-aot; rerun with --verbose and report it");
  return diag;
}

Status checkSignatureAgainstParams(const Signature &signature, const nlohmann::json &describe,
                                   const std::string &function, const std::string &file) {
  const nlohmann::json &params = describe["params"];
  std::vector<std::string> names;
  for (const auto &p : params)
    names.push_back(p.value("name", ""));
  auto locate = [&](Diagnostic diag) {
    diag.file = displayPath(file);
    if (describe.value("line", nlohmann::json()).is_number_integer())
      diag.line = describe["line"].get<int>();
    return diag;
  };
  if (signature.entries.size() != names.size()) {
    std::string list;
    for (const std::string &n : names)
      list += (list.empty() ? "" : ", ") + n;
    Diagnostic diag = makeError(
        ExitCode::UsageError,
        "signature has " + std::to_string(signature.entries.size()) + " entries but '" + function +
            "' has " + std::to_string(names.size()) + " parameters (" + list + ")");
    if (signature.entries.size() < names.size()) {
      std::string missing;
      for (std::size_t i = signature.entries.size(); i < names.size(); ++i)
        missing += (missing.empty() ? "" : ", ") + names[i];
      diag.notes.push_back("no entry for " + missing);
    } else {
      const SignatureEntry &extra = signature.entries[names.size()];
      diag.notes.push_back("entry " + std::to_string(names.size() + 1) + " '" + extra.text +
                           "' has no parameter");
    }
    diag.notes.push_back("signature: " + signature.text);
    return locate(diag);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const SignatureEntry &entry = signature.entries[i];
    if (params[i].value("constexpr", false) && entry.kind != SignatureEntry::Kind::Constexpr) {
      Diagnostic diag = makeError(
          ExitCode::UsageError,
          "signature entry " + std::to_string(i + 1) + " '" + entry.text + "' is a type, but '" +
              names[i] + "' is declared tl.constexpr: give its value (e.g. 128) or a config name");
      diag.notes.push_back("signature: " + signature.text);
      return locate(diag);
    }
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
    nlohmann::json p = {{"name", describe["params"][i].value("name", "")}};
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

} // namespace tta
