#include "train/perceptron.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "model/parameters.h"
#include "train/distributed.h"
#include "train/losses.h"

namespace chaintag {
namespace train_internal {

namespace {

// Decodes sentence s under `weights` and hands the perceptron update (gold minus predicted
// features where they differ) to `update`; counts the wrongly labelled tokens.
template <typename Update>
absl::Status UpdateOnSentence(const TrainingData& data, int s, const BoundLoss& loss,
                              const double* weights, Lattice* lattice,
                              LossAugmentedScratch* scratch, const Update& update,
                              int64_t* mistakes) {
  const ModelParameters& params = data.parameters;
  const int n = params.num_labels;
  ScoreTrainingSentence(data, s, weights, lattice);
  const int64_t first = data.sentence_offsets[s];
  const int m = data.sentence_size(s);
  const int32_t* gold = data.gold.data() + first;
  absl::StatusOr<LossAugmentedResult> best = LossAugmentedDecode(
      *lattice, absl::MakeConstSpan(gold, m), loss, LossScaling::kMargin, scratch);
  if (!best.ok()) return best.status();
  if (best->fallback) data.fallbacks->Note(s);
  const std::vector<int>& pred = best->labeling.labels;
  for (int t = 0; t < m; ++t) {
    if (gold[t] != pred[t]) {
      ++*mistakes;
      const int64_t p = first + t;
      for (int64_t k = data.position_offsets[p]; k < data.position_offsets[p + 1]; ++k) {
        const int32_t a = data.position_attributes[k];
        const double v = data.value(k);
        update(data.FindFeature(a, gold[t]), v);
        const int64_t f = data.FindFeature(a, pred[t]);
        if (f >= 0) update(f, -v);
      }
    }
    if (t > 0 && (gold[t - 1] != pred[t - 1] || gold[t] != pred[t])) {
      update(params.transition_offset() + int64_t{gold[t - 1]} * n + gold[t], 1.0);
      update(params.transition_offset() + int64_t{pred[t - 1]} * n + pred[t], -1.0);
    }
  }
  if (gold[0] != pred[0]) {
    update(params.start_offset() + gold[0], 1.0);
    update(params.start_offset() + pred[0], -1.0);
  }
  if (gold[m - 1] != pred[m - 1]) {
    update(params.end_offset() + gold[m - 1], 1.0);
    update(params.end_offset() + pred[m - 1], -1.0);
  }
  return absl::OkStatus();
}

// Fisher-Yates with our own draws, so the order is the same with every standard library.
void Shuffle(std::mt19937_64& rng, std::vector<int>* order) {
  for (int i = static_cast<int>(order->size()) - 1; i > 0; --i) {
    const int j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
    std::swap((*order)[i], (*order)[j]);
  }
}

// Weights are mixed as fixed-point integers (2^-kMixBits units) summed exactly over the ranks,
// so the mixture does not depend on the order in which the ranks' shares arrive.
constexpr int kMixBits = 32;
constexpr double kMixLimit = 0x1.0p30;

// The mean over the ranks of `values` (in place), exact up to the fixed-point rounding.
absl::Status MixOverRanks(Communicator* ranks, std::vector<double>* values) {
  std::vector<int64_t> fixed(values->size());
  for (size_t i = 0; i < values->size(); ++i) {
    const double x = (*values)[i];
    if (!(std::abs(x) < kMixLimit)) {
      return absl::OutOfRangeError(absl::StrCat("perceptron over MPI ranks: weight ", x,
                                                " is beyond the 2^30 the exact "
                                                "parameter mixing holds"));
    }
    fixed[i] = std::llround(std::ldexp(x, kMixBits));
  }
  // Every rank checked its own values; an error on one rank ends the job (MPI_Abort).
  SumOverRanks(ranks, absl::MakeSpan(fixed));
  const double scale = std::ldexp(1.0, -kMixBits) / ranks->size();
  for (size_t i = 0; i < values->size(); ++i) (*values)[i] = static_cast<double>(fixed[i]) * scale;
  return absl::OkStatus();
}

// The perceptron's weights with lazy averaging: averaged weights are weights - sum_c c *
// update_c / c_final (Daume 2006), so an update costs only the features it touches.
class AveragedWeights {
 public:
  explicit AveragedWeights(const TrainingData& data)
      : data_(data),
        weights_(data.parameters.size(), 0.0),
        weighted_updates_(data.parameters.size(), 0.0),
        scratch_(MakeLossAugmentedScratch(data.loss_max_bytes)) {}

  // One pass over `order`; returns the wrongly labelled tokens.
  absl::StatusOr<int64_t> Pass(const BoundLoss& loss, const std::vector<int>& order) {
    auto update = [&](int64_t f, double delta) {
      if (data_.IsFixedWeight(f)) return;  // a transition without a weight (transitions observed)
      weights_[f] += delta;
      weighted_updates_[f] += step_ * delta;
    };
    int64_t mistakes = 0;
    for (int s : order) {
      if (absl::Status st = UpdateOnSentence(data_, s, loss, weights_.data(), &lattice_,
                                             scratch_.get(), update, &mistakes);
          !st.ok()) {
        return st;
      }
      step_ += 1.0;
    }
    return mistakes;
  }
  void Averaged(std::vector<double>* out) const {
    for (size_t i = 0; i < weights_.size(); ++i) {
      (*out)[i] = weights_[i] - weighted_updates_[i] / step_;
    }
  }
  // Starts a new average from the current weights.
  void RestartAverage() {
    std::fill(weighted_updates_.begin(), weighted_updates_.end(), 0.0);
    step_ = 1.0;
  }
  std::vector<double>& weights() { return weights_; }

 private:
  const TrainingData& data_;
  std::vector<double> weights_, weighted_updates_;
  double step_ = 1.0;
  Lattice lattice_;
  LossAugmentedScratchPtr scratch_;
};

// Reports an epoch; false stops training.
bool ReportEpoch(const TrainingData& data, int epoch, int64_t mistakes,
                 const std::vector<double>& w, const IterationCallback& on_epoch) {
  TrainProgress progress;
  progress.iteration = epoch;
  progress.objective = static_cast<double>(mistakes);
  progress.warnings = data.TakeFallbackWarnings();
  return !on_epoch || on_epoch(progress, w);
}

// Iterative parameter mixing (McDonald, Hall and Mann 2010, Algorithm 2, uniform mixture): every
// epoch each rank runs one averaged-perceptron pass over its own shuffled sentences starting from
// the mixed weights; the ranks' final weights are averaged into the next start, and their
// per-pass averaged weights into the model's running average over epochs. Deterministic for a
// given number of ranks.
absl::StatusOr<int> TrainPerceptronIpm(const TrainingData& data, const BoundLoss& loss, int epochs,
                                       uint64_t seed, std::vector<double>* w,
                                       const IterationCallback& on_epoch) {
  const int64_t size = data.parameters.size();
  AveragedWeights weights(data);
  std::vector<double> averaged(size, 0.0), average_sum(size, 0.0);
  w->assign(size, 0.0);
  std::vector<int> order(data.num_sentences());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed + static_cast<uint64_t>(data.ranks->rank()));
  int epoch = 0;
  for (epoch = 1; epoch <= epochs; ++epoch) {
    Shuffle(rng, &order);
    weights.RestartAverage();
    absl::StatusOr<int64_t> mistakes = weights.Pass(loss, order);
    if (!mistakes.ok()) return mistakes.status();
    weights.Averaged(&averaged);
    if (absl::Status st = MixOverRanks(data.ranks, &weights.weights()); !st.ok()) return st;
    if (absl::Status st = MixOverRanks(data.ranks, &averaged); !st.ok()) return st;
    SumOverRanks(data.ranks, absl::MakeSpan(&*mistakes, 1));
    for (int64_t i = 0; i < size; ++i) {
      average_sum[i] += averaged[i];
      (*w)[i] = average_sum[i] / epoch;
    }
    if (!ReportEpoch(data, epoch, *mistakes, *w, on_epoch)) break;
  }
  return std::min(epoch, epochs);
}

}  // namespace

absl::StatusOr<int> TrainAveragedPerceptron(const TrainingData& data, const BoundLoss& loss,
                                            int epochs, uint64_t seed, std::vector<double>* w,
                                            const IterationCallback& on_epoch) {
  if (IsDistributed(data.ranks)) return TrainPerceptronIpm(data, loss, epochs, seed, w, on_epoch);
  AveragedWeights weights(data);
  w->assign(data.parameters.size(), 0.0);
  std::vector<int> order(data.num_sentences());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  int epoch = 0;
  for (epoch = 1; epoch <= epochs; ++epoch) {
    Shuffle(rng, &order);
    absl::StatusOr<int64_t> mistakes = weights.Pass(loss, order);
    if (!mistakes.ok()) return mistakes.status();
    weights.Averaged(w);
    if (!ReportEpoch(data, epoch, *mistakes, *w, on_epoch)) break;
  }
  return std::min(epoch, epochs);
}

namespace {

class PerceptronTrainer : public Trainer {
 public:
  PerceptronTrainer(const TrainOptions& options, std::shared_ptr<const BoundLoss> loss)
      : epochs_(options.max_iterations), seed_(options.seed), loss_(std::move(loss)) {}

  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    absl::StatusOr<int> epochs =
        TrainAveragedPerceptron(*data, *loss_, epochs_, seed_, weights, on_iteration);
    if (!epochs.ok()) return epochs.status();
    return TrainerRun{*epochs, *epochs < epochs_ ? "early stopping" : "maximum epochs"};
  }

 private:
  int epochs_;
  uint64_t seed_;
  std::shared_ptr<const BoundLoss> loss_;
};

}  // namespace

std::unique_ptr<Trainer> MakePerceptronTrainer(const TrainOptions& resolved,
                                               std::shared_ptr<const BoundLoss> loss) {
  return std::make_unique<PerceptronTrainer>(resolved, std::move(loss));
}

}  // namespace train_internal
}  // namespace chaintag
