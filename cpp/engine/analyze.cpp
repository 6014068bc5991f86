#include "engine/analyze.hpp"

#include <cmath>
#include <limits>

namespace attnscale {

ValueMoments value_moments(const float* x, std::size_t n) {
  ValueMoments m;
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) {
      ++m.nonFinite;
      continue;
    }
    sum += x[i];
    ++count;
  }
  if (!count) {
    m.mean = m.std = std::numeric_limits<double>::quiet_NaN();
    return m;
  }
  m.mean = sum / static_cast<double>(count);
  double squares = 0;  // two passes: no cancellation when |mean| >> σ
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) squares += (x[i] - m.mean) * (x[i] - m.mean);
  m.std = std::sqrt(squares / static_cast<double>(count));
  return m;
}

double iid_raw_logit_std(int dk, const ValueMoments& q, const ValueMoments& k) {
  const double q2 = q.std * q.std + q.mean * q.mean, k2 = k.std * k.std + k.mean * k.mean;
  const double perComponent = q2 * k2 - q.mean * q.mean * k.mean * k.mean;
  return std::sqrt(dk * std::max(0.0, perComponent));
}

namespace {

// Mean of column 0 of a T × T matrix (the weights on key 0), summed in row order in double.
double mean_first_column(const float* p, int T) {
  double sum = 0;
  for (int i = 0; i < T; ++i) sum += p[static_cast<std::size_t>(i) * T];
  return sum / T;
}

}  // namespace

std::vector<HeadReport> AnalyzeEngine::analyze(const Config& c, const LayerInputs& in,
                                               bool keepWeights) {
  const std::size_t perHead = static_cast<std::size_t>(in.seqLen) * in.dk;
  configs_.assign(1, c);
  std::vector<HeadReport> out(in.heads);
  for (int h = 0; h < in.heads; ++h) {
    HeadReport& r = out[h];
    r.head = h;
    r.kvHead = key_head_for(h, in.heads, in.kvHeads);
    const float* q = in.q + h * perHead;
    const float* k = in.k + r.kvHead * perHead;
    r.q = value_moments(q, perHead);
    r.k = value_moments(k, perHead);
    r.iidRawLogitStd = iid_raw_logit_std(in.dk, r.q, r.k);
    workspace_.reset(in.seqLen, in.dk, false);
    workspace_.givenQ = q;
    workspace_.givenK = k;
    workspace_.givenV = in.v ? in.v + r.kvHead * perHead : nullptr;
    job_.plan(workspace_, configs_, in.dk, true);
    job_.run_until(Clock::time_point::max());
    r.result = std::move(job_.results().front());
    r.sinkWeight = mean_first_column(workspace_.p.data(), in.seqLen);
    if (keepWeights)
      r.result.attention.assign(workspace_.p.data(), workspace_.p.data() + workspace_.p.capacity());
  }
  workspace_.givenQ = workspace_.givenK = workspace_.givenV = nullptr;
  return out;
}

}  // namespace attnscale
