// The attention logits of one example recomputed in double from a trainer copy's float
// parameters (train.hpp's model), for the tests that check the trainer's logit metrics.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "config/logit_schemes.hpp"
#include "train/model/model.hpp"
#include "train/train.hpp"

namespace attnscale::test {

// The logits one example's softmax gets, recomputed in double from float parameters (train.hpp):
// x_j = (E[a_j] + E[T + b_j] + E[T + 16 + c_j]) / sqrt 3, q = x W_q, k = x W_k, QK-norm with its
// gains, z = softcap(scale * q.k * s ln T) (the soft-cap left out when `capped` is false).
inline std::vector<double> logits_double(const attnscale::Trainer::ParamView& p,
                                         const attnscale::train::Batch& b, int e, int T, int dk,
                                         double scale, const attnscale::CopySpec& c,
                                         bool capped = true) {
  const int D = attnscale::kModelDim, nV = attnscale::kValueTokens;
  std::vector<double> q(static_cast<std::size_t>(T) * dk, 0.0), k(q.size(), 0.0);
  for (int j = 0; j < T; ++j) {
    const std::size_t at = static_cast<std::size_t>(e) * T + j;
    const int rows[3] = {b.key[at], T + b.val[at], T + nV + b.qry[at]};
    for (int i = 0; i < D; ++i) {
      double x = 0.0;
      for (int r : rows) x += (*p.E)[static_cast<std::size_t>(r) * D + i];
      x /= std::sqrt(3.0);
      for (int d = 0; d < dk; ++d) {
        q[static_cast<std::size_t>(j) * dk + d] +=
            x * (*p.Wq)[static_cast<std::size_t>(i) * dk + d];
        k[static_cast<std::size_t>(j) * dk + d] +=
            x * (*p.Wk)[static_cast<std::size_t>(i) * dk + d];
      }
    }
  }
  if (c.qkNorm != attnscale::QkNorm::none)
    for (auto [m, g] : {std::pair{&q, p.gq}, std::pair{&k, p.gk}})
      for (int j = 0; j < T; ++j) {
        double* row = m->data() + static_cast<std::size_t>(j) * dk;
        double mean = 0.0, ss = 0.0;
        if (c.qkNorm == attnscale::QkNorm::layer) {
          for (int d = 0; d < dk; ++d) mean += row[d] / dk;
        }
        for (int d = 0; d < dk; ++d) ss += (row[d] - mean) * (row[d] - mean) / dk;
        const double r = 1.0 / std::sqrt(ss + attnscale::kQkNormEps);
        for (int d = 0; d < dk; ++d) row[d] = (row[d] - mean) * r * (*g)[d];
      }
  std::vector<double> z(static_cast<std::size_t>(T) * T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      double s = 0.0;
      for (int d = 0; d < dk; ++d)
        s += q[static_cast<std::size_t>(i) * dk + d] * k[static_cast<std::size_t>(j) * dk + d];
      s *= scale;
      if (c.lengthScale > 0.0) s *= c.lengthScale * std::log(static_cast<double>(T));
      if (capped && c.softcap > 0.0) s = c.softcap * std::tanh(s / c.softcap);
      z[static_cast<std::size_t>(i) * T + j] = s;
    }
  return z;
}

}  // namespace attnscale::test
