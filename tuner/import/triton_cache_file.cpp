#include "tuner/import/triton_cache_file.h"

#include "contract/read_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string_view>

namespace tta {
namespace {

namespace fs = std::filesystem;

Diagnostic fileError(const std::string &file, const std::string &message) {
  Diagnostic diag = makeError(ExitCode::UsageError, message);
  diag.file = file;
  return diag;
}

/// Python's json.dumps (allow_nan=True, the default) writes float('inf') as Infinity,
/// -inf as -Infinity and nan as NaN. Outside strings they become null, which is what a time
/// Triton could not measure means here.
std::string withPythonNonFiniteAsNull(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      out += c;
      continue;
    }
    std::string_view rest(text.data() + i, text.size() - i);
    std::size_t length = 0;
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"})
      if (rest.starts_with(token)) {
        length = token.size();
        break;
      }
    if (length == 0) {
      out += c;
      continue;
    }
    out += "null";
    i += length - 1;
  }
  return out;
}

std::optional<Diagnostic> readInt(const nlohmann::json &object, const std::string &file,
                                  const std::string &member, const char *name, int &out) {
  auto it = object.find(name);
  if (it == object.end())
    return std::nullopt; // Config.__dict__ always has it; a missing one takes Config's default
  if (!it->is_number_integer())
    return fileError(file, member + "." + name + ": expected an integer, got " + it->dump());
  out = it->get<int>();
  return std::nullopt;
}

/// One [Config.__dict__, timings] pair of "configs_timings".
Expected<TritonCachedConfig> parseConfigTiming(const nlohmann::json &pair, const std::string &file,
                                               const std::string &member) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_object())
    return fileError(file, member + ": expected [config, timings], got " + pair.dump());
  const nlohmann::json &config = pair[0];
  const std::string configMember = member + "[0]";
  TritonCachedConfig out;
  auto kwargs = config.find("kwargs");
  if (kwargs == config.end() || !kwargs->is_object())
    return fileError(file, configMember + ".kwargs: expected an object of meta-parameters");
  out.kwargs = *kwargs;
  for (auto [name, field] : {std::pair{"num_warps", &out.numWarps},
                             {"num_stages", &out.numStages},
                             {"num_ctas", &out.numCtas}})
    if (auto e = readInt(config, file, configMember, name, *field))
      return std::move(*e);
  if (auto maxnreg = config.find("maxnreg"); maxnreg != config.end() && !maxnreg->is_null()) {
    if (!maxnreg->is_number_integer())
      return fileError(file, configMember + ".maxnreg: expected an integer or null, got " +
                                 maxnreg->dump());
    out.maxnreg = maxnreg->get<int>();
  }
  if (auto ir = config.find("ir_override"); ir != config.end() && !ir->is_null())
    out.irOverride = true;

  // Autotuner._bench returns do_bench(..., quantiles=(0.5, 0.2, 0.8)): [median, p20, p80] in
  // ms, or [inf, inf, inf] for a config that failed; a custom do_bench may return one number.
  const nlohmann::json &timings = pair[1];
  const std::string timingsMember = member + "[1]";
  auto figure = [&](const nlohmann::json &value) -> std::optional<double> {
    return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
  };
  if (timings.is_number() || timings.is_null()) {
    out.medianMs = figure(timings);
  } else if (timings.is_array() && !timings.empty()) {
    for (std::size_t i = 0; i < timings.size(); ++i) {
      if (!timings[i].is_number() && !timings[i].is_null())
        return fileError(file, timingsMember + "[" + std::to_string(i) +
                                   "]: expected milliseconds, got " + timings[i].dump());
      out.timesMs.push_back(figure(timings[i]).value_or(INFINITY));
    }
    out.medianMs = figure(timings[0]);
  } else {
    return fileError(file, timingsMember + ": expected milliseconds or a list of them, got " +
                               timings.dump());
  }
  if (out.medianMs && (*out.medianMs < 0 || !std::isfinite(*out.medianMs)))
    return fileError(file, timingsMember + ": expected milliseconds >= 0, got " +
                               std::to_string(*out.medianMs));
  return out;
}

std::string functionFromFileName(const std::string &file) {
  std::string name = fs::path(file).filename().string();
  std::string_view suffix = kTritonAutotuneSuffix;
  if (name.size() > suffix.size() && name.ends_with(suffix))
    return name.substr(0, name.size() - suffix.size());
  return "";
}

} // namespace

Expected<TritonCacheEntry> parseTritonAutotuneCache(const std::string &text,
                                                    const std::string &file) {
  nlohmann::json json = nlohmann::json::parse(withPythonNonFiniteAsNull(text), nullptr, false);
  if (json.is_discarded())
    return fileError(file, "not JSON: expected a Triton autotune cache file");
  if (!json.is_object())
    return fileError(file, "expected an object with \"key\" and \"configs_timings\"");
  TritonCacheEntry entry;
  entry.file = file;
  entry.function = functionFromFileName(file);
  auto key = json.find("key");
  if (key == json.end() || !key->is_array())
    return fileError(file, "key: expected the tuning key, a list");
  entry.key = *key;
  auto timings = json.find("configs_timings");
  if (timings == json.end() || !timings->is_array())
    return fileError(file, "configs_timings: expected a list of [config, timings]");
  for (std::size_t i = 0; i < timings->size(); ++i) {
    auto config =
        parseConfigTiming((*timings)[i], file, "configs_timings[" + std::to_string(i) + "]");
    if (!config)
      return config.takeError();
    entry.configs.push_back(std::move(*config));
  }
  return entry;
}

Expected<TritonCacheEntry> readTritonAutotuneCache(const std::string &file) {
  std::optional<std::string> text = readFile(file);
  if (!text)
    return fileError(file, "cannot read the file");
  return parseTritonAutotuneCache(*text, file);
}

Expected<std::vector<std::string>>
findTritonAutotuneCacheFiles(const std::vector<std::string> &paths) {
  std::vector<std::string> files;
  for (const std::string &path : paths) {
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status))
      return fileError(path, "no such file or directory");
    if (!fs::is_directory(status)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (it->is_regular_file(ec) && name.ends_with(kTritonAutotuneSuffix) &&
          name.size() > std::string_view(kTritonAutotuneSuffix).size())
        found.push_back(it->path().string());
    }
    if (ec)
      return fileError(path, "cannot read the directory: " + ec.message());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

} // namespace tta
