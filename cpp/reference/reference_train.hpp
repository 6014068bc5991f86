// The plain double-precision reference of the trainer's model (train/model/model.hpp), which the
// gradient checks compare the float32 path against.
#pragma once

#include "train/model/model.hpp"

namespace attnscale::train {

// Loss (mean cross-entropy) and, if grads != nullptr, the gradients of every parameter. No
// rounding emulation (fp32 semantics only).
double reference_loss_and_grad(const Params<double>& p, const Batch& batch, const LogitSpec& spec,
                               Params<double>* grads);

}  // namespace attnscale::train
