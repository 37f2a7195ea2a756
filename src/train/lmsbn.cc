// LMSBN training: with the label history gold, the objective
//   c2 |w|^2 + sum over tokens of [1 + max_{y != y_t} z_t(y) - z_t(y_t)]_+
// is one Crammer-Singer multiclass SVM over all tokens (C = 1 / (2 c2)), solved in the dual by
// sequential dual coordinate descent (S. S. Keerthi, S. Sundararajan, K.-W. Chang, C.-J. Hsieh,
// C.-J. Lin, "A Sequential Dual Method for Large Scale Multi-Class Linear SVMs", KDD 2008), with
// the per-label feature sets of the chain models (the (attribute, label) pairs seen in training).
#include "train/lmsbn.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/eval.h"
#include "features/featurizer.h"
#include "model/parameters.h"
#include "train/dev_scorer.h"
#include "train/dual_passes.h"
#include "train/parallel.h"

namespace chaintag::train_internal {
namespace {

// Crammer-Singer subproblem of one example (Keerthi et al. 2008, eq. 8, with a per-label curvature
// A_m because the label feature sets differ): minimise sum_m A_m/2 a_m^2 + B_m a_m subject to
// a_m <= C_m and sum_m a_m = 0. The solution is a_m = min(C_m, -(B_m + beta) / A_m) for the beta
// making the sum zero; beta is found on the sorted breakpoints. Labels with A_m = 0 keep `fixed`.
void SolveSubproblem(const std::vector<double>& a_coef, const std::vector<double>& b_coef,
                     const std::vector<double>& upper, const std::vector<double>& fixed,
                     std::vector<int>* order, std::vector<double>* alpha) {
  const int n = static_cast<int>(a_coef.size());
  double fixed_sum = 0.0;
  order->clear();
  for (int m = 0; m < n; ++m) {
    if (a_coef[m] > 0) {
      order->push_back(m);
    } else {
      fixed_sum += fixed[m];
    }
  }
  // Breakpoint of m: beta where a_m reaches C_m.
  auto breakpoint = [&](int m) { return -b_coef[m] - a_coef[m] * upper[m]; };
  std::sort(order->begin(), order->end(), [&](int x, int y) {
    const double bx = breakpoint(x), by = breakpoint(y);
    return bx < by || (bx == by && x < y);
  });
  double clipped = fixed_sum;
  for (int m : *order) clipped += upper[m];
  double free_b = 0.0, free_inv = 0.0;
  double beta = 0.0;
  const int k = static_cast<int>(order->size());
  for (int i = 0; i < k; ++i) {
    const int m = (*order)[i];
    clipped -= upper[m];
    free_b += -b_coef[m] / a_coef[m];
    free_inv += 1.0 / a_coef[m];
    beta = (free_b + clipped) / free_inv;
    if (i + 1 == k || beta <= breakpoint((*order)[i + 1])) break;
  }
  for (int m = 0; m < n; ++m) {
    (*alpha)[m] = a_coef[m] > 0 ? std::min(upper[m], -(b_coef[m] + beta) / a_coef[m]) : fixed[m];
  }
}

}  // namespace

LmsbnSolver::LmsbnSolver(const TrainingData& data, double c2, uint64_t seed, int threads)
    : data_(data),
      c_(1.0 / (2.0 * c2)),
      c2_(c2),
      threads_(std::max(1, threads)),
      rng_(seed),
      n_(data.num_labels()) {
  const int64_t p = data.num_positions();
  alpha_.assign(static_cast<size_t>(p) * n_, 0.0);
  order_.resize(p);
  std::iota(order_.begin(), order_.end(), int64_t{0});
}

double LmsbnSolver::Pass(std::vector<double>* weights) {
  std::vector<double>& w = *weights;
  const ModelParameters& params = data_.parameters;
  std::shuffle(order_.begin(), order_.end(), rng_);
  std::vector<double> z(n_), a_coef(n_), b_coef(n_), upper(n_), old(n_), fresh(n_);
  std::vector<int> scratch;
  double max_violation = 0.0;
  for (const int64_t p : order_) {
    const int y = data_.gold[p];
    std::fill(z.begin(), z.end(), 0.0);
    std::fill(a_coef.begin(), a_coef.end(), 0.0);
    const absl::Span<const int32_t> attrs = data_.attributes_at(p);
    for (const int32_t a : attrs) {
      for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
        const int label = params.feature_labels[f];
        z[label] += w[f];
        a_coef[label] += 1.0;
      }
    }
    double* alpha = alpha_.data() + static_cast<size_t>(p) * n_;
    // Gradient g_m = z_m + e_m (e_m = 1 for m != y); KKT violation as in LIBLINEAR.
    double g_max = -std::numeric_limits<double>::infinity();
    double g_min = std::numeric_limits<double>::infinity();
    for (int m = 0; m < n_; ++m) {
      const double g = z[m] + (m == y ? 0.0 : 1.0);
      upper[m] = m == y ? c_ : 0.0;
      g_max = std::max(g_max, g);
      if (alpha[m] < upper[m]) g_min = std::min(g_min, g);
      old[m] = alpha[m];
      b_coef[m] = g - a_coef[m] * alpha[m];
    }
    const double violation = g_max - g_min;
    max_violation = std::max(max_violation, violation);
    if (!(violation > 1e-12)) continue;
    SolveSubproblem(a_coef, b_coef, upper, old, &scratch, &fresh);
    bool changed = false;
    for (int m = 0; m < n_; ++m) {
      alpha[m] = fresh[m];
      changed |= fresh[m] != old[m];
    }
    if (!changed) continue;
    for (const int32_t a : attrs) {
      for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
        const int label = params.feature_labels[f];
        w[f] += fresh[label] - old[label];
      }
    }
  }
  return max_violation;
}

double LmsbnSolver::Primal(absl::Span<const double> w, double* mean_loss) const {
  const ModelParameters& params = data_.parameters;
  const int64_t p_count = data_.num_positions();
  // Fixed slices summed in order: the same value for every thread count.
  constexpr int kSlices = 64;
  std::vector<double> partial(kSlices, 0.0);
  std::atomic<int> next{0};
  RunOnThreads(std::min(threads_, kSlices), [&](int) {
    std::vector<double> z(n_);
    for (int slice = next++; slice < kSlices; slice = next++) {
      const int64_t begin = p_count * slice / kSlices, end = p_count * (slice + 1) / kSlices;
      double sum = 0.0;
      for (int64_t p = begin; p < end; ++p) {
        std::fill(z.begin(), z.end(), 0.0);
        for (const int32_t a : data_.attributes_at(p)) {
          for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
            z[params.feature_labels[f]] += w[f];
          }
        }
        const int y = data_.gold[p];
        double other = -std::numeric_limits<double>::infinity();
        for (int m = 0; m < n_; ++m) {
          if (m != y) other = std::max(other, z[m]);
        }
        if (n_ > 1) sum += std::max(0.0, 1.0 + other - z[y]);
      }
      partial[slice] = sum;
    }
  });
  double loss = 0.0;
  for (double v : partial) loss += v;
  double norm = 0.0;
  for (int64_t f = 0; f < params.num_state_features(); ++f) norm += w[f] * w[f];
  *mean_loss = p_count > 0 ? loss / static_cast<double>(p_count) : 0.0;
  return c2_ * norm + loss;
}

double LmsbnSolver::Dual(absl::Span<const double> w) const {
  double norm = 0.0;
  for (int64_t f = 0; f < data_.parameters.num_state_features(); ++f) norm += w[f] * w[f];
  double gold = 0.0;
  for (int64_t p = 0; p < data_.num_positions(); ++p) {
    gold += alpha_[static_cast<size_t>(p) * n_ + data_.gold[p]];
  }
  return 0.5 * norm - gold;
}

LmsbnDevScorer::LmsbnDevScorer(const TrainingData& data, int threads)
    : data_(data), threads_(std::max(1, threads)) {}

absl::Status LmsbnDevScorer::Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev) {
  spec_ = spec;
  Featurizer featurizer(spec);
  for (const Sentence& sentence : dev) {
    if (sentence.size() == 0) continue;
    if (absl::Status status = CheckDevSentence(featurizer, sentence); !status.ok()) return status;
    featurized_.emplace_back();
    featurizer.Featurize(sentence, data_.attributes, &featurized_.back());
    sentences_.push_back(&sentence);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<double, std::string>> LmsbnDevScorer::Score(absl::Span<const double> w) {
  const ModelParameters& params = data_.parameters;
  const int n = data_.num_labels();
  const int count = static_cast<int>(featurized_.size());
  predicted_.resize(count);
  std::atomic<int> next{0};
  // Greedy decoding (the search's first leaf): cheap at every iteration, and deterministic.
  RunOnThreads(std::min(threads_, std::max(1, count)), [&](int) {
    HistoryFeaturizer history(spec_);
    history.SetLabels(data_.labels);
    Lattice lattice;
    std::vector<int32_t> ids;
    std::vector<double> z(n);
    for (int i = next++; i < count; i = next++) {
      params.Score(featurized_[i], w, &lattice);
      history.Prepare(*sentences_[i]);
      HistoryFeaturizer::State state = history.Initial();
      std::vector<int>& out = predicted_[i];
      out.clear();
      for (int t = 0; t < lattice.size(); ++t) {
        const absl::Span<const double> row = lattice.unary_row(t);
        std::copy(row.begin(), row.end(), z.begin());
        ids.clear();
        history.FindIds(t, out, state, data_.attributes, &ids);
        for (const int32_t a : ids) {
          for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
            z[params.feature_labels[f]] += w[f];
          }
        }
        out.push_back(static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin()));
        history.Advance(out.back(), &state);
      }
    }
  });
  Evaluator evaluator(data_.labels);
  std::vector<std::string> predicted;
  for (int i = 0; i < count; ++i) {
    predicted.clear();
    for (int y : predicted_[i]) predicted.push_back(data_.labels[y]);
    if (absl::Status s = evaluator.Add(sentences_[i]->labels, predicted); !s.ok()) return s;
  }
  const EvalReport report = evaluator.Report();
  if (report.has_chunks) return std::make_pair(report.overall.f1, std::string("F1"));
  return std::make_pair(report.accuracy, std::string("accuracy"));
}

namespace {

// RunDualPasses with LIBLINEAR's KKT violation, the dual (Keerthi et al.'s f) falling.
class LmsbnTrainer : public Trainer {
 public:
  LmsbnTrainer(const TrainOptions& o, int threads) : o_(o), threads_(threads) {}
  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    if (absl::Status s = CheckDualSize(*data, "lmsbn"); !s.ok()) return s;
    LmsbnSolver solver(*data, o_.c2, o_.seed, threads_);
    DualPassRules rules;
    rules.violation = "largest KKT violation";
    return RunDualPasses(solver, rules, o_.max_iterations, weights, on_iteration);
  }

 private:
  TrainOptions o_;
  int threads_;
};

}  // namespace

std::unique_ptr<Trainer> MakeLmsbnTrainer(const TrainOptions& resolved, int threads) {
  return std::make_unique<LmsbnTrainer>(resolved, threads);
}

}  // namespace chaintag::train_internal
