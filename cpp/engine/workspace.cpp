#include "engine/workspace.hpp"

namespace attnscale {

void Workspace::reset(int T, int columns, bool withGram) {
  const std::size_t TT = static_cast<std::size_t>(T) * T,
                    Tc = static_cast<std::size_t>(T) * columns;
  seqLen = T;
  cols = columns;
  sampled = 0;
  maxAbsV = 0;
  vCols = 0;
  gram = withGram;
  if (gram) {
    gramK.assign(TT, 0.0f);
    gramQ.assign(TT, 0.0f);
  }
  q.resize(Tc);
  k.resize(Tc);
  logits.assign(TT, 0.0f);
  gradWeights.assign(TT, 0.0f);
}

std::size_t Workspace::bytes() const {
  std::size_t floats = 0;
  for (const std::vector<float>* b :
       {&qBlock, &kBlock, &vBlock,  &gBlock, &kPanels,    &vPanels, &logits, &gradWeights,
        &gramK,  &gramQ,  &qPanels, &rowsA,  &rowsB,      &panel,   &v,      &scratch,
        &qn,     &kn,     &qInv,    &kInv,   &normLogits, &slope})
    floats += b->capacity();
  floats += q.capacity() + k.capacity() + z.capacity() + p.capacity() + ds.capacity() +
            packedB.capacity();
  return floats * sizeof(float);
}

}  // namespace attnscale
