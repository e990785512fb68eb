#include "contract/tuning_table.h"

#include "contract/c_names.h"
#include "contract/field_reader.h"
#include "contract/read_file.h"
#include "contract/target.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tta {

namespace {

constexpr const char *kSchema = "triton-aot-tuning";
constexpr int kVersion = 1;

/// Reads one table, keeping the path of the member being read for error messages.
class TableReader {
public:
  explicit TableReader(std::string where) : where_(std::move(where)) {}

  Diagnostic error(const std::string &member, const std::string &what) const {
    Diagnostic diag = makeError(ExitCode::UsageError, member + ": " + what);
    diag.file = where_;
    return diag;
  }

  std::optional<Diagnostic> string(const nlohmann::json &object, const std::string &member,
                                   const char *key, std::string &out, bool required) const {
    auto it = object.find(key);
    if (it == object.end())
      return required ? std::optional(error(member + "." + key, "missing; expected a string"))
                      : std::nullopt;
    if (!it->is_string())
      return error(member + "." + key, "expected a string, got " + it->dump());
    out = it->get<std::string>();
    // Names and text land in messages and the generated C's comments: one line each.
    if (!fields::isOneLineText(out))
      return error(member + "." + key, fields::show(*it) +
                                           " holds a line break or another control character");
    return std::nullopt;
  }

  /// A name the linker matches against the library's C names.
  std::optional<Diagnostic> cName(const nlohmann::json &value, const std::string &member) const {
    if (!value.is_string())
      return error(member, "expected a name, got " + value.dump());
    if (std::string why = notACIdentifier(value.get<std::string>()); !why.empty())
      return error(member, why);
    return std::nullopt;
  }

  const nlohmann::json *array(const nlohmann::json &object, const std::string &member,
                              const char *key, std::optional<Diagnostic> &failure) const {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) {
      failure = error(member + "." + key, it == object.end() ? "missing; expected an array"
                                                             : "expected an array, got " + it->dump());
      return nullptr;
    }
    return &*it;
  }

  std::optional<Diagnostic> shape(const nlohmann::json &json, const std::string &member,
                                  std::size_t keyCount, TunedShape &out) const {
    if (!json.is_object())
      return error(member, "expected an object {\"key\": [...], \"best\": ..., \"times_us\": {...}}");
    std::optional<Diagnostic> failure;
    const nlohmann::json *key = array(json, member, "key", failure);
    if (!key)
      return failure;
    if (key->size() != keyCount)
      return error(member + ".key", "has " + std::to_string(key->size()) + " values; the kernel's key has " +
                                        std::to_string(keyCount));
    for (std::size_t i = 0; i < key->size(); ++i) {
      const nlohmann::json &value = (*key)[i];
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1)
        return error(member + ".key[" + std::to_string(i) + "]",
                     "expected a positive integer, got " + value.dump());
      out.key.push_back(value.get<std::int64_t>());
    }
    auto times = json.find("times_us");
    if (times == json.end() || !times->is_object() || times->empty())
      return error(member + ".times_us", "expected an object of config name -> microseconds or null");
    for (const auto &[name, time] : times->items()) {
      if (!fields::isOneLineText(name))
        return error(member + ".times_us", fields::show(name) +
                                               " holds a line break or another control character");
      if (time.is_null()) {
        out.timesUs[name] = std::nullopt;
      } else if (time.is_number() && time.get<double>() >= 0 && std::isfinite(time.get<double>())) {
        out.timesUs[name] = time.get<double>();
      } else {
        return error(member + ".times_us." + name, "expected microseconds (>= 0) or null, got " +
                                                       time.dump());
      }
    }
    if (auto e = string(json, member, "best", out.best, true))
      return e;
    auto best = out.timesUs.find(out.best);
    if (best == out.timesUs.end() || !best->second)
      return error(member + ".best", "'" + out.best + "' is not a config with a time in times_us");
    return std::nullopt;
  }

  std::optional<Diagnostic> target(const nlohmann::json &json, const std::string &member,
                                   std::size_t keyCount, TunedTarget &out) const {
    if (!json.is_object())
      return error(member, "expected an object with \"target\" and \"shapes\"");
    if (auto e = string(json, member, "target", out.target, true))
      return e;
    auto target = parseTarget(out.target);
    if (!target)
      return error(member + ".target", target.error().message);
    if (target->spelling() != out.target)
      return error(member + ".target", "'" + out.target + "' is not in its canonical form '" +
                                           target->spelling() + "'");
    for (auto [key, field] : {std::pair{"device", &out.device},
                              {"triton_version", &out.tritonVersion},
                              {"library", &out.library},
                              {"library_hash", &out.libraryHash},
                              {"source", &out.source}})
      if (auto e = string(json, member, key, *field, false))
        return e;
    if (out.libraryHash.find_first_not_of("0123456789abcdef") != std::string::npos)
      return error(member + ".library_hash", "expected lower-case hex digits, got '" +
                                                 out.libraryHash + "'");
    auto method = json.find("method");
    if (method != json.end() && !method->is_object())
      return error(member + ".method", "expected an object, got " + fields::show(*method));
    out.method = method != json.end() ? *method : nlohmann::json::object();
    std::optional<Diagnostic> failure;
    const nlohmann::json *shapes = array(json, member, "shapes", failure);
    if (!shapes)
      return failure;
    if (shapes->empty())
      return error(member + ".shapes", "is empty; a tuned target has at least one shape");
    std::set<std::vector<std::int64_t>> seen;
    for (std::size_t i = 0; i < shapes->size(); ++i) {
      const std::string at = member + ".shapes[" + std::to_string(i) + "]";
      TunedShape shape;
      if (auto e = this->shape((*shapes)[i], at, keyCount, shape))
        return e;
      if (!seen.insert(shape.key).second)
        return error(at + ".key", "is tuned twice for " + out.target);
      out.shapes.push_back(std::move(shape));
    }
    return std::nullopt;
  }

  std::optional<Diagnostic> kernel(const nlohmann::json &json, const std::string &member,
                                   TunedKernel &out) const {
    if (!json.is_object())
      return error(member, "expected an object with \"kernel\", \"key\" and \"targets\"");
    if (auto e = string(json, member, "kernel", out.kernel, true))
      return e;
    if (auto e = cName(json["kernel"], member + ".kernel"))
      return e;
    std::optional<Diagnostic> failure;
    const nlohmann::json *key = array(json, member, "key", failure);
    if (!key)
      return failure;
    if (key->empty())
      return error(member + ".key", "is empty; name the integer parameters the dispatch keys on");
    for (std::size_t i = 0; i < key->size(); ++i) {
      if (!(*key)[i].is_string())
        return error(member + ".key[" + std::to_string(i) + "]", "expected a parameter name");
      if (auto e = cName((*key)[i], member + ".key[" + std::to_string(i) + "]"))
        return e;
      out.key.push_back((*key)[i].get<std::string>());
    }
    const nlohmann::json *targets = array(json, member, "targets", failure);
    if (!targets)
      return failure;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < targets->size(); ++i) {
      const std::string at = member + ".targets[" + std::to_string(i) + "]";
      TunedTarget target;
      if (auto e = this->target((*targets)[i], at, out.key.size(), target))
        return e;
      if (!seen.insert(target.target).second)
        return error(at + ".target", "'" + target.target + "' is listed twice for " + out.kernel);
      out.targets.push_back(std::move(target));
    }
    return std::nullopt;
  }

private:
  std::string where_;
};

double log2Of(std::int64_t value) { return std::log2(static_cast<double>(std::max<std::int64_t>(value, 1))); }

} // namespace

Expected<TuningTable> parseTuningTable(const nlohmann::json &json, const std::string &where) {
  TableReader reader(where);
  if (!json.is_object())
    return reader.error("(top level)", "expected an object with \"schema\": \"" + std::string(kSchema) + "\"");
  // (not json.value("schema", ""): it throws when "schema" is there but not a string)
  const auto schema = json.find("schema");
  if (schema == json.end() || !schema->is_string() || *schema != kSchema)
    return reader.error("schema", "expected \"" + std::string(kSchema) + "\", got " +
                                      (schema != json.end() ? schema->dump() : "nothing"));
  if (!json.contains("version") || json["version"] != kVersion)
    return reader.error("version", "expected " + std::to_string(kVersion) + ", got " +
                                       (json.contains("version") ? json["version"].dump() : "nothing") +
                                       "; this triton-aot reads version " + std::to_string(kVersion));
  std::optional<Diagnostic> failure;
  const nlohmann::json *kernels = reader.array(json, "(top level)", "kernels", failure);
  if (!kernels)
    return *failure;
  TuningTable table;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    const std::string at = "kernels[" + std::to_string(i) + "]";
    TunedKernel kernel;
    if (auto e = reader.kernel((*kernels)[i], at, kernel))
      return *e;
    if (!seen.insert(kernel.kernel).second)
      return reader.error(at + ".kernel", "'" + kernel.kernel + "' is listed twice");
    table.kernels.push_back(std::move(kernel));
  }
  return table;
}

Expected<TuningTable> readTuningTable(const std::string &path) {
  auto text = readToolFile(path, kMaxToolFileBytes);
  if (!text)
    return text.takeError();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded()) {
    Diagnostic diag = makeError(ExitCode::UsageError, "the tuning table is not valid JSON");
    diag.file = path;
    return diag;
  }
  return parseTuningTable(json, path);
}

nlohmann::json tuningTableJson(const TuningTable &table) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const TunedKernel &kernel : table.kernels) {
    nlohmann::json targets = nlohmann::json::array();
    for (const TunedTarget &target : kernel.targets) {
      nlohmann::json shapes = nlohmann::json::array();
      for (const TunedShape &shape : target.shapes) {
        nlohmann::json times = nlohmann::json::object();
        for (const auto &[name, time] : shape.timesUs)
          times[name] = time ? nlohmann::json(*time) : nlohmann::json();
        shapes.push_back({{"key", shape.key}, {"best", shape.best}, {"times_us", times}});
      }
      targets.push_back({{"target", target.target},
                         {"device", target.device},
                         {"triton_version", target.tritonVersion},
                         {"library", target.library},
                         {"library_hash", target.libraryHash},
                         {"source", target.source},
                         {"method", target.method.is_null() ? nlohmann::json::object() : target.method},
                         {"shapes", shapes}});
    }
    kernels.push_back({{"kernel", kernel.kernel}, {"key", kernel.key}, {"targets", targets}});
  }
  return {{"schema", kSchema}, {"version", kVersion}, {"kernels", kernels}};
}

Status mergeTuningTables(TuningTable &into, const TuningTable &from) {
  for (const TunedKernel &kernel : from.kernels) {
    auto mine = std::find_if(into.kernels.begin(), into.kernels.end(),
                             [&](const TunedKernel &k) { return k.kernel == kernel.kernel; });
    if (mine == into.kernels.end()) {
      into.kernels.push_back(kernel);
      continue;
    }
    if (mine->key != kernel.key)
      return makeError(ExitCode::UsageError,
                       "kernel '" + kernel.kernel + "' is keyed on different parameters in the two "
                       "tables; tune it again into a new table");
    for (const TunedTarget &target : kernel.targets) {
      auto same = std::find_if(mine->targets.begin(), mine->targets.end(),
                               [&](const TunedTarget &t) { return t.target == target.target; });
      if (same == mine->targets.end()) {
        mine->targets.push_back(target);
        continue;
      }
      std::vector<TunedShape> shapes = target.shapes;  // the newer run's, then the others
      for (const TunedShape &old : same->shapes)
        if (std::none_of(shapes.begin(), shapes.end(),
                         [&](const TunedShape &s) { return s.key == old.key; }))
          shapes.push_back(old);
      *same = target;
      same->shapes = std::move(shapes);
    }
  }
  return ok();
}

Expected<ShapeDispatch> shapeDispatch(const TunedTarget &target, std::size_t keyCount) {
  if (target.shapes.empty())
    return makeError(ExitCode::UsageError, target.target + ": no tuned shape");
  ShapeDispatch out;
  out.values.resize(keyCount);
  for (std::size_t d = 0; d < keyCount; ++d) {
    std::set<std::int64_t> distinct;
    for (const TunedShape &shape : target.shapes)
      distinct.insert(shape.key.at(d));
    out.values[d].assign(distinct.begin(), distinct.end());
    std::vector<double> boundaries;
    for (std::size_t i = 0; i + 1 < out.values[d].size(); ++i)
      boundaries.push_back(std::sqrt(static_cast<double>(out.values[d][i]) *
                                     static_cast<double>(out.values[d][i + 1])));
    out.boundaries.push_back(std::move(boundaries));
  }
  std::size_t cells = 1;
  for (const auto &values : out.values) {
    if (cells > kMaxDispatchGrid / values.size())
      return makeError(ExitCode::UsageError,
                       target.target + ": the tuned shapes span a dispatch grid of more than " +
                           std::to_string(kMaxDispatchGrid) +
                           " cells (the product of the distinct values per key dimension); tune "
                           "fewer distinct values per dimension");
    cells *= values.size();
  }
  out.grid.resize(cells);
  std::vector<std::int64_t> point(keyCount);
  for (std::size_t cell = 0; cell < cells; ++cell) {
    std::size_t rest = cell;
    for (std::size_t d = keyCount; d-- > 0;) {
      point[d] = out.values[d][rest % out.values[d].size()];
      rest /= out.values[d].size();
    }
    double nearest = std::numeric_limits<double>::infinity();
    for (const TunedShape &shape : target.shapes) {
      double distance = 0;
      for (std::size_t d = 0; d < keyCount; ++d) {
        const double delta = log2Of(point[d]) - log2Of(shape.key[d]);
        distance += delta * delta;
      }
      if (distance < nearest) { // strict: ties go to the earlier shape
        nearest = distance;
        out.grid[cell] = shape.best;
      }
    }
  }
  return out;
}

const std::string &dispatchedConfig(const ShapeDispatch &dispatch,
                                    const std::vector<std::int64_t> &key) {
  std::size_t cell = 0;
  for (std::size_t d = 0; d < dispatch.values.size(); ++d) {
    std::size_t index = 0;
    const double x = static_cast<double>(key.at(d));
    while (index < dispatch.boundaries[d].size() && !(x < dispatch.boundaries[d][index]))
      ++index;
    cell = cell * dispatch.values[d].size() + index;
  }
  return dispatch.grid[cell];
}

} // namespace tta
