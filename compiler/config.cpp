#include "compiler/config.h"

#include "contract/lexing.h"
#include "contract/spelling.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <utility>
#include <vector>

namespace tta {

namespace {

enum class OptionKind { Bool, Count, String };

/// The backends whose Triton options have the field (CUDAOptions, HIPOptions).
enum class OptionBackends { Both, Cuda, Hip };

struct OptionSpec {
  std::string_view key;
  OptionKind kind;
  OptionBackends backends;
};

// The CUDAOptions / HIPOptions fields a config may set besides the typed ones, and which backend
// has each (the backends' compiler.py of Triton 3.6 and 3.9 agree). Counts are non-negative
// integers.
constexpr OptionSpec kOptions[] = {
    {"allow_flush_denorm", OptionKind::Bool, OptionBackends::Hip},
    {"debug", OptionKind::Bool, OptionBackends::Both},
    {"default_dot_input_precision", OptionKind::String, OptionBackends::Both},
    {"enable_fp_fusion", OptionKind::Bool, OptionBackends::Both},
    {"enable_reflect_ftz", OptionKind::Bool, OptionBackends::Cuda},
    {"kpack", OptionKind::Count, OptionBackends::Hip},
    {"launch_cooperative_grid", OptionKind::Bool, OptionBackends::Both},
    {"launch_pdl", OptionKind::Bool, OptionBackends::Cuda},
    {"matrix_instr_nonkdim", OptionKind::Count, OptionBackends::Hip},
    {"max_num_imprecise_acc_default", OptionKind::Count, OptionBackends::Both},
    {"ptx_options", OptionKind::String, OptionBackends::Cuda},
    {"sanitize_overflow", OptionKind::Bool, OptionBackends::Both},
    {"schedule_hint", OptionKind::String, OptionBackends::Hip},
    {"waves_per_eu", OptionKind::Count, OptionBackends::Hip},
};

// maxnreg (ptxas' register cap) is CUDA's only; the others are both backends'.
constexpr std::string_view kTypedOptions[] = {"maxnreg", "num_ctas", "num_stages", "num_warps"};

const OptionSpec *findOption(std::string_view key) {
  for (const OptionSpec &spec : kOptions)
    if (spec.key == key)
      return &spec;
  return nullptr;
}


struct Item {
  std::size_t begin = 0, end = 0; ///< the whole KEY=VALUE
  std::size_t valueBegin = 0;     ///< end if there is no '='
  std::string_view key;
  bool hasEquals = false;
};

/// Splits "A=1 B='x y'" into items at whitespace outside quotes; "A = 1" is one item too.
std::vector<Item> splitItems(std::string_view text) {
  std::vector<Item> items;
  std::size_t i = 0;
  auto skipSpace = [&] {
    while (i < text.size() && isSpace(text[i]))
      ++i;
  };
  for (skipSpace(); i < text.size(); skipSpace()) {
    Item item;
    item.begin = i;
    while (i < text.size() && isIdentChar(text[i]))
      ++i;
    item.key = text.substr(item.begin, i - item.begin);
    std::size_t afterKey = i;
    skipSpace();
    if (!item.key.empty() && i < text.size() && text[i] == '=') {
      item.hasEquals = true;
      ++i;
      skipSpace();
    } else {
      i = afterKey;
    }
    item.valueBegin = i;
    char quote = 0;
    for (; i < text.size() && (quote || !isSpace(text[i])); ++i) {
      if (quote && text[i] == '\\')
        ++i;
      else if (quote && text[i] == quote)
        quote = 0;
      else if (!quote && (text[i] == '\'' || text[i] == '"'))
        quote = text[i];
    }
    i = std::min(i, text.size());
    item.end = i;
    if (!item.hasEquals)
      item.valueBegin = item.end;
    items.push_back(item);
  }
  return items;
}

std::optional<int> asInt(const ConstexprValue &value) {
  if (value.kind != ConstexprValue::Kind::Int || value.intValue < 0 || value.intValue > 1 << 30)
    return std::nullopt;
  return static_cast<int>(value.intValue);
}

/// Checks \p value for a typed or table option; returns the reason it is wrong, or "".
std::string checkOption(std::string_view key, ConstexprValue &value, Config &config) {
  std::optional<int> number = asInt(value);
  if (key == "num_warps") {
    // Triton asserts a power of two; 32 warps is already 1024 threads, the most a block has.
    if (!number || *number < 1 || *number > 32 || (*number & (*number - 1)) != 0)
      return "num_warps must be a power of two from 1 to 32";
    config.numWarps = number;
  } else if (key == "num_stages" || key == "num_ctas" || key == "maxnreg") {
    if (!number || *number < 1)
      return std::string(key) + " must be a positive integer";
    (key == "num_stages" ? config.numStages
     : key == "num_ctas" ? config.numCtas
                         : config.maxnreg) = number;
  } else {
    const OptionSpec &spec = *findOption(key);
    switch (spec.kind) {
    case OptionKind::Bool:
      if (value.kind != ConstexprValue::Kind::Bool)
        return std::string(key) + " must be True or False";
      break;
    case OptionKind::Count:
      if (!number)
        return std::string(key) + " must be a non-negative integer";
      break;
    case OptionKind::String:
      // A bare word is a string here, as the kind is known: schedule_hint=attention.
      if (value.kind == ConstexprValue::Kind::Name)
        value.kind = ConstexprValue::Kind::String;
      if (value.kind != ConstexprValue::Kind::String)
        return std::string(key) + " must be a string";
      break;
    }
    config.options[std::string(key)] = value;
  }
  return {};
}

} // namespace

bool archsInclude(const std::vector<std::string> &archs, const std::string &arch) {
  if (archs.empty())
    return true;
  const std::string processor = arch.substr(0, arch.find(':'));
  for (const std::string &named : archs)
    if (named == arch || named + "a" == arch || (named == processor && named.rfind("gfx", 0) == 0))
      return true;
  return false;
}

bool isLaunchOptionHeuristic(std::string_view key) {
  return std::find(std::begin(kTypedOptions), std::end(kTypedOptions), key) !=
         std::end(kTypedOptions);
}

std::string setLaunchOption(std::string_view key, std::int64_t value, Config &config) {
  ConstexprValue number;
  number.kind = ConstexprValue::Kind::Int;
  number.intValue = value;
  number.text = std::to_string(value);
  return checkOption(key, number, config);
}

bool isTritonOption(std::string_view key) {
  for (std::string_view typed : kTypedOptions)
    if (typed == key)
      return true;
  return findOption(key) != nullptr;
}

bool backendHasOption(Backend backend, std::string_view key) {
  if (key == "maxnreg")
    return backend == Backend::Cuda;
  const OptionSpec *spec = findOption(key);
  if (!spec)
    return true; // a typed option both have
  return spec->backends == OptionBackends::Both ||
         spec->backends == (backend == Backend::Cuda ? OptionBackends::Cuda : OptionBackends::Hip);
}

Expected<Config> parseConfig(std::string_view text) {
  Config config;
  std::vector<std::pair<std::string_view, std::size_t>> seen; // key, 1-based item number
  const std::vector<Item> items = splitItems(text);
  for (std::size_t n = 0; n < items.size(); ++n) {
    const Item &item = items[n];
    const std::string_view whole = text.substr(item.begin, item.end - item.begin);
    const std::string position =
        "config entry " + std::to_string(n + 1) + " '" + std::string(whole) + "'";
    auto fail = [&](std::size_t pos, std::string reason) {
      Diagnostic diag = makeError(ExitCode::UsageError, position + ": " + std::move(reason));
      diag.column = static_cast<int>(pos + 1);
      diag.sourceLine = std::string(text);
      return diag;
    };
    if (item.key.empty() || !item.hasEquals)
      return fail(item.begin, "expected KEY=VALUE, such as BLOCK=1024 or num_warps=4");
    if (std::isdigit(static_cast<unsigned char>(item.key[0])))
      return fail(item.begin, "key '" + std::string(item.key) +
                                  "' is not a name; expected a letter or '_' first");
    const std::string_view raw = text.substr(item.valueBegin, item.end - item.valueBegin);
    if (raw.empty())
      return fail(item.valueBegin, "no value; expected " + std::string(item.key) + "=<value>");
    for (auto [key, index] : seen)
      if (key == item.key)
        return fail(item.begin, std::string(item.key) + " is already set by entry " +
                                    std::to_string(index) + "; expected each key once");
    seen.emplace_back(item.key, n + 1);

    if (item.key == "archs") {
      // A list, not a constexpr: "archs=90a,100a" or "archs=gfx942,gfx950".
      std::string list(raw);
      std::size_t start = 0;
      while (start <= list.size()) {
        std::size_t end = std::min(list.find(',', start), list.size());
        std::string arch = list.substr(start, end - start);
        static const std::regex valid("([1-9][0-9]{1,2}[af]?|gfx[0-9a-f]+(:(sramecc|xnack)[+-])*)");
        if (!std::regex_match(arch, valid))
          return fail(item.valueBegin + start,
                      "'" + arch + "' is not a target arch; expected a list such as "
                      "archs=90a,100a or archs=gfx942 (CUDA capabilities, HIP processors)");
        config.archs.push_back(arch);
        start = end + 1;
      }
      continue;
    }
    if (item.key == "name") {
      // Becomes part of C symbols and file names, so quotes are fine but the contents are not free.
      Expected<ConstexprValue> value = parseConstexpr(raw);
      std::string name = value && (value->kind == ConstexprValue::Kind::String ||
                                   value->kind == ConstexprValue::Kind::Name)
                             ? value->text
                             : std::string(raw);
      bool valid = !name.empty();
      for (char c : name)
        valid = valid && isIdentChar(c);
      if (!valid)
        return fail(item.valueBegin,
                    "a config name may contain only letters, digits and '_', got " +
                        std::string(raw));
      config.name = std::move(name);
      continue;
    }
    Expected<ConstexprValue> value = parseConstexpr(raw);
    if (!value) {
      Diagnostic diag = value.takeError();
      const std::size_t at = item.valueBegin + static_cast<std::size_t>(diag.column - 1);
      if (at < text.size() && text[at] == ',') // "A=1,B=2": a habit from other syntaxes
        return fail(at, "unexpected ','; separate config entries with spaces");
      return fail(at, diag.message);
    }
    if (isTritonOption(item.key)) {
      if (std::string reason = checkOption(item.key, *value, config); !reason.empty())
        return fail(item.valueBegin, reason + ", got " + std::string(raw));
      continue;
    }
    if (value->kind == ConstexprValue::Kind::Name)
      return fail(item.valueBegin,
                  "'" + std::string(raw) +
                      "' is not a value; expected a number, True, False, "
                      "None, a dtype such as tl.float16, or a quoted string such as '" +
                      std::string(raw) + "'");
    config.constexprs[std::string(item.key)] = std::move(*value);
  }
  return config;
}

std::string formatConfig(const Config &config) {
  std::map<std::string, std::string> options; // sorted, typed and table options together
  auto addInt = [&](const char *key, const std::optional<int> &value) {
    if (value)
      options[key] = std::to_string(*value);
  };
  addInt("num_warps", config.numWarps);
  addInt("num_stages", config.numStages);
  addInt("num_ctas", config.numCtas);
  addInt("maxnreg", config.maxnreg);
  for (const auto &[key, value] : config.options)
    options[key] = formatConstexpr(value);
  std::string out;
  auto add = [&](const std::string &key, const std::string &value) {
    out += (out.empty() ? "" : " ") + key + "=" + value;
  };
  if (!config.name.empty())
    add("name", config.name);
  if (!config.archs.empty()) {
    std::string archs;
    for (const std::string &arch : config.archs)
      archs += (archs.empty() ? "" : ",") + arch;
    add("archs", archs);
  }
  for (const auto &[key, value] : options)
    add(key, value);
  for (const auto &[key, value] : config.constexprs)
    add(key, formatConstexpr(value));
  return out;
}

namespace {

/// The value \p config gives the option \p name, as a constexpr: Triton passes a launch keyword
/// such as num_stages=4 both to the option and to a constexpr parameter of that name (the fused
/// softmax tutorial's kernel has one).
std::optional<ConstexprValue> optionAsConstexpr(const Config &config, const std::string &name) {
  const std::optional<int> *typed = name == "num_warps"    ? &config.numWarps
                                    : name == "num_stages" ? &config.numStages
                                    : name == "num_ctas"   ? &config.numCtas
                                    : name == "maxnreg"    ? &config.maxnreg
                                                           : nullptr;
  if (typed) {
    if (!*typed)
      return std::nullopt;
    ConstexprValue value;
    value.kind = ConstexprValue::Kind::Int;
    value.intValue = **typed;
    value.text = std::to_string(**typed);
    return value;
  }
  auto option = config.options.find(name);
  return option == config.options.end() ? std::nullopt : std::optional(option->second);
}

} // namespace

Expected<Signature> resolveSignature(const Signature &signature, const Config &config) {
  Signature resolved = signature;
  std::vector<std::string> entryNames;
  for (SignatureEntry &entry : resolved.entries) {
    if (entry.kind != SignatureEntry::Kind::Constexpr ||
        entry.value.kind != ConstexprValue::Kind::Name)
      continue;
    const std::string name = entry.value.text;
    entryNames.push_back(name);
    // A name the config gives no value stays: the kernel's parameters decide it
    // (resolveKernelNames).
    if (auto found = config.constexprs.find(name); found != config.constexprs.end())
      entry.value = found->second;
    else if (std::optional<ConstexprValue> option = optionAsConstexpr(config, name))
      entry.value = *option;
  }
  for (const auto &[key, value] : config.constexprs) {
    bool used = false;
    for (const std::string &name : entryNames)
      used = used || name == key;
    if (used)
      continue;
    std::string message = "config sets " + key + " but no signature entry is named " + key;
    std::vector<std::string> options(std::begin(kTypedOptions), std::end(kTypedOptions));
    for (const OptionSpec &spec : kOptions)
      options.emplace_back(spec.key);
    if (std::optional<std::string> guess = closestMatch(key, entryNames))
      message += "; did you mean " + *guess + "?";
    else if (std::optional<std::string> option = closestMatch(key, options))
      message += "; did you mean the option " + *option + "?";
    return makeError(ExitCode::UsageError, std::move(message));
  }
  return resolved;
}

} // namespace tta
