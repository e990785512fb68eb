#include "contract/compile_answer.h"

#include "contract/field_reader.h"

namespace tta {

namespace {

using nlohmann::json;
using namespace fields;

constexpr std::size_t kShortText = 256;
constexpr std::size_t kLongText = 65536;

/// An optional list of one-line strings.
void checkTexts(const ObjectReader &obj, const char *key, std::size_t maxLength = kLongText) {
  if (const json *list = obj.find(key)) {
    checkArray(*list, obj.path(key));
    for (std::size_t i = 0; i < list->size(); ++i)
      readText((*list)[i], indexPath(obj.path(key), i), /*allowEmpty=*/true, maxLength);
  }
}

/// An optional list of names that reach generated C.
void checkNames(const ObjectReader &obj, const char *key) {
  if (const json *list = obj.find(key)) {
    checkArray(*list, obj.path(key));
    for (std::size_t i = 0; i < list->size(); ++i)
      readCName((*list)[i], indexPath(obj.path(key), i));
  }
}

void checkOptionalText(const ObjectReader &obj, const char *key, std::size_t maxLength) {
  if (const json *value = obj.find(key))
    readText(*value, obj.path(key), /*allowEmpty=*/true, maxLength);
}

void checkOptionalInt(const ObjectReader &obj, const char *key, int min, int max = INT_MAX) {
  if (const json *value = obj.find(key))
    readInt(*value, obj.path(key), min, max);
}

void checkOptionalUnsigned(const ObjectReader &obj, const char *key) {
  if (const json *value = obj.find(key))
    readUnsigned(*value, obj.path(key));
}

void checkOptionalBool(const ObjectReader &obj, const char *key) {
  if (const json *value = obj.find(key))
    readBool(*value, obj.path(key));
}

/// A parameter's default: a constexpr value as the compile request spells them.
void checkDefault(const ObjectReader &spec) {
  const std::string type =
      spec.choice("type", {"int", "float", "bool", "str", "dtype", "none", "unsupported"});
  if (type == "unsupported") {
    checkOptionalText(spec, "repr", kLongText);
    return;
  }
  if (type == "none")
    return;
  const json &value = spec.get("value");
  const bool good = type == "int"     ? value.is_number_integer()
                    : type == "float" ? value.is_number()
                    : type == "bool"  ? value.is_boolean()
                                      : value.is_string();
  if (!good)
    fail(spec.path("value"), "expected a value of type " + type + ", got " + show(value));
  if (value.is_string())
    readText(value, spec.path("value"), /*allowEmpty=*/true, kLongText);
}

void checkParam(const ObjectReader &p) {
  // The name of a C parameter (or of the constexpr a heuristic, a config or a grid names).
  p.cName("name");
  checkOptionalText(p, "type", kShortText);
  checkOptionalText(p, "annotation", kLongText);
  if (const json *hint = p.find("hint")) {
    const int value = readInt(*hint, p.path("hint"), 0);
    if (value != 0 && value != 1 && value != 16)
      fail(p.path("hint"), "expected 0, 1 or 16, got " + show(*hint));
  }
  checkOptionalBool(p, "constexpr");
  if (p.find("default"))
    checkDefault(p.object("default"));
}

void checkHeuristic(const ObjectReader &h) {
  h.cName("name");   // the constexpr parameter it sets
  checkOptionalText(h, "file", kLongText);
  checkOptionalInt(h, "line", 0);
  checkOptionalText(h, "source", kLongText);
  if (const json *arg = h.find("arg"))
    readCName(*arg, h.path("arg"));
  checkOptionalText(h, "expression", kLongText);
  if (const json *error = h.find("error"))
    readString(*error, h.path("error"), /*allowEmpty=*/true);
}

void checkHook(const ObjectReader &hook) {
  hook.text("name", false, kShortText);   // module.qualname
  checkOptionalText(hook, "file", kLongText);
  checkOptionalInt(hook, "line", 0);
  checkOptionalText(hook, "source_line", kLongText);
  checkOptionalInt(hook, "config", 0);
}

void checkAutotune(const ObjectReader &autotune) {
  const json &configs = autotune.array("configs");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    ObjectReader config(configs[i], indexPath(autotune.path("configs"), i));
    const json &values = config.array("values");
    for (std::size_t v = 0; v < values.size(); ++v) {
      const std::string at = indexPath(config.path("values"), v);
      if (!values[v].is_array() || values[v].size() != 2)
        fail(at, "expected a [key, value] pair, got " + show(values[v]));
      // The key names a constexpr or an option: a name in generated C either way.
      readCName(values[v][0], indexPath(at, 0));
      readText(values[v][1], indexPath(at, 1), /*allowEmpty=*/false, kLongText);
    }
    checkNames(config, "kwargs");
    if (config.find("pre_hook"))
      checkHook(config.object("pre_hook"));
  }
  // Argument names: the tuned dispatch keys on them, the manifest lists them.
  checkNames(autotune, "key");
  checkNames(autotune, "reset_to_zero");
  checkNames(autotune, "restore_value");
  checkTexts(autotune, "notes");
  if (const json *hooks = autotune.find("tuning_hooks")) {
    checkArray(*hooks, autotune.path("tuning_hooks"));
    for (std::size_t i = 0; i < hooks->size(); ++i)
      if ((*hooks)[i].is_object())
        checkHook(ObjectReader((*hooks)[i], indexPath(autotune.path("tuning_hooks"), i)));
      else
        readText((*hooks)[i], indexPath(autotune.path("tuning_hooks"), i), true, kShortText);
  }
}

void checkDescribe(const ObjectReader &answer) {
  const json &params = answer.array("params");
  for (std::size_t i = 0; i < params.size(); ++i)
    checkParam(ObjectReader(params[i], indexPath(answer.path("params"), i)));
  checkOptionalText(answer, "function", kShortText);
  checkOptionalText(answer, "file", kLongText);
  checkOptionalInt(answer, "line", 0);
  if (answer.find("dialect"))
    answer.choice("dialect", {"triton", "gluon"});
  checkTexts(answer, "jit_functions", kShortText);
  checkTexts(answer, "deps");
  checkTexts(answer, "do_not_specialize", kShortText);
  checkTexts(answer, "do_not_specialize_on_alignment", kShortText);
  if (const json *heuristics = answer.find("heuristics")) {
    checkArray(*heuristics, answer.path("heuristics"));
    for (std::size_t i = 0; i < heuristics->size(); ++i)
      checkHeuristic(ObjectReader((*heuristics)[i], indexPath(answer.path("heuristics"), i)));
  }
  if (answer.find("autotune"))
    checkAutotune(answer.object("autotune"));
  checkOptionalText(answer, "target", kShortText);   // IR sources: ttg.target
  checkOptionalInt(answer, "num_warps", 1, 1024);
  checkOptionalInt(answer, "num_ctas", 1, 1024);
}

/// Triton's CompiledKernel.metadata, as far as the metadata file is made from it. Ranges
/// against the target are the metadata reader's (contract/metadata.h), which reads what is
/// made of these before anything is written.
void checkTritonMetadata(const ObjectReader &md) {
  md.integer("num_warps", 1, 1024);
  checkOptionalInt(md, "warp_size", 1, 64);
  checkOptionalInt(md, "num_ctas", 1, 1024);
  checkOptionalInt(md, "num_stages", 0, 1024);
  for (const char *key : {"shared", "global_scratch_size", "global_scratch_align",
                          "profile_scratch_size", "profile_scratch_align", "tmem_size"})
    checkOptionalUnsigned(md, key);
  for (const char *key : {"launch_cooperative_grid", "launch_pdl"})
    checkOptionalBool(md, key);
  if (const json *hash = md.find("hash")) {
    const std::string text = readString(*hash, md.path("hash"), /*allowEmpty=*/true);
    if (text.size() > 128 || text.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail(md.path("hash"), "expected lower-case hex digits, got " + show(*hash));
  }
  if (const json *name = md.find("name"))
    readCName(*name, md.path("name"));
  checkOptionalText(md, "triton_version", kShortText);
  if (const json *dims = md.find("cluster_dims")) {
    if (!dims->is_array() || dims->size() != 3)
      fail(md.path("cluster_dims"), "expected three integers, got " + show(*dims));
    for (std::size_t i = 0; i < 3; ++i)
      readInt((*dims)[i], indexPath(md.path("cluster_dims"), i), 1, 1024);
  }
}

void checkTensorDescs(const json &list, const std::string &path) {
  checkArray(list, path);
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader t(list[i], indexPath(path, i));
    if (t.find("name"))
      t.cName("name");
    const int rank = t.integer("rank", 1, 5);
    checkOptionalInt(t, "data_type", 0, 255);
    checkOptionalInt(t, "elem_size", 1, 16);
    checkOptionalInt(t, "swizzle", 0, 255);
    for (const char *key : {"box", "block_shape"})
      if (const json *dims = t.find(key)) {
        checkArray(*dims, t.path(key));
        if (dims->size() != static_cast<std::size_t>(rank))
          fail(t.path(key), "expected " + std::to_string(rank) + " entries (the rank), got " +
                                show(*dims));
        for (std::size_t d = 0; d < dims->size(); ++d)
          readInt((*dims)[d], indexPath(t.path(key), d), 1);
      }
    checkOptionalBool(t, "fp4_padded");
    checkOptionalBool(t, "shape_args_padded");
  }
}

void checkWritten(const ObjectReader &written) {
  checkOptionalText(written, "image", kLongText);
  checkOptionalText(written, "ptx", kLongText);
  if (written.find("ir")) {
    ObjectReader ir = written.object("ir");
    for (const auto &[stage, path] : ir.value().items())
      readText(path, ir.path(stage), /*allowEmpty=*/false, kLongText);
  }
}

void checkCompile(const ObjectReader &answer) {
  checkTritonMetadata(answer.object("metadata"));
  answer.cName("entry");   // the kernel's symbol, a C string in the library's tables
  answer.text("image_arch", false, kShortText);
  answer.text("triton_version", false, kShortText);
  const json &trailing = answer.array("trailing_params");
  for (std::size_t i = 0; i < trailing.size(); ++i) {
    const std::string at = indexPath(answer.path("trailing_params"), i);
    const std::string name = readString(trailing[i], at, false);
    if (name != "global_scratch" && name != "profile_scratch")
      fail(at, "expected \"global_scratch\" or \"profile_scratch\", got " + show(trailing[i]));
  }
  answer.array("deps");
  checkTexts(answer, "deps");
  checkTexts(answer, "packages", kShortText);
  if (answer.find("written"))
    checkWritten(answer.object("written"));
  if (const json *tensordescs = answer.find("tensordescs"))
    checkTensorDescs(*tensordescs, answer.path("tensordescs"));
  if (answer.find("compile_ms"))
    answer.uint64("compile_ms", 24ull * 3600 * 1000);   // a day: no compile takes longer
  if (const json *writes = answer.find("pointer_writes")) {
    const std::string at = answer.path("pointer_writes");
    checkArray(*writes, at);
    for (std::size_t i = 0; i < writes->size(); ++i)
      readBool((*writes)[i], indexPath(at, i));
  }
  checkOptionalText(answer, "source_name", kLongText);
  checkDescribe(answer.object("describe"));
}

/// Runs \p check: a name that cannot be a C name is the kernel's (a UsageError: Python allows
/// names C does not), anything else an answer no worker of this triton-aot-cc gives (an
/// InternalError, or a damaged cache entry).
template <class Check> Status checked(Check &&check) {
  try {
    check();
    return ok();
  } catch (const FieldError &error) {
    return makeError(error.notACName ? ExitCode::UsageError : ExitCode::InternalError,
                     error.message);
  }
}

} // namespace

Status checkDescribeAnswer(const json &answer) {
  return checked([&] { checkDescribe(ObjectReader(answer, "")); });
}

Status checkCompileAnswer(const json &answer) {
  return checked([&] { checkCompile(ObjectReader(answer, "")); });
}

Status checkRefusedAnswer(const json &answer) {
  return checked([&] {
    ObjectReader top(answer, "");
    top.string("refused");
    checkTexts(top, "deps");
    checkOptionalText(top, "source_name", kLongText);
    checkDescribe(top.object("describe"));
    if (top.find("compile_ms"))
      top.uint64("compile_ms", 24ull * 3600 * 1000);
  });
}

Expected<std::uint64_t> readCompileTimeRecord(const json &record) {
  try {
    ObjectReader reader(record, "");
    return reader.uint64("compile_ms", 24ull * 3600 * 1000);
  } catch (const FieldError &error) {
    return makeError(ExitCode::InternalError, "compile-time record: " + error.message);
  }
}

} // namespace tta
