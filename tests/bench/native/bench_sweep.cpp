// Native profile of the d_k sweep: one 13-point sweep (d_k = 1 … 4096) of one scaling
// and of three scalings sharing the samples and products, at T = 256 and 1024, with the time per
// phase. Prints one JSON object (tests/bench/bench.mjs reads it). Usage: bench_sweep [T ...]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "engine/attention_engine.hpp"

namespace {

using namespace attnscale;

const std::vector<int> kDks = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};

std::vector<Config> scaled(int T, std::vector<ScaleMode> modes) {
  std::vector<Config> out;
  for (ScaleMode m : modes) {
    Config c;
    c.seqLen = T;
    c.scaleMode = m;
    out.push_back(c);
  }
  return out;
}

std::string phases_json(const PhaseTimes& t) {
  std::string out = "{";
  for (int p = 0; p < static_cast<int>(Phase::count); ++p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s\"%s\":%.2f", p ? "," : "", phase_name(static_cast<Phase>(p)),
                  t[p]);
    out += buf;
  }
  return out + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 1024};
  std::string json = "{\"sweeps\":[";
  for (std::size_t n = 0; n < sizes.size(); ++n) {
    const int T = sizes[n];
    const int rounds = T >= 1024 ? 3 : 5;
    std::vector<double> one, three;
    PhaseTimes phases{};
    for (int r = 0; r < rounds; ++r) {
      const auto start = bench::Clock::now();
      SweepJob single(scaled(T, {ScaleMode::none}), kDks);
      while (!single.done()) single.next();
      one.push_back(bench::ms_since(start));
      phases = single.phase_ms();
      const auto start3 = bench::Clock::now();
      SweepJob shared(scaled(T, {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear}), kDks);
      while (!shared.done()) shared.next();
      three.push_back(bench::ms_since(start3));
    }
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "%s{\"T\":%d,\"oneScaleMs\":%.1f,\"threeScalesMs\":%.1f,\"phasesMs\":",
                  n ? "," : "", T, bench::median(one), bench::median(three));
    json += buf + phases_json(phases) + "}";
  }
  std::puts((json + "]}").c_str());
}
