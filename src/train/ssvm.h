// Structural SVM training on the CRF feature set, every step driven by exact loss-augmented
// inference (LossAugmentedDecode):
// - margin scaling by block-coordinate Frank-Wolfe (Lacoste-Julien, Jaggi, Schmidt and Pletscher,
//   "Block-Coordinate Frank-Wolfe Optimization for Structural SVMs", ICML 2013, Algorithm 3), which
//   has an exact duality gap (of the iterate); the weights returned and reported to `on_pass` are
//   the step-weighted average of the iterates (BCFW-wavg, sec. 4 of the paper);
// - slack (or margin) scaling by stochastic subgradient descent with a decreasing step and
//   Polyak-Ruppert averaging (Ratliff, Bagnell and Zinkevich 2007; Shalev-Shwartz et al. 2007),
//   which converges for the convex but non-smooth slack-scaled objective. Mini-batches of 8
//   sentences are decoded in parallel at the same weights, then applied one by one.
// Both minimise the primal in the CRF's convention: c2 |w|^2 + sum_i H_i(w), with
//   H_i = max_y Delta(y_i, y) + F(y) - F(y_i)             (margin)
//   H_i = max_y Delta(y_i, y) * (1 + F(y) - F(y_i))       (slack).
#ifndef CHAINTAG_TRAIN_SSVM_H_
#define CHAINTAG_TRAIN_SSVM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/train.h"
#include "train/losses.h"
#include "train/trainer.h"
#include "train/training_data.h"

namespace chaintag {
namespace train_internal {

struct SsvmSettings {
  LossScaling scaling = LossScaling::kMargin;
  double c2 = 1.0;
  int max_passes = 100;
  double duality_gap = 0.01;   // BCFW stops when gap <= duality_gap * primal
  double learning_rate = 0.0;  // SGD eta_0; 0 = calibrate on a sample
  uint64_t seed = 1;
  int threads = 1;  // loss-augmented inference of SGD mini-batches and the per-pass evaluation
};

// Both trainers start from w = 0 and visit the sentences in a seeded random order per pass;
// `on_pass` (may be empty) sees each pass: objective = the exact primal (SGD at the averaged
// weights; BCFW at the iterate, whose duality gap it reports), mean loss of the pass's
// loss-augmented maximisers, time in inference and in the pass, and the weights (BCFW: the
// step-weighted average); it returns false to stop. Return the number of passes run.
absl::StatusOr<int> TrainBcfw(const TrainingData& data, const BoundLoss& loss,
                              const SsvmSettings& settings, std::vector<double>* w,
                              const IterationCallback& on_pass);
absl::StatusOr<int> TrainSubgradient(const TrainingData& data, const BoundLoss& loss,
                                     const SsvmSettings& settings, std::vector<double>* w,
                                     const IterationCallback& on_pass);

// The exact primal objective c2 |w|^2 + sum_i H_i(w) (run on `threads`; deterministic).
absl::StatusOr<double> SsvmPrimal(const TrainingData& data, const BoundLoss& loss,
                                  LossScaling scaling, double c2, absl::Span<const double> w,
                                  int threads);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_SSVM_H_
