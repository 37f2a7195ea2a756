// LMBM training internals (Miao and Rao, "large margin Boltzmann machines", Section 2, Remark 3,
// Eq. 6, Algorithm 1) on a first-order chain: every position t and every wrong label y give one
// hinge constraint s_t(y_t) - s_t(y) >= 1 - xi_{t,y}, where s_t scores a label at t against the
// gold labels on both sides (unary + transition from y_{t-1} + transition to y_{t+1}, or the
// start/end weights): pseudo-likelihood with hinge loss. The objective is
//   c2 (|w|^2 + eta0 |w_transitions|^2) + sum_{t, y != y_t} [1 - s_t(y_t) + s_t(y)]_+ ,
// solved by dual coordinate descent, one dual variable alpha_{t,y} in [0, C] at a time.
#ifndef CHAINTAG_SRC_TRAIN_LMBM_H_
#define CHAINTAG_SRC_TRAIN_LMBM_H_

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "train/training_data.h"

namespace chaintag::train_internal {

// Sequential dual coordinate descent in a seeded order: the weights do not depend on threads.
class LmbmSolver {
 public:
  LmbmSolver(const TrainingData& data, double c2, double eta0, uint64_t seed);
  // One pass over every (position, wrong label) in a fresh random order of positions; updates
  // `weights` (data.parameters layout, first order). Returns the largest projected gradient.
  double Pass(std::vector<double>* weights);
  // The primal objective above, and the mean hinge per token.
  double Primal(absl::Span<const double> w, double* mean_loss) const;
  // The dual objective in the primal's units (2 c2 sum alpha - c2 sum_j eta_j w_j^2 at the w the
  // duals determine): at most Primal(w) for every alpha, equal at the optimum.
  double Dual(absl::Span<const double> w) const;
  // Regularisation weight eta_j of parameter j: 1 + eta0 for transitions, 1 otherwise.
  double Eta(int64_t j) const;

 private:
  // The sparse difference phi_t(y_t) - phi_t(y) of position p and wrong label y, merged by index.
  void Difference(int64_t p, int y, std::vector<std::pair<int64_t, double>>* f) const;
  const TrainingData& data_;
  double c_, c2_, eta0_;
  std::mt19937_64 rng_;
  int n_;
  std::vector<int> sentence_of_;  // per position
  std::vector<double> alpha_;     // P x N (alpha at the gold label stays 0)
  std::vector<int64_t> order_;
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_LMBM_H_
