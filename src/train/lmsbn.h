// LMSBN training internals: the Crammer-Singer dual coordinate descent over all tokens (gold
// history) and greedy dev scoring with history features.
#ifndef CHAINTAG_SRC_TRAIN_LMSBN_H_
#define CHAINTAG_SRC_TRAIN_LMSBN_H_

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "features/featurizer.h"
#include "train/training_data.h"

namespace chaintag::train_internal {

// Sequential dual coordinate descent; the updates run in one thread in a seeded order, so the
// weights do not depend on the thread count (threads only evaluate the primal objective, summed
// over fixed slices in order).
class LmsbnSolver {
 public:
  LmsbnSolver(const TrainingData& data, double c2, uint64_t seed, int threads);
  // One pass over the tokens in a fresh random order; updates `weights` (state features of
  // data.parameters). Returns the largest KKT violation seen (LIBLINEAR's stopping measure).
  double Pass(std::vector<double>* weights);
  // c2 |w|^2 + sum_t hinge_t, and the mean hinge per token.
  double Primal(absl::Span<const double> w, double* mean_loss) const;
  // The dual objective 1/2 |w|^2 - sum_t alpha_{t, gold} (Keerthi et al.'s f), which every pass
  // decreases.
  double Dual(absl::Span<const double> w) const;

 private:
  const TrainingData& data_;
  double c_, c2_;
  int threads_;
  std::mt19937_64 rng_;
  int n_;
  std::vector<double> alpha_;  // P x N dual variables
  std::vector<int64_t> order_;
};

// Dev scoring during LMSBN training: greedy left-to-right decoding with the history features
// looked up in the training dictionary (its index must stay), then chunk F1 or accuracy.
class LmsbnDevScorer {
 public:
  LmsbnDevScorer(const TrainingData& data, int threads);
  // `dev` must outlive the scorer.
  absl::Status Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev);
  absl::StatusOr<std::pair<double, std::string>> Score(absl::Span<const double> w);

 private:
  const TrainingData& data_;
  int threads_;
  FeatureSpec spec_;
  std::vector<FeaturizedSentence> featurized_;
  std::vector<const Sentence*> sentences_;
  std::vector<std::vector<int>> predicted_;
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_LMSBN_H_
