// Native side of `npm run bench:peers` (tests/bench/peers/run.mjs): the attention forward for the
// peers' shapes on the same inputs as the JS side (LCG uniform [−0.5, 0.5), seeds 11/12/13, scale
// 1/√d_k, max subtracted), checked against attention_forward_reference (float64), then timed after
// a 1 s warm-up as the median of 11 rounds of ≥ 50 ms. Prints one JSON object on stdout:
//   {"arch", "peakGflops", "forward": [{"T", "dk", "ms", "maxAbsDiff"}]}
// peakGflops: independent FMA chains on the host's widest vector (the AVX2 FMA ceiling here).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "kernels/attention_forward.hpp"
#include "simd/batch.hpp"

namespace {

using attnscale::bench::Clock;
using attnscale::bench::median;
using attnscale::bench::ms_per_call;
using attnscale::bench::ms_since;

// The JS harness's randomMatrix: s = s·1664525 + 1013904223 (mod 2³²), x = s/2³² − 0.5.
std::vector<float> random_matrix(int n, std::uint32_t seed) {
  std::vector<float> out(n);
  std::uint32_t s = seed;
  for (float& x : out) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<double>(s) / 4294967296.0 - 0.5);
  }
  return out;
}

// C independent FMA chains on the host's widest vector for `iters` steps (latency 4 cycles and two
// FMA pipes: C ≥ 8 fills them). Its own function, so that the chains live in registers: inlined
// into a larger one, GCC kept them on the stack and measured store forwarding (~30 GFLOP/s).
template <int C>
[[gnu::noinline]] float fma_chains(long iters) {
  using attnscale::simd::vf;
  vf acc[C];
  for (int i = 0; i < C; ++i) acc[i] = vf(0.1f * i);
  const vf a(0.999999f), b(1e-7f);
  for (long it = 0; it < iters; ++it)
    for (int i = 0; i < C; ++i) acc[i] = xsimd::fma(acc[i], a, b);
  float sum = 0;
  for (int i = 0; i < C; ++i) sum += attnscale::simd::reduce_add(acc[i]);
  return sum;
}

double peak_gflops() {
  constexpr int chains = 10;
  constexpr long iters = 10'000'000;
  std::vector<double> samples;
  float sink = 0;
  for (int r = 0; r < 5; ++r) {
    const auto start = Clock::now();
    sink += fma_chains<chains>(iters);
    samples.push_back(2.0 * chains * attnscale::simd::W * iters / (ms_since(start) * 1e6));
  }
  if (sink == 12345.f) std::puts("");
  return median(samples);
}

}  // namespace

int main() {
  using namespace attnscale;
  std::string json = "{\"arch\":\"" + std::string(simd::kArchName) + "\",\"forward\":[";
  AttentionForward forward;
  bool first = true;
  for (int T : {128, 512}) {
    for (int d : {16, 64, 128, 512}) {
      const int n = T * d;
      const std::vector<float> q = random_matrix(n, 11), k = random_matrix(n, 12),
                               v = random_matrix(n, 13);
      std::vector<float> o(n);
      std::vector<double> ref(n);
      const ForwardShape shape{
          T, d, static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))), true, false, Format{}};
      attention_forward_reference(shape, q.data(), k.data(), v.data(), ref.data());
      forward.run(shape, q.data(), k.data(), v.data(), o.data());
      double worst = 0;
      for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]));
      const auto call = [&] { forward.run(shape, q.data(), k.data(), v.data(), o.data()); };
      const auto warm = Clock::now();
      while (ms_since(warm) < 1000) call();
      std::vector<double> rounds;
      for (int r = 0; r < 11; ++r) rounds.push_back(ms_per_call(call, 50));
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s{\"T\":%d,\"dk\":%d,\"ms\":%.5f,\"maxAbsDiff\":%.3e}",
                    first ? "" : ",", T, d, median(rounds), worst);
      json += buf;
      first = false;
    }
  }
  char buf[100];
  std::snprintf(buf, sizeof buf, "],\"peakGflops\":%.2f}", peak_gflops());
  json += buf;
  std::puts(json.c_str());
}
