// The buffers of one measurement stream (a run, or one sweep's points), reused across calls: no
// allocation once the largest shape was seen.
//
// Peak size at T = 2048, d_k = 4096: Q and K (T × d_k, 32 MiB each) plus five T × T matrices
// (16 MiB each), and the two Gram matrices when d_k >= T; V and G are never stored whole (sampled a
// column block at a time; a run split at T·d_k <= 2^21 keeps every block of Vᵀ packed), and dQ, dK,
// O only a row block at a time. The backward's packed B takes no memory at that peak: dS and dSᵀ
// are packed into Q's buffer (d_k >= T), K and Q into packedB only while 2·T·d_k <= T².
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "rng/counter_normal.hpp"

namespace attnscale {

// A float buffer sized without std::vector's element-by-element zero-fill (~60 ms for Q and K at
// T = 1024, d_k = 4096 in wasm), for buffers whose every element is written before it is read.
// resize() does not keep the contents, and does nothing at the same size.
class RawFloats {
 public:
  RawFloats() = default;
  RawFloats(RawFloats&& o) noexcept : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)) {}
  RawFloats& operator=(RawFloats&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }
  void resize(std::size_t n) {
    if (n == size_) return;
    data_.reset();
    data_.reset(new float[n]);
    size_ = n;
    // One memset where the buffer is created: fresh pages are touched here rather than inside
    // some later step (a cancellable step must stay short), at memset speed.
    std::memset(data_.get(), 0, n * sizeof(float));
  }
  // Grows to at least n floats (contents not kept); never shrinks.
  void ensure(std::size_t n) {
    if (n > size_) resize(n);
  }
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  std::size_t capacity() const { return size_; }

 private:
  std::unique_ptr<float[]> data_;
  std::size_t size_ = 0;
};

struct Workspace {
  int seqLen = 0;
  int cols = 0;        // columns of q and k (the largest d_k to come)
  int sampled = 0;     // columns [0, sampled) are in q, k and in the two products
  double maxAbsV = 0;  // max |V| over columns [0, sampled)
  bool gram = false;   // also accumulate the Gram matrices KKᵀ and QQᵀ (some d_k >= seqLen)
  RawFloats q, k;      // seqLen × cols, rounded to the format
  std::vector<float> vBlock, gBlock;         // seqLen × block: V and G of one column block
  std::vector<float> qBlock, kBlock;         // and Q, K of it (also copied into q, k)
  ColumnHashes hashes;                       // the RNG's hashes of that block's columns
  std::vector<float> kPanels, vPanels;       // that block's Kᵀ and Vᵀ, packed (panel_gemm.hpp)
  std::vector<float> logits, gradWeights;    // QKᵀ and GVᵀ over columns [0, sampled), fp32
  std::vector<float> gramK, gramQ, qPanels;  // KKᵀ, QQᵀ (lower triangles), packed Qᵀ block
  RawFloats z, p, ds;                        // seqLen × seqLen, one scaling at a time
  std::vector<float> rowsA, rowsB;           // a row block of dQ, dK or O, or of dSᵀ
  std::vector<float> panel;                  // packed B panels of one k-block (multiply_rows)
  int vCols = 0;                             // V sampled whole (seqLen × vCols), only when the
  std::vector<float> v, scratch;             // output must be computed (online softmax)
  // The backward's B packed whole: K and Q (d_k < T), or dS, then dSᵀ (when Q's buffer is short).
  RawFloats packedB;
  // QK-norm: q̂, k̂ (seqLen × d_k, rounded), their rows' 1/√(… + ε), q̂k̂ᵀ (T × T, fp32),
  // and one row of logit slopes for the backward of the length scale and soft-cap.
  std::vector<float> qn, kn, qInv, kInv, normLogits, slope;
  // A model's own Q, K (and V) instead of samples (engine/analyze.hpp): seqLen × cols each,
  // row-major, owned by the caller; v may be null. No V, no G: no output check, no backward.
  const float* givenQ = nullptr;
  const float* givenK = nullptr;
  const float* givenV = nullptr;

  // Bytes held by the buffers.
  std::size_t bytes() const;

  // Starts over for seqLen × cols inputs: products zero, nothing sampled.
  void reset(int seqLen, int cols, bool withGram);
};

}  // namespace attnscale
