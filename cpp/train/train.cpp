// Trainer: the copies and the optimizers (see train.hpp; the settings' validation and names are in
// train_config.cpp).
#include "train/train.hpp"

#include <cmath>
#include <cstring>

#include "simd/batch.hpp"
#include "train/model/detmath.hpp"
#include "train/model/model.hpp"

namespace attnscale {

namespace train {

struct CopyState {
  CopySpec spec;
  LogitSpec logits;
  Params<float> p, g, m, v;  // parameters, gradients, Adam moments
};

struct Workspace {
  Dims dims;
  Params<float> init;
  Batch batch, fixed;
  FloatScratch fs;
  double beta1t = 1.0, beta2t = 1.0;  // beta^t of Adam's bias correction
};

namespace {

constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kAdamEps = 1e-8f;

void sgd_update(std::vector<float>& w, const std::vector<float>& g, float lr) {
  const std::size_t n = w.size();
  std::size_t i = 0;
  const simd::vf lv(lr);
  for (; i + simd::W <= n; i += simd::W)
    simd::storeu(&w[i], simd::loadu(&w[i]) - lv * simd::loadu(&g[i]));
  for (; i < n; ++i) w[i] = w[i] - lr * g[i];
}

// m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; w = w - a m / (sqrt(v c2) + eps),
// a = lr / (1 - b1^t), c2 = 1 / (1 - b2^t).
void adam_update(std::vector<float>& w, const std::vector<float>& g, std::vector<float>& m,
                 std::vector<float>& v, float a, float c2) {
  using simd::vf;
  const std::size_t n = w.size();
  std::size_t i = 0;
  const vf b1(kBeta1), ob1(1.0f - kBeta1), b2(kBeta2), ob2(1.0f - kBeta2), av(a), cv(c2),
      ev(kAdamEps);
  for (; i + simd::W <= n; i += simd::W) {
    const vf gi = simd::loadu(&g[i]);
    const vf mi = b1 * simd::loadu(&m[i]) + ob1 * gi;
    const vf vi = b2 * simd::loadu(&v[i]) + ob2 * (gi * gi);
    simd::storeu(&m[i], mi);
    simd::storeu(&v[i], vi);
    simd::storeu(&w[i], simd::loadu(&w[i]) - av * mi / (simd::sqrt(vi * cv) + ev));
  }
  for (; i < n; ++i) {
    const float gi = g[i];
    const float mi = kBeta1 * m[i] + (1.0f - kBeta1) * gi;
    const float vi = kBeta2 * v[i] + (1.0f - kBeta2) * (gi * gi);
    m[i] = mi;
    v[i] = vi;
    w[i] = w[i] - a * mi / (std::sqrt(vi * c2) + kAdamEps);
  }
}

}  // namespace
}  // namespace train

double scheduled_lr(const TrainConfig& cfg, long long t) {
  const double lr = cfg.learningRate;
  if (cfg.schedule == LrSchedule::constant) return lr;
  const long long n = cfg.scheduleSteps;
  const long long warm = (n + 10) / 20;  // round(n / 20), halves up
  if (t <= warm) return lr * static_cast<double>(t) / static_cast<double>(warm);
  const double end = lr < kScheduleEndLr ? lr : kScheduleEndLr;
  if (t >= n) return end;
  const double p = static_cast<double>(t - warm) / static_cast<double>(n - warm);
  return end + (lr - end) * (0.5 + 0.5 * train::det_cos_pi(p));
}

Trainer::Trainer(const TrainConfig& cfg) : cfg_(cfg), error_(validate_train_config(cfg)) {
  if (!error_.empty()) return;
  ws_ = std::make_unique<train::Workspace>();
  train::Dims d;
  d.T = cfg.seqLen;
  d.dk = cfg.dk;
  d.D = kModelDim;
  d.nV = kValueTokens;
  ws_->dims = d;
  train::init_params(d, cfg.initScale, cfg.seed, ws_->init);
  ws_->fs.resize(d);
  train::make_batch(cfg.seed, 2, 0, 1, d.T, d.nV, ws_->fixed);
  for (const CopySpec& spec : resolved_copies(cfg)) {
    auto s = std::make_unique<train::CopyState>();
    s->spec = spec;
    // The float path multiplies by the float32 value of the scale (as the copies always did).
    s->logits.scale = static_cast<float>(spec_scale(spec, cfg.dk));
    s->logits.qkNorm = spec.qkNorm;
    s->logits.softcap = spec.softcap;
    s->logits.lengthFactor = spec.lengthScale * train::det_log(static_cast<double>(cfg.seqLen));
    copies_.push_back(std::move(s));
  }
  reset();
}

Trainer::~Trainer() = default;

int Trainer::copies() const { return static_cast<int>(copies_.size()); }

const CopySpec& Trainer::copy_spec(int index) const {
  return copies_[static_cast<std::size_t>(index)]->spec;
}

int Trainer::copy_index(std::string_view name) const {
  for (int i = 0; i < copies(); ++i)
    if (copies_[static_cast<std::size_t>(i)]->spec.name == name) return i;
  return -1;
}

void Trainer::reset() {
  if (!ws_) return;
  steps_ = 0;
  ws_->beta1t = ws_->beta2t = 1.0;
  for (auto& s : copies_) {
    const bool gains = s->spec.qkNorm != QkNorm::none;
    s->p = ws_->init;
    if (gains) {
      s->p.gq.assign(static_cast<std::size_t>(cfg_.dk), 1.0f);
      s->p.gk.assign(static_cast<std::size_t>(cfg_.dk), 1.0f);
    }
    s->g.resize(ws_->dims, gains);
    if (cfg_.optimizer == Optimizer::adam) {
      s->m.resize(ws_->dims, gains);
      s->v.resize(ws_->dims, gains);
    }
  }
}

void Trainer::step(int n, std::int32_t* steps, double* metrics) {
  if (!ws_ || n <= 0) return;
  const int nc = copies();
  for (int k = 0; k < n; ++k) {
    train::make_batch(cfg_.seed, 1, static_cast<std::uint64_t>(steps_), cfg_.batchSize, cfg_.seqLen,
                      kValueTokens, ws_->batch);
    ++steps_;
    const double lr = scheduled_lr(cfg_, steps_);
    float a = 0.0f, c2 = 0.0f;
    if (cfg_.optimizer == Optimizer::adam) {
      ws_->beta1t *= static_cast<double>(train::kBeta1);
      ws_->beta2t *= static_cast<double>(train::kBeta2);
      a = static_cast<float>(lr / (1.0 - ws_->beta1t));
      c2 = static_cast<float>(1.0 / (1.0 - ws_->beta2t));
    }
    for (int c = 0; c < nc; ++c) {
      train::CopyState& s = *copies_[static_cast<std::size_t>(c)];
      train::StepMetrics mt;
      train::float_loss_and_grad(s.p, ws_->batch, s.logits, cfg_.format, s.g, mt, ws_->fs);
      for (int t = 0; t < train::kParamTensors; ++t) {
        if (cfg_.optimizer == Optimizer::adam)
          train::adam_update(s.p.tensor(t), s.g.tensor(t), s.m.tensor(t), s.v.tensor(t), a, c2);
        else
          train::sgd_update(s.p.tensor(t), s.g.tensor(t), static_cast<float>(lr));
      }
      if (metrics) {
        const double vals[kTrainMetrics] = {
            mt.loss,       mt.accuracy, mt.entropy,       mt.saturatedFraction, mt.gradNormWq,
            mt.gradNormWk, mt.maxLogit, mt.minRowEntropy, mt.entropyFloor,      mt.weightBound};
        for (int m = 0; m < kTrainMetrics; ++m)
          metrics[(static_cast<std::size_t>(c) * kTrainMetrics + m) * n + k] = vals[m];
      }
    }
    if (steps) steps[k] = static_cast<std::int32_t>(steps_);
  }
}

void Trainer::attention(int i, float* out) const {
  if (!ws_ || i < 0 || i >= copies()) return;
  const train::CopyState& s = *copies_[static_cast<std::size_t>(i)];
  train::float_attention(s.p, ws_->fixed, 0, s.logits, cfg_.format, out, ws_->fs);
}

std::vector<float> Trainer::attention(int i) const {
  if (!ws_ || i < 0 || i >= copies()) return {};
  std::vector<float> out(static_cast<std::size_t>(cfg_.seqLen) * cfg_.seqLen);
  attention(i, out.data());
  return out;
}

void Trainer::qk(int i, float* q, float* k) const {
  if (!ws_ || i < 0 || i >= copies()) return;
  const train::CopyState& s = *copies_[static_cast<std::size_t>(i)];
  train::float_attention(s.p, ws_->fixed, 0, s.logits, cfg_.format, nullptr, ws_->fs, q, k);
}

float Trainer::logit_scale(int i) const {
  if (!ws_ || i < 0 || i >= copies()) return 0.0f;
  return static_cast<float>(copies_[static_cast<std::size_t>(i)]->logits.scale);
}

Trainer::ParamView Trainer::params(int i) const {
  if (!ws_ || i < 0 || i >= copies())
    return {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  const train::CopyState& s = *copies_[static_cast<std::size_t>(i)];
  return {&s.p.E, &s.p.Wq, &s.p.Wk, &s.p.Wv, &s.p.Wo, &s.p.gq, &s.p.gk};
}

}  // namespace attnscale
