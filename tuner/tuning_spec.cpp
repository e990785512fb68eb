#include "tuner/tuning_spec.h"

#include "contract/read_file.h"

#include <algorithm>
#include <set>

namespace tta::tune {

namespace {

using nlohmann::json;

Diagnostic specError(const std::string &where, std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.file = where;
  diag.notes.push_back("the tuning spec's format is in docs/tuning.md, \"The tuning spec\"");
  return diag;
}

/// Parses one expression member; errors name the member and the column.
Expected<Expression> parseMember(const std::string &where, const std::string &member,
                                 const json &value) {
  if (!value.is_string())
    return specError(where, member + " must be a string expression, not " +
                                std::string(value.type_name()));
  Expression expression;
  ExprError error;
  std::string text = value.get<std::string>();
  if (!Expression::parse(text, expression, error))
    return specError(where, member + " \"" + text + "\": column " +
                                std::to_string(error.column) + ": " + error.message);
  return expression;
}

Expected<KernelSpec> parseKernel(const json &entry, const std::string &file, std::size_t index) {
  KernelSpec spec;
  std::string at = "kernels[" + std::to_string(index) + "]";
  if (!entry.is_object())
    return specError(file, at + " must be an object");
  auto kernel = entry.find("kernel");
  if (kernel == entry.end() || !kernel->is_string() || kernel->get<std::string>().empty())
    return specError(file, at + ".kernel must be the kernel's name in the library");
  spec.kernel = kernel->get<std::string>();
  spec.where = file + ": " + at + " (" + spec.kernel + ")";
  const std::string &where = spec.where;

  for (const auto &[name, value] : entry.items())
    if (name != "kernel" && name != "key" && name != "shapes" && name != "args" && name != "grid")
      return specError(where, "unknown member '" + name +
                                  "'; a kernel has kernel, key, shapes, args and grid");

  auto key = entry.find("key");
  if (key == entry.end() || !key->is_array() || key->empty())
    return specError(where, "key must be a non-empty list of integer parameter names");
  for (const json &name : *key) {
    if (!name.is_string() || name.get<std::string>().empty())
      return specError(where, "key must list parameter names (strings)");
    if (std::find(spec.key.begin(), spec.key.end(), name.get<std::string>()) != spec.key.end())
      return specError(where, "key names '" + name.get<std::string>() + "' twice");
    spec.key.push_back(name.get<std::string>());
  }

  auto shapes = entry.find("shapes");
  if (shapes == entry.end() || !shapes->is_array() || shapes->empty())
    return specError(where, "shapes must be a non-empty list of key values, e.g. [[512, 512, 512]]");
  std::set<std::vector<std::int64_t>> seen;
  for (std::size_t i = 0; i < shapes->size(); ++i) {
    const json &shape = (*shapes)[i];
    std::string member = "shapes[" + std::to_string(i) + "]";
    if (!shape.is_array() || shape.size() != spec.key.size())
      return specError(where, member + " must list " + std::to_string(spec.key.size()) +
                                  " integers, one per key name");
    std::vector<std::int64_t> values;
    for (const json &value : shape) {
      if (!value.is_number_integer() || value.get<std::int64_t>() <= 0)
        return specError(where, member + " must hold positive integers, not " + value.dump());
      values.push_back(value.get<std::int64_t>());
    }
    if (!seen.insert(values).second)
      return specError(where, member + " repeats the shape " + shape.dump());
    spec.shapes.push_back(std::move(values));
  }

  auto args = entry.find("args");
  if (args == entry.end() || !args->is_object())
    return specError(where, "args must be an object: C parameter name -> expression");
  for (const auto &[name, value] : args->items()) {
    auto expression = parseMember(where, "args." + name, value);
    if (!expression)
      return expression.takeError();
    for (const auto &[used, column] : expression->names())
      if (std::find(spec.key.begin(), spec.key.end(), used) == spec.key.end())
        return specError(where, "args." + name + " \"" + expression->text() + "\": column " +
                                    std::to_string(column) + ": unknown name '" + used +
                                    "'; an arg may read the key's names (" +
                                    [&] {
                                      std::string list;
                                      for (const auto &k : spec.key)
                                        list += (list.empty() ? "" : ", ") + k;
                                      return list;
                                    }() + ")");
    spec.args.push_back({name, std::move(*expression)});
  }

  auto grid = entry.find("grid");
  if (grid != entry.end()) {
    if (!grid->is_array() || grid->size() != 3)
      return specError(where, "grid must list three expressions (x, y, z)");
    std::array<Expression, 3> dims;
    for (std::size_t d = 0; d < 3; ++d) {
      auto expression = parseMember(where, "grid[" + std::to_string(d) + "]", (*grid)[d]);
      if (!expression)
        return expression.takeError();
      dims[d] = std::move(*expression);
    }
    spec.grid = std::move(dims);
  }
  return spec;
}

} // namespace

Expected<TuningSpec> parseTuningSpec(const json &json, const std::string &where) {
  if (!json.is_object())
    return specError(where, "a tuning spec is a JSON object");
  for (const auto &[name, value] : json.items())
    if (name != "schema" && name != "version" && name != "kernels")
      return specError(where, "unknown member '" + name + "'; a spec has schema, version and kernels");
  auto schema = json.find("schema");
  if (schema == json.end() || *schema != "triton-aot-tuning-spec")
    return specError(where, "schema must be \"triton-aot-tuning-spec\"");
  auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer() || *version != 1)
    return specError(where, "version must be 1 (this triton-aot-tune reads version 1)");
  auto kernels = json.find("kernels");
  if (kernels == json.end() || !kernels->is_array() || kernels->empty())
    return specError(where, "kernels must be a non-empty list");
  TuningSpec spec;
  std::set<std::string> names;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    auto kernel = parseKernel((*kernels)[i], where, i);
    if (!kernel)
      return kernel.takeError();
    if (!names.insert(kernel->kernel).second)
      return specError(where, "kernels[" + std::to_string(i) + "] names kernel '" +
                                  kernel->kernel + "' again; give each kernel once");
    spec.kernels.push_back(std::move(*kernel));
  }
  return spec;
}

Expected<TuningSpec> readTuningSpec(const std::string &path) {
  std::optional<std::string> text = readFile(path);
  if (!text)
    return specError(path, "cannot read the tuning spec");
  json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded())
    return specError(path, "not valid JSON");
  return parseTuningSpec(parsed, path);
}

const SpecArg *findArg(const KernelSpec &spec, const std::string &name) {
  for (const SpecArg &arg : spec.args)
    if (arg.name == name)
      return &arg;
  return nullptr;
}

} // namespace tta::tune
