// fp16 casts: the vectorized cast against the CPU's own F16C conversion for every float32 pattern,
// plus named boundary cases. Tolerance: bit-exact everywhere, NaNs included (F16C quiets a NaN and
// keeps its sign and top 9 payload bits; so do we), because the page claims hardware-exact results.
#include <gtest/gtest.h>

#include <cmath>

#include "cast_test_util.hpp"
#include "precision/format.hpp"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace attnscale {
namespace {

using cast_test::bits;
using cast_test::from_bits;
using cast_test::hex;

constexpr Format kFp16{Precision::fp16, false};

TEST(CastFp16, MatchesF16cForAllFloat32Patterns) {
#if defined(__F16C__)
  const auto f16c = [](const float* in, float* want, std::size_t n) {
    std::size_t k = 0;
    for (; k + 4 <= n; k += 4) {
      const __m128i h = _mm_cvtps_ph(_mm_loadu_ps(in + k), _MM_FROUND_TO_NEAREST_INT);
      _mm_storeu_ps(want + k, _mm_cvtph_ps(h));
    }
    for (; k < n; ++k) want[k] = _cvtsh_ss(_cvtss_sh(in[k], _MM_FROUND_TO_NEAREST_INT));
  };
  const auto m = cast_test::check_all(kFp16, f16c, /*nan_bits_matter=*/true);
  EXPECT_EQ(m.count, 0u) << m.describe();
#else
  GTEST_SKIP() << "this build's CPU target has no F16C (__F16C__ undefined): cannot compare the "
                  "fp16 cast with the hardware conversion; build natively on an x86-64 with F16C";
#endif
}

TEST(CastFp16, BoundaryCases) {
  struct Case {
    float in, want;
  };
  const float inf = INFINITY;
  const Case cases[] = {
      {65504.0f, 65504.0f},         // max finite
      {65519.99609375f, 65504.0f},  // just below the tie
      {65520.0f, inf},              // tie between 65504 (odd) and 2^16 -> inf
      {-65520.0f, -inf},
      {1e10f, inf},
      {inf, inf},
      {-inf, -inf},
      {0.0f, 0.0f},
      {-0.0f, -0.0f},
      {std::ldexp(1.0f, -24), std::ldexp(1.0f, -24)},  // smallest subnormal
      {std::ldexp(1.0f, -25), 0.0f},                   // half of it: tie to even 0
      {-std::ldexp(1.0f, -25), -0.0f},
      {std::nextafter(std::ldexp(1.0f, -25), 1.0f), std::ldexp(1.0f, -24)},
      {std::ldexp(3.0f, -25), std::ldexp(1.0f, -23)},  // 1.5 steps: tie to even 2 steps
      {std::ldexp(1.0f, -14), std::ldexp(1.0f, -14)},  // smallest normal
      {1.0f + std::ldexp(1.0f, -11), 1.0f},            // tie to even (1.0)
      {1.0f + std::ldexp(3.0f, -11), 1.0f + std::ldexp(1.0f, -9)},  // tie to even (up)
  };
  for (const Case& c : cases) {
    EXPECT_EQ(hex(bits(round_reference(kFp16, c.in))), hex(bits(c.want))) << c.in;
    float v = c.in;
    round_inplace(kFp16, &v, 1);
    EXPECT_EQ(hex(bits(v)), hex(bits(c.want))) << c.in;
  }
  EXPECT_TRUE(std::isnan(round_reference(kFp16, NAN)));
  EXPECT_EQ(bits(round_reference(kFp16, from_bits(0xFF800001u))), 0xFFC00000u);  // -sNaN quieted
}

}  // namespace
}  // namespace attnscale
