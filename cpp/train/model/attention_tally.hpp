// What one step's attention says for the trainer's metrics (train.hpp): the logits' largest |z|
// and centred row norm, the weights' saturated rows and entropies, the largest QK-norm'ed rows.
#pragma once

#include <limits>

namespace attnscale::train {

// What one step's attention rows say, for the metrics (train.hpp). Added to in example and row
// order; NaN, once met, stays (a non-finite logit or weight shows).
struct AttentionTally {
  double entropySum = 0.0, minRowEntropy = std::numeric_limits<double>::infinity();
  double maxAbsLogit = 0.0, maxCentredNorm = 0.0;  // over the logits the softmax gets
  double maxQ2 = 0.0, maxK2 = 0.0;                 // largest ||q^||^2, ||k^||^2 (QK-norm only)
  long long saturated = 0;
};

// The largest |z| and centred row norm ||z - mean z||_2 of the T x T logits S, in double. Reads
// S only: the forward pass goes on with the same bits.
void tally_logits(const float* S, int T, AttentionTally& t);

// The largest squared norm of the T rows of x (T x dk) and m, in double.
double max_row_norm2(const float* x, int T, int dk, double m);

// The weights' metrics of one example (P: T x T weights): saturated rows and row entropies
// (the engine's entropy_in_index_order; tmp holds >= T + W floats).
void tally_weights(const float* P, int T, float* tmp, AttentionTally& t);

}  // namespace attnscale::train
