// Minimisation of an Objective with libLBFGS: L-BFGS (Nocedal 1980) or, with an L1 term,
// OWL-QN (Andrew and Gao 2007). Reused by every smooth objective in src/train. With checkpoints
// (--checkpoint, --resume) chaintag's own restartable L-BFGS/OWL-QN runs instead, whose state can
// be saved between iterations (libLBFGS keeps it inside lbfgs()).
#ifndef CHAINTAG_TRAIN_LBFGS_OPTIMIZER_H_
#define CHAINTAG_TRAIN_LBFGS_OPTIMIZER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "train/crf_objective.h"
#include "train/lbfgs_state.h"
#include "train/trainer.h"

namespace chaintag {
namespace train_internal {

struct LbfgsSettings {
  int memory = 6;
  double c1 = 0.0;  // > 0 selects OWL-QN with backtracking line search
  int max_iterations = 1000;
  double epsilon = 1e-5;  // gradient test and relative-decrease test over `period` iterations
  int period = 10;
  // Weights that stay at their starting value (their gradient is taken as 0): transitions
  // without a weight (--transitions observed).
  std::vector<int64_t> fixed;
  // When enabled, the restartable optimiser runs (its iterates differ from libLBFGS's in the
  // line search, so the model differs slightly from one trained without checkpoints).
  LbfgsCheckpoints checkpoints;
};

struct LbfgsResult {
  int iterations = 0;
  double objective = 0.0;
  int code = 0;                    // libLBFGS return code
  std::string reason;              // why it stopped, for metadata
  bool stopped_by_caller = false;  // on_iteration returned false
};

// The error of a libLBFGS run that never started (`code` one of its LBFGSERR_ setup codes) on
// `n` weights with `memory` corrections: out of memory is said as such (ResourceExhausted, with
// the memory it needs), other codes are named by number.
absl::Status LbfgsStartFailure(int code, int64_t n, int memory);

// Minimises objective(w) + c1 * |w|_1 from the starting point in `w`; `w` holds the result.
// `on_iteration` (may be empty) sees the iteration, the objective (L1 term included), the
// gradient norm and the weights; it returns false to stop early. Line-search failures end the run
// at the last good point and are reported in `reason`, not as errors.
absl::StatusOr<LbfgsResult> MinimizeLbfgs(Objective& objective, const LbfgsSettings& settings,
                                          std::vector<double>* w,
                                          const IterationCallback& on_iteration);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_LBFGS_OPTIMIZER_H_
