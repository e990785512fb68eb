#include "contract/metadata.h"

#include "contract/autotune_fields.h"

#include "contract/c_names.h"
#include "contract/field_reader.h"
#include "contract/grid.h"
#include "contract/heuristic_expr.h"
#include "contract/launch_fields.h"
#include "contract/target_limits.h"
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
    if (param.written)
      out["written"] = *param.written;
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
// Every field is checked where it is read, against what the tools do with it: a name that the
// linker writes into C must be a C identifier, text that lands in comments and messages is one
// line, numbers are in the range the target can launch (contract/target_limits.h). The reader
// stops at the first problem, naming the field (contract/field_reader.h).

namespace {

using namespace fields;

/// Kernel and function names, versions, file names: short one-line text.
constexpr std::size_t kShortText = 256;
/// A heuristic sets a parameter, or a launch option (Triton's launch takes num_warps ... from a
/// heuristic's keyword): then its value is the one the variant was built with.
void checkLaunchOptionHeuristics(const KernelMetadata &meta) {
  for (std::size_t i = 0; i < meta.variant.heuristics.size(); ++i) {
    const HeuristicRecord &h = meta.variant.heuristics[i];
    const std::string where = indexPath("variant.heuristics", i);
    if (std::any_of(meta.params.begin(), meta.params.end(),
                    [&](const ParamInfo &p) { return p.name == h.name; }))
      continue;
    json built;
    if (h.name == "num_warps")
      built = meta.launch.numWarps;
    else if (h.name == "num_stages")
      built = meta.variant.numStages;
    else if (h.name == "num_ctas")
      built = meta.launch.numCtas;
    else if (h.name == "maxnreg")
      built = meta.variant.options.contains("maxnreg") ? meta.variant.options["maxnreg"] : json();
    else
      fail(where + ".name", "'" + h.name + "' is neither a parameter of the kernel nor a launch "
                            "option (num_warps, num_stages, num_ctas, maxnreg)");
    if (!h.value.is_number_integer() || h.value != built)
      fail(where + ".value", "heuristic '" + h.name + "' gives " + show(h.value) +
                                 ", but the variant was built with " + h.name + " " + show(built));
  }
}

/// Signatures and heuristic texts of kernels with many parameters.
constexpr std::size_t kLongText = 65536;

void readSchema(const ObjectReader &top, const char *schema, const char *what, int supported,
                int &version) {
  if (top.value().find("schema") == top.value().end())
    fail("schema", std::string("missing required field; this is not a ") + schema + " " + what);
  if (top.get("schema") != schema)
    fail("schema", std::string("expected \"") + schema + "\", got " + show(top.get("schema")));
  version = top.integer("schema_version", 1);
  if (version > supported)
    fail("", "schema_version " + std::to_string(version) + " is newer than this tool supports (" +
                 std::to_string(supported) + "); update triton-aot");
}

/// The target's spelling is the one authority (parsed); the other fields are for readers
/// without a parser and must agree with it.
Target readTargetSpelling(const ObjectReader &obj) {
  return readTarget(obj.get("spelling"), obj.path("spelling"));
}

void readTarget(const ObjectReader &obj, KernelMetadata &meta) {
  meta.target = readTargetSpelling(obj);
  const Target &target = meta.target;
  const std::string spelling = target.spelling();
  if (obj.string("backend") != backendName(target.backend))
    fail(obj.path("backend"), show(obj.get("backend")) + " does not match spelling \"" +
                                  spelling + "\"");
  if (obj.string("arch") != target.arch)
    fail(obj.path("arch"), show(obj.get("arch")) + " does not match spelling \"" + spelling +
                               "\" (expected \"" + target.arch + "\")");
  int warpSize = obj.integer("warp_size", 1);
  if (warpSize != target.warpSize)
    fail(obj.path("warp_size"), std::to_string(warpSize) + " does not match " + spelling +
                                    ", whose warps have " + std::to_string(target.warpSize) +
                                    " threads");
  meta.imageArch = obj.text("image_arch", false, kShortText);
}

/// Config names: letters, digits and '_' (the compiler's `name=` grammar, and the names it
/// derives for @triton.autotune configs); "" for an unnamed config.
std::string readConfigName(const ObjectReader &obj) {
  std::string name = obj.string("config", /*allowEmpty=*/true);
  for (char c : name)
    if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      fail(obj.path("config"), show(obj.get("config")) +
                                   " is not a config name (letters, digits and '_')");
  return name;
}

/// name -> value of compiled-in parameters: C identifiers -> numbers, bools, strings or null.
std::map<std::string, json> readConstexprs(const ObjectReader &obj) {
  std::map<std::string, json> out;
  for (const auto &[name, value] : obj.value().items()) {
    const std::string at = obj.path(name);
    if (std::string why = notACIdentifier(name); !why.empty())
      fail(obj.path(), why);
    out[name] = checkScalar(value, at);
  }
  return out;
}

/// Triton options as recorded: option names (Python keywords) -> scalar values.
json readOptions(const ObjectReader &obj) {
  for (const auto &[name, value] : obj.value().items()) {
    if (std::string why = notACIdentifier(name); !why.empty())
      fail(obj.path(), why);
    checkScalar(value, obj.path(name));
  }
  return obj.value();
}

void readVariant(const ObjectReader &obj, KernelMetadata &meta) {
  VariantInfo &variant = meta.variant;
  variant.id = readVariantId(obj.get("id"), obj.path("id"));
  variant.config = readConfigName(obj);
  if (obj.find("config_index"))
    variant.configIndex = obj.integer("config_index", 0);
  variant.signature = obj.text("signature", /*allowEmpty=*/true, kLongText);
  variant.constexprs = readConstexprs(obj.object("constexprs"));
  variant.numWarps = obj.integer("num_warps", 1, 1024);
  variant.numStages = obj.integer("num_stages", 1, 1024);
  variant.options = readOptions(obj.object("options"));
  if (const json *heuristics = obj.find("heuristics")) {
    const std::string where = obj.path("heuristics");
    checkArray(*heuristics, where);
    for (std::size_t i = 0; i < heuristics->size(); ++i) {
      ObjectReader item((*heuristics)[i], indexPath(where, i));
      HeuristicRecord h;
      h.name = item.cName("name");
      h.expression = item.text("expression", false, kLongText);
      // The C dialect, whose names are C identifiers: what the linker emits is made from the
      // parsed tree, never from this text.
      if (auto parsed = parseHeuristic(h.expression, HeuristicDialect::C); !parsed)
        fail(item.path("expression"), parsed.error().message);
      h.written = item.text("written", /*allowEmpty=*/true, kLongText);
      h.runtime = item.boolean("runtime");
      h.value = item.get("value");
      if (!h.value.is_boolean() && !h.value.is_number() && !h.value.is_null())
        fail(item.path("value"), "expected a bool, number or null, got " + show(h.value));
      variant.heuristics.push_back(std::move(h));
    }
  }
  if (obj.find("autotune"))
    variant.autotune = readAutotuneFields(obj.object("autotune"));
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

bool isTypeName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

/// The Triton type of a parameter of \p kind: "*fp32" for pointers, a type name for scalars,
/// "constexpr", "tensordesc<...>"; the tensordesc parts and scratch pointers are fixed.
void checkParamType(const ObjectReader &obj, const ParamInfo &param) {
  const std::string &type = param.type;
  bool good = true;
  std::string expected;
  switch (param.kind) {
  case ParamInfo::Kind::Pointer:
    good = type.size() > 1 && type[0] == '*' && isTypeName(std::string_view(type).substr(1));
    expected = "'*' and a type name (\"*fp32\")";
    break;
  case ParamInfo::Kind::Scalar:
  case ParamInfo::Kind::SpecializedToOne:
    good = parseScalarType(type).has_value();
    expected = "one of " + allScalarTypeNames();
    break;
  case ParamInfo::Kind::Constexpr:
    good = type == "constexpr";
    expected = "\"constexpr\"";
    break;
  case ParamInfo::Kind::TensorDesc:
    good = type.rfind("tensordesc<", 0) == 0 && type.back() == '>';
    expected = "tensordesc<...>";
    break;
  case ParamInfo::Kind::GlobalScratch:
  case ParamInfo::Kind::ProfileScratch:
    good = type == "*i8";
    expected = "\"*i8\"";
    break;
  case ParamInfo::Kind::HeuristicInput:
    break;   // a scalar type C computes with: checked with its value (readParam)
  case ParamInfo::Kind::TensorDescShape:
  case ParamInfo::Kind::TensorDescStride:
    break;   // checked with their tensordesc (checkTensorDescEntries)
  }
  if (!good)
    fail(obj.path("type"), "expected " + expected + " for a " + paramKindName(param.kind) +
                               " parameter, got " + show(obj.get("type")));
}

ParamInfo readParam(const ObjectReader &obj) {
  ParamInfo param;
  std::string kind = obj.choice("kind", {"pointer", "scalar", "constexpr", "specialized_to_one",
                                         "heuristic_input", "tensordesc", "tensordesc_shape",
                                         "tensordesc_stride", "global_scratch", "profile_scratch"});
  for (ParamInfo::Kind candidate : kParamKinds)
    if (kind == paramKindName(candidate))
      param.kind = candidate;
  // The name becomes a C parameter (or, for a tensordesc X, X_base, X_shape<d>, X_stride<d>);
  // the entries that follow a tensordesc are named "<X>.shape<d>" and checked against it.
  const bool tensorPart = param.kind == ParamInfo::Kind::TensorDescShape ||
                          param.kind == ParamInfo::Kind::TensorDescStride;
  param.name = tensorPart ? obj.text("name", false, kShortText) : obj.cName("name");
  param.type = obj.text("type", false, kShortText);
  checkParamType(obj, param);
  param.size = obj.uint64("size");
  param.hint = obj.integer("hint", 0);
  if (param.hint != 0 && param.hint != 1 && param.hint != 16)
    fail(obj.path("hint"), "expected 0, 1 or 16, got " + std::to_string(param.hint));

  if (!sizeAllowed(param.kind, param.size))
    fail(obj.path("size"), std::to_string(param.size) + " is not a valid size for a " + kind +
                               " parameter; expected " + allowedSizes(param.kind));
  if (isCompiledIn(param.kind)) {
    param.value = checkScalar(obj.get("value"), obj.path("value"));
    param.valueText = obj.text("value_text", false, kLongText);
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
  if (param.kind == ParamInfo::Kind::TensorDesc)
    param.tensordesc = readTensorDesc(obj.object("tensordesc"));
  if (obj.find("written")) {
    if (param.kind != ParamInfo::Kind::Pointer && param.kind != ParamInfo::Kind::TensorDesc)
      fail(obj.path("written"), "only a pointer or tensordesc parameter is written; a " + kind +
                                    " parameter has no 'written'");
    param.written = obj.boolean("written");
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
           std::string(paramKindName(p.kind)) + " '" + p.name + "'" +
               " does not follow a tensordesc parameter and its other entries; a tensordesc of "
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
        fail(indexPath("params", at), want + "; got '" + q.name + "' (" +
                                          paramKindName(q.kind) + ", " + q.type + ")");
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
    if (isTrailing(param.kind) && param.name != paramKindName(param.kind))
      fail(path + ".name", std::string("a ") + paramKindName(param.kind) + " parameter is named \"" +
                               paramKindName(param.kind) + "\", got " + show(array[i]["name"]));
    params.push_back(std::move(param));
  }
  checkTensorDescEntries(params);
}

ScratchInfo readScratch(const ObjectReader &obj, const LaunchLimits &limits,
                        const Target &target) {
  ScratchInfo scratch;
  scratch.size = obj.uint64("size");
  if (scratch.size > limits.scratchBytes)
    fail(obj.path("size"), std::to_string(scratch.size) +
                               " bytes per program is more than any device of " +
                               target.spelling() + " has (at most " +
                               std::to_string(limits.scratchBytes) + ")");
  scratch.align = obj.uint64("align");
  if (scratch.align == 0 || (scratch.align & (scratch.align - 1)) != 0)
    fail(obj.path("align"), "expected a power of two, got " + std::to_string(scratch.align));
  if (scratch.align > limits.scratchAlign)
    fail(obj.path("align"), std::to_string(scratch.align) +
                                " is more than any scratch needs (at most " +
                                std::to_string(limits.scratchAlign) + ")");
  return scratch;
}

std::array<int, 3> readTriple(const ObjectReader &obj, const char *key) {
  const json &value = obj.get(key);
  if (!value.is_array() || value.size() != 3)
    fail(obj.path(key), "expected an array of 3 integers, got " + show(value));
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i)
    out[i] = readInt(value[i], indexPath(obj.path(key), i), 1);
  return out;
}

} // namespace

Target fields::readTarget(const json &value, const std::string &path) {
  std::string spelling = readText(value, path, false, kShortText);
  Expected<Target> target = parseTarget(spelling);
  if (!target)
    fail(path, target.error().message);
  if (target->spelling() != spelling)
    fail(path, show(value) + " is not in its canonical form \"" + target->spelling() + "\"");
  return *target;
}

std::string fields::readVariantId(const json &value, const std::string &path) {
  // Unique within a library, and part of the output files' names: file-name characters.
  std::string id = readText(value, path, false, kShortText);
  if (id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") !=
          std::string::npos ||
      id[0] == '.' || id[0] == '-')
    fail(path, show(value) + " is not a variant id (letters, digits, '_', '.', '+' and '-', as "
                             "in \"add.sm90a.3f2a9c1e07d4\")");
  return id;
}

void fields::readLaunchFacts(const ObjectReader &obj, const Target &target, LaunchInfo &launch) {
  const LaunchLimits limits = launchLimits(target);
  const std::string device = "a device of " + target.spelling();
  launch.warpSize = obj.integer("warp_size", 1);
  if (launch.warpSize != target.warpSize)
    fail(obj.path("warp_size"), std::to_string(launch.warpSize) +
                                    " does not match target.warp_size " +
                                    std::to_string(target.warpSize));
  const int mostWarps = limits.threadsPerBlock / launch.warpSize;
  launch.numWarps = obj.integer("num_warps", 1);
  if (launch.numWarps > mostWarps)
    fail(obj.path("num_warps"), std::to_string(launch.numWarps) + " warps of " +
                                    std::to_string(launch.warpSize) + " threads are more than " +
                                    device + " runs in a block (" +
                                    std::to_string(limits.threadsPerBlock) + " threads)");
  launch.block = readTriple(obj, "block");
  std::array<int, 3> expected{launch.numWarps * launch.warpSize, 1, 1};
  if (launch.block != expected)
    fail(obj.path("block"), "expected [" + std::to_string(expected[0]) +
                                ", 1, 1] (num_warps * warp_size), got " +
                                show(obj.get("block")));
  launch.shared = obj.uint64("shared");
  if (launch.shared > limits.sharedBytes)
    fail(obj.path("shared"), std::to_string(launch.shared) + " bytes are more shared memory than " +
                                 device + " gives a block (" + std::to_string(limits.sharedBytes) +
                                 ")");
  launch.numCtas = obj.integer("num_ctas", 1);
  launch.clusterDims = readTriple(obj, "cluster_dims");
  const std::uint64_t cluster = static_cast<std::uint64_t>(launch.clusterDims[0]) *
                                static_cast<std::uint64_t>(launch.clusterDims[1]) *
                                static_cast<std::uint64_t>(launch.clusterDims[2]);
  auto clusterRefusal = [&]() -> std::string {
    return limits.clusterSize == 1
               ? " CTAs per cluster: " + target.spelling() + " has no thread block clusters "
                                                              "(sm_90 or newer)"
               : " CTAs per cluster are more than " + device + " launches (" +
                     std::to_string(limits.clusterSize) + ")";
  };
  if (launch.numCtas > limits.clusterSize)
    fail(obj.path("num_ctas"), std::to_string(launch.numCtas) + clusterRefusal());
  if (cluster > static_cast<std::uint64_t>(limits.clusterSize))
    fail(obj.path("cluster_dims"), std::to_string(cluster) + clusterRefusal());
  launch.globalScratch = readScratch(obj.object("global_scratch"), limits, target);
  launch.profileScratch = readScratch(obj.object("profile_scratch"), limits, target);
  launch.cooperative = obj.boolean("cooperative");
  launch.pdl = obj.boolean("pdl");
  if (launch.pdl && !limits.pdl)
    fail(obj.path("pdl"), "programmatic dependent launch needs sm_90 or newer, not " +
                              target.spelling());
  launch.tmemSize = obj.uint64("tmem_size");
  if (launch.tmemSize > limits.tensorMemoryColumns)
    fail(obj.path("tmem_size"),
         std::to_string(launch.tmemSize) + " columns of tensor memory: " +
             (limits.tensorMemoryColumns == 0
                  ? target.spelling() + " has none (sm_100 and its family have 512)"
                  : device + " has " + std::to_string(limits.tensorMemoryColumns)));
}

TensorDescInfo fields::readTensorDesc(const ObjectReader &t) {
  TensorDescInfo info;
  info.rank = t.integer("rank", 1);
  if (info.rank > 5)
    fail(t.path("rank"), "expected 1 to 5 dimensions, got " + std::to_string(info.rank));
  // CUtensorMapDataType (0..15 in CUDA 12.8; room for later ones), CUtensorMapSwizzle (0..7).
  info.dataType = t.integer("data_type", 0, 255);
  info.elemSize = t.integer("elem_size", 1, 16);
  info.swizzle = t.integer("swizzle", 0, 255);
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
  return info;
}

namespace {

/// How to launch, each fact within what a device of \p target can do (contract/target_limits.h).
void readLaunch(const ObjectReader &obj, const Target &target, LaunchInfo &launch) {
  launch.entry = obj.cName("entry");
  readLaunchFacts(obj, target, launch);
}

void readImages(const json &array, Backend backend, std::vector<ImageFile> &images) {
  if (array.empty())
    fail("images", "expected at least one image");
  const char *binary = backend == Backend::Cuda ? "cubin" : "hsaco";
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::string path = indexPath("images", i);
    ObjectReader obj(array[i], path);
    ImageFile image;
    image.kind = backend == Backend::Cuda ? obj.choice("kind", {"cubin", "ptx"})
                                          : obj.choice("kind", {"hsaco"});
    if (i == 0 && image.kind != binary)
      fail(obj.path("kind"), std::string("the first image must be the ") + binary + ", got " +
                                 show(obj.get("kind")));
    for (const ImageFile &earlier : images)
      if (earlier.kind == image.kind)
        fail(obj.path("kind"), "a second " + image.kind + " image");
    // A plain name: the image lies beside the metadata file, wherever that is moved.
    image.file = obj.text("file", false, kShortText);
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

void readResources(const ObjectReader &obj, const Target &target, const LaunchInfo &launch,
                   ResourceInfo &resources) {
  if (const json *value = obj.find("registers"))
    resources.registers = readInt(*value, obj.path("registers"), 0);
  if (const json *value = obj.find("sgprs"))
    resources.sgprs = readInt(*value, obj.path("sgprs"), 0);
  if (const json *value = obj.find("spills"))
    resources.spills = readInt(*value, obj.path("spills"), 0);
  if (const json *value = obj.find("static_shared")) {
    resources.staticShared = readUnsigned(*value, obj.path("static_shared"));
    // A block holds its static and its dynamic shared memory at once.
    if (std::string why = sharedMemoryRefusal(target, launch.shared + std::min<std::uint64_t>(
                                                          *resources.staticShared, UINT32_MAX));
        !why.empty())
      fail(obj.path("static_shared"), "with launch.shared, " + why);
  }
}

/// The grid's expressions parse (contract/grid.h) and name only parameters.
void checkGrid(const std::array<std::string, 3> &dims, const std::vector<ParamInfo> &params) {
  auto grid = parseGrid(std::vector<std::string>(dims.begin(), dims.end()));
  if (!grid)
    fail("grid", grid.error().message);
  std::vector<std::string> names;
  for (const ParamInfo &p : params)
    names.push_back(p.name);
  if (Status known = checkGridNames(*grid, names); !known)
    fail("grid", known.error().message);
}

KernelMetadata readMetadata(const json &root) {
  if (!root.is_object())
    fail("", "expected a JSON object at the top level, got " + show(root));
  ObjectReader top(root, "");
  KernelMetadata meta;
  // First: a newer file may differ anywhere else.
  readSchema(top, kMetadataSchema, "metadata file", kMetadataSchemaVersion, meta.schemaVersion);
  meta.generator = top.text("generator", false, kShortText);
  meta.tritonVersion = top.text("triton_version", false, kShortText);

  ObjectReader kernel = top.object("kernel");
  meta.name = kernel.cName("name");
  meta.function = kernel.text("function", false, kShortText);
  meta.source = kernel.text("source");
  meta.sourceKind = kernel.choice("source_kind", {"python", "ttir", "ttgir"});

  readTarget(top.object("target"), meta);
  readVariant(top.object("variant"), meta);
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
  checkLaunchOptionHeuristics(meta);

  // Absent (or null): the caller passes the grid.
  if (const json *found = top.find("grid")) {
    const json &grid = *found;
    if (!grid.is_array() || grid.size() != 3)
      fail("grid", "expected an array of 3 strings, got " + show(grid));
    meta.grid.emplace();
    for (std::size_t i = 0; i < 3; ++i)
      (*meta.grid)[i] = readText(grid[i], indexPath("grid", i), /*allowEmpty=*/false, kLongText);
    checkGrid(*meta.grid, meta.params);
  }

  readImages(top.array("images"), meta.target.backend, meta.images);
  readResources(top.object("resources"), meta.target, meta.launch, meta.resources);
  meta.tritonHash = top.string("triton_hash");
  if (meta.tritonHash.size() > 128 ||
      meta.tritonHash.find_first_not_of("0123456789abcdef") != std::string::npos)
    fail("triton_hash", "expected lower-case hex digits, got " + show(top.get("triton_hash")));
  return meta;
}

RefusalRecord readRefusal(const json &root) {
  if (!root.is_object())
    fail("", "expected a JSON object at the top level, got " + show(root));
  ObjectReader top(root, "");
  RefusalRecord record;
  readSchema(top, kRefusalSchema, "refusal record", kRefusalSchemaVersion, record.schemaVersion);
  record.generator = top.text("generator", false, kShortText);
  ObjectReader kernel = top.object("kernel");
  record.kernel = kernel.cName("name");
  record.function = kernel.text("function", /*allowEmpty=*/true, kShortText);
  record.source = kernel.text("source");
  record.sourceKind = kernel.choice("source_kind", {"python", "ttir", "ttgir"});
  record.target = readTargetSpelling(top.object("target"));
  ObjectReader variant = top.object("variant");
  record.variantId = readVariantId(variant.get("id"), variant.path("id"));
  record.config = readConfigName(variant);
  if (variant.find("config_index"))
    record.configIndex = variant.integer("config_index", 0);
  record.signature = variant.text("signature", /*allowEmpty=*/true, kLongText);
  // 0 where the source fixes them (a .ttgir's warps and stages).
  record.numWarps = variant.integer("num_warps", 0, 1024);
  record.numStages = variant.integer("num_stages", 0, 1024);
  record.options = readOptions(variant.object("options"));
  if (variant.find("constexprs"))
    record.constexprs = readConstexprs(variant.object("constexprs"));
  // The reason becomes a string the library's launch returns: one line.
  record.reason = top.text("reason", false, kLongText);
  return record;
}

} // namespace

AutotuneInfo readAutotuneFields(const fields::ObjectReader &autotune) {
  AutotuneInfo info;
  info.key = fields::readCNames(autotune, "key");
  info.resetToZero = fields::readCNames(autotune, "reset_to_zero");
  info.restoreValue = fields::readCNames(autotune, "restore_value");
  info.configsFrom = autotune.choice("configs", {"decorator", "declaration"});
  const json &hooks = autotune.array("dropped_pre_hooks");
  for (std::size_t i = 0; i < hooks.size(); ++i)
    info.droppedPreHooks.push_back(fields::readText(
        hooks[i], fields::indexPath(autotune.path("dropped_pre_hooks"), i), false, kShortText));
  return info;
}

Expected<KernelMetadata> parseMetadata(const json &root) {
  return readFields("", [&] { return readMetadata(root); });
}

Expected<RefusalRecord> parseRefusal(const json &root) {
  return readFields("", [&] { return readRefusal(root); });
}

json toJson(const RefusalRecord &record) {
  json out = {{"schema", kRefusalSchema},
              {"schema_version", record.schemaVersion},
              {"generator", record.generator},
              {"kernel",
               {{"name", record.kernel},
                {"function", record.function},
                {"source", record.source},
                {"source_kind", record.sourceKind}}},
              {"target", {{"spelling", record.target.spelling()}}},
              {"variant",
               {{"id", record.variantId},
                {"config", record.config},
                {"signature", record.signature},
                {"num_warps", record.numWarps},
                {"num_stages", record.numStages},
                {"options", record.options},
                {"constexprs", record.constexprs}}},
              {"reason", record.reason}};
  if (record.configIndex)
    out["variant"]["config_index"] = *record.configIndex;
  return out;
}

} // namespace tta
