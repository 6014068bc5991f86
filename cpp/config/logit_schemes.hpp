// Ways newer models keep attention logits in range besides the 1/√d_k scale:
// normalizing q and k before the dot product (QK-norm: ViT-22B, Dehghani et al. 2023; OLMo 2,
// 2024; Gemma 3, 2025), soft-capping the logits (Gemma 2, 2024) and multiplying them by s·ln n
// for a row that sees n keys (Scalable-Softmax, Nakanishi 2025).
#pragma once

#include <string_view>

namespace attnscale {

enum class QkNorm : int { none = 0, rms = 1, layer = 2 };

inline const char* qk_norm_name(QkNorm n) {
  return n == QkNorm::rms ? "rms" : n == QkNorm::layer ? "layer" : "none";
}

inline bool parse_qk_norm(std::string_view name, QkNorm& out) {
  for (QkNorm n : {QkNorm::none, QkNorm::rms, QkNorm::layer})
    if (name == qk_norm_name(n)) {
      out = n;
      return true;
    }
  return false;
}

// The ε under the square root of both normalizations (mean(x²) + 1e-6, a common RMSNorm ε).
inline constexpr float kQkNormEps = 1e-6f;

}  // namespace attnscale
