// Branch-and-bound over the label-history tree (Miao and Rao, LMSBN, Algorithm 2, multiclass).
#include "decode/branch_and_bound.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace chaintag {

void MulticlassHinge(absl::Span<const double> z, absl::Span<double> loss) {
  const int n = static_cast<int>(z.size());
  if (n == 0) return;
  // The best and second-best scores give max_{y' != y} z(y') for every y.
  int top = 0;
  for (int y = 1; y < n; ++y) {
    if (z[y] > z[top]) top = y;
  }
  double second = -std::numeric_limits<double>::infinity();
  for (int y = 0; y < n; ++y) {
    if (y != top) second = std::max(second, z[y]);
  }
  for (int y = 0; y < n; ++y) {
    const double other = y == top ? second : z[top];
    loss[y] = n == 1 ? 0.0 : std::max(0.0, 1.0 + other - z[y]);
  }
}

absl::StatusOr<BranchAndBoundResult> BranchAndBoundDecode(LeftToRightScorer& scorer,
                                                          const BranchAndBoundOptions& options) {
  const int m = scorer.size();
  const int n = scorer.num_labels();
  if (options.kbest < 1 || options.kbest > BranchAndBoundOptions::kMaxKBest) {
    return absl::InvalidArgumentError(absl::StrCat("branch-and-bound: expected k-best 1 to ",
                                                   BranchAndBoundOptions::kMaxKBest, ", found ",
                                                   options.kbest));
  }
  if (!options.forced.empty() && static_cast<int>(options.forced.size()) != m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "branch-and-bound: expected ", m, " forced labels, found ", options.forced.size()));
  }
  for (int y : options.forced) {
    if (y < -1 || y >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("branch-and-bound: forced label ", y, " is not a label id below ", n));
    }
  }
  if (n == 0 && m > 0) {
    return absl::InvalidArgumentError("branch-and-bound: the model has no labels");
  }
  BranchAndBoundResult result;
  if (m == 0) {
    result.solutions.push_back({});
    result.optimal = true;
    return result;
  }
  const int num_constraints = static_cast<int>(options.constraints.size());
  const int64_t budget = std::max<int64_t>(options.max_nodes, m);

  // Per depth t: scores, hinge losses, children in increasing loss, the next child to try, the
  // cost and score of the path to t, and the statistic states after the path.
  std::vector<double> z(static_cast<size_t>(m) * n), loss(static_cast<size_t>(m) * n);
  std::vector<int> order(static_cast<size_t>(m) * n);
  std::vector<int> num_children(m), next_child(m);
  std::vector<double> cost(m + 1, 0.0), score(m + 1, 0.0);
  std::vector<int> states(static_cast<size_t>(m + 1) * std::max(num_constraints, 1));
  for (int c = 0; c < num_constraints; ++c) states[c] = options.constraints[c]->Initial();
  std::vector<int> labels(m, -1);

  // Found labelings, lowest cost first (at most kbest); the bound is the K-th cost once K exist.
  std::vector<BranchAndBoundSolution>& found = result.solutions;
  auto bound = [&]() {
    return static_cast<int>(found.size()) < options.kbest ? options.bound : found.back().cost;
  };

  // Expands depth t: scores its children and orders them.
  auto expand = [&](int t) {
    ++result.nodes;
    double* zt = z.data() + static_cast<size_t>(t) * n;
    double* lt = loss.data() + static_cast<size_t>(t) * n;
    scorer.Scores(t, absl::MakeConstSpan(labels.data(), t), absl::MakeSpan(zt, n));
    MulticlassHinge(absl::MakeConstSpan(zt, n), absl::MakeSpan(lt, n));
    int* ot = order.data() + static_cast<size_t>(t) * n;
    const int forced = options.forced.empty() ? -1 : options.forced[t];
    if (forced >= 0) {
      ot[0] = forced;
      num_children[t] = 1;
    } else {
      for (int y = 0; y < n; ++y) ot[y] = y;
      std::sort(ot, ot + n,
                [lt](int a, int b) { return lt[a] < lt[b] || (lt[a] == lt[b] && a < b); });
      num_children[t] = n;
    }
    next_child[t] = 0;
  };

  int t = 0;
  expand(0);
  bool stopped = false;
  while (t >= 0) {
    if (t == m) {
      bool accepted = true;
      const int* st = states.data() + static_cast<size_t>(m) * num_constraints;
      for (int c = 0; c < num_constraints && accepted; ++c) {
        accepted = options.constraints[c]->Accepts(st[c]);
      }
      if (accepted && cost[m] < bound()) {
        BranchAndBoundSolution s{labels, cost[m], score[m]};
        // Insert after equal costs, so earlier-found labelings stay ahead.
        auto at = std::upper_bound(
            found.begin(), found.end(), s.cost,
            [](double c, const BranchAndBoundSolution& other) { return c < other.cost; });
        found.insert(at, std::move(s));
        if (static_cast<int>(found.size()) > options.kbest) found.pop_back();
      }
      --t;
      continue;
    }
    // Next child of depth t that is neither pruned by the bound nor by a constraint.
    const double* lt = loss.data() + static_cast<size_t>(t) * n;
    const double* zt = z.data() + static_cast<size_t>(t) * n;
    const int* ot = order.data() + static_cast<size_t>(t) * n;
    const int* st = states.data() + static_cast<size_t>(t) * num_constraints;
    int* next_st = states.data() + static_cast<size_t>(t + 1) * num_constraints;
    const int prev = t == 0 ? -1 : labels[t - 1];
    const int remaining = m - t - 1;
    int chosen = -1;
    while (next_child[t] < num_children[t]) {
      const int y = ot[next_child[t]++];
      // Children come in increasing loss: once one reaches the bound, all the rest do.
      if (cost[t] + lt[y] >= bound()) {
        next_child[t] = num_children[t];
        break;
      }
      bool ok = true;
      for (int c = 0; c < num_constraints && ok; ++c) {
        const int s = options.constraints[c]->Next(st[c], t, prev, y);
        ok = s != Statistic::kInfeasible && options.constraints[c]->Reachable(s, remaining);
        next_st[c] = s;
      }
      if (ok) {
        chosen = y;
        break;
      }
    }
    if (chosen < 0) {
      --t;
      continue;
    }
    labels[t] = chosen;
    cost[t + 1] = cost[t] + lt[chosen];
    score[t + 1] = score[t] + zt[chosen];
    ++t;
    if (t < m) {
      if (result.nodes >= budget) {
        stopped = true;
        break;
      }
      expand(t);
    }
  }
  result.optimal = !stopped;
  if (found.empty()) {
    if (stopped) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "branch-and-bound: no labeling found within ", budget, " nodes (raise --bb-max-nodes)"));
    }
    return absl::NotFoundError(
        options.bound < std::numeric_limits<double>::infinity()
            ? "infeasible: no labeling satisfies the request at a cost below the bound"
            : "infeasible: no labeling satisfies the request");
  }
  return result;
}

}  // namespace chaintag
