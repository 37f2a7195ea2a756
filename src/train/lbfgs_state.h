// Internal: the state of chaintag's own L-BFGS/OWL-QN between two iterations, which a checkpoint
// holds (docs/distributed.md, "Checkpoints"). libLBFGS keeps the same state inside lbfgs(), where
// it cannot be saved, so runs with --checkpoint or --resume use the restartable optimiser.
#ifndef CHAINTAG_SRC_TRAIN_LBFGS_STATE_H_
#define CHAINTAG_SRC_TRAIN_LBFGS_STATE_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"

namespace chaintag::train_internal {

struct LbfgsState {
  int iteration = 0;       // iterations completed
  double objective = 0.0;  // at x, L1 term included
  std::vector<double> x;
  std::vector<double> gradient;  // of the smooth part at x, fixed weights 0
  // The correction pairs s = x_k - x_(k-1), y = g_k - g_(k-1), oldest first (at most m).
  std::vector<std::vector<double>> s, y;
  // The objective of the last `period` iterations (the start included), oldest first, for the
  // relative-decrease test.
  std::vector<double> past;
};

// Hands the state to `save` every `every` iterations (after the correction pair of that
// iteration); a run started from `resume` continues exactly where the saved one would have.
struct LbfgsCheckpoints {
  int every = 0;
  std::function<absl::Status(const LbfgsState&)> save;
  const LbfgsState* resume = nullptr;
  bool enabled() const { return every > 0 || resume != nullptr; }
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_LBFGS_STATE_H_
