// LMBM training by dual coordinate descent (Miao and Rao, Algorithm 1; lmbm.h). With
// C = 1 / (2 c2) the primal is 1/2 sum_j eta_j w_j^2 + C sum xi, so w_j = sum alpha f_j / eta_j and
// one coordinate step is alpha <- clip(alpha - G / Q, 0, C) with G = w.f - 1 and
// Q = sum_j f_j^2 / eta_j. (The paper's Q_jll = f^2 / eta^2 and update w_j += d alpha f_j belong
// to the rescaled weights eta_j w_j; this is the same step in the model's own weights.)
#include "train/lmbm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/parameters.h"
#include "train/dual_passes.h"
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

void LmbmSolver::Gather(int64_t p, Position* at) const {
  const ModelParameters& params = data_.parameters;
  const int s = sentence_of_[p];
  at->prev = p == data_.sentence_offsets[s] ? -1 : data_.gold[p - 1];
  at->next = p + 1 == data_.sentence_offsets[s + 1] ? -1 : data_.gold[p + 1];
  // An attribute repeated at a position is one feature with the summed value (so f_j^2 is right).
  const int64_t begin = data_.position_offsets[p];
  const absl::Span<const int32_t> attrs = data_.attributes_at(p);
  at->attrs.clear();
  for (size_t k = 0; k < attrs.size(); ++k)
    at->attrs.emplace_back(attrs[k], data_.value(begin + static_cast<int64_t>(k)));
  std::sort(at->attrs.begin(), at->attrs.end());
  size_t out = 0;
  for (size_t i = 0; i < at->attrs.size(); ++i) {
    if (out > 0 && at->attrs[out - 1].first == at->attrs[i].first) {
      at->attrs[out - 1].second += at->attrs[i].second;
    } else {
      at->attrs[out++] = at->attrs[i];
    }
  }
  at->attrs.resize(out);
  // Counting sort of the features by label.
  at->label_begin.assign(n_ + 1, 0);
  for (const auto& [a, v] : at->attrs) {
    for (int32_t j = params.attribute_offsets[a]; j < params.attribute_offsets[a + 1]; ++j)
      ++at->label_begin[params.feature_labels[j] + 1];
  }
  for (int y = 0; y < n_; ++y) at->label_begin[y + 1] += at->label_begin[y];
  at->items.resize(at->label_begin[n_]);
  std::vector<int>& fill = at->label_begin;  // advanced while filling, then shifted back
  for (const auto& [a, v] : at->attrs) {
    for (int32_t j = params.attribute_offsets[a]; j < params.attribute_offsets[a + 1]; ++j)
      at->items[fill[params.feature_labels[j]]++] = {j, v};
  }
  for (int y = n_; y > 0; --y) at->label_begin[y] = at->label_begin[y - 1];
  at->label_begin[0] = 0;
}

int64_t LmbmSolver::Left(const Position& at, int y) const {
  const ModelParameters& params = data_.parameters;
  return at.prev < 0 ? params.start_offset() + y
                     : params.transition_offset() + int64_t{at.prev} * n_ + y;
}

int64_t LmbmSolver::Right(const Position& at, int y) const {
  const ModelParameters& params = data_.parameters;
  return at.next < 0 ? params.end_offset() + y
                     : params.transition_offset() + int64_t{y} * n_ + at.next;
}

double LmbmSolver::Score(absl::Span<const double> w, const Position& at, int y) const {
  double score = w[Left(at, y)] + w[Right(at, y)];
  for (int i = at.label_begin[y]; i < at.label_begin[y + 1]; ++i)
    score += w[at.items[i].first] * at.items[i].second;
  return score;
}

double LmbmSolver::Pass(std::vector<double>* weights) {
  std::vector<double>& w = *weights;
  std::shuffle(order_.begin(), order_.end(), rng_);
  double max_violation = 0.0;
  for (const int64_t p : order_) {
    Gather(p, &at_);
    const int gold = data_.gold[p];
    // The unary parts of phi(y_t) and phi(y) are disjoint (different labels), with eta 1.
    double q_gold = 0.0;
    for (int i = at_.label_begin[gold]; i < at_.label_begin[gold + 1]; ++i)
      q_gold += at_.items[i].second * at_.items[i].second;
    for (int y = 0; y < n_; ++y) {
      if (y == gold) continue;
      // The label-label part: four weights, merged where they coincide (e.g. prev = y and
      // next = gold make the transition y -> gold appear with +1 and -1).
      std::pair<int64_t, double> edges[4] = {{Left(at_, gold), 1.0},
                                             {Right(at_, gold), 1.0},
                                             {Left(at_, y), -1.0},
                                             {Right(at_, y), -1.0}};
      int edge_count = 0;
      for (const auto& e : edges) {
        if (data_.IsFixedWeight(e.first)) continue;  // --transitions observed: no such weight
        int k = 0;
        while (k < edge_count && edges[k].first != e.first) ++k;
        if (k < edge_count) {
          edges[k].second += e.second;
        } else {
          edges[edge_count++] = e;
        }
      }
      double margin = 0.0, q = q_gold;
      for (int i = at_.label_begin[gold]; i < at_.label_begin[gold + 1]; ++i)
        margin += w[at_.items[i].first] * at_.items[i].second;
      for (int i = at_.label_begin[y]; i < at_.label_begin[y + 1]; ++i) {
        margin -= w[at_.items[i].first] * at_.items[i].second;
        q += at_.items[i].second * at_.items[i].second;
      }
      for (int k = 0; k < edge_count; ++k) {
        margin += w[edges[k].first] * edges[k].second;
        q += edges[k].second * edges[k].second / Eta(edges[k].first);
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
      for (int i = at_.label_begin[gold]; i < at_.label_begin[gold + 1]; ++i)
        w[at_.items[i].first] += delta * at_.items[i].second;
      for (int i = at_.label_begin[y]; i < at_.label_begin[y + 1]; ++i)
        w[at_.items[i].first] -= delta * at_.items[i].second;
      for (int k = 0; k < edge_count; ++k)
        w[edges[k].first] += delta * edges[k].second / Eta(edges[k].first);
    }
  }
  return max_violation;
}

double LmbmSolver::Primal(absl::Span<const double> w, double* mean_loss) const {
  double regulariser = 0.0;
  for (int64_t j = 0; j < static_cast<int64_t>(w.size()); ++j) regulariser += Eta(j) * w[j] * w[j];
  Position at;
  double loss = 0.0;
  for (int64_t p = 0; p < data_.num_positions(); ++p) {
    Gather(p, &at);
    const int gold = data_.gold[p];
    const double gold_score = Score(w, at, gold);
    for (int y = 0; y < n_; ++y) {
      if (y != gold) loss += std::max(0.0, 1.0 - gold_score + Score(w, at, y));
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

// RunDualPasses with the projected gradient as violation, the dual (monotone under coordinate
// ascent) rising, and --duality-gap of the primal as a further stop.
class LmbmTrainer : public Trainer {
 public:
  explicit LmbmTrainer(const TrainOptions& o) : o_(o) {}
  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    if (data->parameters.order != 1) {
      return absl::InvalidArgumentError("objective lmbm: first-order chains only");
    }
    if (absl::Status s = CheckDualSize(*data, "lmbm"); !s.ok()) return s;
    LmbmSolver solver(*data, o_.c2, o_.eta0, o_.seed);
    DualPassRules rules;
    rules.violation = "largest projected gradient";
    rules.dual_rises = true;
    rules.duality_gap = o_.duality_gap;
    return RunDualPasses(solver, rules, o_.max_iterations, weights, on_iteration);
  }

 private:
  TrainOptions o_;
};

}  // namespace

std::unique_ptr<Trainer> MakeLmbmTrainer(const TrainOptions& resolved) {
  return std::make_unique<LmbmTrainer>(resolved);
}

}  // namespace chaintag::train_internal
