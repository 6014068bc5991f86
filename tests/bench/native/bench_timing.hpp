// Timing helpers shared by the native benchmarks: mean time per call over at least minMs, and the
// median of rounds (these machines are shared and drift, so every figure is a median of rounds).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace attnscale::bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <class F>
double ms_per_call(F&& f, double minMs) {
  int calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    f();
    ++calls;
    elapsed = ms_since(start);
  } while (elapsed < minMs);
  return elapsed / calls;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace attnscale::bench
