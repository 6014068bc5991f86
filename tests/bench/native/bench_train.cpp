// Steps per second of the trainer at d_k 64, T 32, batch 16, Adam, all three copies
// (none, sqrt, linear), native build. Warm-up, then rounds of a fixed number of steps; prints the
// median and the spread as one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "simd/batch.hpp"
#include "train/train.hpp"

int main(int argc, char** argv) {
  attnscale::TrainConfig cfg;  // defaults: dk 64, seqLen 32, batchSize 16, adam
  if (argc > 1) cfg.dk = std::atoi(argv[1]);
  attnscale::Trainer t(cfg);
  if (!t.error().empty()) {
    std::fprintf(stderr, "%s\n", t.error().c_str());
    return 1;
  }
  const int per_round = 100, rounds = 9;
  std::vector<std::int32_t> steps(per_round);
  std::vector<double> metrics(static_cast<std::size_t>(t.copies()) * attnscale::kTrainMetrics *
                              per_round);
  using clock = std::chrono::steady_clock;
  const auto warm_end = clock::now() + std::chrono::milliseconds(500);
  while (clock::now() < warm_end) t.step(10, steps.data(), metrics.data());
  std::vector<double> rates;
  for (int r = 0; r < rounds; ++r) {
    t.reset();  // same work every round (no drift from the state of training)
    const auto t0 = clock::now();
    t.step(per_round, steps.data(), metrics.data());
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    rates.push_back(per_round / s);
  }
  std::sort(rates.begin(), rates.end());
  std::printf(
      "{\"bench\":\"train\",\"build\":\"native\",\"arch\":\"%s\",\"dk\":%d,\"seqLen\":%d,"
      "\"batchSize\":%d,\"copies\":%d,\"optimizer\":\"adam\",\"rounds\":%d,\"stepsPerRound\":%d,"
      "\"stepsPerSecMedian\":%.1f,\"stepsPerSecMin\":%.1f,\"stepsPerSecMax\":%.1f}\n",
      attnscale::simd::kArchName, cfg.dk, cfg.seqLen, cfg.batchSize, t.copies(), rounds, per_round,
      rates[rates.size() / 2], rates.front(), rates.back());
  return 0;
}
