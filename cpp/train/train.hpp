// The training panel's engine: one attention layer trained side by side with each named logit
// scale (config/scalings.hpp: s = 1 "none", 1/sqrt(d_k) "sqrt", 1/d_k "linear") and, when set, a
// user multiplier ("custom"). All copies start from the same initialisation and see the same
// batches. The copies can also be chosen (TrainConfig::copies). Each copy forms its logits as
//   q^ = g_q * norm(q), k^ = g_k * norm(k)   QK-norm (rms or layer, learnable gain init 1) or none
//   z = softcap_c(scale * q^.k^ * s ln T)      softcap_c(u) = c tanh(u / c); each factor optional
// in that order, as the measurement engine does.
//
// ---------------------------------------------------------------------------------------------
// Task: multi-query associative recall, one key-value pair and one query per position.
//   * Vocabulary: T key tokens, T query tokens, 16 value tokens (so 2T + 16 embedding rows).
//   * A sequence has T positions. Position j holds a key a_j, a value b_j and a query c_j:
//       a = a random permutation of the T keys (every key appears exactly once),
//       b_j uniform over the 16 values (repeats allowed),
//       c_j uniform over the T keys.
//     The target at position i is the value b_j of the position j whose key a_j equals c_i.
//     One attention row per query: row i must put its weight on that j, so every one of the T x T
//     rows is meaningful and the loss averages all T positions. Chance accuracy is 1/16.
//   * No positional encoding: the task is permutation-equivariant and needs none.
// Model (d_model = kModelDim = 64, vocabulary embedding E is (2T + 16) x 64):
//   x_j = (E[a_j] + E[T + b_j] + E[T + 16 + c_j]) / sqrt(3)        (three role tokens, summed)
//   Q = X W_q, K = X W_k, V = X W_v                                  (64 -> d_k, no biases)
//   A = softmax_rows(s * Q K^T)    (full, non-causal T x T attention)
//   logits = (A V) W_o             (W_o: d_k -> 16, read-out at every position)
//   loss = mean over batch and positions of cross-entropy(logits_i, target_i).
// Initialisation, counter-based normals keyed by (seed, tensor, index), sigma = initScale:
//   E ~ N(0, sigma^2); W_q, W_k, W_v ~ N(0, 1/64) and W_o ~ N(0, 1/d_k) (fan-in normalised).
//   So every component of x, q, k and v starts with std sigma: sigma = 1 is the seed's
//   unit-variance assumption, and the unscaled logit q.k has std sigma^2 sqrt(d_k).
//   (Scaling the weights by sigma as well would make the logits grow as sigma^4 and the read-out
//   logits as sigma^3, mixing a read-out effect into what this knob is meant to show.)
// Optimizers: SGD (plain, no momentum) or Adam (beta1 0.9, beta2 0.999, eps 1e-8, bias-corrected).
//   Default learning rate 1e-3: the usual Adam default, fixed before any measurement. Plain SGD
//   needs a far larger rate on this task (~1 at the defaults; 0.1 barely moves in 500 steps).
// Learning-rate schedule (scheduled_lr): 'constant' (the default: the rate as given, the same bits
//   as before schedules existed) or 'warmup-cosine', Wortsman et al. 2023's shape (linear warm-up
//   over 5e3 of 1e5 steps, then cosine decay to 1e-5) scaled to a run of N = scheduleSteps steps:
//   W = round(N / 20) warm-up steps with lr(t) = lr * t / W, then
//   lr(t) = lrEnd + (lr - lrEnd)(1 + cos(pi (t - W) / (N - W))) / 2, lrEnd = min(1e-5, lr), so
//   lr(N) = lrEnd; after step N the rate stays at lrEnd. cos from IEEE + - * / only (det_cos_pi).
// Precision emulation (forward only, as the attention run does): Q, K, V, the raw logits Q K^T, the
// scaled logits, the exponentials, the attention weights and the attention output are rounded to
// the selected format; the read-out, the loss and the whole backward pass are float32
// (straight-through rounding).
// Metrics per step and copy, measured on that step's batch before the update:
//   loss (mean cross-entropy, nats), accuracy (argmax = target, fraction of positions),
//   entropy (mean over all attention rows of -sum p ln p, nats; max is ln T),
//   saturatedFraction (rows whose largest weight > 0.99),
//   gradNormWq, gradNormWk (Frobenius norms of dLoss/dW_q, dLoss/dW_k),
//   maxLogit (largest |z| over the batch's logits z as the softmax gets them: after the scale,
//     QK-norm, length factor and soft-cap, rounded to the format),
//   minRowEntropy (the lowest of the row entropies that `entropy` averages),
//   entropyFloor (stats/entropy_bound.hpp's B(T, sigma) at sigma = the largest centred row norm
//     ||z - mean z||_2 of those logits: every row sees all T keys and B decreases in sigma, so it
//     is below every row's exact entropy; NaN when a logit is not finite),
//   weightBound (Zhai et al. 2023's weight-side bound on every |logit| before the soft-cap:
//     |scale| ||W_q W_k^T||_2 max_i ||x_i||^2 (times s ln T when set) over the batch's inputs x_i;
//     with QK-norm |scale| max ||q^|| max ||k^|| over the batch's normalised rows;
//     weight_bound.hpp).
//   The last four are computed beside the others and change none of their bits.
// Determinism: batches and initial values come from a counter-based hash; every kernel uses only
// IEEE + - * / sqrt with one fixed operation order per output (no order-dependent reductions, own
// exp/log from the same operations), so the same config gives the same bits natively and in wasm
// (SIMD and scalar builds). Only the payload/sign bits of NaNs may differ (x86 makes negative
// NaNs, wasm positive ones); which values are NaN does not.
// Cost cap: d_k * seqLen * batchSize <= 2^21 (kTrainWorkCap). Measured at the cap, one step of
// the three copies takes ~0.25-0.5 s natively and ~0.5 s (d_k 4096, T 32, batch 16) to ~1.4 s
// (d_k 1024, T 128, batch 16) in wasm SIMD; the default (64 x 32 x 16) is 1/64 of the cap and runs
// at ~600 steps/s natively, ~130-290 steps/s in wasm SIMD (machine-load dependent).
// ---------------------------------------------------------------------------------------------
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/logit_schemes.hpp"
#include "precision/format.hpp"

namespace attnscale {

enum class Optimizer : int { sgd = 0, adam = 1 };
// Metric order inside one copy's block of step() output.
enum class TrainMetric : int {
  loss = 0,
  accuracy = 1,
  entropy = 2,
  saturatedFraction = 3,
  gradNormWq = 4,
  gradNormWk = 5,
  maxLogit = 6,
  minRowEntropy = 7,
  entropyFloor = 8,
  weightBound = 9
};
inline constexpr int kTrainMetrics = 10;
enum class LrSchedule : int { constant = 0, warmupCosine = 1 };
inline constexpr int kModelDim = 64;     // d_model
inline constexpr int kValueTokens = 16;  // number of value tokens (read-out classes)

// Valid ranges (validate_train_config reports the first violation, naming the JS field).
inline constexpr int kTrainDkMin = 1, kTrainDkMax = 4096;
inline constexpr int kTrainSeqLenMin = 8, kTrainSeqLenMax = 128;
inline constexpr int kTrainBatchMin = 1, kTrainBatchMax = 64;
inline constexpr double kTrainLrMin = 1e-6, kTrainLrMax = 10.0;
inline constexpr double kTrainInitScaleMin = 0.01, kTrainInitScaleMax = 10.0;
inline constexpr double kTrainCustomScaleMax = 1e6;
inline constexpr long long kTrainWorkCap = 1LL << 21;  // dk * seqLen * batchSize
inline constexpr int kTrainCopiesMax = 8;
inline constexpr std::size_t kTrainCopyNameMax = 24;
inline constexpr double kTrainSoftcapMax = 1e6, kTrainLengthScaleMax = 100.0;
inline constexpr int kTrainScheduleStepsMin = 1, kTrainScheduleStepsMax = 1000000;
inline constexpr double kScheduleEndLr = 1e-5;  // warmup-cosine decays to min(this, learningRate)

// One trained copy: its name (the key of its curves) and how it forms its logits (see above).
struct CopySpec {
  std::string name;
  ScaleMode scaleMode = ScaleMode::sqrt;
  double customScale = 1.0;  // the multiplier when scaleMode is custom
  QkNorm qkNorm = QkNorm::none;
  double softcap = 0.0;      // c > 0: z -> c tanh(z / c); 0 = off
  double lengthScale = 0.0;  // s > 0: z -> z * s ln T (every row sees all T keys); 0 = off
};

struct TrainConfig {
  int dk = 64;
  int seqLen = 32;
  int batchSize = 16;
  Optimizer optimizer = Optimizer::adam;
  double learningRate = 1e-3;
  LrSchedule schedule = LrSchedule::constant;
  int scheduleSteps = 1000;  // N, the run's length the warmup-cosine shape is scaled to
  double initScale = 1.0;
  Format format;  // JS: precision + saturate
  std::uint32_t seed = 1;
  bool hasCustom = false;    // JS: scale given
  double customScale = 1.0;  // JS: scale
  // JS: copies. Empty: the default copies none, sqrt, linear (and custom when hasCustom).
  std::vector<CopySpec> copies;
};

// The copies a config trains, in output order: cfg.copies, or when it is empty the default ones,
// one per named scaling (kScalings, named by its key) and "custom" when hasCustom.
std::vector<CopySpec> resolved_copies(const TrainConfig& cfg);
// The multiplier of a copy's logits at d_k = dk (scale_factor's float32).
float spec_scale(const CopySpec& c, int dk);

// The copies the training panel offers, in its order: the default copies, then each with QK-norm,
// a soft-cap or a length factor that the training findings measure (docs/science.md). Each is
// named and labelled from its scale, norm, cap and length factor (copy_name, copy_label).
std::vector<CopySpec> copy_choices();
std::string copy_name(const CopySpec& c);   // "sqrt", "rms_sqrt", "none_cap5", "sqrt_logn"
std::string copy_label(const CopySpec& c);  // "1/√d_k", "RMS-norm + 1/√d_k", "none + soft-cap 5"

// "" when valid, else one message naming the JS field and its valid range.
std::string validate_train_config(const TrainConfig& cfg);
// The same for one copy; `where` names it in the message ("copies[2]").
std::string validate_copy_spec(const CopySpec& spec, const std::string& where);

const char* optimizer_name(Optimizer o);  // "sgd" | "adam"
bool parse_optimizer(std::string_view name, Optimizer& out);
const char* schedule_name(LrSchedule s);  // "constant" | "warmup-cosine"
bool parse_schedule(std::string_view name, LrSchedule& out);
// The learning rate of step t (1-based) under cfg's schedule (see above); cfg.learningRate itself
// when the schedule is constant. The same bits in every build.
double scheduled_lr(const TrainConfig& cfg, long long t);
const char* train_metric_name(TrainMetric m);  // "loss", "accuracy", ... as in the JS API

namespace train {
struct CopyState;
struct Workspace;
}  // namespace train

class Trainer {
 public:
  // An invalid config gives an inert trainer: error() is the validation message, copies() is 0
  // and step()/attention() do nothing. (No exceptions: they must not cross Embind.)
  explicit Trainer(const TrainConfig& cfg);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  const std::string& error() const { return error_; }
  const TrainConfig& config() const { return cfg_; }
  int copies() const;  // resolved_copies(config).size(); 0 when invalid
  const CopySpec& copy_spec(int index) const;
  int copy_index(std::string_view name) const;  // -1 when there is no copy of that name
  long long steps_done() const { return steps_; }

  // Runs n >= 1 steps of every copy. Writes steps[s] = step number (1-based, counting from the
  // last reset) and metrics[(copy * kTrainMetrics + metric) * n + s] (copy-major, then metric,
  // then step): copies() * kTrainMetrics * n doubles.
  void step(int n, std::int32_t* steps, double* metrics);

  // Attention weights (seqLen x seqLen, row-major, row = query position) of one fixed example
  // (drawn once from the seed) under the copy's current parameters; empty if the copy is absent.
  std::vector<float> attention(int copy) const;
  void attention(int copy, float* out) const;  // out: seqLen * seqLen floats

  // The queries and keys (seqLen x dk each, row-major, row = position) of the same fixed example
  // under the copy's current parameters: attention(copy) is the row softmax of q k^T shaped by the
  // copy's logit spec. After QK-norm with its gains and rounded to the precision, as the forward
  // pass multiplies them. Does nothing if the copy is absent.
  void qk(int copy, float* q, float* k) const;  // q, k: seqLen * dk floats each
  // The multiplier of the copy's q.k (the float32 the forward pass uses); 0 if the copy is absent.
  float logit_scale(int copy) const;

  // Back to the initial parameters and step 0 (same seed: the same curves again).
  void reset();

  // For tests: a copy's current parameters (row-major, as in the header comment).
  struct ParamView {
    const std::vector<float>* E;
    const std::vector<float>* Wq;
    const std::vector<float>* Wk;
    const std::vector<float>* Wv;
    const std::vector<float>* Wo;
    const std::vector<float>* gq;  // QK-norm gains (empty without QK-norm)
    const std::vector<float>* gk;
  };
  ParamView params(int copy) const;

 private:
  TrainConfig cfg_;
  std::string error_;
  long long steps_ = 0;
  std::vector<std::unique_ptr<train::CopyState>> copies_;
  std::unique_ptr<train::Workspace> ws_;
};

}  // namespace attnscale
