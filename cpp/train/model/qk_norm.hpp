// QK-norm of the trainer's query and key rows and its backward (model.cpp's forward and backward
// passes), kept apart so that the model's file stays one pass's worth of code.
#pragma once

#include "config/logit_schemes.hpp"

namespace attnscale::train {

// QK-norm of the T rows of x (T x dk), in place: n = norm(x) (rms: x / sqrt(mean(x^2) + eps);
// layer: (x - mean) / sqrt(mean((x - mean)^2) + eps)), saved in `normed` with r = 1/sqrt(.. + eps)
// per row for the backward pass, then x = n * gain. Sums run in index order (same bits in
// every build).
void qk_norm_rows(QkNorm kind, const float* gain, float* x, float* normed, float* r, int T, int dk);

// Backward of qk_norm_rows: dx (in place over dy, the gradient of x = n * gain) and the gain's
// gradient added to dgain. dn = dy * gain; rms: dx = r (dn - n mean(dn n));
// layer: dx = r (dn - mean(dn) - n mean(dn n)).
void qk_norm_rows_backward(QkNorm kind, const float* gain, const float* normed, const float* r,
                           float* dy, float* dgain, int T, int dk);

}  // namespace attnscale::train
