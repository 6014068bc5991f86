// Counter-based standard normal samples: the value at (seed, tensor, row, column) is a pure
// function of those four numbers. So a run at d_k = 64 sees exactly the first 64 components that a
// run at d_k = 4096 sees (samples are nested across d_k), any row can be drawn alone, and native,
// wasm SIMD and wasm scalar builds draw the same bits (only IEEE ops and integer hashing).
#pragma once

#include <cstdint>
#include <vector>

#include "simd/batch.hpp"
#include "simd/fast_math.hpp"

namespace attnscale {

enum class Tensor : std::uint32_t { q = 1, kIndependent = 2, v = 3, upstreamGrad = 4 };

// "lowbias32" integer hash (C. Wellons, hash-prospector): a full-avalanche 32-bit mix.
inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
inline simd::vu mix32(simd::vu x) {
  x = x ^ (x >> 16);
  x = x * simd::vu(0x7feb352dU);
  x = x ^ (x >> 15);
  x = x * simd::vu(0x846ca68bU);
  x = x ^ (x >> 16);
  return x;
}

inline std::uint32_t row_key(std::uint32_t seed, Tensor tensor, std::uint32_t row) {
  std::uint32_t stream = mix32(seed ^ mix32(0x9e3779b9U * static_cast<std::uint32_t>(tensor)));
  return mix32(stream ^ mix32(row + 0x632be5abU));
}

// Box–Muller on two hashed uniforms: z = sqrt(-2 ln u1) · cos(2π u2), u1 in (0, 1] and u2 in
// [0, 1) on a 2^-24 grid (so |z| <= 5.77). cos(2π u2) is evaluated as -sin(2π(1/4 - |u2 - 1/2|))
// to stay on the polynomial's range [-π/2, π/2].
// The column's share of the hash, mix32(2c) and mix32(2c + 1), depends on neither the row nor the
// tensor: normal_from_hashes takes it precomputed (ColumnHashes), for blocks of many rows.
inline simd::vf normal_from_hashes(std::uint32_t rowKey, simd::vu hashA, simd::vu hashB) {
  using namespace simd;
  vu a = mix32(vu(rowKey) ^ hashA);
  vu b = mix32(vu(rowKey) ^ hashB);
  const vf grid(5.9604644775390625e-8f);  // 2^-24
  vf u1 = (to_float(as_i(a >> 8)) + vf(1.0f)) * grid;
  vf u2 = to_float(as_i(b >> 8)) * grid;
  vf radius = sqrt(vf(-2.0f) * log_fast_normal(u1));
  vf w = vf(0.25f) - abs(u2 - vf(0.5f));
  return vf(0.0f) - radius * sin_halfpi(w * vf(6.28318530717958648f));
}

inline simd::vf normal_from_counter(std::uint32_t rowKey, simd::vu column) {
  return normal_from_hashes(rowKey, mix32(column + column), mix32(column + column + simd::vu(1)));
}

// Column hashes of columns [col0, col0 + count), padded to whole vectors, for fill_normal_hashed.
struct ColumnHashes {
  int col0 = 0, count = 0;
  std::vector<std::uint32_t> a, b;
  void compute(int col0, int count);
};

// Fills out[c] for c in [0, cols) with the row's samples.
void fill_normal_row(std::uint32_t seed, Tensor tensor, std::uint32_t row, int cols, float* out);

// out[i] = the sample at column col0 + i, for i in [0, count): any block of a row, same bits as
// fill_normal_row gives for those columns.
void fill_normal_columns(std::uint32_t seed, Tensor tensor, std::uint32_t row, int col0, int count,
                         float* out);

// The same for the columns of `hashes`: out[i] = the sample at column hashes.col0 + i.
void fill_normal_hashed(std::uint32_t seed, Tensor tensor, std::uint32_t row,
                        const ColumnHashes& hashes, float* out);

}  // namespace attnscale
