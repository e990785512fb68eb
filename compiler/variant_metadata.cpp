#include "compiler/variant_metadata.h"

#include "compiler/cache.h"
#include "compiler/compiler.h"
#include "compiler/frontend_client.h"
#include "compiler/naming.h"
#include "contract/image_info.h"
#include "contract/json_access.h"

#include <algorithm>
#include <cstdio>
#include <span>

namespace tta {

namespace {

/// An integer field of Triton's metadata; absent or null (older Triton, other backend) gives
/// \p fallback.
template <class T> T number(const nlohmann::json &md, const char *key, T fallback) {
  auto value = integerOf(md, key);
  return value && *value >= 0 ? static_cast<T>(*value) : fallback;
}

ImageFile imageFile(const std::string &kind, const std::filesystem::path &path,
                    const std::string &bytes) {
  return {kind, path.filename().string(), bytes.size(), sha256Hex(bytes)};
}

/// The frontend's pointer_writes (one answer per pointer and tensordesc argument of the
/// compiled IR, in order) onto those params. Counts that differ leave them unknown, which every
/// reader takes as written: never a read-only mark the IR did not show.
void markWrittenParams(const nlohmann::json &result, std::vector<ParamInfo> &params) {
  const nlohmann::json *writes = member(result, "pointer_writes");
  if (!writes || !writes->is_array())
    return;
  std::vector<ParamInfo *> pointers;
  for (ParamInfo &p : params)
    if (p.kind == ParamInfo::Kind::Pointer || p.kind == ParamInfo::Kind::TensorDesc)
      pointers.push_back(&p);
  if (pointers.size() != writes->size())
    return;
  for (std::size_t i = 0; i < pointers.size(); ++i)
    pointers[i]->written = (*writes)[i].is_boolean() && (*writes)[i].get<bool>();
}

/// What the @triton.autotune layer of the description says (its key, the arguments it resets
/// or restores, the pre-hooks the declaration dropped); none without one.
std::optional<AutotuneInfo> autotuneInfo(const KernelSpec &kernel, const nlohmann::json &describe) {
  const nlohmann::json *autotune = member(describe, "autotune");
  if (!autotune || !autotune->is_object())
    return std::nullopt;
  AutotuneInfo info;
  auto names = [&](const char *key, std::vector<std::string> &out) {
    for (const auto &item : arrayOf(*autotune, key))
      if (item.is_string())
        out.push_back(item.get<std::string>());
  };
  names("key", info.key);
  names("reset_to_zero", info.resetToZero);
  names("restore_value", info.restoreValue);
  info.configsFrom = kernel.configsFromDecorator ? "decorator" : "declaration";
  if (kernel.configsFromDecorator && kernel.dropPreHooks)
    for (const auto &tuned : arrayOf(*autotune, "configs"))
      if (std::string hook = stringOr(objectOf(tuned, "pre_hook"), "name"); !hook.empty() &&
          std::find(info.droppedPreHooks.begin(), info.droppedPreHooks.end(), hook) ==
              info.droppedPreHooks.end())
        info.droppedPreHooks.push_back(hook);
  return info;
}

/// The variant: its id, config, signature, warps and stages, options, autotune facts.
VariantInfo variantInfo(const KernelSpec &kernel, const Target &target,
                        const Signature &signature, const Config &config, const std::string &id,
                        const nlohmann::json &md, const nlohmann::json &describe) {
  VariantInfo variant;
  variant.id = id;
  variant.config = config.name;
  variant.signature = formatSignature(signature);
  variant.numWarps = config.numWarps.value_or(number<int>(md, "num_warps", 0));
  // A .ttgir fixes its own stages; Triton records them (else the backend's default).
  variant.numStages = config.numStages.value_or(
      number<int>(md, "num_stages", target.backend == Backend::Cuda ? 3 : 2));
  nlohmann::json options = requestOptions(config);
  options.erase("num_warps");
  options.erase("num_stages");
  variant.options = options;
  variant.autotune = autotuneInfo(kernel, describe);
  return variant;
}

/// A tensor descriptor parameter (the CUtensorMap, with the TMA facts the frontend gave as the
/// \p index-th of the result's "tensordescs"), then the shape (i32) and strides (i64) Triton's
/// launcher passes after it, one per dimension.
Status appendTensorDescParams(ParamInfo p, const SignatureEntry &entry, std::size_t index,
                              const nlohmann::json &result, const std::string &id,
                              std::vector<ParamInfo> &params) {
  const nlohmann::json &facts = arrayOf(result, "tensordescs");
  SignatureEntry bare = entry;
  bare.keyword.clear();
  if (index < facts.size()) // the block shape compiled: a config's pre_hook may set it
    if (const nlohmann::json *shape = member(facts[index], "block_shape");
        shape && shape->is_array() && !shape->empty()) {
      bare.blockShape.clear();
      for (const auto &dim : *shape)
        bare.blockShape.push_back(dim.is_number_integer() ? dim.get<std::int64_t>() : 0);
    }
  const int rank = static_cast<int>(bare.blockShape.size());
  if (index >= facts.size() || number<int>(facts[index], "rank", 0) != rank)
    return makeError(ExitCode::InternalError,
                     "the frontend gave no TMA facts for the tensor descriptor " + p.name +
                         " of " + id);
  const nlohmann::json &f = facts[index];
  p.kind = ParamInfo::Kind::TensorDesc;
  p.type = formatEntry(bare);
  p.size = 128;
  TensorDescInfo info;
  info.rank = rank;
  info.dataType = number<int>(f, "data_type", 0);
  info.elemSize = number<int>(f, "elem_size", 0);
  info.swizzle = number<int>(f, "swizzle", 0);
  for (const auto &b : arrayOf(f, "box"))
    info.box.push_back(b.is_number_integer() ? b.get<int>() : 0);
  info.fp4Padded = boolOr(f, "fp4_padded", false);
  info.shapeArgsPadded = boolOr(f, "shape_args_padded", false);
  p.tensordesc = std::move(info);
  const std::string base = p.name;
  params.push_back(std::move(p));
  for (const char *part : {"shape", "stride"})
    for (int d = 0; d < rank; ++d) {
      ParamInfo extra;
      const bool shape = std::string_view(part) == "shape";
      extra.name = base + "." + part + std::to_string(d);
      extra.kind = shape ? ParamInfo::Kind::TensorDescShape : ParamInfo::Kind::TensorDescStride;
      extra.type = shape ? "i32" : "i64";
      extra.size = shape ? 4 : 8;
      params.push_back(std::move(extra));
    }
  return ok();
}

/// A Python kernel's parameters, in declaration order, from the variant's signature and the
/// description's names; constexprs and parameters specialized to 1 also go to the variant's
/// constexprs. \p names gets the names a grid may use.
Status appendPythonParams(const Signature &signature, const nlohmann::json &declared,
                          const nlohmann::json &result, const std::string &id,
                          KernelMetadata &meta, std::vector<std::string> &names) {
  std::size_t tensordescs = 0;
  for (std::size_t i = 0; i < signature.entries.size(); ++i) {
    const SignatureEntry &entry = signature.entries[i];
    ParamInfo p;
    p.name = i < declared.size() ? stringOr(declared[i], "name") : "arg" + std::to_string(i);
    p.hint = entry.hint;
    switch (entry.kind) {
    case SignatureEntry::Kind::Pointer:
      p.kind = ParamInfo::Kind::Pointer;
      p.type = "*" + std::string(typeInfo(entry.type).name);
      p.size = 8;
      break;
    case SignatureEntry::Kind::Scalar:
      p.type = std::string(typeInfo(entry.type).name);
      if (entry.hint == 1) {
        p.kind = ParamInfo::Kind::SpecializedToOne;
        p.value = 1;
        p.valueText = "1";
        meta.variant.constexprs[p.name] = 1;
      } else {
        p.kind = ParamInfo::Kind::Scalar;
        p.size = typeInfo(entry.type).size;
      }
      break;
    case SignatureEntry::Kind::TensorDesc:
      names.push_back(p.name);
      if (Status s = appendTensorDescParams(std::move(p), entry, tensordescs++, result, id,
                                            meta.params);
          !s)
        return s;
      continue;
    case SignatureEntry::Kind::Constexpr:
      p.kind = ParamInfo::Kind::Constexpr;
      p.type = "constexpr";
      p.value = constexprJson(entry.value);
      p.valueText = formatConstexpr(entry.value);
      meta.variant.constexprs[p.name] = p.value;
      break;
    }
    names.push_back(p.name);
    meta.params.push_back(std::move(p));
  }
  return ok();
}

/// An IR source's parameters: types and hints come from the IR itself.
Status appendIrParams(const nlohmann::json &declared, std::vector<ParamInfo> &params,
                      std::vector<std::string> &names) {
  for (const auto &param : declared) {
    ParamInfo p;
    p.name = stringOr(param, "name", "arg" + std::to_string(params.size()));
    p.type = stringOr(param, "type");
    p.hint = static_cast<int>(integerOf(param, "hint").value_or(0));
    bool pointer = !p.type.empty() && p.type[0] == '*';
    auto scalar = parseScalarType(pointer ? p.type.substr(1) : p.type);
    if (!scalar)
      return makeError(ExitCode::KernelError, "parameter '" + p.name + "' of the IR has type '" +
                                                  p.type + "', which triton-aot cannot pass");
    p.kind = pointer ? ParamInfo::Kind::Pointer : ParamInfo::Kind::Scalar;
    p.size = pointer ? 8 : typeInfo(*scalar).size;
    names.push_back(p.name);
    params.push_back(std::move(p));
  }
  return ok();
}

/// What Triton appends to every kernel's parameters (its scratch buffers).
void appendTrailingParams(const nlohmann::json &result, std::vector<ParamInfo> &params) {
  for (const auto &trailing : arrayOf(result, "trailing_params")) {
    ParamInfo p;
    p.name = trailing.is_string() ? trailing.get<std::string>() : "";
    p.kind = p.name == "profile_scratch" ? ParamInfo::Kind::ProfileScratch
                                         : ParamInfo::Kind::GlobalScratch;
    p.type = "*i8";
    p.size = 8;
    params.push_back(std::move(p));
  }
}

/// How the variant is launched, from Triton's metadata.
Expected<LaunchInfo> launchInfo(const nlohmann::json &result, const nlohmann::json &md,
                                const std::string &function, const Target &target,
                                const std::string &id) {
  LaunchInfo launch;
  launch.entry = stringOr(result, "entry", stringOr(md, "name", function));
  launch.numWarps = number<int>(md, "num_warps", 0);
  launch.warpSize = number<int>(md, "warp_size", target.warpSize);
  launch.block = {launch.numWarps * launch.warpSize, 1, 1};
  launch.shared = number<std::uint64_t>(md, "shared", 0);
  launch.numCtas = number<int>(md, "num_ctas", 1);
  launch.clusterDims = {launch.numCtas, 1, 1};
  const nlohmann::json &clusterDims = arrayOf(md, "cluster_dims");
  if (clusterDims.size() == 3)
    for (std::size_t i = 0; i < 3; ++i)
      if (clusterDims[i].is_number_integer())
        launch.clusterDims[i] = clusterDims[i].get<int>();
  launch.globalScratch = {number<std::uint64_t>(md, "global_scratch_size", 0),
                          std::max<std::uint64_t>(1, number<std::uint64_t>(md, "global_scratch_align", 1))};
  launch.profileScratch = {number<std::uint64_t>(md, "profile_scratch_size", 0),
                           std::max<std::uint64_t>(1, number<std::uint64_t>(md, "profile_scratch_align", 1))};
  launch.cooperative = boolOr(md, "launch_cooperative_grid", false);
  launch.pdl = boolOr(md, "launch_pdl", false);
  launch.tmemSize = number<std::uint64_t>(md, "tmem_size", 0);
  if (launch.numWarps <= 0 || launch.warpSize <= 0)
    return makeError(ExitCode::InternalError,
                     "Triton's metadata for " + id + " has no usable num_warps / warp_size");
  return launch;
}

/// The image (and PTX when written), checked: it must be what the target asked for; the
/// entry's resources are read from it.
Status attachImages(const Target &target, const std::string &id, const OutputPaths &paths,
                    const std::map<std::string, std::string> &files, bool writePtx,
                    KernelMetadata &meta) {
  auto image = files.find("image");
  if (image == files.end())
    return makeError(ExitCode::InternalError, "the frontend returned no image for " + id);
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t *>(image->second.data()),
                                      image->second.size());
  auto info = inspectImage(bytes);
  if (!info)
    return makeError(ExitCode::InternalError,
                     "Triton's image for " + id + " is unreadable: " + info.error().message);
  if (Status s = checkImageMatchesTarget(*info, target); !s)
    return makeError(ExitCode::InternalError,
                     "Triton's image for " + id + " does not match its target: " + s.error().message);
  if (auto it = info->kernels.find(meta.launch.entry); it != info->kernels.end())
    meta.resources = it->second;
  meta.images.push_back(imageFile(target.backend == Backend::Cuda ? "cubin" : "hsaco", paths.image,
                                  image->second));
  if (auto ptx = files.find("ptx"); ptx != files.end() && writePtx)
    meta.images.push_back(imageFile("ptx", paths.ptx, ptx->second));
  return ok();
}

} // namespace

Expected<KernelMetadata> buildMetadata(const KernelSpec &kernel, const std::string &name,
                                       const Target &target, const Signature &signature,
                                       const Config &config, const std::string &id,
                                       const OutputPaths &paths,
                                       const nlohmann::json &result,
                                       const std::map<std::string, std::string> &files,
                                       bool writePtx) {
  const nlohmann::json &md = objectOf(result, "metadata");
  const nlohmann::json &describe = objectOf(result, "describe");
  const nlohmann::json &declared = arrayOf(describe, "params");

  KernelMetadata meta;
  meta.generator = std::string("triton-aot-cc ") + TRITON_AOT_VERSION;
  meta.tritonVersion = stringOr(result, "triton_version", stringOr(md, "triton_version"));
  meta.name = name;
  meta.function = kernel.function.empty() ? stringOr(describe, "function", name) : kernel.function;
  meta.source = kernel.source;
  meta.sourceKind = kernel.sourceKind;
  meta.target = target;
  meta.imageArch = stringOr(result, "image_arch");
  meta.tritonHash = stringOr(md, "hash");
  meta.variant = variantInfo(kernel, target, signature, config, id, md, describe);

  // Parameters: declaration order, then what Triton appends.
  std::vector<std::string> names;   // those a grid expression may use
  Status params = kernel.sourceKind == "python"
                      ? appendPythonParams(signature, declared, result, id, meta, names)
                      : appendIrParams(declared, meta.params, names);
  if (!params)
    return params.takeError();
  markWrittenParams(result, meta.params);
  appendTrailingParams(result, meta.params);

  auto launch = launchInfo(result, md, meta.function, target, id);
  if (!launch)
    return launch.takeError();
  meta.launch = std::move(*launch);

  // Grid: the expressions may only use parameter and constexpr names; none: the caller's grid.
  if (kernel.grid) {
    if (Status s = checkGridNames(*kernel.grid, names); !s)
      return s.takeError();
    meta.grid = kernel.grid->dims;
  }
  if (Status s = attachImages(target, id, paths, files, writePtx, meta); !s)
    return s.takeError();
  return meta;
}

namespace {

/// The run's time beside its floor: N compiles of t_i seconds on J workers take at least
/// max(sum t_i / J, max t_i), before any worker starts. Compiles the target refused once
/// compiled (too much shared memory) are Triton's work too, and count.
std::string floorLine(const CompileOutcome &outcome) {
  std::vector<double> times = outcome.refusedCompileSeconds;
  for (const CompiledVariant &v : outcome.variants)
    if (v.compileSeconds)
      times.push_back(*v.compileSeconds);
  if (times.empty() || outcome.seconds <= 0)
    return {};
  double sum = 0, longest = 0;
  for (double t : times) {
    sum += t;
    longest = std::max(longest, t);
  }
  const int workers = std::max(1, std::min(outcome.workers, static_cast<int>(times.size())));
  const double floor = std::max(sum / workers, longest);
  std::string refused;
  if (!outcome.refusedCompileSeconds.empty())
    refused = ", " + std::to_string(outcome.refusedCompileSeconds.size()) +
              " of them refused by the target";
  char text[400];
  std::snprintf(text, sizeof text,
                "time: %.2f s; the floor with %d worker(s) is %.2f s (Triton's compiles: %.2f s "
                "in all%s, the longest %.2f s), so this run took %.2fx it\n",
                outcome.seconds, workers, floor, sum, refused.c_str(), longest,
                floor > 0 ? outcome.seconds / floor : 0.0);
  return text;
}

} // namespace

std::string formatSummary(const CompileOutcome &outcome) {
  const std::vector<CompiledVariant> &variants = outcome.variants;
  struct Row {
    std::vector<std::string> cells;
  };
  std::vector<std::string> header = {"kernel", "target", "config", "signature", "image",
                                     "bytes",  "shared", "regs",   "spills", "from"};
  static const char *const kOrigin[] = {"compiled", "local cache", "remote cache"};
  std::size_t counts[3] = {0, 0, 0};
  std::vector<Row> rows;
  auto orDash = [](const auto &value) {
    return value ? std::to_string(*value) : std::string("-");
  };
  for (const CompiledVariant &v : variants) {
    const KernelMetadata &m = v.metadata;
    std::string config = m.variant.config;
    if (config.empty()) {
      for (const auto &[name, value] : m.variant.constexprs)
        config += name + "=" + value.dump() + " ";
      config += "w" + std::to_string(m.variant.numWarps) + " s" + std::to_string(m.variant.numStages);
    }
    std::string signature = m.variant.signature;
    if (signature.size() > 44)
      signature = signature.substr(0, 41) + "...";
    rows.push_back({{m.name, m.target.spelling(), config, signature, m.imageArch,
                     std::to_string(m.images.empty() ? 0 : m.images[0].size),
                     std::to_string(m.launch.shared), orDash(m.resources.registers),
                     orDash(m.resources.spills), kOrigin[static_cast<int>(v.origin)]}});
    ++counts[static_cast<int>(v.origin)];
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const Row &r : rows)
      width[c] = std::max(width[c], r.cells[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string> &cells) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      bool numeric = c >= 5 && c <= 8;
      std::string pad(width[c] - cells[c].size(), ' ');
      text += numeric ? pad + cells[c] : cells[c] + pad;
      text += c + 1 < cells.size() ? "  " : "";
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += text + '\n';
  };
  line(header);
  for (const Row &r : rows)
    line(r.cells);
  out += describeVariantOrigins(counts[0], counts[1], counts[2]) + "\n";
  // What --specialize-for costs: its variants' share of the images and their bytes.
  std::size_t added = 0, addedBytes = 0, bytes = 0;
  for (const CompiledVariant &v : variants) {
    const std::size_t size = v.metadata.images.empty() ? 0 : v.metadata.images[0].size;
    bytes += size;
    if (!v.specializedFor.empty()) {
      ++added;
      addedBytes += size;
    }
  }
  if (added)
    out += "specialization: " + std::to_string(added) + " of " + std::to_string(variants.size()) +
           " images (" + std::to_string(addedBytes) + " of " + std::to_string(bytes) +
           " bytes) are variants --specialize-for added\n";
  out += floorLine(outcome);
  return out;
}

} // namespace tta
