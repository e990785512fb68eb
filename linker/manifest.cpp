#include "linker/manifest.h"

#include <algorithm>

namespace tta::link {

using nlohmann::json;

namespace {

/// A JSON integer >= 0 (built in memory, nlohmann stores small literals as signed).
bool isCount(const json &v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

json scratchJson(const ScratchInfo &s) { return {{"size", s.size}, {"align", s.align}}; }

json launchJson(const LaunchInfo &l) {
  return {{"num_warps", l.numWarps},
          {"warp_size", l.warpSize},
          {"block", l.block},
          {"shared", l.shared},
          {"num_ctas", l.numCtas},
          {"cluster_dims", l.clusterDims},
          {"global_scratch", scratchJson(l.globalScratch)},
          {"profile_scratch", scratchJson(l.profileScratch)},
          {"cooperative", l.cooperative},
          {"pdl", l.pdl},
          {"tmem_size", l.tmemSize}};
}

template <class T> json orNull(const std::optional<T> &value) {
  return value ? json(*value) : json(nullptr);
}

json resourcesJson(const ResourceInfo &r) {
  return {{"registers", orNull(r.registers)},
          {"sgprs", orNull(r.sgprs)},
          {"spills", orNull(r.spills)},
          {"static_shared", orNull(r.staticShared)}};
}

json imageJson(const Library &library, const ImageBlob &blob, std::size_t index) {
  const EmbeddedImage &image = library.images.at(index);
  // Without a blob (a library not packed yet) the stored size is the raw size.
  StoredImage stored;
  stored.rawSize = stored.storedSize = image.bytes.size();
  if (index < blob.images.size())
    stored = blob.images[index];
  return {{"kind", image.kind},
          {"raw_size", stored.rawSize},
          {"stored_size", stored.storedSize},
          {"compressed", stored.compressed},
          {"sha256", image.sha256}};
}

json hintsJson(const Kernel &kernel, const HintVariant &variant) {
  json hints = json::object();
  for (std::size_t i = 0; i < kernel.cParams.size() && i < variant.hints.size(); ++i)
    if (variant.hints[i] != 0)
      hints[kernel.cParams[i].name] = variant.hints[i];
  return hints;
}

/// "pointer", "scalar", or a host tensor descriptor's part: "tensordesc" (its base pointer),
/// "tensordesc_shape", "tensordesc_stride" (int64_t).
const char *paramKind(const CParam &p) {
  switch (p.tensorPart) {
  case CParam::TensorPart::Base:
    return "tensordesc";
  case CParam::TensorPart::Shape:
    return "tensordesc_shape";
  case CParam::TensorPart::Stride:
    return "tensordesc_stride";
  case CParam::TensorPart::None:
    break;
  }
  return !p.cType.empty() && p.cType.back() == '*' ? "pointer" : "scalar";
}

/// The TMA facts of each tensordesc parameter, as in the function's metadata.
json tensorMapsJson(const Kernel &kernel, const Function &f) {
  json out = json::array();
  std::size_t i = 0;
  for (const CParam &p : kernel.cParams)
    if (p.tensorPart == CParam::TensorPart::Base && i < f.tensorMaps.size()) {
      const TensorDescInfo &t = f.tensorMaps[i++];
      out.push_back({{"param", p.name},         {"rank", t.rank},
                     {"data_type", t.dataType}, {"elem_size", t.elemSize},
                     {"swizzle", t.swizzle},    {"box", t.box},
                     {"fp4_padded", t.fp4Padded}, {"shape_args_padded", t.shapeArgsPadded}});
    }
  return out;
}

json kernelJson(const Library &library, const ImageBlob &blob, const Kernel &kernel) {
  json params = json::array();
  for (const CParam &p : kernel.cParams) {
    json param = {{"name", p.name}, {"kind", paramKind(p)}, {"type", p.tritonType},
                  {"c_type", p.cType}, {"c_name", p.cName}, {"size", p.size}};
    if (p.tensorPart != CParam::TensorPart::None)
      param["tensordesc"] = p.tensor;
    if (p.tensorPart == CParam::TensorPart::Shape || p.tensorPart == CParam::TensorPart::Stride)
      param["dim"] = p.dim;
    if (p.heuristicInput)
      param["heuristic_input"] = true;
    params.push_back(std::move(param));
  }
  json constexprParams = json::array();
  for (const ParamInfo &p : kernel.params)
    if (p.kind == ParamInfo::Kind::Constexpr)
      constexprParams.push_back(p.name);
  json targets = json::array();
  for (const Target &t : kernel.targets)
    targets.push_back(t.spelling());

  json configs = json::array();
  for (std::size_t c = 0; c < kernel.configs.size(); ++c) {
    const KernelConfig &config = kernel.configs[c];
    json variants = json::array();
    for (const HintVariant &variant : config.variants) {
      json functions = json::array();
      for (std::size_t t = 0; t < variant.functions.size() && t < kernel.targets.size(); ++t) {
        const Function &f = variant.functions[t];
        if (!f.refusal.empty()) {
          functions.push_back({{"target", kernel.targets[t].spelling()}, {"refused", f.refusal}});
          continue;
        }
        functions.push_back(
            {{"target", kernel.targets[t].spelling()},
             {"variant_id", f.variantId},
             {"entry", f.entry},
             {"triton_version", f.tritonVersion},
             {"launch", launchJson(f.launch)},
             {"resources", resourcesJson(f.resources)},
             {"image", imageJson(library, blob, f.binary)},
             {"ptx", f.ptx ? imageJson(library, blob, *f.ptx) : json(nullptr)}});
        if (!f.tensorMaps.empty())
          functions.back()["tensor_maps"] = tensorMapsJson(kernel, f);
      }
      variants.push_back({{"hints", hintsJson(kernel, variant)},
                          {"condition", hintCondition(kernel, variant)},
                          {"functions", std::move(functions)}});
      if (!variant.heuristics.empty()) {
        json heuristics = json::array();
        for (const HeuristicRecord &h : variant.heuristics)
          heuristics.push_back({{"name", h.name}, {"expression", h.expression}, {"value", h.value}});
        variants.back()["heuristics"] = std::move(heuristics);
      }
    }
    configs.push_back({{"index", c},
                       {"name", config.name},
                       {"named", config.named},
                       {"constexprs", config.constexprs},
                       {"num_warps", config.numWarps},
                       {"num_stages", config.numStages},
                       {"options", config.options},
                       {"variants", std::move(variants)}});
  }
  return {{"name", kernel.name},
          {"function", kernel.function},
          {"source", kernel.source},
          {"params", std::move(params)},
          {"constexpr_params", std::move(constexprParams)},
          {"specialized_to_one_params", kernel.oneOnly},
          {"grid", kernel.grid ? nlohmann::json(*kernel.grid) : nlohmann::json(nullptr)},
          {"global_scratch_arg", kernel.globalScratchArg},
          {"profile_scratch_arg", kernel.profileScratchArg},
          {"targets", std::move(targets)},
          {"configs", std::move(configs)},
          {"autotune", kernel.autotune ? json{{"key", kernel.autotune->key},
                                              {"reset_to_zero", kernel.autotune->resetToZero},
                                              {"restore_value", kernel.autotune->restoreValue},
                                              {"configs", kernel.autotune->configsFrom},
                                              {"dropped_pre_hooks", kernel.autotune->droppedPreHooks}}
                                       : json(nullptr)}};
}

// ---------------------------------------------------------------------------------------------
// Reading it back: typed lookups that record the first error with its field path.

class Fields {
public:
  const json *get(const json &object, const std::string &path, const char *key, bool isType,
                  const char *expected) {
    const json *value = object.is_object() && object.contains(key) ? &object[key] : nullptr;
    if (!value) {
      fail(path + key, "missing");
      return nullptr;
    }
    if (!isType) {
      fail(path + key, std::string("expected ") + expected);
      return nullptr;
    }
    return value;
  }
  std::string str(const json &o, const std::string &path, const char *key) {
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    v = get(o, path, key, v && v->is_string(), "a string");
    return v ? v->get<std::string>() : std::string();
  }
  std::uint64_t u64(const json &o, const std::string &path, const char *key) {
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    v = get(o, path, key, v && isCount(*v), "an unsigned integer");
    return v ? v->get<std::uint64_t>() : 0;
  }
  int integer(const json &o, const std::string &path, const char *key) {
    return static_cast<int>(u64(o, path, key));
  }
  bool boolean(const json &o, const std::string &path, const char *key) {
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    v = get(o, path, key, v && v->is_boolean(), "true or false");
    return v && v->get<bool>();
  }
  const json &list(const json &o, const std::string &path, const char *key) {
    static const json empty = json::array();
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    v = get(o, path, key, v && v->is_array(), "a list");
    return v ? *v : empty;
  }
  const json &object(const json &o, const std::string &path, const char *key) {
    static const json empty = json::object();
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    v = get(o, path, key, v && v->is_object(), "an object");
    return v ? *v : empty;
  }
  /// null or absent: unknown.
  template <class T> std::optional<T> optional(const json &o, const std::string &path, const char *key) {
    const json *v = o.is_object() && o.contains(key) ? &o[key] : nullptr;
    if (!v || v->is_null())
      return std::nullopt;
    if (!isCount(*v)) {
      fail(path + key, "expected an unsigned integer or null");
      return std::nullopt;
    }
    return static_cast<T>(v->get<std::uint64_t>());
  }
  void fail(const std::string &path, const std::string &what) {
    if (!error)
      error = makeError(ExitCode::UsageError, path + ": " + what);
  }
  std::optional<Diagnostic> error;
};

ManifestImage readImage(Fields &f, const json &o, const std::string &path) {
  ManifestImage image;
  image.kind = f.str(o, path, "kind");
  image.rawSize = f.u64(o, path, "raw_size");
  image.storedSize = f.u64(o, path, "stored_size");
  image.compressed = f.boolean(o, path, "compressed");
  image.sha256 = f.str(o, path, "sha256");
  return image;
}

LaunchInfo readLaunch(Fields &f, const json &o, const std::string &path) {
  LaunchInfo l;
  l.numWarps = f.integer(o, path, "num_warps");
  l.warpSize = f.integer(o, path, "warp_size");
  auto triple = [&](const char *key, std::array<int, 3> &out) {
    const json &list = f.list(o, path, key);
    if (list.size() != 3 || !std::all_of(list.begin(), list.end(),
                                         [](const json &v) { return isCount(v); })) {
      f.fail(path + key, "expected three unsigned integers");
      return;
    }
    for (int i = 0; i < 3; ++i)
      out[i] = list[i].get<int>();
  };
  triple("block", l.block);
  l.shared = f.u64(o, path, "shared");
  l.numCtas = f.integer(o, path, "num_ctas");
  triple("cluster_dims", l.clusterDims);
  for (auto [key, scratch] : {std::pair{"global_scratch", &l.globalScratch},
                              std::pair{"profile_scratch", &l.profileScratch}}) {
    const json &s = f.object(o, path, key);
    scratch->size = f.u64(s, path + key + ".", "size");
    scratch->align = f.u64(s, path + key + ".", "align");
  }
  l.cooperative = f.boolean(o, path, "cooperative");
  l.pdl = f.boolean(o, path, "pdl");
  l.tmemSize = f.u64(o, path, "tmem_size");
  return l;
}

ManifestFunction readFunction(Fields &f, const json &o, const std::string &path) {
  ManifestFunction fn;
  fn.target = f.str(o, path, "target");
  fn.variantId = f.str(o, path, "variant_id");
  fn.entry = f.str(o, path, "entry");
  fn.launch = readLaunch(f, f.object(o, path, "launch"), path + "launch.");
  fn.launch.entry = fn.entry;
  const json &r = f.object(o, path, "resources");
  const std::string rp = path + "resources.";
  fn.resources.registers = f.optional<int>(r, rp, "registers");
  fn.resources.sgprs = f.optional<int>(r, rp, "sgprs");
  fn.resources.spills = f.optional<int>(r, rp, "spills");
  fn.resources.staticShared = f.optional<std::uint64_t>(r, rp, "static_shared");
  fn.image = readImage(f, f.object(o, path, "image"), path + "image.");
  if (o.is_object() && o.contains("ptx") && !o["ptx"].is_null())
    fn.ptx = readImage(f, f.object(o, path, "ptx"), path + "ptx.");
  return fn;
}

/// "x_ptr:16, n:1" in parameter order (JSON objects are unordered).
std::string hintsFromJson(const json &hints, const std::vector<std::string> &params) {
  std::string out;
  for (const std::string &name : params)
    if (hints.contains(name))
      out += (out.empty() ? "" : ", ") + name + ":" + hints[name].dump();
  return out.empty() ? "no hints" : out;
}

} // namespace

std::string hintCondition(const Kernel &kernel, const HintVariant &variant) {
  std::string out;
  for (std::size_t i = 0; i < kernel.cParams.size() && i < variant.hints.size(); ++i) {
    const CParam &p = kernel.cParams[i];
    std::string test;
    if (variant.hints[i] == 1)
      test = "(" + p.cName + " == 1)";
    else if (variant.hints[i] == 16 && p.cType == "const void *")
      test = "((uintptr_t)" + p.cName + " % 16 == 0)";
    else if (variant.hints[i] == 16)
      test = "(" + p.cName + " % 16 == 0)";
    else
      continue;
    out += (out.empty() ? "" : " && ") + test;
  }
  return out.empty() ? "1" : out;
}

json manifestJson(const Library &library, const ImageBlob &blob) {
  json kernels = json::array();
  for (const Kernel &kernel : library.kernels)
    kernels.push_back(kernelJson(library, blob, kernel));
  return {{"schema", kManifestSchema},
          {"schema_version", kManifestSchemaVersion},
          {"generator", std::string("triton-aot-ld ") + TRITON_AOT_VERSION},
          {"name", library.name},
          {"prefix", library.prefix},
          {"triton_versions", library.tritonVersions},
          {"kernels", std::move(kernels)}};
}

Expected<Manifest> parseManifest(const json &manifest) {
  Fields f;
  if (!manifest.is_object() || !manifest.contains("schema") || manifest["schema"] != kManifestSchema)
    return makeError(ExitCode::UsageError, std::string("not a triton-aot library manifest "
                                                       "(schema '") + kManifestSchema + "')");
  std::uint64_t version = f.u64(manifest, "", "schema_version");
  if (f.error)
    return *f.error;
  if (version > static_cast<std::uint64_t>(kManifestSchemaVersion))
    return makeError(ExitCode::UsageError,
                     "schema_version " + std::to_string(version) +
                         " is newer than this tool supports (" +
                         std::to_string(kManifestSchemaVersion) + "); update triton-aot");
  Manifest m;
  m.generator = f.str(manifest, "", "generator");
  m.name = f.str(manifest, "", "name");
  m.prefix = f.str(manifest, "", "prefix");
  for (const auto &v : f.list(manifest, "", "triton_versions"))
    m.tritonVersions.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  const auto &kernels = f.list(manifest, "", "kernels");
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const std::string kp = "kernels[" + std::to_string(k) + "].";
    ManifestKernel kernel;
    kernel.name = f.str(kernels[k], kp, "name");
    for (const auto &p : f.list(kernels[k], kp, "params"))
      kernel.params.push_back(f.str(p, kp + "params[].", "name"));
    for (const auto &t : f.list(kernels[k], kp, "targets"))
      kernel.targets.push_back(t.is_string() ? t.get<std::string>() : t.dump());
    const auto &configs = f.list(kernels[k], kp, "configs");
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const std::string cp = kp + "configs[" + std::to_string(c) + "].";
      ManifestConfig config;
      config.name = f.str(configs[c], cp, "name");
      config.named = f.boolean(configs[c], cp, "named");
      const auto &variants = f.list(configs[c], cp, "variants");
      for (std::size_t v = 0; v < variants.size(); ++v) {
        const std::string vp = cp + "variants[" + std::to_string(v) + "].";
        ManifestVariant variant;
        variant.hints = hintsFromJson(f.object(variants[v], vp, "hints"), kernel.params);
        if (auto h = variants[v].find("heuristics"); h != variants[v].end() && h->is_array()) {
          std::string values;
          for (const json &item : *h)
            if (item.is_object() && item.contains("value") && item.value("name", json()).is_string())
              values += ", " + item["name"].get<std::string>() + "=" + item["value"].dump();
          variant.hints = (variant.hints == "no hints" ? values.substr(2) : variant.hints + values);
        }
        variant.condition = f.str(variants[v], vp, "condition");
        const auto &functions = f.list(variants[v], vp, "functions");
        for (std::size_t i = 0; i < functions.size(); ++i) {
          if (auto refused = functions[i].find("refused");
              refused != functions[i].end() && refused->is_string()) {
            ManifestFunction function;
            function.target = f.str(functions[i], vp + "functions[].", "target");
            function.refused = refused->get<std::string>();
            variant.functions.push_back(std::move(function));
            continue;
          }
          variant.functions.push_back(
              readFunction(f, functions[i], vp + "functions[" + std::to_string(i) + "]."));
        }
        config.variants.push_back(std::move(variant));
      }
      kernel.configs.push_back(std::move(config));
    }
    m.kernels.push_back(std::move(kernel));
  }
  if (f.error)
    return *f.error;
  return m;
}

} // namespace tta::link
