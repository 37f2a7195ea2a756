// Exact decoding of left-to-right models whose position t is scored from the input and the whole
// label history (the LMSBN family): depth-first branch-and-bound over the history tree.
// X. Miao and R. P. N. Rao, "Large Margin Boltzmann Machines and Large Margin Sigmoid Belief
// Networks", Algorithm 2, generalised to multiclass: the cost of a labeling is the sum over
// positions of the multiclass hinge l_t(y_t) = [1 + max_{y' != y_t} z_t(y') - z_t(y_t)]_+, the
// children of a node are tried in increasing l_t (so the first leaf is the greedy labeling), and
// every branch whose accumulated cost reaches the bound (the best leaf so far, or the K-th best
// for k-best) is pruned. The search visits few nodes when the model fits well (the paper's
// Theorem: O(K^S) states with probability at least 1 - L(w)/S).
#ifndef CHAINTAG_DECODE_BRANCH_AND_BOUND_H_
#define CHAINTAG_DECODE_BRANCH_AND_BOUND_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "decode/aux_dp.h"

namespace chaintag {

// Scores z_t(y) of every label y at position t given the labels of positions 0..t-1.
class LeftToRightScorer {
 public:
  virtual ~LeftToRightScorer() = default;
  virtual int size() const = 0;        // positions M
  virtual int num_labels() const = 0;  // labels N
  // Fills `scores` (N entries) for position t; `history` holds (at least) t labels.
  virtual void Scores(int t, absl::Span<const int> history, absl::Span<double> scores) = 0;
};

// The multiclass hinge of every label for scores z (N entries): loss[y] = [1 + max_{y'!=y} z(y')
// - z(y)]_+ (0 when N = 1).
void MulticlassHinge(absl::Span<const double> z, absl::Span<double> loss);

struct BranchAndBoundOptions {
  // Nodes (positions scored) a search may expand; the effective budget is at least the sentence
  // length, so the greedy first leaf is always reached when nothing is constrained.
  static constexpr int64_t kDefaultMaxNodes = 100000;
  static constexpr int kMaxKBest = 10000;
  int kbest = 1;
  int64_t max_nodes = kDefaultMaxNodes;
  // Initial upper bound S on the cost: only labelings costing less are found (the paper's S).
  double bound = std::numeric_limits<double>::infinity();
  // Per position a label the labeling must have, or -1; empty: none.
  std::vector<int> forced;
  // Constraints checked inside the search (label and chunk counts, Hamming distances for
  // exclusions): a branch is pruned when a statistic returns kInfeasible or cannot reach an
  // accepted state in the positions left (Statistic::Reachable); leaves must be accepted.
  std::vector<const Statistic*> constraints;
};

struct BranchAndBoundSolution {
  std::vector<int> labels;
  double cost = 0.0;   // sum_t l_t(y_t)
  double score = 0.0;  // sum_t z_t(y_t)
};

struct BranchAndBoundResult {
  std::vector<BranchAndBoundSolution> solutions;  // lowest cost first
  bool optimal = false;  // the search finished: these are the exact lowest-cost labelings
  int64_t nodes = 0;     // nodes expanded (positions scored)
};

// Runs the search. No labeling satisfying the constraints (and costing less than `bound`):
// NotFoundError starting with "infeasible" (IsInfeasible). The node budget exhausted before any
// labeling was found: ResourceExhaustedError. Otherwise the best labelings found, with `optimal`
// telling whether the search finished. Usage errors (kbest, forced size, labels out of range):
// InvalidArgumentError.
absl::StatusOr<BranchAndBoundResult> BranchAndBoundDecode(LeftToRightScorer& scorer,
                                                          const BranchAndBoundOptions& options);

}  // namespace chaintag

#endif  // CHAINTAG_DECODE_BRANCH_AND_BOUND_H_
