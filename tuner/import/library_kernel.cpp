#include "tuner/import/library_kernel.h"

#include "contract/library_manifest.h"
#include "contract/spelling.h"

#include <algorithm>
#include <map>

namespace tta {
namespace {

Diagnostic manifestError(const std::string &message) {
  return makeError(ExitCode::UsageError, "manifest: " + message);
}

bool contains(const std::vector<std::string> &list, const std::string &name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

Expected<std::vector<KeyName>> keyNames(const ManifestKernel &kernel, const std::string &member) {
  if (!kernel.autotune)
    return manifestError("kernel '" + kernel.name +
                         "' is not @triton.autotune'd (no autotune.key): Triton caches no "
                         "autotuning for it");
  std::vector<KeyName> out;
  for (const std::string &name : kernel.autotune->key) {
    KeyName key{name, false, nullptr};
    if (contains(kernel.constexprParams, name)) {
      const ManifestConfig *first = kernel.configs.empty() ? nullptr : &kernel.configs[0];
      if (!first || !first->constexprs.count(name))
        return manifestError(member + ".configs[0].constexprs: no value for the key name '" +
                             name + "'");
      key.fixedValue = first->constexprs.at(name);
    } else if (contains(kernel.specializedToOneParams, name)) {
      key.fixedValue = 1;
    } else {
      auto param = std::find_if(kernel.params.begin(), kernel.params.end(),
                                [&](const ManifestParam &p) { return p.name == name; });
      if (param == kernel.params.end())
        return manifestError("kernel '" + kernel.name + "': the key name '" + name +
                             "' is not one of its parameters");
      const std::string &type = param->type;
      if (param->kind != "scalar" || type.empty() || (type[0] != 'i' && type[0] != 'u'))
        return manifestError("kernel '" + kernel.name + "': the key name '" + name + "' is a '" +
                             type + "' parameter; a tuning table keys on integer parameters");
      key.runtime = true;
    }
    out.push_back(std::move(key));
  }
  return out;
}

/// Is the config built for \p target in some variant? A refused function says why not.
bool builtFor(const ManifestConfig &config, const std::string &target) {
  for (const ManifestVariant &variant : config.variants)
    for (const ManifestFunction &function : variant.functions)
      if (function.target == target && function.refused.empty())
        return true;
  return false;
}

std::string tritonVersionFor(const LibraryManifest &manifest, const ManifestKernel &kernel,
                             const std::string &target) {
  for (const ManifestConfig &config : kernel.configs)
    for (const ManifestVariant &variant : config.variants)
      for (const ManifestFunction &function : variant.functions)
        if (function.target == target && function.refused.empty())
          return function.tritonVersion;
  return manifest.tritonVersions.empty() ? "" : manifest.tritonVersions.back();
}

} // namespace

Expected<LibraryKernel> readLibraryKernel(const nlohmann::json &json,
                                          const std::string &kernelName, const std::string &target,
                                          const std::vector<std::string> &dtypes) {
  auto manifest = parseLibraryManifest(json);   // the one reader (contract/library_manifest.h)
  if (!manifest)
    return manifestError(manifest.error().message);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < manifest->kernels.size(); ++k) {
    const ManifestKernel &kernel = manifest->kernels[k];
    names.push_back(kernel.name);
    if (kernel.name != kernelName)
      continue;
    const std::string member = "kernels[" + std::to_string(k) + "]";
    LibraryKernel out;
    out.name = kernelName;
    out.function = kernel.function.empty() ? kernelName : kernel.function;
    out.library = manifest->name;
    if (!contains(kernel.targets, target)) {
      std::vector<std::string> targets;
      for (const std::string &t : kernel.targets)
        targets.push_back(nlohmann::json(t).dump());
      return manifestError("kernel '" + kernelName + "' is not built for '" + target +
                           "' (its targets: " + joinNames(targets) + ")");
    }
    out.tritonVersion = tritonVersionFor(*manifest, kernel, target);
    auto key = keyNames(kernel, member);
    if (!key)
      return key.takeError();
    out.key = std::move(*key);
    bool dtypesKnown = true;
    for (const ManifestParam &param : kernel.params)
      if (param.kind == "pointer") {
        out.dtypes.push_back(torchDtypeOfPointer(param.type));
        dtypesKnown = dtypesKnown && !out.dtypes.back().empty();
      }
    if (!dtypes.empty())
      out.dtypes = dtypes;
    else if (!dtypesKnown)
      out.dtypes.clear();
    for (const ManifestConfig &config : kernel.configs) {
      LibraryConfig library;
      library.name = config.name;
      library.constexprs = config.constexprs;
      library.options = config.options;
      library.numWarps = config.numWarps;
      library.numStages = config.numStages;
      if (config.options.contains("num_ctas") && !config.options["num_ctas"].is_null())
        library.numCtas = config.options["num_ctas"];
      if (config.options.contains("maxnreg"))
        library.maxnreg = config.options["maxnreg"];
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
