// parseHeuristic (contract/heuristic_expr.h): a @triton.heuristics lambda's body (Python) and a
// --heuristic expression (C); then formatHeuristic, evaluateHeuristic and emitHeuristicC on what
// parses. The first byte picks the dialect. An expression that parses formats to C that parses.
#include "contract/heuristic_expr.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0)
    return 0;
  const auto dialect = data[0] & 1 ? tta::HeuristicDialect::C : tta::HeuristicDialect::Python;
  auto expr = tta::parseHeuristic(tta::fuzz::asText(data + 1, size - 1), dialect);
  if (!expr)
    return 0;
  if (!tta::parseHeuristic(tta::formatHeuristic(*expr), tta::HeuristicDialect::C))
    __builtin_trap();
  (void)tta::isBoolValued(*expr);
  for (const std::string &name : tta::namesReadAsValues(*expr))
    if (!expr->names.count(name))
      __builtin_trap();

  // Every name a small integer (some 0, to reach division by zero), then a float.
  std::map<std::string, tta::HeuristicValue> values;
  std::int64_t next = 0;
  for (const std::string &name : expr->names)
    values[name] = tta::HeuristicValue{tta::HeuristicValue::Kind::Int, next++ % 3, 0};
  (void)tta::evaluateHeuristic(*expr, values);
  for (auto &[name, value] : values)
    value = tta::HeuristicValue{tta::HeuristicValue::Kind::Float, 0, 0.5};
  (void)tta::evaluateHeuristic(*expr, values);

  std::set<std::string> helpers;
  (void)tta::emitHeuristicC(
      *expr,
      [](const std::string &name) -> std::optional<tta::HeuristicBinding> {
        if (name.empty() || name[0] == 'P')
          return tta::HeuristicBinding{tta::HeuristicBinding::Kind::Pointer, {}, name};
        if (name[0] == 'F')
          return tta::HeuristicBinding{tta::HeuristicBinding::Kind::Float, {}, name};
        if (name[0] >= 'A' && name[0] <= 'Z')
          return tta::HeuristicBinding{tta::HeuristicBinding::Kind::Constant,
                                       {tta::HeuristicValue::Kind::Int, 16, 0}, ""};
        return tta::HeuristicBinding{tta::HeuristicBinding::Kind::Int, {}, name};
      },
      &helpers);
  return 0;
}
