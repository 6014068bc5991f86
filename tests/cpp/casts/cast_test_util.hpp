// Helpers for the cast tests: float bit access, and drivers that run round_inplace() over many
// float32 bit patterns (all 2^32, an exponent window, or random) on two threads and compare it with
// an expected-value function, bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "precision/format.hpp"

namespace attnscale::cast_test {

inline std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

inline std::string hex(std::uint32_t u) {
  std::ostringstream s;
  s << "0x" << std::hex << u;
  return s.str();
}

struct Mismatches {
  std::uint64_t count = 0;
  std::uint32_t input = 0, got = 0, want = 0;  // the first one found
  std::string describe() const {
    return std::to_string(count) + " mismatches; first: input " + hex(input) + " got " + hex(got) +
           " want " + hex(want);
  }
};

// Same-bits comparison, except that any NaN equals any NaN when nan_bits_matter is false.
inline bool same(std::uint32_t got, std::uint32_t want, bool nan_bits_matter) {
  if (got == want) return true;
  if (nan_bits_matter) return false;
  return (got & 0x7FFFFFFFu) > 0x7F800000u && (want & 0x7FFFFFFFu) > 0x7F800000u;
}

// Runs round_inplace(f, ...) on the float32 patterns pattern(0) .. pattern(count - 1), in chunks,
// on `threads` threads, and compares with expected(const float* in, float* want, size_t n), which
// fills the expected results of one chunk.
template <class Pattern, class Expected>
Mismatches check_patterns(Format f, Expected expected, bool nan_bits_matter, std::uint64_t count,
                          Pattern pattern, unsigned threads = 2) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::vector<Mismatches> results(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const std::uint64_t begin = count * t / threads;
      const std::uint64_t end = count * (t + 1) / threads;
      std::vector<float> in(kChunk), got(kChunk), want(kChunk);
      Mismatches& m = results[t];
      for (std::uint64_t base = begin; base < end; base += kChunk) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, end - base));
        for (std::size_t k = 0; k < n; ++k) in[k] = from_bits(pattern(base + k));
        std::memcpy(got.data(), in.data(), n * sizeof(float));
        round_inplace(f, got.data(), n);
        expected(in.data(), want.data(), n);
        if (std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0) continue;
        for (std::size_t k = 0; k < n; ++k) {
          const std::uint32_t g = bits(got[k]), w = bits(want[k]);
          if (same(g, w, nan_bits_matter)) continue;
          if (m.count++ == 0) {
            m.input = bits(in[k]);
            m.got = g;
            m.want = w;
          }
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  Mismatches total;
  for (const auto& m : results) {
    if (m.count != 0 && total.count == 0)
      total = m;
    else
      total.count += m.count;
  }
  return total;
}

// All 2^32 float32 patterns.
template <class Expected>
Mismatches check_all(Format f, Expected expected, bool nan_bits_matter) {
  return check_patterns(f, expected, nan_bits_matter, std::uint64_t{1} << 32,
                        [](std::uint64_t i) { return static_cast<std::uint32_t>(i); });
}

// Every pattern of both signs whose biased float32 exponent field is in [lo, hi]: the window where
// a narrow format's result is neither a plain zero nor a plain overflow.
template <class Expected>
Mismatches check_exponent_window(Format f, Expected expected, bool nan_bits_matter, int lo,
                                 int hi) {
  const std::uint64_t half = static_cast<std::uint64_t>(hi - lo + 1) << 23;
  const std::uint32_t first = static_cast<std::uint32_t>(lo) << 23;
  return check_patterns(f, expected, nan_bits_matter, 2 * half, [=](std::uint64_t i) {
    const bool negative = i >= half;  // (no 64-bit division: this runs once per pattern)
    const std::uint32_t offset = static_cast<std::uint32_t>(negative ? i - half : i);
    return (negative ? 0x80000000u : 0u) | (first + offset);
  });
}

// Every sign and every exponent field (specials included), all combinations of the top
// `top_bits` mantissa bits (pick top_bits > the format's mantissa bits + 1 so the rounding position
// and guard bit are inside), and five sticky patterns below: none, lowest bit, highest, all, mixed.
template <class Expected>
Mismatches check_structured(Format f, Expected expected, bool nan_bits_matter, int top_bits) {
  const int low_bits = 23 - top_bits;  // 1 .. 22
  const std::uint32_t all = (1u << low_bits) - 1u;
  const std::uint32_t lows[5] = {0u, 1u, 1u << (low_bits - 1), all, 0x2AAAAAu & all};
  const std::uint64_t count = std::uint64_t{2} * 256 * (std::uint64_t{1} << top_bits) * 5;
  return check_patterns(f, expected, nan_bits_matter, count, [=](std::uint64_t i) {
    const std::uint32_t low = lows[i % 5];
    i /= 5;
    const std::uint32_t top = static_cast<std::uint32_t>(i & ((std::uint64_t{1} << top_bits) - 1));
    const std::uint32_t sign_exp = static_cast<std::uint32_t>(i >> top_bits);  // 9 bits
    return sign_exp << 23 | top << low_bits | low;
  });
}

// `count` pseudo-random patterns (a fixed hash of the index, so runs are reproducible).
template <class Expected>
Mismatches check_random(Format f, Expected expected, bool nan_bits_matter, std::uint64_t count,
                        std::uint64_t seed) {
  return check_patterns(f, expected, nan_bits_matter, count, [seed](std::uint64_t i) {
    std::uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;  // splitmix64 finalizer
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::uint32_t>(z ^ (z >> 31));
  });
}

// Expected values from round_reference(), element by element.
inline auto reference_of(Format f) {
  return [f](const float* in, float* want, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) want[k] = round_reference(f, in[k]);
  };
}

}  // namespace attnscale::cast_test
