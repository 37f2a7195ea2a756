// Latent-dynamic CRF decoding: the hidden-state layout, restricted forward passes, LDI (X. Sun,
// "Exact Decoding on Latent Variable Conditional Models is NP-Hard", sec. IV: top-n hidden paths
// by A* with the backward Viterbi heuristic, exact P(y|x) per labeling), bhp and marginals.
#include "decode/latent.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decode/completion.h"

namespace chaintag {
namespace {

// log(exp(a) + exp(b)) without overflow; kNegInf is the identity.
inline double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

absl::Status Infeasible() {
  return absl::NotFoundError("infeasible: every hidden path of the lattice has score -inf");
}

absl::Status CheckSizes(const Lattice& hidden, const LatentLayout& layout) {
  if (layout.empty() || hidden.num_labels() != layout.num_states()) {
    return absl::InvalidArgumentError(absl::StrCat("latent decoding: expected a lattice over ",
                                                   layout.num_states(), " hidden states, found ",
                                                   hidden.num_labels()));
  }
  return absl::OkStatus();
}

// Certified when no unseen labeling can have more probability than `p`: the unseen mass is at
// most 1 - found (clamped at 0); the margin keeps rounding from certifying a near tie.
inline bool Certifies(double p, double found) {
  const double unseen = std::max(0.0, 1.0 - found);
  return p >= unseen + 1e-12;
}

}  // namespace

absl::StatusOr<LatentLayout> LatentLayout::Create(int num_labels,
                                                  std::vector<int32_t> state_labels) {
  if (num_labels < 1) {
    return absl::InvalidArgumentError("latent layout: expected at least one label");
  }
  if (state_labels.size() > static_cast<size_t>(kMaxStates)) {
    return absl::InvalidArgumentError(absl::StrCat("latent layout: expected at most ", kMaxStates,
                                                   " hidden states, found ", state_labels.size()));
  }
  LatentLayout layout;
  layout.first_.assign(num_labels + 1, 0);
  int expected = 0;  // the label the next state may start
  for (size_t h = 0; h < state_labels.size(); ++h) {
    const int y = state_labels[h];
    if (y < 0 || y >= num_labels) {
      return absl::InvalidArgumentError(absl::StrCat(
          "latent layout: hidden state ", h, " has label ", y, ", expected 0 to ", num_labels - 1));
    }
    if (y != expected - 1 && y != expected) {
      return absl::InvalidArgumentError(
          absl::StrCat("latent layout: hidden state ", h, " has label ", y, ", expected label ",
                       std::max(0, expected - 1), " or ", expected,
                       " (every label owns a contiguous block of states, in label order)"));
    }
    if (y == expected) {
      layout.first_[y] = static_cast<int32_t>(h);
      ++expected;
    }
  }
  if (expected != num_labels) {
    return absl::InvalidArgumentError(
        absl::StrCat("latent layout: label ", expected,
                     " owns no hidden state; every label needs at least one"));
  }
  layout.first_[num_labels] = static_cast<int32_t>(state_labels.size());
  for (int y = 0; y < num_labels; ++y) {
    if (layout.first_[y + 1] - layout.first_[y] > kMaxStatesPerLabel) {
      return absl::InvalidArgumentError(absl::StrCat(
          "latent layout: label ", y, " owns ", layout.first_[y + 1] - layout.first_[y],
          " hidden states, expected at most ", kMaxStatesPerLabel));
    }
  }
  layout.state_labels_ = std::move(state_labels);
  return layout;
}

absl::StatusOr<LatentLayout> LatentLayout::FromCounts(absl::Span<const int> states_per_label) {
  std::vector<int32_t> state_labels;
  for (size_t y = 0; y < states_per_label.size(); ++y) {
    const int k = states_per_label[y];
    if (k < 1 || k > kMaxStatesPerLabel) {
      return absl::InvalidArgumentError(absl::StrCat("latent layout: label ", y, " asks for ", k,
                                                     " hidden states, expected 1 to ",
                                                     kMaxStatesPerLabel));
    }
    if (state_labels.size() + k > static_cast<size_t>(kMaxStates)) {
      return absl::InvalidArgumentError(
          absl::StrCat("latent layout: expected at most ", kMaxStates, " hidden states in all"));
    }
    state_labels.insert(state_labels.end(), k, static_cast<int32_t>(y));
  }
  return Create(static_cast<int>(states_per_label.size()), std::move(state_labels));
}

TransitionMask ExpandTransitionMask(const TransitionMask& label_mask, const LatentLayout& layout) {
  TransitionMask mask;
  const int n = layout.num_labels();
  if (label_mask.num_labels != n || n == 0) return mask;
  const int h = layout.num_states();
  mask.num_labels = h;
  if (label_mask.allowed.size() == static_cast<size_t>(n) * n) {
    mask.allowed.resize(static_cast<size_t>(h) * h);
    for (int a = 0; a < h; ++a) {
      for (int b = 0; b < h; ++b) {
        mask.allowed[static_cast<size_t>(a) * h + b] =
            label_mask.allowed[static_cast<size_t>(layout.label_of(a)) * n + layout.label_of(b)];
      }
    }
  }
  if (label_mask.allowed_start.size() == static_cast<size_t>(n)) {
    for (int a = 0; a < h; ++a)
      mask.allowed_start.push_back(label_mask.allowed_start[layout.label_of(a)]);
  }
  if (label_mask.allowed_end.size() == static_cast<size_t>(n)) {
    for (int a = 0; a < h; ++a)
      mask.allowed_end.push_back(label_mask.allowed_end[layout.label_of(a)]);
  }
  return mask;
}

void ApplyLatentForcedLabels(absl::Span<const int> forced, const LatentLayout& layout,
                             Lattice* hidden) {
  const int m = std::min<int>(hidden->size(), static_cast<int>(forced.size()));
  const int h = hidden->num_labels();
  if (h != layout.num_states()) return;
  for (int t = 0; t < m; ++t) {
    const int keep = forced[t];
    if (keep < 0 || keep >= layout.num_labels()) continue;
    for (int s = 0; s < h; ++s) {
      if (layout.label_of(s) != keep) hidden->unary(t, s) = kNegInf;
    }
  }
}

std::vector<int> ProjectHiddenPath(absl::Span<const int> hidden_path, const LatentLayout& layout) {
  std::vector<int> labels(hidden_path.size());
  for (size_t t = 0; t < hidden_path.size(); ++t) labels[t] = layout.label_of(hidden_path[t]);
  return labels;
}

double LabelingLogScore(const Lattice& hidden, const LatentLayout& layout,
                        absl::Span<const int> labels, LatentScratch* scratch) {
  LatentScratch local;
  if (scratch == nullptr) scratch = &local;
  const int m = hidden.size();
  if (static_cast<int>(labels.size()) != m || hidden.num_labels() != layout.num_states()) {
    return kNegInf;
  }
  if (m == 0) return 0.0;
  std::vector<double>& alpha = scratch->alpha;
  std::vector<double>& next = scratch->next;
  // alpha[i]: log sum of the prefixes ending in the i-th state of labels[t].
  int y = labels[0];
  if (y < 0 || y >= layout.num_labels()) return kNegInf;
  alpha.assign(layout.states_of(y), kNegInf);
  for (int i = 0; i < layout.states_of(y); ++i) {
    const int s = layout.first_state(y) + i;
    alpha[i] = hidden.start(s) + hidden.unary(0, s);
  }
  for (int t = 1; t < m; ++t) {
    const int prev = y;
    y = labels[t];
    if (y < 0 || y >= layout.num_labels()) return kNegInf;
    next.assign(layout.states_of(y), kNegInf);
    for (int j = 0; j < layout.states_of(y); ++j) {
      const int s = layout.first_state(y) + j;
      const double u = hidden.unary(t, s);
      if (u == kNegInf) continue;
      double acc = kNegInf;
      for (int i = 0; i < layout.states_of(prev); ++i) {
        const int p = layout.first_state(prev) + i;
        acc = LogAdd(acc, alpha[i] + hidden.transition(p, s));
      }
      next[j] = acc + u;
    }
    alpha.swap(next);
  }
  double total = kNegInf;
  for (int i = 0; i < layout.states_of(y); ++i) {
    total = LogAdd(total, alpha[i] + hidden.end(layout.first_state(y) + i));
  }
  return total;
}

absl::StatusOr<LatentDecodeResult> LdiDecode(const Lattice& hidden, const LatentLayout& layout,
                                             const LdiOptions& options, LatentScratch* scratch) {
  if (absl::Status s = CheckSizes(hidden, layout); !s.ok()) return s;
  if (options.k < 1 || options.max_paths < 1 || options.max_paths > LdiOptions::kMaxPaths) {
    return absl::InvalidArgumentError(
        absl::StrCat("LDI: expected k >= 1 and 1 to ", LdiOptions::kMaxPaths,
                     " hidden paths, found k = ", options.k, ", max paths = ", options.max_paths));
  }
  LatentScratch local;
  if (scratch == nullptr) scratch = &local;
  const int m = hidden.size();
  const int h = hidden.num_labels();
  LatentDecodeResult result;
  if (m == 0) {
    result.solutions.push_back({{}, 0.0, 1.0});
    result.exact = true;
    return result;
  }
  absl::StatusOr<double> log_z = LogPartition(hidden, &scratch->forward_backward);
  if (!log_z.ok()) return log_z.status();
  if (!std::isfinite(*log_z)) return Infeasible();
  result.log_z = *log_z;

  // heuristic[t * h + s]: best score of a completion after (t, s), end score included; exact, so
  // A* pops complete paths in order of score.
  std::vector<double>& heu = scratch->heuristic;
  CompletionScores(hidden, &heu);

  struct Node {
    int32_t parent;
    int32_t state;
    int32_t position;
    double g;  // score of the prefix, unary of `position` included
  };
  struct Entry {
    double f;
    int64_t node;
    bool operator<(const Entry& o) const {  // max-heap on f, then first pushed first
      return f != o.f ? f < o.f : node > o.node;
    }
  };
  std::vector<Node> nodes;
  std::priority_queue<Entry> open;
  auto push = [&](int32_t parent, int state, int position, double g) {
    const double f = g + heu[static_cast<size_t>(position) * h + state];
    if (f == kNegInf || std::isnan(f)) return;
    nodes.push_back({parent, state, position, g});
    open.push({f, static_cast<int64_t>(nodes.size()) - 1});
  };
  for (int s = 0; s < h; ++s) push(-1, s, 0, hidden.start(s) + hidden.unary(0, s));

  constexpr int64_t kBytesPerNode = sizeof(Node) + sizeof(Entry) + 8;
  absl::flat_hash_map<std::vector<int>, int> seen;  // labeling -> index in result.solutions
  std::vector<int> path(m);
  double found = 0.0;  // probability of the labelings found
  int64_t labeling_bytes = 0;
  // The k largest probabilities found (a min-heap), so the k-th is at the top in O(log k).
  std::priority_queue<double, std::vector<double>, std::greater<>> top;
  bool exhausted = true;
  while (!open.empty()) {
    if (result.hidden_paths >= options.max_paths ||
        static_cast<int64_t>(nodes.size()) * kBytesPerNode + labeling_bytes > options.max_bytes ||
        nodes.size() + h >= static_cast<size_t>(INT32_MAX)) {
      exhausted = false;
      break;
    }
    const Entry e = open.top();
    open.pop();
    const Node node = nodes[e.node];
    if (node.position + 1 < m) {
      const int t = node.position + 1;
      for (int s = 0; s < h; ++s) {
        const double step = hidden.transition(node.state, s) + hidden.unary(t, s);
        if (step == kNegInf) continue;
        push(static_cast<int32_t>(e.node), s, t, node.g + step);
      }
      continue;
    }
    // A complete hidden path (its score is e.f): project it.
    ++result.hidden_paths;
    for (int64_t k = e.node; k >= 0; k = nodes[k].parent) {
      path[nodes[k].position] = layout.label_of(nodes[k].state);
    }
    auto [it, inserted] = seen.try_emplace(path, static_cast<int>(result.solutions.size()));
    if (!inserted) continue;
    // The labeling is kept twice (solution and key), with its vector and hash-slot overheads.
    labeling_bytes += 2 * (static_cast<int64_t>(m) * sizeof(int) + 64);
    LatentSolution solution;
    solution.labels = path;
    solution.log_score = LabelingLogScore(hidden, layout, path, scratch);
    solution.probability = std::exp(solution.log_score - result.log_z);
    found += solution.probability;
    result.solutions.push_back(std::move(solution));
    top.push(result.solutions.back().probability);
    if (static_cast<int>(top.size()) > options.k) top.pop();
    if (static_cast<int>(top.size()) < options.k) continue;
    if (Certifies(top.top(), found)) {
      result.exact = true;
      break;
    }
  }
  // Every hidden path seen: every labeling with probability > 0 is among the solutions.
  if (exhausted && open.empty()) result.exact = true;
  if (result.solutions.empty()) {
    // Bounded before the first complete path (memory): fall back on the best hidden path.
    absl::StatusOr<Labeling> best = ViterbiDecode(hidden, &scratch->viterbi);
    if (!best.ok()) return best.status();
    LatentSolution solution;
    solution.labels = ProjectHiddenPath(best->labels, layout);
    solution.log_score = LabelingLogScore(hidden, layout, solution.labels, scratch);
    solution.probability = std::exp(solution.log_score - result.log_z);
    result.solutions.push_back(std::move(solution));
  }
  std::stable_sort(result.solutions.begin(), result.solutions.end(),
                   [](const LatentSolution& a, const LatentSolution& b) {
                     return a.probability > b.probability;
                   });
  if (static_cast<int>(result.solutions.size()) > options.k) result.solutions.resize(options.k);
  return result;
}

absl::StatusOr<LatentDecodeResult> BestHiddenPathDecode(const Lattice& hidden,
                                                        const LatentLayout& layout,
                                                        LatentScratch* scratch) {
  if (absl::Status s = CheckSizes(hidden, layout); !s.ok()) return s;
  LatentScratch local;
  if (scratch == nullptr) scratch = &local;
  absl::StatusOr<Labeling> best = ViterbiDecode(hidden, &scratch->viterbi);
  if (!best.ok()) return best.status();
  LatentDecodeResult result;
  absl::StatusOr<double> log_z = LogPartition(hidden, &scratch->forward_backward);
  if (!log_z.ok()) return log_z.status();
  result.log_z = hidden.size() == 0 ? 0.0 : *log_z;
  LatentSolution solution;
  solution.labels = ProjectHiddenPath(best->labels, layout);
  solution.log_score = LabelingLogScore(hidden, layout, solution.labels, scratch);
  solution.probability = std::exp(solution.log_score - result.log_z);
  result.exact = Certifies(solution.probability, solution.probability);
  result.hidden_paths = 1;
  result.solutions.push_back(std::move(solution));
  return result;
}

absl::StatusOr<std::vector<double>> LatentLabelMarginals(const Lattice& hidden,
                                                         const LatentLayout& layout, double* log_z,
                                                         LatentScratch* scratch) {
  if (absl::Status s = CheckSizes(hidden, layout); !s.ok()) return s;
  LatentScratch local;
  if (scratch == nullptr) scratch = &local;
  absl::StatusOr<Marginals> marginals = ForwardBackward(hidden, &scratch->forward_backward);
  if (!marginals.ok()) return marginals.status();
  const int m = hidden.size();
  const int h = hidden.num_labels();
  const int n = layout.num_labels();
  std::vector<double> labels(static_cast<size_t>(m) * n, 0.0);
  for (int t = 0; t < m; ++t) {
    for (int s = 0; s < h; ++s) {
      labels[static_cast<size_t>(t) * n + layout.label_of(s)] += marginals->unary_at(t, s, h);
    }
  }
  if (log_z != nullptr) *log_z = m == 0 ? 0.0 : marginals->log_z;
  return labels;
}

absl::StatusOr<LatentDecodeResult> MarginalLatentDecode(const Lattice& hidden,
                                                        const LatentLayout& layout,
                                                        LatentScratch* scratch,
                                                        std::vector<double>* label_marginals) {
  LatentScratch local;
  if (scratch == nullptr) scratch = &local;
  LatentDecodeResult result;
  absl::StatusOr<std::vector<double>> marginals =
      LatentLabelMarginals(hidden, layout, &result.log_z, scratch);
  if (!marginals.ok()) return marginals.status();
  const int m = hidden.size();
  const int n = layout.num_labels();
  LatentSolution solution;
  solution.labels.resize(m);
  for (int t = 0; t < m; ++t) {
    const double* row = marginals->data() + static_cast<size_t>(t) * n;
    solution.labels[t] = static_cast<int>(std::max_element(row, row + n) - row);  // first max
  }
  solution.log_score = LabelingLogScore(hidden, layout, solution.labels, scratch);
  solution.probability =
      solution.log_score == kNegInf ? 0.0 : std::exp(solution.log_score - result.log_z);
  result.exact = solution.probability > 0 && Certifies(solution.probability, solution.probability);
  result.solutions.push_back(std::move(solution));
  if (label_marginals != nullptr) *label_marginals = *std::move(marginals);
  return result;
}

}  // namespace chaintag
