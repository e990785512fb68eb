#include "contract/library_manifest.h"

#include "contract/autotune_fields.h"
#include "contract/c_names.h"
#include "contract/field_reader.h"
#include "contract/grid.h"
#include "contract/heuristic_expr.h"
#include "contract/launch_fields.h"

#include <algorithm>
#include <set>

namespace tta {

namespace {

using nlohmann::json;
using namespace fields;

constexpr std::size_t kShortText = 256;
constexpr std::size_t kLongText = 65536;

std::optional<std::uint64_t> readOptionalCount(const ObjectReader &obj, const char *key) {
  const json *value = obj.find(key);
  return value ? std::optional(readUnsigned(*value, obj.path(key))) : std::nullopt;
}

std::optional<int> readOptionalInt(const ObjectReader &obj, const char *key) {
  const json *value = obj.find(key);
  return value ? std::optional(readInt(*value, obj.path(key), 0)) : std::nullopt;
}

ManifestImage readImage(const ObjectReader &obj, std::initializer_list<std::string_view> kinds) {
  ManifestImage image;
  image.kind = obj.choice("kind", kinds);
  image.rawSize = obj.uint64("raw_size");
  image.storedSize = obj.uint64("stored_size");
  image.compressed = obj.boolean("compressed");
  image.sha256 = obj.string("sha256");
  if (image.sha256.size() != 64 ||
      image.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    fail(obj.path("sha256"), "expected 64 lower-case hex digits, got " + show(obj.get("sha256")));
  return image;
}

ManifestFunction readFunction(const ObjectReader &obj, const Target &target) {
  ManifestFunction fn;
  fn.target = target.spelling();
  if (obj.find("refused")) {
    fn.refused = obj.text("refused", false, kLongText);
    return fn;
  }
  fn.variantId = readVariantId(obj.get("variant_id"), obj.path("variant_id"));
  fn.entry = obj.cName("entry");
  fn.tritonVersion = obj.text("triton_version", false, kShortText);
  readLaunchFacts(obj.object("launch"), target, fn.launch);
  fn.launch.entry = fn.entry;
  const ObjectReader resources = obj.object("resources");
  fn.resources.registers = readOptionalInt(resources, "registers");
  fn.resources.sgprs = readOptionalInt(resources, "sgprs");
  fn.resources.spills = readOptionalInt(resources, "spills");
  fn.resources.staticShared = readOptionalCount(resources, "static_shared");
  const bool cuda = target.backend == Backend::Cuda;
  fn.image = cuda ? readImage(obj.object("image"), {"cubin"}) : readImage(obj.object("image"), {"hsaco"});
  if (obj.find("ptx")) {
    if (!cuda)
      fail(obj.path("ptx"), "a " + fn.target + " function has no PTX");
    fn.ptx = readImage(obj.object("ptx"), {"ptx"});
  }
  if (const json *maps = obj.find("tensor_maps")) {
    checkArray(*maps, obj.path("tensor_maps"));
    for (std::size_t i = 0; i < maps->size(); ++i) {
      ObjectReader map((*maps)[i], indexPath(obj.path("tensor_maps"), i));
      fn.tensorMaps.push_back({map.cName("param"), readTensorDesc(map)});
    }
  }
  return fn;
}

ManifestVariant readVariant(const ObjectReader &obj, const ManifestKernel &kernel,
                            const std::vector<Target> &targets) {
  ManifestVariant variant;
  const ObjectReader hints = obj.object("hints");
  for (const auto &[name, value] : hints.value().items()) {
    const std::string &hinted = name;   // a lambda cannot capture a structured binding (clang 14)
    auto param = std::find_if(kernel.params.begin(), kernel.params.end(),
                              [&](const ManifestParam &p) { return p.name == hinted; });
    if (param == kernel.params.end())
      fail(hints.path(), show(name) + " is not a C parameter of kernel '" + kernel.name + "'");
    const int hint = readInt(value, hints.path(name), 1);
    if (hint != 1 && hint != 16)
      fail(hints.path(name), "expected 1 or 16, got " + show(value));
  }
  for (const ManifestParam &p : kernel.params)   // in parameter order
    if (const json *hint = hints.find(p.name.c_str()))
      variant.hints.emplace_back(p.name, hint->get<int>());
  variant.condition = obj.text("condition", false, kLongText);
  if (const json *heuristics = obj.find("heuristics")) {
    checkArray(*heuristics, obj.path("heuristics"));
    for (std::size_t i = 0; i < heuristics->size(); ++i) {
      ObjectReader h((*heuristics)[i], indexPath(obj.path("heuristics"), i));
      ManifestHeuristic out;
      out.name = h.cName("name");
      out.expression = h.text("expression", false, kLongText);
      if (auto parsed = parseHeuristic(out.expression, HeuristicDialect::C); !parsed)
        fail(h.path("expression"), parsed.error().message);
      out.value = h.get("value");
      if (!out.value.is_boolean() && !out.value.is_number() && !out.value.is_null())
        fail(h.path("value"), "expected a bool, number or null, got " + show(out.value));
      variant.heuristics.push_back(std::move(out));
    }
  }
  const json &functions = obj.array("functions");
  if (functions.size() != targets.size())
    fail(obj.path("functions"), "expected " + std::to_string(targets.size()) +
                                    " functions (one per target of the kernel), got " +
                                    std::to_string(functions.size()));
  for (std::size_t t = 0; t < functions.size(); ++t) {
    ObjectReader fn(functions[t], indexPath(obj.path("functions"), t));
    if (readTarget(fn.get("target"), fn.path("target")) != targets[t])
      fail(fn.path("target"), "expected \"" + targets[t].spelling() +
                                  "\" (the kernel's targets, in order), got " + show(fn.get("target")));
    variant.functions.push_back(readFunction(fn, targets[t]));
  }
  return variant;
}

ManifestConfig readConfig(const ObjectReader &obj, std::size_t index, const ManifestKernel &kernel,
                          const std::vector<Target> &targets) {
  ManifestConfig config;
  config.index = obj.integer("index", 0);
  if (static_cast<std::size_t>(config.index) != index)
    fail(obj.path("index"), "expected " + std::to_string(index) + " (its place in the list)");
  // Unnamed configs are named by their values here ("BLOCK=64,num_warps=4").
  config.name = obj.text("name", false, kLongText);
  config.named = obj.boolean("named");
  const ObjectReader constexprs = obj.object("constexprs");
  for (const auto &[name, value] : constexprs.value().items()) {
    if (std::string why = notACIdentifier(name); !why.empty())
      fail(constexprs.path(), why);
    config.constexprs[name] = checkScalar(value, constexprs.path(name));
  }
  config.numWarps = obj.integer("num_warps", 0, 1024);
  config.numStages = obj.integer("num_stages", 0, 1024);
  const ObjectReader options = obj.object("options");
  for (const auto &[name, value] : options.value().items()) {
    if (std::string why = notACIdentifier(name); !why.empty())
      fail(options.path(), why);
    checkScalar(value, options.path(name));
  }
  config.options = options.value();
  const json &variants = obj.array("variants");
  for (std::size_t v = 0; v < variants.size(); ++v)
    config.variants.push_back(
        readVariant(ObjectReader(variants[v], indexPath(obj.path("variants"), v)), kernel, targets));
  return config;
}

ManifestParam readParam(const ObjectReader &obj) {
  ManifestParam param;
  param.kind = obj.choice("kind", {"pointer", "scalar", "tensordesc", "tensordesc_shape",
                                   "tensordesc_stride"});
  const bool part = param.kind == "tensordesc_shape" || param.kind == "tensordesc_stride";
  param.name = part ? obj.text("name", false, kShortText) : obj.cName("name");
  param.cName = obj.cName("c_name");
  param.type = obj.text("type", false, kShortText);
  param.cType = obj.text("c_type", false, kShortText);
  param.size = obj.integer("size", 1, 8);
  if (param.kind.rfind("tensordesc", 0) == 0)
    param.tensordesc = obj.cName("tensordesc");
  if (part)
    param.dim = obj.integer("dim", 0, 4);
  if (const json *input = obj.find("heuristic_input"))
    param.heuristicInput = readBool(*input, obj.path("heuristic_input"));
  if (const json *written = obj.find("written")) {
    if (param.kind != "pointer" && param.kind != "tensordesc")
      fail(obj.path("written"), "only a pointer or tensordesc parameter is written; a " +
                                    param.kind + " parameter has no 'written'");
    param.written = readBool(*written, obj.path("written"));
  }
  return param;
}

ManifestKernel readKernel(const ObjectReader &obj) {
  ManifestKernel kernel;
  kernel.name = obj.cName("name");
  kernel.function = obj.text("function", /*allowEmpty=*/true, kShortText);
  kernel.source = obj.text("source", /*allowEmpty=*/true);
  const json &params = obj.array("params");
  std::set<std::string> cNames;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string at = indexPath(obj.path("params"), i);
    kernel.params.push_back(readParam(ObjectReader(params[i], at)));
    if (!cNames.insert(kernel.params.back().cName).second)
      fail(at + ".c_name", "a second C parameter '" + kernel.params.back().cName + "'");
  }
  kernel.constexprParams = readCNames(obj, "constexpr_params");
  kernel.specializedToOneParams = readCNames(obj, "specialized_to_one_params");
  if (const json *grid = obj.find("grid")) {
    if (!grid->is_array() || grid->size() != 3)
      fail(obj.path("grid"), "expected an array of 3 strings or null, got " + show(*grid));
    kernel.grid.emplace();
    for (std::size_t i = 0; i < 3; ++i)
      (*kernel.grid)[i] = readText((*grid)[i], indexPath(obj.path("grid"), i), false, kLongText);
    if (auto parsed = parseGrid(std::vector<std::string>(kernel.grid->begin(), kernel.grid->end()));
        !parsed)
      fail(obj.path("grid"), parsed.error().message);
  }
  kernel.globalScratchArg = obj.boolean("global_scratch_arg");
  kernel.profileScratchArg = obj.boolean("profile_scratch_arg");
  std::vector<Target> targets;
  const json &targetList = obj.array("targets");
  for (std::size_t t = 0; t < targetList.size(); ++t) {
    targets.push_back(readTarget(targetList[t], indexPath(obj.path("targets"), t)));
    kernel.targets.push_back(targets.back().spelling());
  }
  const json &configs = obj.array("configs");
  for (std::size_t c = 0; c < configs.size(); ++c)
    kernel.configs.push_back(
        readConfig(ObjectReader(configs[c], indexPath(obj.path("configs"), c)), c, kernel, targets));
  if (obj.find("autotune"))
    kernel.autotune = readAutotuneFields(obj.object("autotune"));
  return kernel;
}

LibraryManifest readManifest(const json &root) {
  if (!root.is_object() || root.find("schema") == root.end() || root["schema"] != kManifestSchema)
    fail("", std::string("not a triton-aot library manifest (schema \"") + kManifestSchema + "\")");
  ObjectReader top(root, "");
  const int version = top.integer("schema_version", 1);
  if (version > kManifestSchemaVersion)
    fail("", "schema_version " + std::to_string(version) + " is newer than this tool supports (" +
                 std::to_string(kManifestSchemaVersion) + "); update triton-aot");
  LibraryManifest manifest;
  manifest.generator = top.text("generator", false, kShortText);
  manifest.name = top.text("name", false, kShortText);
  manifest.prefix = top.cName("prefix");
  const json &versions = top.array("triton_versions");
  for (std::size_t i = 0; i < versions.size(); ++i)
    manifest.tritonVersions.push_back(
        readText(versions[i], indexPath("triton_versions", i), false, kShortText));
  const json &kernels = top.array("kernels");
  std::set<std::string> names;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const std::string at = indexPath("kernels", k);
    manifest.kernels.push_back(readKernel(ObjectReader(kernels[k], at)));
    if (!names.insert(manifest.kernels.back().name).second)
      fail(at + ".name", "a second kernel '" + manifest.kernels.back().name + "'");
  }
  return manifest;
}

} // namespace

Expected<LibraryManifest> parseLibraryManifest(const json &root) {
  return readFields("", [&] { return readManifest(root); });
}

Expected<LibraryManifest> parseLibraryManifest(std::string_view text, const std::string &where) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    Diagnostic diag = makeError(ExitCode::UsageError, "the library manifest is not JSON");
    diag.file = where;
    return diag;
  }
  auto manifest = parseLibraryManifest(root);
  if (!manifest) {
    Diagnostic diag = manifest.takeError();
    diag.file = where;
    return diag;
  }
  return manifest;
}

std::string variantHintsText(const ManifestVariant &variant) {
  std::string out;
  for (const auto &[param, hint] : variant.hints)
    out += (out.empty() ? "" : ", ") + param + ":" + std::to_string(hint);
  for (const ManifestHeuristic &h : variant.heuristics)
    out += (out.empty() ? "" : ", ") + h.name + "=" + h.value.dump();
  return out.empty() ? "no hints" : out;
}

const ManifestKernel *findKernel(const LibraryManifest &manifest, std::string_view name) {
  for (const ManifestKernel &kernel : manifest.kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

} // namespace tta
