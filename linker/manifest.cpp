#include "linker/manifest.h"

#include <algorithm>

namespace tta::link {

using nlohmann::json;

namespace {

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
    // What the kernel writes through (found in its IR by the compiler): a pointer's, or a
    // descriptor's base's; unknown (absent) in metadata of older compilers.
    const std::string_view kind = paramKind(p);
    const bool points = kind == "pointer" || kind == "tensordesc";
    if (points && p.kernelIndex < kernel.params.size() && kernel.params[p.kernelIndex].written)
      param["written"] = *kernel.params[p.kernelIndex].written;
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

} // namespace tta::link
