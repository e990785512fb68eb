// Host-side helpers of the example programs: seeded random inputs (each run checks fresh data,
// reproducible from the seed it prints) and IEEE half-precision conversion.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
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

/// The fp16 bit pattern nearest to \p value (round to nearest even; overflow to infinity).
inline std::uint16_t toHalf(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // inf or NaN (a quiet NaN stays a NaN)
    return sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (magnitude >= 0x477ff000u) // rounds to 65520 or more: infinity
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) { // below the smallest normal half: a subnormal or zero
    // Scaling by 2^24 makes the subnormal's units integers; nearbyint rounds to even.
    float scaled = 0.0f;
    std::memcpy(&scaled, &magnitude, sizeof scaled);
    return sign | static_cast<std::uint16_t>(std::nearbyint(scaled * 16777216.0f));
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even.
  std::uint32_t half = (magnitude >> 13) - ((127u - 15u) << 10);
  const std::uint32_t dropped = magnitude & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (half & 1u)))
    ++half;
  return sign | static_cast<std::uint16_t>(half);
}

/// The float value of the fp16 bit pattern \p half (exact).
inline float fromHalf(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  const std::uint32_t mantissa = half & 0x3ffu;
  float magnitude = 0.0f;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &magnitude, sizeof bits);
  bits |= sign;
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace examples
