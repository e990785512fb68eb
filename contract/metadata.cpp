#include "contract/metadata.h"

#include "contract/types.h"

#include <algorithm>
#include <climits>
#include <set>

namespace tta {

using nlohmann::json;

const char *paramKindName(ParamInfo::Kind kind) {
  switch (kind) {
  case ParamInfo::Kind::Pointer:
    return "pointer";
  case ParamInfo::Kind::Scalar:
    return "scalar";
  case ParamInfo::Kind::Constexpr:
    return "constexpr";
  case ParamInfo::Kind::SpecializedToOne:
    return "specialized_to_one";
  case ParamInfo::Kind::HeuristicInput:
    return "heuristic_input";
  case ParamInfo::Kind::TensorDesc:
    return "tensordesc";
  case ParamInfo::Kind::TensorDescShape:
    return "tensordesc_shape";
  case ParamInfo::Kind::TensorDescStride:
    return "tensordesc_stride";
  case ParamInfo::Kind::GlobalScratch:
    return "global_scratch";
  case ParamInfo::Kind::ProfileScratch:
    return "profile_scratch";
  }
  return "unknown";
}

namespace {

constexpr ParamInfo::Kind kParamKinds[] = {
    ParamInfo::Kind::Pointer,          ParamInfo::Kind::Scalar,
    ParamInfo::Kind::Constexpr,        ParamInfo::Kind::SpecializedToOne,
    ParamInfo::Kind::HeuristicInput,   ParamInfo::Kind::TensorDesc,
    ParamInfo::Kind::TensorDescShape,  ParamInfo::Kind::TensorDescStride,
    ParamInfo::Kind::GlobalScratch,    ParamInfo::Kind::ProfileScratch};

/// Constexpr, ":1" and heuristic-input parameters are compiled in: they carry a value and take
/// no argument slot.
bool isCompiledIn(ParamInfo::Kind kind) {
  return kind == ParamInfo::Kind::Constexpr || kind == ParamInfo::Kind::SpecializedToOne ||
         kind == ParamInfo::Kind::HeuristicInput;
}

bool isTrailing(ParamInfo::Kind kind) {
  return kind == ParamInfo::Kind::GlobalScratch || kind == ParamInfo::Kind::ProfileScratch;
}

json scratchJson(const ScratchInfo &scratch) {
  return {{"size", scratch.size}, {"align", scratch.align}};
}

json resourcesJson(const ResourceInfo &resources) {
  json out = json::object(); // unknown figures are left out, never written as 0
  if (resources.registers)
    out["registers"] = *resources.registers;
  if (resources.sgprs)
    out["sgprs"] = *resources.sgprs;
  if (resources.spills)
    out["spills"] = *resources.spills;
  if (resources.staticShared)
    out["static_shared"] = *resources.staticShared;
  return out;
}

} // namespace

json toJson(const KernelMetadata &meta) {
  json params = json::array();
  for (const ParamInfo &param : meta.params) {
    json out = {{"name", param.name},
                {"kind", paramKindName(param.kind)},
                {"type", param.type},
                {"size", param.size},
                {"hint", param.hint}};
    if (isCompiledIn(param.kind)) {
      out["value"] = param.value;
      out["value_text"] = param.valueText;
    }
    if (param.tensordesc) {
      const TensorDescInfo &t = *param.tensordesc;
      out["tensordesc"] = {{"rank", t.rank},         {"data_type", t.dataType},
                           {"elem_size", t.elemSize}, {"swizzle", t.swizzle},
                           {"box", t.box},            {"fp4_padded", t.fp4Padded},
                           {"shape_args_padded", t.shapeArgsPadded}};
    }
    params.push_back(std::move(out));
  }
  json images = json::array();
  for (const ImageFile &image : meta.images)
    images.push_back(
        {{"kind", image.kind}, {"file", image.file}, {"size", image.size}, {"sha256", image.sha256}});

  const LaunchInfo &launch = meta.launch;
  const VariantInfo &variant = meta.variant;
  json out = {
      {"schema", kMetadataSchema},
      {"schema_version", meta.schemaVersion},
      {"generator", meta.generator},
      {"triton_version", meta.tritonVersion},
      {"kernel",
       {{"name", meta.name},
        {"function", meta.function},
        {"source", meta.source},
        {"source_kind", meta.sourceKind}}},
      {"target",
       {{"backend", backendName(meta.target.backend)},
        {"arch", meta.target.arch},
        {"spelling", meta.target.spelling()},
        {"warp_size", meta.target.warpSize},
        {"image_arch", meta.imageArch}}},
      {"variant",
       {{"id", variant.id},
        {"config", variant.config},
        {"signature", variant.signature},
        {"constexprs", variant.constexprs},
        {"num_warps", variant.numWarps},
        {"num_stages", variant.numStages},
        {"options", variant.options}}},
      {"params", std::move(params)},
      {"launch",
       {{"entry", launch.entry},
        {"num_warps", launch.numWarps},
        {"warp_size", launch.warpSize},
        {"block", launch.block},
        {"shared", launch.shared},
        {"num_ctas", launch.numCtas},
        {"cluster_dims", launch.clusterDims},
        {"global_scratch", scratchJson(launch.globalScratch)},
        {"profile_scratch", scratchJson(launch.profileScratch)},
        {"cooperative", launch.cooperative},
        {"pdl", launch.pdl},
        {"tmem_size", launch.tmemSize}}},
      {"images", std::move(images)},
      {"resources", resourcesJson(meta.resources)},
      {"triton_hash", meta.tritonHash},
  };
  if (!variant.heuristics.empty()) {
    json heuristics = json::array();
    for (const HeuristicRecord &h : variant.heuristics)
      heuristics.push_back({{"name", h.name},
                            {"expression", h.expression},
                            {"written", h.written},
                            {"runtime", h.runtime},
                            {"value", h.value}});
    out["variant"]["heuristics"] = std::move(heuristics);
  }
  if (variant.configIndex)
    out["variant"]["config_index"] = *variant.configIndex;
  if (const std::optional<AutotuneInfo> &autotune = variant.autotune)
    out["variant"]["autotune"] = {{"key", autotune->key},
                                  {"reset_to_zero", autotune->resetToZero},
                                  {"restore_value", autotune->restoreValue},
                                  {"configs", autotune->configsFrom},
                                  {"dropped_pre_hooks", autotune->droppedPreHooks}};
  // Left out: the caller passes the grid (docs/metadata.md).
  if (meta.grid)
    out["grid"] = *meta.grid;
  return out;
}

// --- Reading ---------------------------------------------------------------------------------
//
// The reader stops at the first problem. A local exception carries it up to parseMetadata(),
// which turns it into a Diagnostic; otherwise every one of the ~60 field reads below would
// need its own early return.

namespace {

struct FieldError {
  std::string message;
};

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw FieldError{path.empty() ? what : path + ": " + what};
}

/// A value as it appears in the file, shortened for a message.
std::string show(const json &value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

std::uint64_t readUnsigned(const json &value, const std::string &path) {
  if (value.is_number_unsigned())
    return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  fail(path, "expected an unsigned integer, got " + show(value));
}

int readInt(const json &value, const std::string &path, int min) {
  if (!value.is_number_integer())
    fail(path, "expected an integer, got " + show(value));
  if (value.is_number_unsigned() ? value.get<std::uint64_t>() > INT_MAX
                                 : value.get<std::int64_t>() > INT_MAX)
    fail(path, show(value) + " is too large");
  auto number = value.get<std::int64_t>();
  if (number < min)
    fail(path, "expected an integer >= " + std::to_string(min) + ", got " + show(value));
  return static_cast<int>(number);
}

std::string readString(const json &value, const std::string &path, bool allowEmpty) {
  if (!value.is_string())
    fail(path, "expected a string, got " + show(value));
  if (!allowEmpty && value.get_ref<const std::string &>().empty())
    fail(path, "expected a non-empty string");
  return value.get<std::string>();
}

const json &checkArray(const json &value, const std::string &path) {
  if (!value.is_array())
    fail(path, "expected an array, got " + show(value));
  return value;
}

std::string indexPath(const std::string &path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::array<int, 3> readTriple(const json &value, const std::string &path) {
  if (!value.is_array() || value.size() != 3)
    fail(path, "expected an array of 3 integers, got " + show(value));
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i)
    out[i] = readInt(value[i], indexPath(path, i), 1);
  return out;
}

/// One JSON object being read, with its path for messages ("launch", "params[2]").
class ObjectReader {
public:
  ObjectReader(const json &value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value_.is_object())
      fail(path_, "expected an object, got " + show(value_));
  }

  std::string path(const char *key) const { return path_.empty() ? key : path_ + "." + key; }

  /// A required field; null is a value here (and then usually the wrong type).
  const json &get(const char *key) const {
    auto it = value_.find(key);
    if (it == value_.end())
      fail(path(key), "missing required field");
    return *it;
  }
  /// An optional field: absent and null both mean "not given".
  const json *find(const char *key) const {
    auto it = value_.find(key);
    return it == value_.end() || it->is_null() ? nullptr : &*it;
  }

  std::string string(const char *key, bool allowEmpty = false) const {
    return readString(get(key), path(key), allowEmpty);
  }
  std::uint64_t uint64(const char *key) const { return readUnsigned(get(key), path(key)); }
  int integer(const char *key, int min) const { return readInt(get(key), path(key), min); }
  bool boolean(const char *key) const {
    const json &value = get(key);
    if (!value.is_boolean())
      fail(path(key), "expected true or false, got " + show(value));
    return value.get<bool>();
  }
  std::array<int, 3> triple(const char *key) const { return readTriple(get(key), path(key)); }
  const json &array(const char *key) const { return checkArray(get(key), path(key)); }
  ObjectReader object(const char *key) const { return ObjectReader(get(key), path(key)); }
  const json &value() const { return value_; }

private:
  const json &value_;
  std::string path_;
};

/// Reads the string at \p key and checks it is one of \p allowed.
std::string readChoice(const ObjectReader &obj, const char *key,
                       std::initializer_list<std::string_view> allowed) {
  std::string value = obj.string(key);
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return value;
  std::string list;
  for (std::string_view choice : allowed)
    list += (list.empty() ? "" : ", ") + std::string(choice);
  fail(obj.path(key), "expected one of " + list + "; got " + show(obj.get(key)));
}

void readSchema(const ObjectReader &top, KernelMetadata &meta) {
  if (top.value().find("schema") == top.value().end())
    fail("schema", std::string("missing required field; this is not a ") + kMetadataSchema +
                       " metadata file");
  if (top.get("schema") != kMetadataSchema)
    fail("schema", std::string("expected \"") + kMetadataSchema + "\", got " +
                       show(top.get("schema")));
  meta.schemaVersion = top.integer("schema_version", 1);
  if (meta.schemaVersion > kMetadataSchemaVersion)
    fail("", "schema_version " + std::to_string(meta.schemaVersion) +
                 " is newer than this tool supports (" + std::to_string(kMetadataSchemaVersion) +
                 "); update triton-aot");
}

void readTarget(const ObjectReader &obj, KernelMetadata &meta) {
  // The spelling is the one authority; the other fields are for readers without a parser and
  // must agree with it.
  std::string spelling = obj.string("spelling");
  Expected<Target> target = parseTarget(spelling);
  if (!target)
    fail(obj.path("spelling"), target.error().message);
  meta.target = *target;
  std::string backend = obj.string("backend");
  if (backend != backendName(target->backend))
    fail(obj.path("backend"), show(obj.get("backend")) + " does not match spelling \"" +
                                  spelling + "\"");
  if (obj.string("arch") != target->arch)
    fail(obj.path("arch"), show(obj.get("arch")) + " does not match spelling \"" + spelling +
                               "\" (expected \"" + target->arch + "\")");
  int warpSize = obj.integer("warp_size", 1);
  if (warpSize != target->warpSize)
    fail(obj.path("warp_size"), std::to_string(warpSize) + " does not match " + spelling +
                                    ", whose warps have " + std::to_string(target->warpSize) +
                                    " threads");
  meta.imageArch = obj.string("image_arch");
}

void readVariant(const ObjectReader &obj, VariantInfo &variant) {
  variant.id = obj.string("id");
  variant.config = obj.string("config", /*allowEmpty=*/true);
  if (obj.find("config_index"))
    variant.configIndex = obj.integer("config_index", 0);
  variant.signature = obj.string("signature", /*allowEmpty=*/true);
  ObjectReader constexprs = obj.object("constexprs");
  for (const auto &[name, value] : constexprs.value().items())
    variant.constexprs[name] = value;
  variant.numWarps = obj.integer("num_warps", 1);
  variant.numStages = obj.integer("num_stages", 1);
  variant.options = obj.object("options").value();
  if (const json *heuristics = obj.find("heuristics")) {
    const std::string where = obj.path("heuristics");
    checkArray(*heuristics, where);
    for (std::size_t i = 0; i < heuristics->size(); ++i) {
      ObjectReader item((*heuristics)[i], indexPath(where, i));
      HeuristicRecord h;
      h.name = item.string("name");
      h.expression = item.string("expression");
      h.written = item.string("written", /*allowEmpty=*/true);
      h.runtime = item.boolean("runtime");
      h.value = item.get("value");
      if (!h.value.is_boolean() && !h.value.is_number() && !h.value.is_null())
        fail(item.path("value"), "expected a bool, number or null, got " + show(h.value));
      variant.heuristics.push_back(std::move(h));
    }
  }
  if (obj.find("autotune")) {
    ObjectReader autotune = obj.object("autotune");
    AutotuneInfo info;
    auto names = [&](const char *key, std::vector<std::string> &out) {
      const json &list = autotune.array(key);
      for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(readString(list[i], indexPath(autotune.path(key), i), false));
    };
    names("key", info.key);
    names("reset_to_zero", info.resetToZero);
    names("restore_value", info.restoreValue);
    info.configsFrom = readChoice(autotune, "configs", {"decorator", "declaration"});
    names("dropped_pre_hooks", info.droppedPreHooks);
    variant.autotune = std::move(info);
  }
}

// The launcher sizes the argument buffer from these, so they must be exactly right.
bool sizeAllowed(ParamInfo::Kind kind, std::uint64_t size) {
  if (isCompiledIn(kind))
    return size == 0;
  if (kind == ParamInfo::Kind::Scalar)
    return size == 1 || size == 2 || size == 4 || size == 8;
  if (kind == ParamInfo::Kind::TensorDesc)
    return size == 128; // the CUtensorMap
  if (kind == ParamInfo::Kind::TensorDescShape)
    return size == 4;
  return size == 8; // pointers, tensordesc strides, scratch pointers
}

std::string allowedSizes(ParamInfo::Kind kind) {
  if (isCompiledIn(kind))
    return "0 (it is not passed)";
  if (kind == ParamInfo::Kind::TensorDesc)
    return "128";
  if (kind == ParamInfo::Kind::TensorDescShape)
    return "4";
  return kind == ParamInfo::Kind::Scalar ? "1, 2, 4 or 8" : "8";
}

ParamInfo readParam(const ObjectReader &obj) {
  ParamInfo param;
  param.name = obj.string("name");
  std::string kind = readChoice(obj, "kind",
                                {"pointer", "scalar", "constexpr", "specialized_to_one",
                                 "heuristic_input", "tensordesc", "tensordesc_shape",
                                 "tensordesc_stride", "global_scratch", "profile_scratch"});
  for (ParamInfo::Kind candidate : kParamKinds)
    if (kind == paramKindName(candidate))
      param.kind = candidate;
  param.type = obj.string("type");
  param.size = obj.uint64("size");
  param.hint = obj.integer("hint", 0);
  if (param.hint != 0 && param.hint != 1 && param.hint != 16)
    fail(obj.path("hint"), "expected 0, 1 or 16, got " + std::to_string(param.hint));

  if (!sizeAllowed(param.kind, param.size))
    fail(obj.path("size"), std::to_string(param.size) + " is not a valid size for a " + kind +
                               " parameter; expected " + allowedSizes(param.kind));
  if (isCompiledIn(param.kind)) {
    param.value = obj.get("value");
    param.valueText = obj.string("value_text");
    if (param.kind == ParamInfo::Kind::SpecializedToOne && param.value != 1)
      fail(obj.path("value"), "a specialized_to_one parameter has the value 1, got " +
                                  show(param.value));
  }
  if (param.kind == ParamInfo::Kind::HeuristicInput) {
    // The generated C computes the heuristic from it: a scalar C has arithmetic on.
    auto scalar = parseScalarType(param.type);
    if (!scalar || !typeInfo(*scalar).scalarAllowed || *scalar == ScalarType::FP16 ||
        *scalar == ScalarType::BF16)
      fail(obj.path("type"), "a heuristic_input parameter takes a scalar type C computes with "
                             "(i1, i8 ... i64, u8 ... u64, fp32, fp64), got " + show(param.type));
  }
  if (param.kind == ParamInfo::Kind::TensorDesc) {
    const ObjectReader t = obj.object("tensordesc");
    TensorDescInfo info;
    info.rank = t.integer("rank", 1);
    if (info.rank > 5)
      fail(t.path("rank"), "expected 1 to 5 dimensions, got " + std::to_string(info.rank));
    info.dataType = t.integer("data_type", 0);
    info.elemSize = t.integer("elem_size", 1);
    info.swizzle = t.integer("swizzle", 0);
    const json &box = t.array("box");
    if (box.size() != static_cast<std::size_t>(info.rank))
      fail(t.path("box"), "expected " + std::to_string(info.rank) + " entries (the rank), got " +
                              show(box));
    for (std::size_t d = 0; d < box.size(); ++d) {
      info.box.push_back(readInt(box[d], indexPath(t.path("box"), d), 1));
      if (info.box.back() > 256)
        fail(indexPath(t.path("box"), d), "a TMA box holds at most 256 elements per dimension");
    }
    info.fp4Padded = t.boolean("fp4_padded");
    info.shapeArgsPadded = t.boolean("shape_args_padded");
    param.tensordesc = std::move(info);
  }
  return param;
}

/// Triton's lowering of a host tensor descriptor of rank r: the tensordesc entry, then exactly
/// r tensordesc_shape ("<name>.shape<d>", i32) and r tensordesc_stride ("<name>.stride<d>",
/// i64) entries. The launcher fills them by position, so any other layout is refused here.
void checkTensorDescEntries(const std::vector<ParamInfo> &params) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &p = params[i];
    if (p.kind == ParamInfo::Kind::TensorDescShape || p.kind == ParamInfo::Kind::TensorDescStride)
      fail(indexPath("params", i) + ".kind",
           std::string(paramKindName(p.kind)) + " '" + p.name +
               "' does not follow a tensordesc parameter and its other entries; a tensordesc of "
               "rank r is followed by exactly r tensordesc_shape, then r tensordesc_stride entries");
    if (p.kind != ParamInfo::Kind::TensorDesc)
      continue;
    const std::size_t rank = static_cast<std::size_t>(p.tensordesc ? p.tensordesc->rank : 0);
    for (std::size_t e = 0; e < 2 * rank; ++e) {
      const bool shape = e < rank;
      const std::size_t d = shape ? e : e - rank;
      const std::string name = p.name + (shape ? ".shape" : ".stride") + std::to_string(d);
      const ParamInfo::Kind kind =
          shape ? ParamInfo::Kind::TensorDescShape : ParamInfo::Kind::TensorDescStride;
      const char *type = shape ? "i32" : "i64";
      const std::size_t at = i + 1 + e;
      const std::string want = "expected '" + name + "' (" + paramKindName(kind) + ", " + type +
                               "): the tensordesc '" + p.name + "' has rank " +
                               std::to_string(rank) + ", so exactly " + std::to_string(rank) +
                               " tensordesc_shape, then " + std::to_string(rank) +
                               " tensordesc_stride entries follow it";
      if (at >= params.size())
        fail(indexPath("params", at), want + "; the list ends");
      const ParamInfo &q = params[at];
      if (q.kind != kind || q.name != name || q.type != type)
        fail(indexPath("params", at), want + "; got '" + q.name + "' (" + paramKindName(q.kind) +
                                          ", " + q.type + ")");
    }
    i += 2 * rank;
  }
}

void readParams(const json &array, std::vector<ParamInfo> &params) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::string path = indexPath("params", i);
    ParamInfo param = readParam(ObjectReader(array[i], path));
    if (!names.insert(param.name).second)
      fail(path + ".name", "duplicate parameter name '" + param.name + "'");
    // Triton's ABI: the kernel's own parameters, then global scratch, then profile scratch
    // (Kind declares them in that order).
    ParamInfo::Kind previous = params.empty() ? ParamInfo::Kind::Pointer : params.back().kind;
    bool ordered = isTrailing(param.kind)
                       ? (!isTrailing(previous) || previous < param.kind)
                       : !isTrailing(previous);
    if (!ordered)
      fail(path + ".kind", std::string(paramKindName(param.kind)) + " after " +
                               paramKindName(previous) +
                               "; expected the kernel's parameters, then global_scratch, then "
                               "profile_scratch, each at most once");
    params.push_back(std::move(param));
  }
  checkTensorDescEntries(params);
}

ScratchInfo readScratch(const ObjectReader &obj) {
  ScratchInfo scratch;
  scratch.size = obj.uint64("size");
  scratch.align = obj.uint64("align");
  if (scratch.align == 0 || (scratch.align & (scratch.align - 1)) != 0)
    fail(obj.path("align"), "expected a power of two, got " + std::to_string(scratch.align));
  return scratch;
}

void readLaunch(const ObjectReader &obj, const Target &target, LaunchInfo &launch) {
  launch.entry = obj.string("entry");
  launch.numWarps = obj.integer("num_warps", 1);
  launch.warpSize = obj.integer("warp_size", 1);
  if (launch.warpSize != target.warpSize)
    fail(obj.path("warp_size"), std::to_string(launch.warpSize) +
                                    " does not match target.warp_size " +
                                    std::to_string(target.warpSize));
  launch.block = obj.triple("block");
  std::array<int, 3> expected{launch.numWarps * launch.warpSize, 1, 1};
  if (launch.block != expected)
    fail(obj.path("block"), "expected [" + std::to_string(expected[0]) +
                                ", 1, 1] (num_warps * warp_size), got " +
                                show(obj.get("block")));
  launch.shared = obj.uint64("shared");
  launch.numCtas = obj.integer("num_ctas", 1);
  launch.clusterDims = obj.triple("cluster_dims");
  launch.globalScratch = readScratch(obj.object("global_scratch"));
  launch.profileScratch = readScratch(obj.object("profile_scratch"));
  launch.cooperative = obj.boolean("cooperative");
  launch.pdl = obj.boolean("pdl");
  launch.tmemSize = obj.uint64("tmem_size");
}

void readImages(const json &array, Backend backend, std::vector<ImageFile> &images) {
  if (array.empty())
    fail("images", "expected at least one image");
  const char *binary = backend == Backend::Cuda ? "cubin" : "hsaco";
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::string path = indexPath("images", i);
    ObjectReader obj(array[i], path);
    ImageFile image;
    image.kind = backend == Backend::Cuda ? readChoice(obj, "kind", {"cubin", "ptx"})
                                          : readChoice(obj, "kind", {"hsaco"});
    if (i == 0 && image.kind != binary)
      fail(obj.path("kind"), std::string("the first image must be the ") + binary + ", got " +
                                 show(obj.get("kind")));
    for (const ImageFile &earlier : images)
      if (earlier.kind == image.kind)
        fail(obj.path("kind"), "a second " + image.kind + " image");
    // A plain name: the image lies beside the metadata file, wherever that is moved.
    image.file = obj.string("file");
    if (image.file.find_first_of("/\\") != std::string::npos || image.file == "." ||
        image.file == "..")
      fail(obj.path("file"), "expected a file name without a directory, got " +
                                 show(obj.get("file")));
    image.size = obj.uint64("size");
    image.sha256 = obj.string("sha256");
    if (image.sha256.size() != 64 ||
        image.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail(obj.path("sha256"), "expected 64 lower-case hex digits, got " +
                                   show(obj.get("sha256")));
    images.push_back(std::move(image));
  }
}

void readResources(const ObjectReader &obj, ResourceInfo &resources) {
  if (const json *value = obj.find("registers"))
    resources.registers = readInt(*value, obj.path("registers"), 0);
  if (const json *value = obj.find("sgprs"))
    resources.sgprs = readInt(*value, obj.path("sgprs"), 0);
  if (const json *value = obj.find("spills"))
    resources.spills = readInt(*value, obj.path("spills"), 0);
  if (const json *value = obj.find("static_shared"))
    resources.staticShared = readUnsigned(*value, obj.path("static_shared"));
}

KernelMetadata readMetadata(const json &root) {
  if (!root.is_object())
    fail("", "expected a JSON object at the top level, got " + show(root));
  ObjectReader top(root, "");
  KernelMetadata meta;
  readSchema(top, meta); // first: a newer file may differ anywhere else
  meta.generator = top.string("generator");
  meta.tritonVersion = top.string("triton_version");

  ObjectReader kernel = top.object("kernel");
  meta.name = kernel.string("name");
  meta.function = kernel.string("function");
  meta.source = kernel.string("source");
  meta.sourceKind = readChoice(kernel, "source_kind", {"python", "ttir", "ttgir"});

  readTarget(top.object("target"), meta);
  readVariant(top.object("variant"), meta.variant);
  readParams(top.array("params"), meta.params);
  // The caller's value of a heuristic_input parameter means something only to the heuristic
  // that computes the parameter at launch.
  for (std::size_t i = 0; i < meta.params.size(); ++i)
    if (meta.params[i].kind == ParamInfo::Kind::HeuristicInput &&
        std::none_of(meta.variant.heuristics.begin(), meta.variant.heuristics.end(),
                     [&](const HeuristicRecord &h) {
                       return h.name == meta.params[i].name && h.runtime;
                     }))
      fail(indexPath("params", i) + ".kind",
           "heuristic_input '" + meta.params[i].name + "' has no runtime heuristic setting it "
           "in variant.heuristics");
  readLaunch(top.object("launch"), meta.target, meta.launch);

  // Absent (or null): the caller passes the grid.
  if (const json *found = top.find("grid")) {
    const json &grid = *found;
    if (!grid.is_array() || grid.size() != 3)
      fail("grid", "expected an array of 3 strings, got " + show(grid));
    meta.grid.emplace();
    for (std::size_t i = 0; i < 3; ++i)
      (*meta.grid)[i] = readString(grid[i], indexPath("grid", i), /*allowEmpty=*/false);
  }

  readImages(top.array("images"), meta.target.backend, meta.images);
  readResources(top.object("resources"), meta.resources);
  meta.tritonHash = top.string("triton_hash");
  return meta;
}

} // namespace

Expected<KernelMetadata> parseMetadata(const json &root) {
  try {
    return readMetadata(root);
  } catch (const FieldError &error) {
    return makeError(ExitCode::UsageError, error.message);
  }
}

} // namespace tta
