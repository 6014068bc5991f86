// The sampled inputs, a block of columns at a time. Samples are counter-based (rng/), so columns
// [c0, c1) of a tensor are the same bits whether drawn alone or as part of a wider matrix: a run
// at d_k and every sweep point see the same Q, K, V, G prefix, and no one needs all of it at once.
#pragma once

#include "config/config.hpp"
#include "rng/counter_normal.hpp"

namespace attnscale {

// Columns [c0, c1) of Q and K, every row, rounded to the format: element (t, c) goes to
// q[t·ld + c − c0] (and k likewise). K shares ρ of its standardized value with Q of the same
// token, so the two are drawn together. `columns`: hashes of columns [c0, c1) (computed once per
// block for all four tensors).
void sample_qk_columns(const Config& c, const ColumnHashes& columns, float* q, float* k, int ld);

// Columns [c0, c1) of V (rounded to the format, as it enters O = PV) and of the upstream gradient G
// (fp32: it is the backward's input, not a stored activation). Either pointer may be null.
void sample_vg_columns(const Config& c, const ColumnHashes& columns, float* v, float* g, int ld);

// Rows [r0, r1) of V's first `cols` columns (rounded), row t at v + t·cols.
void sample_v_rows(const Config& c, int r0, int r1, int cols, float* v);

}  // namespace attnscale
