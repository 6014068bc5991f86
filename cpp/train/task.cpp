// Task generator, counter-based RNG and initialiser of the trainer (see train.hpp).
#include <cmath>

#include "train/model/detmath.hpp"
#include "train/model/model.hpp"

namespace attnscale::train {

namespace {
std::uint64_t mix64(std::uint64_t z) {  // splitmix64 finaliser
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Integer in [0, n) from the high 32 bits of h (multiply-shift; bias < 2^-24 for n <= 256).
int below(std::uint64_t h, int n) {
  return static_cast<int>(((h >> 32) * static_cast<std::uint64_t>(n)) >> 32);
}
}  // namespace

std::uint64_t hash4(std::uint64_t seed, std::uint64_t stream, std::uint64_t a, std::uint64_t b) {
  return mix64(mix64(mix64(mix64(seed) ^ stream) ^ a) ^ b);
}

double uniform01(std::uint64_t h) {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

double normal_at(std::uint32_t seed, std::uint32_t tensor, std::uint64_t index) {
  for (std::uint64_t attempt = 0; attempt < 64; ++attempt) {
    const double u = 2.0 * uniform01(hash4(seed, 1000 + tensor, index, 2 * attempt)) - 1.0;
    const double v = 2.0 * uniform01(hash4(seed, 1000 + tensor, index, 2 * attempt + 1)) - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * det_log(s) / s);
  }
  return 0.0;  // probability (1 - pi/4)^64 ~ 1e-43
}

void make_batch(std::uint32_t seed, std::uint64_t stream, std::uint64_t step, int B, int T, int nV,
                Batch& out) {
  out.B = B;
  out.T = T;
  const std::size_t n = static_cast<std::size_t>(B) * T;
  out.key.resize(n);
  out.val.resize(n);
  out.qry.resize(n);
  out.target.resize(n);
  std::vector<int> where(T);
  for (int e = 0; e < B; ++e) {
    const std::uint64_t ex = static_cast<std::uint64_t>(e) << 10;  // slots below 3 * 128 < 1024
    std::int32_t* key = &out.key[static_cast<std::size_t>(e) * T];
    std::int32_t* val = &out.val[static_cast<std::size_t>(e) * T];
    std::int32_t* qry = &out.qry[static_cast<std::size_t>(e) * T];
    std::int32_t* tgt = &out.target[static_cast<std::size_t>(e) * T];
    for (int j = 0; j < T; ++j) key[j] = j;
    for (int j = T - 1; j > 0; --j) {  // Fisher-Yates
      const int r = below(hash4(seed, stream, step, ex | static_cast<std::uint64_t>(j)), j + 1);
      const std::int32_t t = key[j];
      key[j] = key[r];
      key[r] = t;
    }
    for (int j = 0; j < T; ++j) {
      where[key[j]] = j;
      val[j] = below(hash4(seed, stream, step, ex | static_cast<std::uint64_t>(T + j)), nV);
      qry[j] = below(hash4(seed, stream, step, ex | static_cast<std::uint64_t>(2 * T + j)), T);
    }
    for (int j = 0; j < T; ++j) tgt[j] = val[where[qry[j]]];
  }
}

void init_params(const Dims& d, double initScale, std::uint32_t seed, Params<float>& out) {
  out.resize(d);
  // initScale is the std of the embeddings; every projection is fan-in normalised, so each
  // component of x, q, k and v also starts with std initScale (see train.hpp).
  const double fanD = 1.0 / std::sqrt(static_cast<double>(d.D));
  const double stds[5] = {initScale, fanD, fanD, fanD, 1.0 / std::sqrt(static_cast<double>(d.dk))};
  for (int t = 0; t < 5; ++t) {
    std::vector<float>& w = out.tensor(t);
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(stds[t] * normal_at(seed, static_cast<std::uint32_t>(t + 1), i));
  }
}

}  // namespace attnscale::train
