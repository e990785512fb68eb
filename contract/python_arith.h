// Python's integer // and %, which round toward negative infinity (C's round toward zero), for
// the expressions written in Python's terms: translated heuristics and tuning specs. Python's
// integers do not overflow; ours are 64-bit, so the checked forms say where a result does not fit.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace tta {

/// a // b; b != 0 and not (a == INT64_MIN and b == -1), which overflows (checkedFloorDiv).
inline std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// a % b; b != 0. Never overflows: x % -1 is 0 (C++'s INT64_MIN % -1 is undefined).
inline std::int64_t floorMod(std::int64_t a, std::int64_t b) {
  if (b == -1)
    return 0;
  std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/// a // b, or nullopt where the quotient does not fit (INT64_MIN // -1); b != 0.
inline std::optional<std::int64_t> checkedFloorDiv(std::int64_t a, std::int64_t b) {
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
    return std::nullopt;
  return floorDiv(a, b);
}

/// a + b, a - b or a * b (\p op '+', '-', '*'), or nullopt where the result does not fit.
inline std::optional<std::int64_t> checkedAddSubMul(char op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  bool overflow = op == '+'   ? __builtin_add_overflow(a, b, &r)
                  : op == '-' ? __builtin_sub_overflow(a, b, &r)
                              : __builtin_mul_overflow(a, b, &r);
  if (overflow)
    return std::nullopt;
  return r;
}

/// Triton's cdiv(a, b) = (a + b - 1) // b, or nullopt where a step does not fit; b != 0.
inline std::optional<std::int64_t> checkedCdiv(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  // b - 1 cannot overflow for b > 0; for b < 0, a + b can only fall below INT64_MIN, and then
  // so does a + b - 1.
  bool overflow = b > 0 ? __builtin_add_overflow(a, b - 1, &sum)
                        : __builtin_add_overflow(a, b, &sum) || __builtin_sub_overflow(sum, 1, &sum);
  if (overflow)
    return std::nullopt;
  return checkedFloorDiv(sum, b);
}

} // namespace tta
