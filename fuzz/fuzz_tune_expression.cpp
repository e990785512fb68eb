// Expression::parse and evaluate (contract/tune_expression.h): the tuning spec's expressions over
// key names ("cdiv(M, BLOCK_M)"). Names take values from a fixed set with zero, one, negatives
// and the int64 extremes, so overflow and division by zero are reached.
#include "fuzz/fuzz_input.h"
#include "contract/tune_expression.h"

#include <limits>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  tta::tune::Expression expr;
  tta::tune::ExprError error;
  if (!tta::tune::Expression::parse(tta::fuzz::asText(data, size), expr, error))
    return 0;
  static constexpr std::int64_t kValues[] = {0, 1, -1, 7, std::numeric_limits<std::int64_t>::max(),
                                             std::numeric_limits<std::int64_t>::min()};
  tta::tune::ExprNames names;
  std::size_t next = 0;
  for (const auto &[name, column] : expr.names())
    names[name] = kValues[next++ % std::size(kValues)];
  tta::tune::ExprValue value;
  (void)expr.evaluate(names, value, error);
  for (auto &[name, v] : names)
    v = kValues[next++ % std::size(kValues)];
  (void)expr.evaluate(names, value, error);
  return 0;
}
