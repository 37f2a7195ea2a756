// Sparse feature vectors of labelings on the training data: phi(y) and differences of labelings'
// features, built from per-position label coefficients, for the trainers that step along them.
#ifndef CHAINTAG_TRAIN_FEATURE_VECTORS_H_
#define CHAINTAG_TRAIN_FEATURE_VECTORS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "chaintag/lattice.h"
#include "model/parameters.h"
#include "train/training_data.h"

namespace chaintag {
namespace train_internal {

// Adds `scale` times the indicator of `labels` to label coefficients: unary (M x N) at
// (t, labels[t]), transition (N x N, then start N, then end N, as in ModelParameters).
void AddLabeling(int n, absl::Span<const int> labels, double scale, double* unary,
                 double* transition);

// Turns label coefficients of one sentence into the sparse weight-space vector
// sum_t sum_y unary[t][y] phi_t(y) + transition coefficients, merging repeated features.
class FeatureAccumulator {
 public:
  struct Sparse {
    std::vector<std::pair<int64_t, double>> entries;  // feature index, value (non-zero)
    double squared_norm = 0;
  };
  explicit FeatureAccumulator(int64_t size) : dense_(size, 0.0) {}
  // The result stays valid until the next call.
  const Sparse& Build(const TrainingData& data, int s, const double* unary,
                      const double* transition);

 private:
  std::vector<double> dense_;  // all zero between calls
  Sparse sparse_;
};

// Multiplies every score of the lattice by `factor`.
void ScaleLattice(double factor, Lattice* lattice);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_FEATURE_VECTORS_H_
