// Cast throughput: round_inplace (vectorized) vs a loop of round_reference, per format.
//
// Prints one JSON line per (format, implementation) with the median elements/s over kRounds
// repetitions of >= kMinRepSeconds each, and one line per format with the median same-round
// speedup. The implementations are interleaved in rounds because this VM's speed drifts.
//
// Input: 64 Ki floats (in L2), random sign, magnitudes log-uniform over the format's normal and
// subnormal range with ~3% overflowing values, NaNs and infinities, so the reference's branches see
// realistic unpredictable data. The vectorized kernel is branch-free: its speed does not depend on
// the data, so it rounds one buffer in place repeatedly (rounding is idempotent).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "precision/format.hpp"
#include "simd/batch.hpp"

namespace {

using attnscale::Format;
using attnscale::Precision;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kN = std::size_t{1} << 16;
constexpr int kRounds = 7;
constexpr double kMinRepSeconds = 0.2;

struct Case {
  const char* name;
  Format format;
  int min_exp, max_exp;  // log2 range of the test magnitudes
};

std::vector<float> make_input(const Case& c, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(static_cast<float>(c.min_exp),
                                          static_cast<float>(c.max_exp));
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<float> v(kN);
  for (float& x : v) {
    const int p = pick(rng);
    if (p == 0)
      x = NAN;
    else if (p == 1)
      x = INFINITY;
    else
      x = std::exp2(e(rng));
    if (pick(rng) < 50) x = -x;
  }
  return v;
}

// One repetition: run `body` (one pass over kN elements) until kMinRepSeconds have passed.
template <class Body>
double elements_per_second(Body body) {
  std::size_t passes = 0;
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    body();
    ++passes;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < kMinRepSeconds);
  return static_cast<double>(passes * kN) / elapsed;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const Case cases[] = {
      {"bf16", {Precision::bf16, false}, -135, 130},
      {"fp16", {Precision::fp16, false}, -26, 17},
      {"fp8e4m3", {Precision::fp8e4m3, false}, -11, 10},
      {"fp8e4m3_sat", {Precision::fp8e4m3, true}, -11, 10},
      {"fp8e5m2", {Precision::fp8e5m2, false}, -18, 17},
      {"fp8e5m2_sat", {Precision::fp8e5m2, true}, -18, 17},
  };
  constexpr std::size_t kCases = sizeof(cases) / sizeof(cases[0]);
  std::vector<std::vector<float>> inputs;
  for (std::size_t c = 0; c < kCases; ++c)
    inputs.push_back(make_input(cases[c], 1234u + static_cast<std::uint32_t>(c)));
  std::vector<float> work(kN), out(kN);
  std::vector<double> vec[kCases], ref[kCases], ratio[kCases];
  volatile float sink = 0;

  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t c = 0; c < kCases; ++c) {
      const Format f = cases[c].format;
      const std::vector<float>& in = inputs[c];
      std::copy(in.begin(), in.end(), work.begin());
      const double v = elements_per_second([&] { attnscale::round_inplace(f, work.data(), kN); });
      const double r = elements_per_second([&] {
        for (std::size_t i = 0; i < kN; ++i) out[i] = attnscale::round_reference(f, in[i]);
      });
      sink = sink + work[round] + out[round];
      vec[c].push_back(v);
      ref[c].push_back(r);
      ratio[c].push_back(v / r);
    }
  }

  for (std::size_t c = 0; c < kCases; ++c) {
    const char* impls[] = {"vectorized", "reference"};
    const std::vector<double>* runs[] = {&vec[c], &ref[c]};
    for (int k = 0; k < 2; ++k)
      std::printf(
          "{\"bench\":\"cast\",\"format\":\"%s\",\"impl\":\"%s\",\"arch\":\"%s\",\"lanes\":%zu,"
          "\"elements\":%zu,\"reps\":%d,\"min_rep_s\":%.1f,\"elements_per_s\":%.4g}\n",
          cases[c].name, impls[k], attnscale::simd::kArchName, attnscale::simd::W, kN, kRounds,
          kMinRepSeconds, median(*runs[k]));
    std::printf(
        "{\"bench\":\"cast_speedup\",\"format\":\"%s\",\"vectorized_over_reference\":%.3g}\n",
        cases[c].name, median(ratio[c]));
  }
  return sink == 12345.0f ? 1 : 0;
}
