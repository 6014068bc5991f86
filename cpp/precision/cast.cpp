// round_inplace: the vectorized casts of cast_kernels.hpp over an array.
#include <cstddef>

#include "precision/cast_kernels.hpp"
#include "precision/format.hpp"
#include "simd/batch.hpp"

namespace attnscale {

namespace {

template <Precision P>
void round_array(float* data, std::size_t n, bool saturate) {
  constexpr std::size_t W = simd::W;
  std::size_t i = 0;
  for (; i + W <= n; i += W)
    simd::storeu(data + i, round_batch<P>(simd::loadu(data + i), saturate));
  if (i == n) return;
  // Tail through the same kernel: pad one batch (padding lanes are rounded and discarded).
  float tail[W] = {};
  for (std::size_t j = 0; i + j < n; ++j) tail[j] = data[i + j];
  simd::storeu(tail, round_batch<P>(simd::loadu(tail), saturate));
  for (std::size_t j = 0; i + j < n; ++j) data[i + j] = tail[j];
}

}  // namespace

void round_inplace(Format f, float* data, std::size_t n) {
  if (f.precision == Precision::fp32) return;
  with_precision(f.precision,
                 [&](auto p) { round_array<decltype(p)::value>(data, n, f.saturate); });
}

}  // namespace attnscale
