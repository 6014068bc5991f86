#include "engine/workspace.hpp"

namespace attnscale {

void Workspace::reset(int T, int columns) {
  const std::size_t TT = static_cast<std::size_t>(T) * T,
                    Tc = static_cast<std::size_t>(T) * columns;
  seqLen = T;
  cols = columns;
  sampled = 0;
  maxAbsV = 0;
  vCols = 0;
  q.resize(Tc);
  k.resize(Tc);
  logits.assign(TT, 0.0f);
  gradWeights.assign(TT, 0.0f);
}

}  // namespace attnscale
