// The formats' table (precision/format.hpp) agrees with the casts: its largest finite value rounds
// to itself, what lies beyond overflows to inf or, without infinities, to NaN, and a format that
// can saturate clamps there instead.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "precision/format.hpp"

namespace attnscale {
namespace {

TEST(Formats, TableAgreesWithTheCasts) {
  for (const FormatInfo& f : kFormats) {
    const float max = f.largestFinite;
    const float beyond = max * 2.0f;  // inf for fp32
    for (bool saturate : {false, true}) {
      const Format fmt{f.precision, saturate};
      EXPECT_EQ(round_reference(fmt, max), max) << f.key;
      EXPECT_EQ(round_reference(fmt, -max), -max) << f.key;
      const float over = round_reference(fmt, beyond);
      if (saturate && f.canSaturate)
        EXPECT_EQ(over, max) << f.key;
      else if (f.hasInfinity)
        EXPECT_TRUE(std::isinf(over)) << f.key;
      else
        EXPECT_TRUE(std::isnan(over)) << f.key;
      float one = beyond;
      round_inplace(fmt, &one, 1);
      EXPECT_TRUE(one == over || (std::isnan(one) && std::isnan(over))) << f.key;
    }
    // One step below the largest value is representable: 2^(exponent of max − mantissa bits).
    const float step = std::ldexp(1.0f, std::ilogb(max) - f.mantissaBits);
    EXPECT_EQ(round_reference({f.precision, false}, max - step), max - step) << f.key;
    EXPECT_EQ(largest_finite(f.precision), max);
    Precision parsed;
    ASSERT_TRUE(parse_precision(f.key, parsed));
    EXPECT_EQ(parsed, f.precision);
    EXPECT_STREQ(precision_name(f.precision), f.key);
    EXPECT_EQ(format_info(f.precision), &f);
  }
  EXPECT_EQ(precision_names_text(true), "'fp32', 'bf16', 'fp16', 'fp8e4m3', 'fp8e5m2'");
  EXPECT_EQ(precision_names_text(false), "fp32, bf16, fp16, fp8e4m3, fp8e5m2");
}

}  // namespace
}  // namespace attnscale
