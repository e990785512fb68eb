// Python's integer // and %, which round toward negative infinity (C's round toward zero), for
// the expressions written in Python's terms: translated heuristics and tuning specs.
#pragma once

#include <cstdint>

namespace tta {

inline std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline std::int64_t floorMod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

} // namespace tta
