// Ways newer models keep attention logits in range besides the 1/√d_k scale:
// normalizing q and k before the dot product (QK-norm: ViT-22B, Dehghani et al. 2023; OLMo 2,
// 2024; Gemma 3, 2025), soft-capping the logits (Gemma 2, 2024) and multiplying them by s·ln n
// for a row that sees n keys (Scalable-Softmax, Nakanishi 2025).
#pragma once

#include <string_view>

namespace attnscale {

enum class QkNorm : int { none = 0, rms = 1, layer = 2 };

// The QK-norms, one row each: engine.schema's `qkNorm` choices and the training copies' labels.
struct QkNormInfo {
  QkNorm norm;
  const char* key;    // the config's value (qkNorm: 'rms')
  const char* label;  // what a control shows
  const char* named;  // how a training copy's label names it before its scaling ("RMS-norm")
};

inline constexpr QkNormInfo kQkNorms[] = {
    {QkNorm::none, "none", "none", ""},
    {QkNorm::rms, "rms", "RMS norm", "RMS-norm"},
    {QkNorm::layer, "layer", "layer norm", "layer-norm"},
};

inline const QkNormInfo& qk_norm_info(QkNorm n) {
  for (const QkNormInfo& q : kQkNorms)
    if (q.norm == n) return q;
  return kQkNorms[0];
}

inline const char* qk_norm_name(QkNorm n) { return qk_norm_info(n).key; }

inline bool parse_qk_norm(std::string_view name, QkNorm& out) {
  for (const QkNormInfo& q : kQkNorms)
    if (name == q.key) {
      out = q.norm;
      return true;
    }
  return false;
}

// The ε under the square root of both normalizations (mean(x²) + 1e-6, a common RMSNorm ε).
inline constexpr float kQkNormEps = 1e-6f;

}  // namespace attnscale
