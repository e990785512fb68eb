#include "compiler/specialize.h"

#include "compiler/frontend_client.h"
#include "contract/c_names.h"
#include "contract/json_access.h"
#include "contract/types.h"

#include <algorithm>
#include <charconv>

namespace tta {

namespace {

Diagnostic usage(std::string message, std::vector<std::string> notes = {}) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.notes = std::move(notes);
  return diag;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

bool listed(const nlohmann::json &describe, const char *key, const std::string &name) {
  for (const auto &item : arrayOf(describe, key))
    if (item.is_string() && item.get<std::string>() == name)
      return true;
  return false;
}

/// The hint Triton's JIT gives an integer of value \p v (specialize_impl: 1, then % 16).
int integerHint(std::int64_t v) { return v == 1 ? 1 : v % 16 == 0 ? 16 : 0; }

bool isInteger(const SignatureEntry &entry) {
  const ScalarTypeInfo &info = typeInfo(entry.type);
  return entry.kind == SignatureEntry::Kind::Scalar && !info.isFloat &&
         entry.type != ScalarType::I1 && entry.type != ScalarType::U1;
}

} // namespace

Status addSpecializeCall(const std::string &text, SpecializePolicy &policy) {
  ExampleCall call;
  std::string items = text;
  std::replace(items.begin(), items.end(), ',', ' ');
  std::size_t at = 0;
  while (at < items.size()) {
    const std::size_t end = std::min(items.find(' ', at), items.size());
    const std::string item = items.substr(at, end - at);
    at = end + 1;
    if (item.empty())
      continue;
    const std::size_t eq = item.find('=');
    const std::string name = eq == std::string::npos ? item : trim(item.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(item.substr(eq + 1));
    std::int64_t number = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (eq == std::string::npos || !isCIdentifier(name) || value.empty() || ec != std::errc() ||
        ptr != value.data() + value.size())
      return usage("--specialize-for '" + text + "': '" + item +
                       "' is not <parameter>=<integer>",
                   {"a call gives its integer arguments by name: --specialize-for "
                    "\"M=1, N=4096, K=4096\""});
    if (!call.emplace(name, number).second)
      return usage("--specialize-for '" + text + "': '" + name + "' is given twice");
  }
  if (call.empty())
    return usage("--specialize-for '" + text + "' gives no argument",
                 {"give the call's integer arguments by name: \"M=1, N=4096, K=4096\""});
  policy.calls.push_back(std::move(call));
  return ok();
}

Status addSpecializeArg(const std::string &text, SpecializePolicy &policy) {
  const std::size_t eq = text.find('=');
  const std::string name = eq == std::string::npos ? "" : trim(text.substr(0, eq));
  if (eq == std::string::npos || !isCIdentifier(name))
    return usage("--specialize-arg '" + text + "': expected <parameter>=<expression>",
                 {"for example --specialize-arg \"stride_am=K\" (TUNE_ARGS' language)"});
  tune::Expression expression;
  tune::ExprError error;
  if (!tune::Expression::parse(text.substr(eq + 1), expression, error))
    return usage("--specialize-arg '" + text + "': column " +
                 std::to_string(error.column + static_cast<int>(eq) + 1) + ": " + error.message);
  policy.args.emplace_back(name, std::move(expression));
  return ok();
}

Expected<std::vector<ExampleCall>> resolveCalls(const SpecializePolicy &policy) {
  std::vector<ExampleCall> calls;
  for (const ExampleCall &given : policy.calls) {
    ExampleCall call = given;
    tune::ExprNames names(given.begin(), given.end());
    for (const auto &[name, expression] : policy.args) {
      if (call.count(name))
        continue;
      // An expression over names this call does not give leaves its argument unknown (an
      // explicit call beside the tuned shapes, which TUNE_ARGS are written for).
      const auto used = expression.names();
      if (std::any_of(used.begin(), used.end(),
                      [&](const auto &n) { return names.find(n.first) == names.end(); }))
        continue;
      tune::ExprValue value;
      tune::ExprError error;
      if (!expression.evaluate(names, value, error)) {
        std::string shown;
        for (const auto &[n, v] : given)
          shown += (shown.empty() ? "" : ", ") + n + "=" + std::to_string(v);
        return usage("--specialize-arg '" + name + "=" + expression.text() + "' for the call '" +
                     shown + "': " + error.message);
      }
      if (!value.isFloat)
        call[name] = value.integer;   // a floating argument has no hint to give
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

std::optional<Signature> specializeFor(const Signature &declared, const nlohmann::json &describe,
                                       const ExampleCall &call) {
  Signature out = declared;
  const std::vector<std::string> names = entryParamNames(declared, describe);
  for (std::size_t e = 0; e < out.entries.size(); ++e) {
    SignatureEntry &entry = out.entries[e];
    const std::string &name = names[e];
    const bool pointer = entry.kind == SignatureEntry::Kind::Pointer;
    if (!pointer && !isInteger(entry))
      continue;
    const auto value = call.find(name);
    if (entry.hint != 0) {   // declared: the call must satisfy it
      if (!pointer && value != call.end() &&
          (entry.hint == 1 ? value->second != 1 : value->second % 16 != 0))
        return std::nullopt;
      continue;
    }
    if (name.empty() || listed(describe, "do_not_specialize", name))
      continue;
    if (pointer) {
      if (!listed(describe, "do_not_specialize_on_alignment", name))
        entry.hint = 16;
    } else if (value != call.end()) {
      entry.hint = integerHint(value->second);
      if (entry.hint == 16 && listed(describe, "do_not_specialize_on_alignment", name))
        entry.hint = 0;
    }
    entry.text = formatEntry(entry);
  }
  out.text = formatSignature(out);
  return out;
}

std::vector<Signature> specializedSignatures(const Signature &declared,
                                             const nlohmann::json &describe,
                                             const std::vector<ExampleCall> &calls) {
  std::vector<Signature> out;
  const std::string generic = formatSignature(declared);
  for (const ExampleCall &call : calls) {
    std::optional<Signature> signature = specializeFor(declared, describe, call);
    if (!signature || signature->text == generic)
      continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const Signature &s) { return s.text == signature->text; }))
      out.push_back(std::move(*signature));
  }
  return out;
}

} // namespace tta
