// Exact MAP for linear MAJORITY clique potentials (Gupta, Diwan and Sarawagi, ICML 2007, Section
// 3.3.2): for each majority label a and count k, a degree-constrained bipartite matching solved as
// a min-cost flow with Boost.Graph's successive shortest paths.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collective/collective.h"
#include "collective/internal.h"

namespace chaintag::collective_internal {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Edge costs are integers in [0, 2^36] held in doubles: sums along any path stay exact (below
// 2^53 for up to kMaxCliqueNodes nodes), so Dijkstra's reduced costs never go negative by
// rounding.
constexpr double kCostScale = 68719476736.0;  // 2^36

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<
        boost::edge_capacity_t, long,
        boost::property<boost::edge_residual_capacity_t, long,
                        boost::property<boost::edge_reverse_t, Traits::edge_descriptor,
                                        boost::property<boost::edge_weight_t, double>>>>>;
using Edge = Traits::edge_descriptor;

class FlowBuilder {
 public:
  explicit FlowBuilder(int vertices) : graph_(vertices) {}
  Edge Add(int from, int to, long capacity, double cost) {
    Edge e = boost::add_edge(from, to, graph_).first;
    Edge r = boost::add_edge(to, from, graph_).first;
    boost::put(boost::edge_capacity, graph_, e, capacity);
    boost::put(boost::edge_capacity, graph_, r, 0);
    boost::put(boost::edge_weight, graph_, e, cost);
    boost::put(boost::edge_weight, graph_, r, -cost);
    boost::put(boost::edge_reverse, graph_, e, r);
    boost::put(boost::edge_reverse, graph_, r, e);
    return e;
  }
  FlowGraph& graph() { return graph_; }

 private:
  FlowGraph graph_;
};

// Count caps of the subproblem (a, k): n_a = k exactly, n_y < k for y < a and n_y <= k for y > a,
// so that a is the majority label (the lowest label with the largest count).
long Cap(int y, int a, int k) { return y < a ? k - 1 : k; }

}  // namespace

absl::StatusOr<CliqueSolution> MajorityExactFixed(const Clique& clique, FixedNode fixed) {
  const CliquePotential& potential = clique.potential();
  if (potential.family() != CliquePotentialFamily::kMajority) {
    return absl::InvalidArgumentError(absl::StrCat(
        "majority-exact solves MAJORITY potentials only; this clique's potential is ",
        potential.kind(),
        potential.family() == CliquePotentialFamily::kMax
            ? " (a MAX potential), for which alpha-pass is exact"
            : " (a SUM potential): use alpha-pass (exact for two labels), alpha-pass-2, icm or "
              "exact"));
  }
  const int n = clique.num_nodes();
  const int m = clique.num_labels();
  if (static_cast<int64_t>(n) * m > kMaxMajorityExactCells) {
    return absl::ResourceExhaustedError(absl::StrCat("majority-exact on ", n, " nodes x ", m,
                                                     " labels exceeds the limit of ",
                                                     kMaxMajorityExactCells, " cells"));
  }
  auto psi = [&](int a, int u, int y) { return clique.phi(u, y) + potential.w(a, y); };

  // Bounds: for each (a, k) the best node score with exactly k nodes at a and no other cap
  // (Claim 3.1 with potentials phi_uy + w_ay); when that labeling already meets the caps it
  // solves the subproblem.
  struct Bound {
    double value;
    int a;
    int k;
  };
  std::vector<Bound> open;
  CliqueSolution best;
  best.score = -kInf;
  std::vector<int> order(n), out(n), labels(n), counts(m);
  std::vector<double> key(n);
  for (int a = 0; a < m; ++a) {
    for (int u = 0; u < n; ++u) {
      int bo = -1;
      for (int y = 0; y < m; ++y) {
        if (y != a && (bo < 0 || psi(a, u, y) > psi(a, u, bo))) bo = y;
      }
      if (u == fixed.node) {
        if (fixed.label == a) {
          key[u] = kInf;
        } else {
          bo = fixed.label;
          key[u] = -kInf;
        }
      } else {
        key[u] = bo < 0 ? kInf : psi(a, u, a) - psi(a, u, bo);
      }
      out[u] = bo < 0 ? a : bo;
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key[x] > key[y]; });
    std::fill(counts.begin(), counts.end(), 0);
    double value = 0;
    for (int u = 0; u < n; ++u) {
      labels[u] = out[u];
      ++counts[labels[u]];
      value += psi(a, u, labels[u]);
    }
    for (int k = 0; k <= n; ++k) {
      if (k > 0) {
        const int u = order[k - 1];
        value += psi(a, u, a) - psi(a, u, labels[u]);
        --counts[labels[u]];
        labels[u] = a;
        ++counts[a];
      }
      if (k == 0) continue;  // a is never the majority label with count 0 (n >= 1)
      if (fixed.node >= 0 && (fixed.label == a ? k < 1 : k > n - 1)) continue;
      if (m == 1 && k < n) continue;
      // Feasible caps: k + sum of the other caps must reach n.
      if (k + static_cast<int64_t>(a) * (k - 1) + static_cast<int64_t>(m - 1 - a) * k < n) continue;
      if (fixed.node >= 0 && fixed.label != a && Cap(fixed.label, a, k) < 1) continue;
      bool meets_caps = true;
      for (int y = 0; y < m && meets_caps; ++y) {
        if (y != a && counts[y] > Cap(y, a, k)) meets_caps = false;
      }
      if (meets_caps) {
        if (value > best.score) {
          best.score = value;
          best.labels = labels;
        }
      } else {
        open.push_back({value, a, k});
      }
    }
  }
  std::sort(open.begin(), open.end(),
            [](const Bound& x, const Bound& y) { return x.value > y.value; });

  // Integer costs per majority label a: cost_uy = round((top_a - psi) * scale_a) >= 0, where
  // only row a of W enters, so a large weight in another row costs this subproblem no precision.
  std::vector<double> top(m, -kInf), scale(m, 1.0);
  for (int a = 0; a < m; ++a) {
    double bottom = kInf;
    for (int u = 0; u < n; ++u) {
      for (int y = 0; y < m; ++y) {
        top[a] = std::max(top[a], psi(a, u, y));
        bottom = std::min(bottom, psi(a, u, y));
      }
    }
    if (top[a] > bottom) scale[a] = kCostScale / (top[a] - bottom);
  }

  // Vertices: source, n nodes, m labels, a collector for labels other than a, sink.
  const int source = 0, first_label = 1 + n, collector = 1 + n + m, sink = 2 + n + m;
  for (const Bound& bound : open) {
    if (bound.value <= best.score) break;  // no remaining subproblem can do better
    const int a = bound.a, k = bound.k;
    FlowBuilder builder(sink + 1);
    std::vector<std::vector<std::pair<int, Edge>>> node_edges(n);
    for (int u = 0; u < n; ++u) {
      builder.Add(source, 1 + u, 1, 0.0);
      for (int y = 0; y < m; ++y) {
        if (u == fixed.node && y != fixed.label) continue;
        const double cost = std::round((top[a] - psi(a, u, y)) * scale[a]);
        node_edges[u].push_back({y, builder.Add(1 + u, first_label + y, 1, cost)});
      }
    }
    for (int y = 0; y < m; ++y) {
      if (y != a) builder.Add(first_label + y, collector, Cap(y, a, k), 0.0);
    }
    // a -> sink (capacity k) and collector -> sink (n - k): a flow of n saturates both, so
    // exactly k nodes take a.
    builder.Add(first_label + a, sink, k, 0.0);
    builder.Add(collector, sink, n - k, 0.0);
    FlowGraph& g = builder.graph();
    boost::successive_shortest_path_nonnegative_weights(g, source, sink);
    bool complete = true;
    for (int u = 0; u < n && complete; ++u) {
      labels[u] = -1;
      for (const auto& [y, e] : node_edges[u]) {
        if (boost::get(boost::edge_residual_capacity, g, e) == 0) labels[u] = y;
      }
      if (labels[u] < 0) complete = false;
    }
    if (!complete) continue;  // the caps admit no labeling
    const double score = clique.Score(labels);
    if (score > best.score) {
      best.score = score;
      best.labels = labels;
    }
  }
  if (best.labels.empty()) return absl::InternalError("majority-exact found no labeling");
  best.score = clique.Score(best.labels);
  return best;
}

}  // namespace chaintag::collective_internal

namespace chaintag {

absl::StatusOr<CliqueSolution> MajorityExactMap(const Clique& clique) {
  return collective_internal::MajorityExactFixed(clique, collective_internal::FixedNode{});
}

}  // namespace chaintag
