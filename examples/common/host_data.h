// Host-side helpers of the example programs: seeded random inputs (each run checks fresh data,
// reproducible from the seed it prints). fp16 conversion is <triton_aot/runtime.h>'s
// (triton_aot_fp16, triton_aot_fp16_to_float), installed with every kernel library.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace examples {

/// \p count values uniform in [low, high), from \p seed.
inline std::vector<float> randomFloats(std::size_t count, std::uint32_t seed, float low = -1.0f,
                                       float high = 1.0f) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float &value : values)
    value = distribution(engine);
  return values;
}

} // namespace examples
