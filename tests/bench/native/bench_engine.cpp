// Native side of `npm run bench`: the same shapes as the wasm benchmark, timed in rounds, printed
// as one JSON object on stdout (tests/bench/bench.mjs reads it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "engine/attention_engine.hpp"
#include "kernels/attention_forward.hpp"
#include "simd/batch.hpp"

namespace {

using attnscale::bench::Clock;
using attnscale::bench::median;
using attnscale::bench::ms_per_call;
using attnscale::bench::ms_since;

// Peak of independent 256-bit (or the host's widest) multiply-add chains: 8 accumulators.
__attribute__((noinline)) double peak_gflops() {
  using attnscale::simd::vf;
  vf acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = vf(0.1f * i);
  const vf a(0.999999f), b(1e-7f);
  const long iters = 20'000'000;
  const auto start = Clock::now();
  for (long it = 0; it < iters; ++it)
    for (int i = 0; i < 8; ++i) acc[i] = xsimd::fma(acc[i], a, b);
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  float sink = 0;
  for (int i = 0; i < 8; ++i) sink += attnscale::simd::reduce_add(acc[i]);
  if (sink == 12345.f) std::puts("");
  return 2.0 * 8 * attnscale::simd::W * iters / s / 1e9;
}

}  // namespace

int main() {
  using namespace attnscale;
  const int rounds = 7;
  std::string json = "{\"arch\":\"" + std::string(simd::kArchName) + "\",\"forward\":[";
  bool first = true;
  AttentionForward forward;
  AttentionEngine engine;
  for (int T : {128, 512}) {
    for (int d : {16, 64, 128, 512}) {
      std::mt19937 gen(1);
      std::normal_distribution<float> dist;
      std::vector<float> q(T * d), k(T * d), v(T * d), o(T * d);
      for (auto* m : {&q, &k, &v})
        for (float& x : *m) x = dist(gen);
      const ForwardShape shape{T,    d,     1.0f / std::sqrt(static_cast<float>(d)),
                               true, false, Format{}};
      Config c;
      c.dk = d;
      c.seqLen = T;
      std::vector<double> fwd, run;
      for (int r = 0; r < rounds; ++r) {
        fwd.push_back(
            ms_per_call([&] { forward.run(shape, q.data(), k.data(), v.data(), o.data()); }, 60));
        run.push_back(ms_per_call([&] { engine.run(c); }, 60));
      }
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s{\"T\":%d,\"dk\":%d,\"forwardMs\":%.5f,\"runMs\":%.5f}",
                    first ? "" : ",", T, d, median(fwd), median(run));
      json += buf;
      first = false;
    }
  }
  Config c;
  c.dk = 128;
  c.seqLen = 256;
  std::vector<double> run256, sweep;
  const std::vector<int> dks = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  for (int r = 0; r < rounds; ++r) {
    run256.push_back(ms_per_call([&] { engine.run(c); }, 60));
    Config s = c;
    s.scaleMode = ScaleMode::none;
    sweep.push_back(ms_per_call(
        [&] {
          SweepRunner runner(s, dks);
          while (!runner.done()) runner.next();
        },
        1));
  }
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "],\"run256x128Ms\":%.4f,\"sweep13x256Ms\":%.3f,\"peakGflops\":%.2f}",
                median(run256), median(sweep), peak_gflops());
  json += buf;
  std::puts(json.c_str());
}
