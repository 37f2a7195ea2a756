// LMBM training by dual coordinate descent (Miao and Rao, Algorithm 1; lmbm.h). With
// C = 1 / (2 c2) the primal is 1/2 sum_j eta_j w_j^2 + C sum xi, so w_j = sum alpha f_j / eta_j and
// one coordinate step is alpha <- clip(alpha - G / Q, 0, C) with G = w.f - 1 and
// Q = sum_j f_j^2 / eta_j. (The paper's Q_jll = f^2 / eta^2 and update w_j += d alpha f_j belong
// to the rescaled weights eta_j w_j; this is the same step in the model's own weights.)
#include "train/lmbm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "train/trainer.h"

namespace chaintag::train_internal {

LmbmSolver::LmbmSolver(const TrainingData& data, double c2, double eta0, uint64_t seed)
    : data_(data), c_(1.0 / (2.0 * c2)), c2_(c2), eta0_(eta0), rng_(seed), n_(data.num_labels()) {
  const int64_t p_count = data.num_positions();
  alpha_.assign(static_cast<size_t>(p_count) * n_, 0.0);
  sentence_of_.resize(p_count);
  for (int s = 0; s < data.num_sentences(); ++s) {
    for (int64_t p = data.sentence_offsets[s]; p < data.sentence_offsets[s + 1]; ++p)
      sentence_of_[p] = s;
  }
  order_.resize(p_count);
  std::iota(order_.begin(), order_.end(), int64_t{0});
}

double LmbmSolver::Eta(int64_t j) const {
  const ModelParameters& params = data_.parameters;
  return j >= params.transition_offset() && j < params.start_offset() ? 1.0 + eta0_ : 1.0;
}

void LmbmSolver::Difference(int64_t p, int y, std::vector<std::pair<int64_t, double>>* f) const {
  const ModelParameters& params = data_.parameters;
  const int gold = data_.gold[p];
  f->clear();
  const int64_t begin = data_.position_offsets[p];
  const absl::Span<const int32_t> attrs = data_.attributes_at(p);
  for (size_t k = 0; k < attrs.size(); ++k) {
    const int32_t a = attrs[k];
    const double v = data_.value(begin + static_cast<int64_t>(k));
    for (int32_t j = params.attribute_offsets[a]; j < params.attribute_offsets[a + 1]; ++j) {
      const int label = params.feature_labels[j];
      if (label == gold) f->emplace_back(j, v);
      if (label == y) f->emplace_back(j, -v);
    }
  }
  const int s = sentence_of_[p];
  const int n = n_;
  if (p == data_.sentence_offsets[s]) {
    f->emplace_back(params.start_offset() + gold, 1.0);
    f->emplace_back(params.start_offset() + y, -1.0);
  } else {
    const int prev = data_.gold[p - 1];
    f->emplace_back(params.transition_offset() + int64_t{prev} * n + gold, 1.0);
    f->emplace_back(params.transition_offset() + int64_t{prev} * n + y, -1.0);
  }
  if (p + 1 == data_.sentence_offsets[s + 1]) {
    f->emplace_back(params.end_offset() + gold, 1.0);
    f->emplace_back(params.end_offset() + y, -1.0);
  } else {
    const int next = data_.gold[p + 1];
    f->emplace_back(params.transition_offset() + int64_t{gold} * n + next, 1.0);
    f->emplace_back(params.transition_offset() + int64_t{y} * n + next, -1.0);
  }
  // Merge repeated indices (a label pair on both sides, an attribute twice).
  std::sort(f->begin(), f->end());
  size_t out = 0;
  for (size_t i = 0; i < f->size(); ++i) {
    if (out > 0 && (*f)[out - 1].first == (*f)[i].first) {
      (*f)[out - 1].second += (*f)[i].second;
    } else {
      (*f)[out++] = (*f)[i];
    }
  }
  f->resize(out);
}

double LmbmSolver::Pass(std::vector<double>* weights) {
  std::vector<double>& w = *weights;
  std::shuffle(order_.begin(), order_.end(), rng_);
  std::vector<std::pair<int64_t, double>> f;
  double max_violation = 0.0;
  for (const int64_t p : order_) {
    for (int y = 0; y < n_; ++y) {
      if (y == data_.gold[p]) continue;
      Difference(p, y, &f);
      double margin = 0.0, q = 0.0;
      for (const auto& [j, v] : f) {
        margin += w[j] * v;
        q += v * v / Eta(j);
      }
      double& alpha = alpha_[static_cast<size_t>(p) * n_ + y];
      const double g = margin - 1.0;
      // Projected gradient (Algorithm 1, line 6).
      const double pg = alpha <= 0 ? std::min(g, 0.0) : alpha >= c_ ? std::max(g, 0.0) : g;
      max_violation = std::max(max_violation, std::fabs(pg));
      if (pg == 0.0 || q <= 0.0) continue;
      const double fresh = std::min(std::max(alpha - g / q, 0.0), c_);
      const double delta = fresh - alpha;
      if (delta == 0.0) continue;
      alpha = fresh;
      for (const auto& [j, v] : f) w[j] += delta * v / Eta(j);
    }
  }
  return max_violation;
}

double LmbmSolver::Primal(absl::Span<const double> w, double* mean_loss) const {
  double regulariser = 0.0;
  for (int64_t j = 0; j < static_cast<int64_t>(w.size()); ++j) regulariser += Eta(j) * w[j] * w[j];
  std::vector<std::pair<int64_t, double>> f;
  double loss = 0.0;
  for (int64_t p = 0; p < data_.num_positions(); ++p) {
    for (int y = 0; y < n_; ++y) {
      if (y == data_.gold[p]) continue;
      Difference(p, y, &f);
      double margin = 0.0;
      for (const auto& [j, v] : f) margin += w[j] * v;
      loss += std::max(0.0, 1.0 - margin);
    }
  }
  if (mean_loss != nullptr) *mean_loss = loss / std::max<int64_t>(1, data_.num_positions());
  return c2_ * regulariser + loss;
}

double LmbmSolver::Dual(absl::Span<const double> w) const {
  double sum_alpha = 0.0;
  for (const double a : alpha_) sum_alpha += a;
  double regulariser = 0.0;
  for (int64_t j = 0; j < static_cast<int64_t>(w.size()); ++j) regulariser += Eta(j) * w[j] * w[j];
  return 2.0 * c2_ * sum_alpha - c2_ * regulariser;
}

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Passes until the largest projected gradient of a pass is below kViolation, the duality gap is
// below kGap (relative), or max_iterations passes.
class LmbmTrainer : public Trainer {
 public:
  explicit LmbmTrainer(const TrainOptions& o) : o_(o) {}
  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    constexpr double kViolation = 1e-3;
    constexpr double kGap = 1e-4;
    if (data->parameters.order != 1) {
      return absl::InvalidArgumentError("objective lmbm: first-order chains only");
    }
    if (data->num_positions() > (int64_t{1} << 31) / std::max(1, data->num_labels())) {
      return absl::ResourceExhaustedError(
          absl::StrCat("lmbm: ", data->num_positions(), " tokens x ", data->num_labels(),
                       " labels exceed the 2^31 dual variables the solver holds"));
    }
    LmbmSolver solver(*data, o_.c2, o_.eta0, o_.seed);
    TrainerRun run;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 1; it <= o_.max_iterations; ++it) {
      const auto pass_start = std::chrono::steady_clock::now();
      const double violation = solver.Pass(weights);
      TrainProgress p;
      p.iteration = it;
      double mean_loss = 0.0;
      p.objective = solver.Primal(*weights, &mean_loss);
      p.mean_loss = mean_loss;
      const double dual = solver.Dual(*weights);
      p.duality_gap = p.objective - dual;
      p.pass_seconds = Seconds(pass_start);
      p.elapsed_seconds = Seconds(start);
      for (const double x : *weights) p.active_features += x != 0.0;
      run.iterations = it;
      if (!on_iteration(p, *weights)) {
        run.stop_reason = "early stopping on dev";
        return run;
      }
      if (violation < kViolation) {
        run.stop_reason = absl::StrCat("largest projected gradient ", violation, " < ", kViolation);
        return run;
      }
      if (*p.duality_gap <= kGap * std::fabs(p.objective)) {
        run.stop_reason = absl::StrCat("duality gap ", *p.duality_gap, " <= ", kGap, " (relative)");
        return run;
      }
    }
    run.stop_reason = "max_iterations";
    return run;
  }

 private:
  TrainOptions o_;
};

}  // namespace

std::unique_ptr<Trainer> MakeLmbmTrainer(const TrainOptions& resolved) {
  return std::make_unique<LmbmTrainer>(resolved);
}

}  // namespace chaintag::train_internal
