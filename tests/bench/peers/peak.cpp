// The wasm SIMD128 multiply + add throughput ceiling, for `npm run bench:peers`.
// Built by build-scripts/bench-peers.sh with `em++ -O3 -msimd128` into build/bench/peak.wasm (no
// Emscripten runtime, no imports) and run by the same harness in Node and in chromium.
//
// SIMD128 has no FMA, so the ceiling for a GEMM is a stream of f32x4.mul and f32x4.add in equal
// numbers: on this Zen 3 two of each per cycle. Each variant runs C independent multiply chains
// and C independent add chains (latency ~3 cycles, so C ≥ 6 is needed to fill both pipes) while
// keeping every value in a register (V8 has ~15 usable vector registers: 2C + 2 of them here).
// Constants come either as arguments (held in registers) or as literals (V8 may rematerialise
// them); which one is faster depends on V8's register allocation, so the bench takes the best.
// Plain GCC vector types, no intrinsics: clang lowers them to f32x4.mul / f32x4.add.

typedef float f4 __attribute__((vector_size(16)));

namespace {

template <int C>
float chains(int iterations, f4 mul, f4 add) {
  f4 m[C], a[C];
  for (int i = 0; i < C; ++i) m[i] = a[i] = f4{1, 1, 1, 1} * static_cast<float>(i + 1);
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < C; ++i) {
      m[i] = m[i] * mul;
      a[i] = a[i] + add;
    }
  }
  f4 s = {0, 0, 0, 0};
  for (int i = 0; i < C; ++i) s = s + m[i] + a[i];
  return s[0] + s[1] + s[2] + s[3];
}

f4 splat(float x) { return f4{x, x, x, x}; }

}  // namespace

extern "C" {
// flops per iteration of variant v: C multiplies and C adds of 4 lanes each.
int variants() { return 4; }
int chainsOf(int v) { return v == 0 ? 5 : v == 3 ? 7 : 6; }
int flopsPerIteration(int v) { return chainsOf(v) * 2 * 4; }

// mulBy ≈ 1 + 1e-7 and addBy ≈ 1e-7 keep every value finite and normal for ~1e8 iterations.
float run(int v, int iterations, float mulBy, float addBy) {
  switch (v) {
    case 0:
      return chains<5>(iterations, splat(mulBy), splat(addBy));
    case 1:
      return chains<6>(iterations, splat(mulBy), splat(addBy));
    case 2:
      return chains<6>(iterations, splat(1.0000001f), splat(1e-7f));
    default:
      return chains<7>(iterations, splat(1.0000001f), splat(1e-7f));
  }
}
}
