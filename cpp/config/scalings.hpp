// The named scalings of QKᵀ, in one table: the multiplier the engine uses, and what the page shows
// of each (engine.schema's `scale` field lists them as its choices). A scaling added to kScalings
// is accepted by every config, sweep and training copy (as a default copy too) and shown by the
// page; nothing else lists them.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

namespace attnscale {

// A named scaling (a row of kScalings), or custom: a multiplier given as a number.
enum class ScaleMode { none, sqrt, linear, custom };

struct Scaling {
  ScaleMode mode;
  const char* key;          // the config's value (scale: 'sqrt')
  const char* label;        // what a control shows
  const char* formula;      // the multiplier in plain text ("1/√d_k")
  const char* tex;          // the same in TeX
  double exponent;          // the multiplier is d_k^exponent (the page draws it from this)
  float (*factor)(int dk);  // the multiplier as the engine computes it, in float32
};

inline float factor_none(int) { return 1.0f; }
inline float factor_sqrt(int dk) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(dk)));
}
inline float factor_linear(int dk) { return static_cast<float>(1.0 / static_cast<double>(dk)); }

inline constexpr Scaling kScalings[] = {
    {ScaleMode::none, "none", "none", "1", "1", 0.0, factor_none},
    {ScaleMode::sqrt, "sqrt", "1/√d_k", "1/√d_k", "1/\\sqrt{d_k}", -0.5, factor_sqrt},
    {ScaleMode::linear, "linear", "1/d_k", "1/d_k", "1/d_k", -1.0, factor_linear},
};

// The row of a named scaling; nullptr for custom.
inline const Scaling* scaling_of(ScaleMode mode) {
  for (const Scaling& s : kScalings)
    if (s.mode == mode) return &s;
  return nullptr;
}

// The named scaling called `key`, or nullptr.
inline const Scaling* find_scaling(std::string_view key) {
  for (const Scaling& s : kScalings)
    if (key == s.key) return &s;
  return nullptr;
}

// The multiplier applied to QKᵀ at d_k = dk: the scaling's, or the custom value, as float32.
inline float scale_factor(ScaleMode mode, double custom, int dk) {
  const Scaling* s = scaling_of(mode);
  return s ? s->factor(dk) : static_cast<float>(custom);
}

// The named scalings for a message: "'none', 'sqrt', 'linear'".
inline std::string scaling_keys_text() {
  std::string out;
  for (const Scaling& s : kScalings) out += (out.empty() ? "'" : ", '") + std::string(s.key) + "'";
  return out;
}

}  // namespace attnscale
