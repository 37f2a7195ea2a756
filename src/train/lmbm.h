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
  // The dual variables, alpha_{p,y} at p * num_labels + y, each in [0, 1 / (2 c2)] (tests).
  absl::Span<const double> alpha() const { return alpha_; }

 private:
  // Position p's unary features grouped by label (label y's are items[label_begin[y] ..
  // label_begin[y + 1])), each feature once with its summed value, and its gold neighbours
  // (-1 at a sentence boundary).
  struct Position {
    int prev = -1, next = -1;
    std::vector<std::pair<int32_t, double>> attrs;  // scratch
    std::vector<int> label_begin;
    std::vector<std::pair<int64_t, double>> items;
  };
  void Gather(int64_t p, Position* at) const;
  // The left (start, or transition from the gold previous label) and right weights of label y.
  int64_t Left(const Position& at, int y) const;
  int64_t Right(const Position& at, int y) const;
  // The score of label y at the position against the gold neighbours.
  double Score(absl::Span<const double> w, const Position& at, int y) const;
  const TrainingData& data_;
  double c_, c2_, eta0_;
  std::mt19937_64 rng_;
  int n_;
  std::vector<int> sentence_of_;  // per position
  std::vector<double> alpha_;     // P x N (alpha at the gold label stays 0)
  std::vector<int64_t> order_;
  Position at_;  // Pass's scratch
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_LMBM_H_
