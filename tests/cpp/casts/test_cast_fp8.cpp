// fp8 casts (OCP OFP8 E4M3 = torch.float8_e4m3fn, E5M2 = torch.float8_e5m2), both overflow
// conventions. Expected values are built from sign/exponent/mantissa by the spec's formula, not by
// the code under test. Tolerance: bit-exact, because every fp8 value is exact in float32 and the
// casts are meant to be exactly the spec's RNE. NaN results are the quiet NaN 0x7FC00000 with the
// input's sign (our documented choice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cast_test_util.hpp"
#include "precision/format.hpp"

namespace attnscale {
namespace {

using cast_test::bits;
using cast_test::from_bits;
using cast_test::hex;

struct Fp8 {
  Precision precision;
  int exp_bits, man_bits, bias;
  bool has_inf;  // E5M2 keeps IEEE inf (S.11111.00); E4M3 has only NaN (S.1111.111) up there
  float max;
  float beyond_max;  // the next value after max had the format one more code: the overflow tie
};
constexpr Fp8 kE4m3{Precision::fp8e4m3, 4, 3, 7, false, 448.0f, 480.0f};
constexpr Fp8 kE5m2{Precision::fp8e5m2, 5, 2, 15, true, 57344.0f, 65536.0f};

// OFP8 spec, section 4: normal (-1)^S * 2^(E - bias) * (1 + M / 2^m); subnormal (E = 0)
// (-1)^S * 2^(1 - bias) * (M / 2^m). Specials: E4M3 S.1111.111 NaN; E5M2 S.11111.00 inf,
// S.11111.{01,10,11} NaN.
float decode(const Fp8& f, unsigned code) {
  const unsigned sign = code >> 7;
  const int e = static_cast<int>((code >> f.man_bits) & ((1u << f.exp_bits) - 1u));
  const int m = static_cast<int>(code & ((1u << f.man_bits) - 1u));
  const int e_all_ones = (1 << f.exp_bits) - 1;
  float v;
  if (f.has_inf && e == e_all_ones) {
    v = m == 0 ? INFINITY : NAN;
  } else if (!f.has_inf && e == e_all_ones && m == (1 << f.man_bits) - 1) {
    v = NAN;
  } else if (e == 0) {
    v = std::ldexp(static_cast<float>(m), 1 - f.bias - f.man_bits);
  } else {
    v = std::ldexp(static_cast<float>((1 << f.man_bits) + m), e - f.bias - f.man_bits);
  }
  return sign ? -v : v;
}

std::uint32_t nan_of(float in) { return (bits(in) & 0x80000000u) | 0x7FC00000u; }

// Checks round_reference and round_inplace on one input.
void expect_round(Format f, float in, std::uint32_t want) {
  const std::string what = std::string(precision_name(f.precision)) + (f.saturate ? " sat" : "") +
                           " of " + hex(bits(in));
  EXPECT_EQ(hex(bits(round_reference(f, in))), hex(want)) << "reference, " << what;
  float v = in;
  round_inplace(f, &v, 1);
  EXPECT_EQ(hex(bits(v)), hex(want)) << "vectorized, " << what;
}
void expect_round(Format f, float in, float want) { expect_round(f, in, bits(want)); }

TEST(CastFp8, DecoderMatchesSpecTables) {
  // Values from the OCP OFP8 spec tables (E4M3 / E5M2 columns), checked against decode().
  EXPECT_EQ(decode(kE4m3, 0x7E), 448.0f);                         // max normal S.1111.110
  EXPECT_EQ(decode(kE4m3, 0x08), std::ldexp(1.0f, -6));           // min normal S.0001.000
  EXPECT_EQ(decode(kE4m3, 0x07), 0.875f * std::ldexp(1.0f, -6));  // max subnormal S.0000.111
  EXPECT_EQ(decode(kE4m3, 0x01), std::ldexp(1.0f, -9));           // min subnormal S.0000.001
  EXPECT_EQ(decode(kE4m3, 0x38), 1.0f);
  EXPECT_EQ(decode(kE4m3, 0x78), 256.0f);  // S.1111.000 is a normal number
  EXPECT_TRUE(std::isnan(decode(kE4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(decode(kE4m3, 0xFF)));
  EXPECT_EQ(bits(decode(kE4m3, 0x80)), 0x80000000u);              // -0
  EXPECT_EQ(decode(kE5m2, 0x7B), 57344.0f);                       // max normal S.11110.11
  EXPECT_EQ(decode(kE5m2, 0x04), std::ldexp(1.0f, -14));          // min normal S.00001.00
  EXPECT_EQ(decode(kE5m2, 0x03), 0.75f * std::ldexp(1.0f, -14));  // max subnormal S.00000.11
  EXPECT_EQ(decode(kE5m2, 0x01), std::ldexp(1.0f, -16));          // min subnormal S.00000.01
  EXPECT_EQ(decode(kE5m2, 0x3C), 1.0f);
  EXPECT_EQ(decode(kE5m2, 0x7C), INFINITY);
  EXPECT_EQ(decode(kE5m2, 0xFC), -INFINITY);
  for (unsigned c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu})
    EXPECT_TRUE(std::isnan(decode(kE5m2, c)));
  EXPECT_EQ(largest_finite(Precision::fp8e4m3), 448.0f);
  EXPECT_EQ(largest_finite(Precision::fp8e5m2), 57344.0f);
}

TEST(CastFp8, EveryCodeReencodesToItself) {
  for (const Fp8& spec : {kE4m3, kE5m2}) {
    for (bool saturate : {false, true}) {
      const Format f{spec.precision, saturate};
      std::vector<float> all(256);
      for (unsigned c = 0; c < 256; ++c) all[c] = decode(spec, c);
      std::vector<float> vec = all;
      round_inplace(f, vec.data(), vec.size());  // one call: full batches and a tail
      int finite = 0;
      for (unsigned c = 0; c < 256; ++c) {
        const float v = all[c];
        std::uint32_t want = bits(v);
        if (std::isnan(v))
          want = nan_of(v);
        else if (std::isinf(v) && saturate)
          want = bits(std::copysign(spec.max, v));  // SAT: inf -> max
        else
          finite += std::isfinite(v) ? 1 : 0;
        EXPECT_EQ(hex(bits(round_reference(f, v))), hex(want)) << "code " << c;
        EXPECT_EQ(hex(bits(vec[c])), hex(want)) << "code " << c;
      }
      EXPECT_EQ(finite, spec.has_inf ? 256 - 2 - 6 : 256 - 2);  // +-0 counted as two codes
    }
  }
}

TEST(CastFp8, MidpointsBetweenConsecutiveCodesTieToEven) {
  for (const Fp8& spec : {kE4m3, kE5m2}) {
    for (bool saturate : {false, true}) {
      const Format f{spec.precision, saturate};
      for (unsigned c = 0; c < 0x7F; ++c) {
        const float lo = decode(spec, c);
        const float hi_code = decode(spec, c + 1);
        if (!std::isfinite(lo)) continue;
        const bool hi_finite = std::isfinite(hi_code);
        const float hi = hi_finite ? hi_code : spec.beyond_max;
        const float mid = (lo + hi) / 2;  // exact: one more bit than the format
        // Even code = mantissa lsb 0. Above max (hi not a code) the tie goes to max when max is
        // even (E4M3: 448, mantissa 110), else up, i.e. overflow (E5M2: 57344, mantissa 11).
        const unsigned even = (c & 1u) == 0 ? c : c + 1;
        for (float sign : {1.0f, -1.0f}) {
          const auto value_of = [&](unsigned code, float magnitude) -> std::uint32_t {
            if (code <= c || hi_finite) return bits(sign * magnitude);
            if (saturate) return bits(sign * spec.max);
            return spec.has_inf ? bits(sign * INFINITY) : nan_of(sign);
          };
          expect_round(f, sign * mid, value_of(even, even == c ? lo : hi));
          expect_round(f, sign * std::nextafter(mid, 0.0f), value_of(c, lo));
          expect_round(f, sign * std::nextafter(mid, INFINITY), value_of(c + 1, hi));
        }
      }
    }
  }
}

TEST(CastFp8, E4m3BoundaryCases) {
  const float tiny = std::ldexp(1.0f, -9);  // smallest subnormal
  for (bool saturate : {false, true}) {
    const Format f{Precision::fp8e4m3, saturate};
    const auto over = [&](float in) {  // overflow: NaN with the input's sign, or +-448
      return saturate ? bits(std::copysign(448.0f, in)) : nan_of(in);
    };
    expect_round(f, 448.0f, 448.0f);
    expect_round(f, 464.0f, 448.0f);  // tie between 448 (mantissa 110, even) and 480: 448
    expect_round(f, -464.0f, -448.0f);
    expect_round(f, 465.0f, over(465.0f));  // rounds to 480 > max
    expect_round(f, 480.0f, over(480.0f));
    expect_round(f, -480.0f, over(-480.0f));
    expect_round(f, 57344.0f, over(57344.0f));
    expect_round(f, 3e38f, over(3e38f));
    expect_round(f, INFINITY, over(INFINITY));  // E4M3 has no inf
    expect_round(f, -INFINITY, over(-INFINITY));
    expect_round(f, NAN, nan_of(NAN));  // NaN stays NaN in both modes
    expect_round(f, -NAN, nan_of(-NAN));
    expect_round(f, 0.0f, 0.0f);
    expect_round(f, -0.0f, -0.0f);
    expect_round(f, tiny, tiny);
    expect_round(f, -tiny, -tiny);
    expect_round(f, tiny / 2, 0.0f);  // half the smallest subnormal: tie to even 0
    expect_round(f, -tiny / 2, -0.0f);
    expect_round(f, std::nextafter(tiny / 2, 1.0f), tiny);
    expect_round(f, 1.5f * tiny, 2 * tiny);  // tie to even: 2 steps
    expect_round(f, 2.5f * tiny, 2 * tiny);
    expect_round(f, 1e-30f, 0.0f);
    expect_round(f, std::ldexp(1.0f, -149), 0.0f);  // float32 subnormal input
    expect_round(f, 1.0625f, 1.0f);                 // tie (1 + 2^-4): even 1.0
    expect_round(f, 1.1875f, 1.25f);                // tie (1 + 3 * 2^-4): even 1.25
  }
}

TEST(CastFp8, E5m2BoundaryCases) {
  const float tiny = std::ldexp(1.0f, -16);  // smallest subnormal
  for (bool saturate : {false, true}) {
    const Format f{Precision::fp8e5m2, saturate};
    const auto over = [&](float in) {  // overflow: +-inf, or +-57344
      return std::copysign(saturate ? 57344.0f : INFINITY, in);
    };
    expect_round(f, 57344.0f, 57344.0f);
    expect_round(f, 61439.0f, 57344.0f);        // just below the tie
    expect_round(f, 61440.0f, over(61440.0f));  // tie between 57344 (mantissa 11, odd) and 2^16
    expect_round(f, -61440.0f, over(-61440.0f));
    expect_round(f, 65536.0f, over(65536.0f));
    expect_round(f, 3e38f, over(3e38f));
    expect_round(f, INFINITY, over(INFINITY));
    expect_round(f, -INFINITY, over(-INFINITY));
    expect_round(f, NAN, nan_of(NAN));
    expect_round(f, -NAN, nan_of(-NAN));
    expect_round(f, 448.0f, 448.0f);
    expect_round(f, 464.0f, 448.0f);
    expect_round(f, 480.0f, 512.0f);  // tie between 448 (odd) and 512 (even): 512
    expect_round(f, 0.0f, 0.0f);
    expect_round(f, -0.0f, -0.0f);
    expect_round(f, tiny, tiny);
    expect_round(f, tiny / 2, 0.0f);  // tie to even 0
    expect_round(f, -tiny / 2, -0.0f);
    expect_round(f, std::nextafter(tiny / 2, 1.0f), tiny);
    expect_round(f, 1.5f * tiny, 2 * tiny);
    expect_round(f, 3.5f * tiny, 4 * tiny);  // max subnormal tie rounds up to the min normal
    expect_round(f, 1.125f, 1.0f);           // tie (1 + 2^-3): even 1.0
    expect_round(f, 1.375f, 1.5f);           // tie (1 + 3 * 2^-3): even 1.5
  }
}

}  // namespace
}  // namespace attnscale
