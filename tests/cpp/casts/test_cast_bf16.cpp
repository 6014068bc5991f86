// bf16 casts: the vectorized cast against PyTorch's c10::round_to_nearest_even formula, written
// out independently here, for every float32 pattern; round_reference against both on the edges.
// Tolerance: bit-exact, NaNs included (c10 maps every NaN to the single pattern 0x7FC0).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "cast_test_util.hpp"
#include "precision/format.hpp"

namespace attnscale {
namespace {

using cast_test::bits;
using cast_test::from_bits;
using cast_test::hex;

constexpr Format kBf16{Precision::bf16, false};

// c10/util/BFloat16.h round_to_nearest_even(), then back to float32 (bf16 bits << 16).
std::uint32_t c10_bf16_round_trip(std::uint32_t u) {
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC00000u;
  const std::uint32_t rounding_bias = ((u >> 16) & 1u) + 0x7FFFu;
  return ((u + rounding_bias) >> 16) << 16;
}

TEST(CastBf16, MatchesC10FormulaForAllFloat32Patterns) {
  const auto c10 = [](const float* in, float* want, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) want[k] = from_bits(c10_bf16_round_trip(bits(in[k])));
  };
  const auto m = cast_test::check_all(kBf16, c10, /*nan_bits_matter=*/true);
  EXPECT_EQ(m.count, 0u) << m.describe();
}

TEST(CastBf16, BoundaryCases) {
  const std::uint32_t max_bf16 = 0x7F7F0000u;  // (2 - 2^-7) * 2^127
  struct Case {
    std::uint32_t in, want;
  };
  const Case cases[] = {
      {max_bf16, max_bf16},         {0x7F7F7FFFu, max_bf16},  // below the tie
      {0x7F7F8000u, 0x7F800000u},  // tie, max's last bit is odd: up -> inf
      {bits(FLT_MAX), 0x7F800000u}, {0xFF7F8000u, 0xFF800000u},  // -inf
      {0x7F800000u, 0x7F800000u},                                // inf stays inf
      {0xFF800000u, 0xFF800000u},   {0x3F808000u, 0x3F800000u},  // 1 + 2^-8: tie to even (down)
      {0x3F818000u, 0x3F820000u},                                // 1 + 3 * 2^-8: tie to even (up)
      {0x3F808001u, 0x3F810000u},                                // above the tie
      {0x00000000u, 0x00000000u},   {0x80000000u, 0x80000000u},  // -0 kept
      {0x00010000u, 0x00010000u},                                // smallest bf16 subnormal 2^-133
      {0x00008000u, 0x00000000u},                                // its half: tie to even 0
      {0x80008000u, 0x80000000u},                                // -half: -0
      {0x00008001u, 0x00010000u},   {0x00018000u, 0x00020000u},  // 1.5 steps: tie to even 2 steps
      {0x007F8000u, 0x00800000u},  // largest subnormal tie rounds up to min normal
      {0x7F800001u, 0x7FC00000u},  // sNaN whose payload would round to inf
      {0xFFC00001u, 0x7FC00000u},  // negative NaN: c10's single +NaN
  };
  for (const Case& c : cases) {
    ASSERT_EQ(c10_bf16_round_trip(c.in), c.want) << hex(c.in);  // the cases themselves are right
    EXPECT_EQ(hex(bits(round_reference(kBf16, from_bits(c.in)))), hex(c.want)) << hex(c.in);
    float v = from_bits(c.in);
    round_inplace(kBf16, &v, 1);
    EXPECT_EQ(hex(bits(v)), hex(c.want)) << hex(c.in);
  }
}

}  // namespace
}  // namespace attnscale
