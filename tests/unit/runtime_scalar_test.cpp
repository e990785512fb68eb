// The fp16 / bf16 converters of <triton_aot/runtime.h>: exact bit patterns, rounding to
// nearest even, subnormals, overflow, infinities and NaNs.
#include "triton_aot/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

bool isHalfNan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool isBf16Nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

// An independent reference: the value of each half, then the nearest one in double arithmetic
// (exact for these magnitudes), ties to the even pattern.
double halfValue(uint16_t h) {
  int exponent = (h >> 10) & 0x1f;
  double mantissa = h & 0x3ff;
  double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024.0 + mantissa, exponent - 25);
  return (h & 0x8000u) ? -magnitude : magnitude;
}

uint16_t referenceHalf(float value) {
  if (std::isnan(value))
    return 0x7e00;
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(static_cast<double>(value));
  // 65520 is halfway between the largest half (65504) and the next step: it rounds to inf.
  if (magnitude >= 65520.0)
    return sign | 0x7c00;
  uint16_t low = 0, high = 0x7bff;
  while (low < high) { // the largest pattern whose value is <= magnitude
    uint16_t middle = static_cast<uint16_t>((low + high + 1) / 2);
    if (halfValue(middle) <= magnitude)
      low = middle;
    else
      high = static_cast<uint16_t>(middle - 1);
  }
  double below = halfValue(low), above = halfValue(static_cast<uint16_t>(low + 1));
  uint16_t pick = low;
  if (magnitude - below > above - magnitude ||
      (magnitude - below == above - magnitude && (low & 1u)))
    pick = static_cast<uint16_t>(low + 1);
  return sign | pick;
}

uint16_t referenceBf16(float value) {
  if (std::isnan(value))
    return 0x7fc0;
  uint32_t bits = bitsOf(value);
  uint32_t truncated = bits & 0xffff0000u;
  double below = fromBits(truncated), above;
  if ((truncated & 0x7fffffffu) == 0x7f800000u)
    return static_cast<uint16_t>(truncated >> 16); // inf
  uint32_t next = truncated + 0x10000u; // may step to inf: that is the next representable value
  above = (next & 0x7f800000u) == 0x7f800000u ? std::copysign(std::ldexp(1.0, 128), below)
                                              : static_cast<double>(fromBits(next));
  double v = value;
  double distanceBelow = std::fabs(v - below), distanceAbove = std::fabs(above - v);
  if (distanceAbove < distanceBelow || (distanceAbove == distanceBelow && ((truncated >> 16) & 1u)))
    return static_cast<uint16_t>(next >> 16);
  return static_cast<uint16_t>(truncated >> 16);
}

TEST(RuntimeScalarTest, Fp16KnownPatterns) {
  EXPECT_EQ(triton_aot_fp16(0.0f), 0x0000);
  EXPECT_EQ(triton_aot_fp16(-0.0f), 0x8000);
  EXPECT_EQ(triton_aot_fp16(1.0f), 0x3c00);
  EXPECT_EQ(triton_aot_fp16(-2.0f), 0xc000);
  EXPECT_EQ(triton_aot_fp16(0.5f), 0x3800);
  EXPECT_EQ(triton_aot_fp16(65504.0f), 0x7bff);  // largest half
  EXPECT_EQ(triton_aot_fp16(65519.99f), 0x7bff); // below the halfway point
  EXPECT_EQ(triton_aot_fp16(65520.0f), 0x7c00);  // halfway: even is inf
  EXPECT_EQ(triton_aot_fp16(1e6f), 0x7c00);
  EXPECT_EQ(triton_aot_fp16(-1e6f), 0xfc00);
  EXPECT_EQ(triton_aot_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(triton_aot_fp16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(triton_aot_fp16(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(triton_aot_fp16(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(triton_aot_fp16(std::ldexp(1.0f, -25)), 0x0000); // halfway to it: even is 0
  EXPECT_EQ(triton_aot_fp16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(triton_aot_fp16(std::ldexp(3.0f, -25)), 0x0002);        // 1.5 ulp: ties to even 2
  EXPECT_EQ(triton_aot_fp16(std::ldexp(1023.0f, -24)), 0x03ff);     // largest subnormal
  EXPECT_EQ(triton_aot_fp16(std::ldexp(2047.0f, -25)), 0x0400);     // rounds up into the normals
  EXPECT_EQ(triton_aot_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie: even
  EXPECT_EQ(triton_aot_fp16(1.0f + std::ldexp(3.0f, -11)), 0x3c02); // tie: even (up)
  EXPECT_EQ(triton_aot_fp16(fromBits(0x3f801001u)), 0x3c01);        // just above the tie
  EXPECT_EQ(triton_aot_fp16(1e-10f), 0x0000);
  EXPECT_EQ(triton_aot_fp16(-1e-10f), 0x8000);
}

TEST(RuntimeScalarTest, Fp16NansStayQuietNans) {
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xffc00000u, 0x7fffffffu, 0x7fa00000u}) {
    uint16_t h = triton_aot_fp16(fromBits(bits));
    EXPECT_TRUE(isHalfNan(h)) << std::hex << bits;
    EXPECT_TRUE(h & 0x200u) << std::hex << bits; // quiet
    EXPECT_EQ(h & 0x8000u, (bits >> 16) & 0x8000u) << std::hex << bits;
  }
}

TEST(RuntimeScalarTest, Fp16MatchesTheReferenceAcrossTheFloatRange) {
  // Every 65537th pattern (all exponents, many mantissas), and the neighbourhood of each
  // half-ulp boundary of the normal and subnormal ranges.
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 65537) {
    float value = fromBits(static_cast<uint32_t>(bits));
    uint16_t expected = referenceHalf(value), actual = triton_aot_fp16(value);
    if (std::isnan(value))
      continue;
    ASSERT_EQ(actual, expected) << std::hex << bits;
  }
  for (int exponent = -26; exponent <= 16; ++exponent)
    for (uint32_t step = 0; step < 2048; step += 7) {
      float base = std::ldexp(static_cast<float>(step) + 0.5f, exponent);
      for (float value : {std::nextafter(base, 0.0f), base, std::nextafter(base, 1e30f)}) {
        ASSERT_EQ(triton_aot_fp16(value), referenceHalf(value)) << value;
        ASSERT_EQ(triton_aot_fp16(-value), referenceHalf(-value)) << -value;
      }
    }
#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
  // The compiler's own conversion agrees too.
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4099) {
    float value = fromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    _Float16 h = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &h, sizeof expected);
    ASSERT_EQ(triton_aot_fp16(value), expected) << std::hex << bits;
  }
#endif
}

TEST(RuntimeScalarTest, Fp16ToFloatIsExactForEveryPattern) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float value = triton_aot_fp16_to_float(half);
    if (isHalfNan(half)) {
      EXPECT_TRUE(std::isnan(value)) << std::hex << h;
      continue;
    }
    if ((half & 0x7fffu) == 0x7c00u)   // halfValue() knows finite patterns only
      ASSERT_TRUE(std::isinf(value)) << std::hex << h;
    else
      ASSERT_EQ(static_cast<double>(value), halfValue(half)) << std::hex << h;
    ASSERT_EQ(std::signbit(value), (half & 0x8000u) != 0) << std::hex << h;   // -0 too
    ASSERT_EQ(triton_aot_fp16(value), half) << std::hex << h;                   // round trip
  }
}

TEST(RuntimeScalarTest, Bf16KnownPatterns) {
  EXPECT_EQ(triton_aot_bf16(0.0f), 0x0000);
  EXPECT_EQ(triton_aot_bf16(-0.0f), 0x8000);
  EXPECT_EQ(triton_aot_bf16(1.0f), 0x3f80);
  EXPECT_EQ(triton_aot_bf16(-2.5f), 0xc020);
  EXPECT_EQ(triton_aot_bf16(fromBits(0x3f808000u)), 0x3f80);             // tie: even (down)
  EXPECT_EQ(triton_aot_bf16(fromBits(0x3f818000u)), 0x3f82);             // tie: even (up)
  EXPECT_EQ(triton_aot_bf16(fromBits(0x3f808001u)), 0x3f81);             // above the tie
  EXPECT_EQ(triton_aot_bf16(fromBits(0x3f807fffu)), 0x3f80);             // below the tie
  EXPECT_EQ(triton_aot_bf16(std::numeric_limits<float>::max()), 0x7f80); // rounds to inf
  EXPECT_EQ(triton_aot_bf16(fromBits(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(triton_aot_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(triton_aot_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(triton_aot_bf16(fromBits(0x00000001u)), 0x0000); // subnormals keep their top bits
  EXPECT_EQ(triton_aot_bf16(fromBits(0x00018000u)), 0x0002);
  EXPECT_EQ(triton_aot_bf16(fromBits(0x00008000u)), 0x0000);
  EXPECT_EQ(triton_aot_bf16(fromBits(0x007fffffu)), 0x0080); // up into the normals
}

TEST(RuntimeScalarTest, Bf16NansStayQuietNans) {
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0x7f80ffffu}) {
    uint16_t b = triton_aot_bf16(fromBits(bits));
    EXPECT_TRUE(isBf16Nan(b)) << std::hex << bits;
    EXPECT_TRUE(b & 0x40u) << std::hex << bits;
    EXPECT_EQ(b & 0x8000u, (bits >> 16) & 0x8000u) << std::hex << bits;
  }
}

TEST(RuntimeScalarTest, Bf16MatchesTheReferenceAcrossTheFloatRange) {
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4099) {
    float value = fromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(triton_aot_bf16(value), referenceBf16(value)) << std::hex << bits;
  }
}

} // namespace
