// The trainer's settings: validation with messages that name the JS field, the names of
// optimizers and metrics, which copies a config trains and which the panel offers (train.hpp). Kept
// apart from the training loop (train.cpp) because it runs once per trainer: the wasm build
// compiles it for size.
#include <algorithm>
#include <cmath>

#include "config/config.hpp"
#include "train/train.hpp"

namespace attnscale {

namespace {
bool finite_in(double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; }
}  // namespace

std::string validate_train_config(const TrainConfig& c) {
  auto n = [](double x) { return format_number(x); };
  const long long work = static_cast<long long>(c.dk) * c.seqLen * c.batchSize;
  if (c.dk < kTrainDkMin || c.dk > kTrainDkMax)
    return "dk must be an integer in [" + n(kTrainDkMin) + ", " + n(kTrainDkMax) + "], got " +
           n(c.dk);
  if (c.seqLen < kTrainSeqLenMin || c.seqLen > kTrainSeqLenMax)
    return "seqLen must be an integer in [" + n(kTrainSeqLenMin) + ", " + n(kTrainSeqLenMax) +
           "] for training, got " + n(c.seqLen);
  if (c.batchSize < kTrainBatchMin || c.batchSize > kTrainBatchMax)
    return "batchSize must be an integer in [" + n(kTrainBatchMin) + ", " + n(kTrainBatchMax) +
           "], got " + n(c.batchSize);
  if (work > kTrainWorkCap)
    return "dk must satisfy dk * seqLen * batchSize <= " + n(static_cast<double>(kTrainWorkCap)) +
           " (training cost cap), got " + n(c.dk) + " * " + n(c.seqLen) + " * " + n(c.batchSize) +
           " = " + n(static_cast<double>(work));
  if (c.optimizer != Optimizer::sgd && c.optimizer != Optimizer::adam)
    return "optimizer must be 'adam' or 'sgd'";
  if (!finite_in(c.learningRate, kTrainLrMin, kTrainLrMax))
    return "learningRate must be a finite number in [" + n(kTrainLrMin) + ", " + n(kTrainLrMax) +
           "], got " + n(c.learningRate);
  if (c.schedule != LrSchedule::constant && c.schedule != LrSchedule::warmupCosine)
    return "schedule must be 'constant' or 'warmup-cosine'";
  if (c.scheduleSteps < kTrainScheduleStepsMin || c.scheduleSteps > kTrainScheduleStepsMax)
    return "scheduleSteps must be an integer in [" + n(kTrainScheduleStepsMin) + ", " +
           n(kTrainScheduleStepsMax) + "], got " + n(c.scheduleSteps);
  if (!finite_in(c.initScale, kTrainInitScaleMin, kTrainInitScaleMax))
    return "initScale must be a finite number in [" + n(kTrainInitScaleMin) + ", " +
           n(kTrainInitScaleMax) + "], got " + n(c.initScale);
  if (!format_info(c.format.precision))
    return "precision must be one of " + precision_names_text(false);
  if (c.hasCustom && !(std::isfinite(c.customScale) && c.customScale > 0.0 &&
                       c.customScale <= kTrainCustomScaleMax))
    return "scale must be a finite number in (0, " + n(kTrainCustomScaleMax) + "], got " +
           n(c.customScale);
  if (c.copies.empty()) return "";
  if (c.hasCustom)
    return "scale adds a custom copy to the default three; with copies given, list that copy in "
           "copies instead";
  if (static_cast<int>(c.copies.size()) > kTrainCopiesMax)
    return "copies must list 1 to " + n(kTrainCopiesMax) + " copies, got " + n(c.copies.size());
  for (std::size_t i = 0; i < c.copies.size(); ++i) {
    if (std::string msg = validate_copy_spec(c.copies[i], "copies[" + std::to_string(i) + "]");
        !msg.empty())
      return msg;
    for (std::size_t j = 0; j < i; ++j)
      if (c.copies[j].name == c.copies[i].name)
        return "copies[" + std::to_string(i) + "].name must be unique, got \"" + c.copies[i].name +
               "\" twice";
  }
  return "";
}

std::string validate_copy_spec(const CopySpec& s, const std::string& where) {
  auto n = [](double x) { return format_number(x); };
  const bool nameOk = !s.name.empty() && s.name.size() <= kTrainCopyNameMax &&
                      std::all_of(s.name.begin(), s.name.end(), [](char ch) {
                        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                               (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
                      });
  if (!nameOk)
    return where + ".name must be 1 to " + n(static_cast<double>(kTrainCopyNameMax)) +
           " letters, digits, '_' or '-'";
  if (s.scaleMode == ScaleMode::custom && !(std::isfinite(s.customScale) && s.customScale > 0.0 &&
                                            s.customScale <= kTrainCustomScaleMax))
    return where + ".scale must be " + scaling_keys_text() + " or a finite number in (0, " +
           n(kTrainCustomScaleMax) + "], got " + n(s.customScale);
  if (!finite_in(s.softcap, 0.0, kTrainSoftcapMax))
    return where + ".softcap must be a finite number in [0, " + n(kTrainSoftcapMax) +
           "] (0 = off), got " + n(s.softcap);
  if (!finite_in(s.lengthScale, 0.0, kTrainLengthScaleMax))
    return where + ".lengthScale must be a finite number in [0, " + n(kTrainLengthScaleMax) +
           "] (0 = off), got " + n(s.lengthScale);
  return "";
}

const char* optimizer_name(Optimizer o) { return o == Optimizer::sgd ? "sgd" : "adam"; }

bool parse_optimizer(std::string_view name, Optimizer& out) {
  if (name == "sgd") return out = Optimizer::sgd, true;
  if (name == "adam") return out = Optimizer::adam, true;
  return false;
}

const char* schedule_name(LrSchedule s) {
  return s == LrSchedule::warmupCosine ? "warmup-cosine" : "constant";
}

bool parse_schedule(std::string_view name, LrSchedule& out) {
  if (name == "constant") return out = LrSchedule::constant, true;
  if (name == "warmup-cosine") return out = LrSchedule::warmupCosine, true;
  return false;
}

const char* train_metric_name(TrainMetric m) {
  switch (m) {
    case TrainMetric::loss:
      return "loss";
    case TrainMetric::accuracy:
      return "accuracy";
    case TrainMetric::entropy:
      return "entropy";
    case TrainMetric::saturatedFraction:
      return "saturatedFraction";
    case TrainMetric::gradNormWq:
      return "gradNormWq";
    case TrainMetric::gradNormWk:
      return "gradNormWk";
    case TrainMetric::maxLogit:
      return "maxLogit";
    case TrainMetric::minRowEntropy:
      return "minRowEntropy";
    case TrainMetric::entropyFloor:
      return "entropyFloor";
    case TrainMetric::weightBound:
      return "weightBound";
  }
  return "loss";
}

std::vector<CopySpec> resolved_copies(const TrainConfig& cfg) {
  if (!cfg.copies.empty()) return cfg.copies;
  std::vector<CopySpec> out;
  for (const Scaling& scaling : kScalings) {
    CopySpec s;
    s.name = scaling.key;
    s.scaleMode = scaling.mode;
    out.push_back(s);
  }
  if (cfg.hasCustom) {
    CopySpec s;
    s.name = "custom";
    s.scaleMode = ScaleMode::custom;
    s.customScale = cfg.customScale;
    out.push_back(s);
  }
  return out;
}

float spec_scale(const CopySpec& c, int dk) { return scale_factor(c.scaleMode, c.customScale, dk); }

namespace {
// The copies beyond the defaults that the training findings measure: QK-norm before 1/√d_k,
// soft-caps on the unscaled logits, and the length factor 0.43·ln T with 1/√d_k.
struct CopyChoice {
  ScaleMode scale;
  QkNorm norm;
  double softcap, lengthScale;
};
constexpr CopyChoice kCopyChoices[] = {{ScaleMode::sqrt, QkNorm::rms, 0, 0},
                                       {ScaleMode::sqrt, QkNorm::layer, 0, 0},
                                       {ScaleMode::none, QkNorm::none, 5, 0},
                                       {ScaleMode::none, QkNorm::none, 50, 0},
                                       {ScaleMode::sqrt, QkNorm::none, 0, 0.43}};
}  // namespace

std::vector<CopySpec> copy_choices() {
  std::vector<CopySpec> out = resolved_copies(TrainConfig{});
  for (const CopyChoice& c : kCopyChoices) {
    CopySpec s;
    s.scaleMode = c.scale;
    s.qkNorm = c.norm;
    s.softcap = c.softcap;
    s.lengthScale = c.lengthScale;
    s.name = copy_name(s);
    out.push_back(s);
  }
  return out;
}

std::string copy_name(const CopySpec& c) {
  const Scaling* scaling = scaling_of(c.scaleMode);
  std::string name = scaling ? scaling->key : "custom";
  if (c.qkNorm != QkNorm::none) name = qk_norm_name(c.qkNorm) + ("_" + name);
  if (c.softcap > 0) name += "_cap" + format_number(c.softcap);
  if (c.lengthScale > 0) name += "_logn";
  return name;
}

std::string copy_label(const CopySpec& c) {
  const Scaling* scaling = scaling_of(c.scaleMode);
  std::string label = scaling ? scaling->label : "× " + format_number(c.customScale);
  if (c.qkNorm != QkNorm::none) label = qk_norm_info(c.qkNorm).named + (" + " + label);
  if (c.softcap > 0) label += " + soft-cap " + format_number(c.softcap);
  if (c.lengthScale > 0) label += " × " + format_number(c.lengthScale) + " ln T";
  return label;
}

}  // namespace attnscale
