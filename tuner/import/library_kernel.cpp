#include "tuner/import/library_kernel.h"

#include "contract/spelling.h"
#include "linker/manifest.h"

#include <algorithm>
#include <map>

namespace tta {
namespace {

/// The member \p name of \p object; null where \p object is no object or lacks it. Manifest
/// readers ignore what they do not know, and a malformed manifest must not throw.
const nlohmann::json &field(const nlohmann::json &object, const char *name) {
  static const nlohmann::json kNull;
  if (!object.is_object())
    return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

/// The string member \p name of \p object, or "".
std::string text(const nlohmann::json &object, const char *name) {
  const nlohmann::json &value = field(object, name);
  return value.is_string() ? value.get<std::string>() : "";
}

Diagnostic manifestError(const std::string &message) {
  return makeError(ExitCode::UsageError, "manifest: " + message);
}

bool contains(const nlohmann::json &list, const std::string &name) {
  return list.is_array() && std::find(list.begin(), list.end(), name) != list.end();
}

Expected<std::vector<KeyName>> keyNames(const nlohmann::json &kernel, const std::string &member,
                                        const std::string &name) {
  const nlohmann::json &autotune = field(kernel, "autotune");
  if (!autotune.is_object() || !field(autotune, "key").is_array())
    return manifestError("kernel '" + name +
                         "' is not @triton.autotune'd (no autotune.key): Triton caches no "
                         "autotuning for it");
  const nlohmann::json &constexprParams = field(kernel, "constexpr_params");
  const nlohmann::json &oneParams = field(kernel, "specialized_to_one_params");
  const nlohmann::json &configs = field(kernel, "configs");
  std::vector<KeyName> out;
  for (const nlohmann::json &keyName : autotune["key"]) {
    if (!keyName.is_string())
      return manifestError(member + ".autotune.key: expected names, got " + keyName.dump());
    KeyName key{keyName.get<std::string>(), false, nullptr};
    if (contains(constexprParams, key.name)) {
      nlohmann::json constexprs = configs.is_array() && !configs.empty()
                                      ? field(configs[0], "constexprs")
                                      : nlohmann::json();
      if (!constexprs.is_object() || !constexprs.contains(key.name))
        return manifestError(member + ".configs[0].constexprs: no value for the key name '" +
                             key.name + "'");
      key.fixedValue = constexprs[key.name];
    } else if (contains(oneParams, key.name)) {
      key.fixedValue = 1;
    } else {
      const nlohmann::json *param = nullptr;
      for (const nlohmann::json &p : field(kernel, "params"))
        if (p.is_object() && text(p, "name") == key.name)
          param = &p;
      if (!param)
        return manifestError("kernel '" + name + "': the key name '" + key.name +
                             "' is not one of its parameters");
      std::string type = text(*param, "type");
      if (text(*param, "kind") != "scalar" || type.empty() || (type[0] != 'i' && type[0] != 'u'))
        return manifestError("kernel '" + name + "': the key name '" + key.name + "' is a '" +
                             type + "' parameter; a tuning table keys on integer parameters");
      key.runtime = true;
    }
    out.push_back(std::move(key));
  }
  return out;
}

/// Is the config built for \p target in some variant? The manifest lists each variant's
/// functions per target; a refused one has "refused" (docs/linker.md).
bool builtFor(const nlohmann::json &config, const std::string &target) {
  for (const nlohmann::json &variant : field(config, "variants"))
    for (const nlohmann::json &function : field(variant, "functions"))
      if (function.is_object() && text(function, "target") == target &&
          !function.contains("refused"))
        return true;
  return false;
}

std::string tritonVersionFor(const nlohmann::json &manifest, const nlohmann::json &kernel,
                             const std::string &target) {
  for (const nlohmann::json &config : field(kernel, "configs"))
    for (const nlohmann::json &variant : field(config, "variants"))
      for (const nlohmann::json &function : field(variant, "functions"))
        if (function.is_object() && text(function, "target") == target &&
            field(function, "triton_version").is_string())
          return function["triton_version"].get<std::string>();
  const nlohmann::json &versions = field(manifest, "triton_versions");
  return !versions.empty() && versions.back().is_string() ? versions.back().get<std::string>() : "";
}

} // namespace

Expected<LibraryKernel> readLibraryKernel(const nlohmann::json &manifest,
                                          const std::string &kernelName, const std::string &target,
                                          const std::vector<std::string> &dtypes) {
  if (!manifest.is_object() || text(manifest, "schema") != link::kManifestSchema)
    return manifestError(std::string("expected a library manifest (schema \"") +
                         link::kManifestSchema + "\")");
  if (field(manifest, "schema_version").is_number() &&
      field(manifest, "schema_version").get<double>() > link::kManifestSchemaVersion)
    return manifestError("schema_version " + manifest["schema_version"].dump() +
                         " is newer than this tool reads (" +
                         std::to_string(link::kManifestSchemaVersion) + ")");
  const nlohmann::json &kernels = field(manifest, "kernels");
  if (!kernels.is_array())
    return manifestError("kernels: expected a list");
  std::vector<std::string> names;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const nlohmann::json &kernel = kernels[k];
    if (!kernel.is_object() || !field(kernel, "name").is_string())
      return manifestError("kernels[" + std::to_string(k) + "].name: expected a string");
    names.push_back(kernel["name"].get<std::string>());
    if (names.back() != kernelName)
      continue;
    const std::string member = "kernels[" + std::to_string(k) + "]";
    LibraryKernel out;
    out.name = kernelName;
    out.function = text(kernel, "function").empty() ? kernelName : text(kernel, "function");
    out.library = text(manifest, "name");
    if (!contains(field(kernel, "targets"), target)) {
      std::vector<std::string> targets;
      for (const nlohmann::json &t : field(kernel, "targets"))
        targets.push_back(t.dump());
      return manifestError("kernel '" + kernelName + "' is not built for '" + target +
                           "' (its targets: " + joinNames(targets) + ")");
    }
    out.tritonVersion = tritonVersionFor(manifest, kernel, target);
    auto key = keyNames(kernel, member, kernelName);
    if (!key)
      return key.takeError();
    out.key = std::move(*key);
    bool dtypesKnown = true;
    for (const nlohmann::json &param : field(kernel, "params"))
      if (param.is_object() && text(param, "kind") == "pointer") {
        out.dtypes.push_back(torchDtypeOfPointer(text(param, "type")));
        dtypesKnown = dtypesKnown && !out.dtypes.back().empty();
      }
    if (!dtypes.empty())
      out.dtypes = dtypes;
    else if (!dtypesKnown)
      out.dtypes.clear();
    const nlohmann::json &configs = field(kernel, "configs");
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const nlohmann::json &config = configs[c];
      const std::string configMember = member + ".configs[" + std::to_string(c) + "]";
      if (!config.is_object() || !field(config, "name").is_string())
        return manifestError(configMember + ".name: expected a string");
      LibraryConfig library;
      library.name = config["name"].get<std::string>();
      if (field(config, "constexprs").is_object())
        library.constexprs = config["constexprs"];
      if (field(config, "options").is_object())
        library.options = config["options"];
      library.numWarps = field(config, "num_warps");
      library.numStages = field(config, "num_stages");
      if (!field(library.options, "num_ctas").is_null())
        library.numCtas = library.options["num_ctas"];
      library.maxnreg = field(library.options, "maxnreg");
      library.refused = !builtFor(config, target);
      out.configs.push_back(std::move(library));
    }
    return out;
  }
  return manifestError("no kernel named '" + kernelName + "' (kernels: " + joinNames(names) + ")");
}

std::string torchDtypeOfPointer(const std::string &tritonType) {
  // The inverse of Triton's torch-name canonicalization (triton/_utils.py,
  // type_canonicalisation_dict) for the dtypes torch has; str(tensor.dtype) is what the autotuner's
  // key holds.
  static const std::map<std::string, std::string> kTorchNames = {
      {"i1", "torch.bool"},
      {"u1", "torch.bool"},
      {"i8", "torch.int8"},
      {"i16", "torch.int16"},
      {"i32", "torch.int32"},
      {"i64", "torch.int64"},
      {"u8", "torch.uint8"},
      {"u16", "torch.uint16"},
      {"u32", "torch.uint32"},
      {"u64", "torch.uint64"},
      {"fp16", "torch.float16"},
      {"bf16", "torch.bfloat16"},
      {"fp32", "torch.float32"},
      {"fp64", "torch.float64"},
      {"fp8e4nv", "torch.float8_e4m3fn"},
      {"fp8e5", "torch.float8_e5m2"},
      {"fp8e4b8", "torch.float8_e4m3fnuz"},
      {"fp8e5b16", "torch.float8_e5m2fnuz"}};
  if (tritonType.size() < 2 || tritonType[0] != '*')
    return "";
  auto it = kTorchNames.find(tritonType.substr(1));
  return it == kTorchNames.end() ? "" : it->second;
}

} // namespace tta
