// A model's own attention, head by head: the measurements of `run` on the caller's Q and K (and
// V) instead of samples. Grouped-query attention: query head h reads key head ⌊h / (H / H_kv)⌋,
// as Llama's repeat_kv does. There is no upstream gradient, so no gradient norms.
#pragma once

#include <cstdint>
#include <vector>

#include "config/config.hpp"
#include "engine/point_job/point_job.hpp"
#include "engine/run_result.hpp"
#include "engine/workspace.hpp"

namespace attnscale {

// One layer's tensors, head-major: element (h, t, i) at (h·seqLen + t)·dk + i. Checked by the
// caller: heads a multiple of kvHeads, q of heads·seqLen·dk values, k (and v) of kvHeads·….
struct LayerInputs {
  int seqLen = 0, dk = 0, heads = 1, kvHeads = 1;
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;  // optional
};

// Mean and population std of the finite values (NaN when none), and how many were not finite.
struct ValueMoments {
  double mean = 0, std = 0;
  std::uint64_t nonFinite = 0;
};
ValueMoments value_moments(const float* x, std::size_t n);

// σ of q·k over d_k independent components with these moments:
// √(d_k((σ_q² + μ_q²)(σ_k² + μ_k²) − μ_q²μ_k²)).
double iid_raw_logit_std(int dk, const ValueMoments& q, const ValueMoments& k);

struct HeadReport {
  int head = 0, kvHead = 0;
  ValueMoments q, k;  // over all of the head's components, as given (before any rounding)
  double iidRawLogitStd = 0;
  // Mean over the query rows of the weight on key 0 (every row sees it, causal or not): near 1
  // when key 0 is an attention sink that most rows attend to.
  double sinkWeight = 0;
  RunResult result;  // `run`'s fields; attention only when asked for
};

inline int key_head_for(int head, int heads, int kvHeads) { return head / (heads / kvHeads); }

class AnalyzeEngine {
 public:
  // `c`: valid, with c.seqLen and c.dk those of `in`. keepWeights: also each head's T×T weights.
  std::vector<HeadReport> analyze(const Config& c, const LayerInputs& in, bool keepWeights);

 private:
  Workspace workspace_;
  std::vector<Config> configs_;
  PointJob job_;
};

}  // namespace attnscale
