// The one vector vocabulary every kernel is written in.
//
// With a SIMD arch (native AVX2, or wasm via -msimd128 -msse4.1) these are xsimd batches.
// Without one (the wasm scalar fallback build, XSIMD_NO_SUPPORTED_ARCHITECTURE) they are one-lane
// structs with the same operations, so every kernel has a single source. Each shim op is the same
// IEEE operation per lane, which is why element-wise kernels give bit-identical results in every
// build; only horizontal reductions (reduce_add) depend on the lane count.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <xsimd/xsimd.hpp>

namespace attnscale::simd {

#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
inline constexpr bool kHasSimd = false;
inline constexpr const char* kArchName = "scalar";

template <class T>
struct lane_mask {
  bool v;
};
template <class T>
struct lane {
  static constexpr std::size_t size = 1;
  using value_type = T;
  T v;
  lane() = default;
  lane(T x) : v(x) {}  // broadcast, as xsimd::batch(T)
  friend lane operator+(lane a, lane b) { return T(a.v + b.v); }
  friend lane operator-(lane a, lane b) { return T(a.v - b.v); }
  friend lane operator*(lane a, lane b) { return T(a.v * b.v); }
  friend lane operator/(lane a, lane b) { return T(a.v / b.v); }
  friend lane operator-(lane a) { return T(-a.v); }
  friend lane operator&(lane a, lane b) { return T(a.v & b.v); }
  friend lane operator|(lane a, lane b) { return T(a.v | b.v); }
  friend lane operator^(lane a, lane b) { return T(a.v ^ b.v); }
  friend lane operator<<(lane a, int n) { return T(a.v << n); }
  friend lane operator>>(lane a, int n) { return T(a.v >> n); }
  friend lane_mask<T> operator<(lane a, lane b) { return {a.v < b.v}; }
  friend lane_mask<T> operator<=(lane a, lane b) { return {a.v <= b.v}; }
  friend lane_mask<T> operator>(lane a, lane b) { return {a.v > b.v}; }
  friend lane_mask<T> operator>=(lane a, lane b) { return {a.v >= b.v}; }
  friend lane_mask<T> operator==(lane a, lane b) { return {a.v == b.v}; }
  friend lane_mask<T> operator!=(lane a, lane b) { return {a.v != b.v}; }
  lane& operator+=(lane b) { return *this = *this + b; }
  lane& operator-=(lane b) { return *this = *this - b; }
  lane& operator*=(lane b) { return *this = *this * b; }
};
template <class T>
inline lane_mask<T> operator&(lane_mask<T> a, lane_mask<T> b) {
  return {a.v && b.v};
}
template <class T>
inline lane_mask<T> operator|(lane_mask<T> a, lane_mask<T> b) {
  return {a.v || b.v};
}
template <class T>
inline lane_mask<T> operator!(lane_mask<T> a) {
  return {!a.v};
}

using vf = lane<float>;
using vi = lane<std::int32_t>;
using vu = lane<std::uint32_t>;
using mf = lane_mask<float>;
using mi = lane_mask<std::int32_t>;
using mu = lane_mask<std::uint32_t>;

template <class T>
inline lane<T> loadu(const T* p) {
  return *p;
}
template <class T>
inline void storeu(T* p, lane<T> x) {
  *p = x.v;
}
template <class T>
inline lane<T> select(lane_mask<T> m, lane<T> a, lane<T> b) {
  return m.v ? a : b;
}
inline bool any(mf m) { return m.v; }
inline bool any(mi m) { return m.v; }
inline bool any(mu m) { return m.v; }
inline vf sqrt(vf x) { return std::sqrt(x.v); }
inline vf abs(vf x) { return std::fabs(x.v); }
inline float reduce_add(vf x) { return x.v; }
inline float reduce_max(vf x) { return x.v; }
template <class To, class From>
inline To bit_cast_lane(From x) {
  typename To::value_type out;
  static_assert(sizeof(out) == sizeof(x.v), "same width");
  std::memcpy(&out, &x.v, sizeof(out));
  return out;
}
inline vu as_u(vf x) { return bit_cast_lane<vu>(x); }
inline vi as_i(vf x) { return bit_cast_lane<vi>(x); }
inline vf as_f(vu x) { return bit_cast_lane<vf>(x); }
inline vf as_f(vi x) { return bit_cast_lane<vf>(x); }
inline vi as_i(vu x) { return bit_cast_lane<vi>(x); }
inline vu as_u(vi x) { return bit_cast_lane<vu>(x); }
inline mf to_mf(mu m) { return {m.v}; }
inline mf to_mf(mi m) { return {m.v}; }
inline mu to_mu(mf m) { return {m.v}; }
inline mi to_mi(mf m) { return {m.v}; }
inline mu to_mu(mi m) { return {m.v}; }
inline mi to_mi(mu m) { return {m.v}; }
inline vf to_float(vi x) { return static_cast<float>(x.v); }
inline mf isnan(vf x) { return {x.v != x.v}; }

#else
inline constexpr bool kHasSimd = true;
inline const char* const kArchName = xsimd::default_arch::name();

using vf = xsimd::batch<float>;
using vi = xsimd::batch<std::int32_t>;
using vu = xsimd::batch<std::uint32_t>;
using mf = vf::batch_bool_type;
using mi = vi::batch_bool_type;
using mu = vu::batch_bool_type;

inline vf loadu(const float* p) { return xsimd::load_unaligned(p); }
inline vi loadu(const std::int32_t* p) { return xsimd::load_unaligned(p); }
inline vu loadu(const std::uint32_t* p) { return xsimd::load_unaligned(p); }
inline void storeu(float* p, vf x) { x.store_unaligned(p); }
inline void storeu(std::int32_t* p, vi x) { x.store_unaligned(p); }
inline void storeu(std::uint32_t* p, vu x) { x.store_unaligned(p); }
inline vf select(mf m, vf a, vf b) { return xsimd::select(m, a, b); }
inline vi select(mi m, vi a, vi b) { return xsimd::select(m, a, b); }
inline vu select(mu m, vu a, vu b) { return xsimd::select(m, a, b); }
inline bool any(mf m) { return xsimd::any(m); }
inline bool any(mi m) { return xsimd::any(m); }
inline bool any(mu m) { return xsimd::any(m); }
inline vf sqrt(vf x) { return xsimd::sqrt(x); }
inline vf abs(vf x) { return xsimd::abs(x); }
inline float reduce_add(vf x) { return xsimd::hadd(x); }
inline float reduce_max(vf x) {
  alignas(64) float lanes[vf::size];
  x.store_aligned(lanes);
  float m = lanes[0];
  for (std::size_t i = 1; i < vf::size; ++i) m = lanes[i] > m ? lanes[i] : m;
  return m;
}
inline vu as_u(vf x) { return xsimd::bitwise_cast<vu>(x); }
inline vi as_i(vf x) { return xsimd::bitwise_cast<vi>(x); }
inline vf as_f(vu x) { return xsimd::bitwise_cast<vf>(x); }
inline vf as_f(vi x) { return xsimd::bitwise_cast<vf>(x); }
inline vi as_i(vu x) { return xsimd::bitwise_cast<vi>(x); }
inline vu as_u(vi x) { return xsimd::bitwise_cast<vu>(x); }
// xsimd 8.1 has no batch_bool_cast; on SSE/AVX a mask is an all-ones/all-zeros lane pattern in the
// same register as the batch, so a mask changes lane type by a bit cast of that register.
template <class To, class From>
inline typename xsimd::batch<To>::batch_bool_type mask_cast(
    typename xsimd::batch<From>::batch_bool_type m) {
  using from_bits = xsimd::batch<From>;
  using to_bits = xsimd::batch<To>;
  using to_mask = typename to_bits::batch_bool_type;
  from_bits bits(static_cast<typename from_bits::register_type>(m));
  return to_mask(static_cast<typename to_mask::register_type>(xsimd::bitwise_cast<to_bits>(bits)));
}
inline mf to_mf(mu m) { return mask_cast<float, std::uint32_t>(m); }
inline mf to_mf(mi m) { return mask_cast<float, std::int32_t>(m); }
inline mu to_mu(mf m) { return mask_cast<std::uint32_t, float>(m); }
inline mi to_mi(mf m) { return mask_cast<std::int32_t, float>(m); }
inline mu to_mu(mi m) { return mask_cast<std::uint32_t, std::int32_t>(m); }
inline mi to_mi(mu m) { return mask_cast<std::int32_t, std::uint32_t>(m); }
inline vf to_float(vi x) { return xsimd::to_float(x); }
// Not `x != x`: xsimd 8.1 AVX lowers != to an ordered compare, false for NaN.
inline mf isnan(vf x) { return xsimd::isnan(x); }
#endif

inline constexpr std::size_t W = vf::size;

}  // namespace attnscale::simd

#include "simd/wasm_ops.hpp"
