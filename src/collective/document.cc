// Collective labelling of a document: max-product message passing between sentence chains and
// cardinality cliques over repeated words (Gupta, Diwan and Sarawagi, ICML 2007, Section 2.1;
// clique max-marginals by alpha-pass, Sections 3.1 and 3.3.1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collective/collective.h"

namespace chaintag {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Node potentials of a clique must be finite: a label a chain cannot take gets this much less than
// the node's best label (far beyond any clique bonus, so it is never chosen for it).
constexpr double kInfeasibleGap = 1e6;

// Max-sum forward-backward over a lattice whose unaries get `extra` added (M x N, may be empty):
// maxmarg[t * N + y] is the best score of a labeling with y_t = y; `labels` the Viterbi labeling
// (ties to the smallest label, from the end). Returns false when no labeling has a finite score.
bool MaxSumForwardBackward(const Lattice& lattice, const std::vector<double>& extra,
                           std::vector<double>* maxmarg, std::vector<int>* labels,
                           std::vector<double>* alpha, std::vector<double>* beta,
                           std::vector<int>* back) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  labels->assign(m, 0);
  maxmarg->assign(static_cast<size_t>(m) * n, -kInf);
  if (m == 0) return true;
  auto unary = [&](int t, int y) {
    const size_t i = static_cast<size_t>(t) * n + y;
    return extra.empty() ? lattice.unary(t, y) : lattice.unary(t, y) + extra[i];
  };
  alpha->assign(static_cast<size_t>(m) * n, -kInf);
  beta->assign(static_cast<size_t>(m) * n, -kInf);
  back->assign(static_cast<size_t>(m) * n, -1);
  for (int y = 0; y < n; ++y) (*alpha)[y] = lattice.start(y) + unary(0, y);
  for (int t = 1; t < m; ++t) {
    for (int y = 0; y < n; ++y) {
      double best = -kInf;
      int arg = -1;
      for (int p = 0; p < n; ++p) {
        const double v = (*alpha)[static_cast<size_t>(t - 1) * n + p] + lattice.transition(p, y);
        if (v > best) {
          best = v;
          arg = p;
        }
      }
      (*alpha)[static_cast<size_t>(t) * n + y] = best + unary(t, y);
      (*back)[static_cast<size_t>(t) * n + y] = arg;
    }
  }
  for (int y = 0; y < n; ++y) (*beta)[static_cast<size_t>(m - 1) * n + y] = lattice.end(y);
  for (int t = m - 2; t >= 0; --t) {
    for (int y = 0; y < n; ++y) {
      double best = -kInf;
      for (int next = 0; next < n; ++next) {
        const double v = lattice.transition(y, next) + unary(t + 1, next) +
                         (*beta)[static_cast<size_t>(t + 1) * n + next];
        best = std::max(best, v);
      }
      (*beta)[static_cast<size_t>(t) * n + y] = best;
    }
  }
  for (size_t i = 0; i < maxmarg->size(); ++i) (*maxmarg)[i] = (*alpha)[i] + (*beta)[i];
  double best = -kInf;
  int arg = -1;
  for (int y = 0; y < n; ++y) {
    const double v = (*alpha)[static_cast<size_t>(m - 1) * n + y] + lattice.end(y);
    if (v > best) {
      best = v;
      arg = y;
    }
  }
  if (arg < 0 || !std::isfinite(best)) return false;
  (*labels)[m - 1] = arg;
  for (int t = m - 1; t > 0; --t) {
    (*labels)[t - 1] = (*back)[static_cast<size_t>(t) * n + (*labels)[t]];
  }
  return true;
}

}  // namespace

double JointObjective(absl::Span<const Lattice> chains, absl::Span<const DocumentClique> cliques,
                      const std::vector<std::vector<int>>& labels) {
  double total = 0.0;
  for (size_t s = 0; s < chains.size(); ++s) total += chains[s].Score(labels[s]);
  std::vector<int> counts;
  for (const DocumentClique& c : cliques) {
    counts.assign(c.potential.num_labels(), 0);
    for (const auto& [s, t] : c.nodes) ++counts[labels[s][t]];
    total += c.potential.Value(counts);
  }
  return total;
}

absl::StatusOr<CollectiveDecodeResult> CollectiveDecode(absl::Span<const Lattice> chains,
                                                        absl::Span<const DocumentClique> cliques,
                                                        const CollectiveDecodeOptions& options) {
  if (options.max_iterations < 1 ||
      options.max_iterations > CollectiveDecodeOptions::kMaxIterations) {
    return absl::InvalidArgumentError(absl::StrCat("collective iterations must be in 1..",
                                                   CollectiveDecodeOptions::kMaxIterations,
                                                   ", found ", options.max_iterations));
  }
  const int num_chains = static_cast<int>(chains.size());
  const int n = num_chains == 0 ? 0 : chains[0].num_labels();
  // (chain, position) -> (clique, node) memberships, checked.
  std::vector<std::vector<std::vector<std::pair<int, int>>>> member(num_chains);
  for (int s = 0; s < num_chains; ++s) {
    if (chains[s].order() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("collective decoding: chain ", s, " is second order; expected first order"));
    }
    if (chains[s].num_labels() != n) {
      return absl::InvalidArgumentError(absl::StrCat("collective decoding: chain ", s, " has ",
                                                     chains[s].num_labels(),
                                                     " labels, chain 0 has ", n));
    }
    member[s].resize(chains[s].size());
  }
  for (size_t c = 0; c < cliques.size(); ++c) {
    const DocumentClique& clique = cliques[c];
    if (clique.potential.num_labels() != n ||
        static_cast<int>(clique.nodes.size()) > clique.potential.max_nodes()) {
      return absl::InvalidArgumentError(
          absl::StrCat("collective decoding: clique ", c, " has a potential for ",
                       clique.potential.num_labels(), " labels and ", clique.potential.max_nodes(),
                       " nodes; expected ", n, " labels and ", clique.nodes.size(), " nodes"));
    }
    for (size_t u = 0; u < clique.nodes.size(); ++u) {
      const auto [s, t] = clique.nodes[u];
      if (s < 0 || s >= num_chains || t < 0 || t >= chains[s].size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "collective decoding: clique ", c, " has node (", s, ", ", t, ") outside the chains"));
      }
      for (const auto& [other, unused] : member[s][t]) {
        if (other == static_cast<int>(c)) {
          return absl::InvalidArgumentError(absl::StrCat("collective decoding: clique ", c,
                                                         " has node (", s, ", ", t, ") twice"));
        }
      }
      member[s][t].emplace_back(static_cast<int>(c), static_cast<int>(u));
    }
  }

  CollectiveDecodeResult result;
  // messages[c][u * n + y]: clique c's message to its node u (normalised: max 0).
  std::vector<std::vector<double>> messages(cliques.size());
  // to_clique[c][u * n + y]: the chain's message to clique c's node u.
  std::vector<std::vector<double>> to_clique(cliques.size());
  for (size_t c = 0; c < cliques.size(); ++c) {
    messages[c].assign(cliques[c].nodes.size() * n, 0.0);
    to_clique[c].assign(cliques[c].nodes.size() * n, 0.0);
  }
  std::vector<double> extra, maxmarg, alpha, beta;
  std::vector<int> back;
  std::vector<std::vector<int>> candidate(num_chains);

  // One chain pass: Viterbi with the current clique messages into `candidate`, and the chain's
  // messages to the cliques.
  auto chain_pass = [&]() -> absl::Status {
    for (int s = 0; s < num_chains; ++s) {
      const Lattice& lattice = chains[s];
      extra.assign(static_cast<size_t>(lattice.size()) * n, 0.0);
      bool any = false;
      for (int t = 0; t < lattice.size(); ++t) {
        for (const auto& [c, u] : member[s][t]) {
          any = true;
          for (int y = 0; y < n; ++y)
            extra[static_cast<size_t>(t) * n + y] += messages[c][u * n + y];
        }
      }
      if (!any) extra.clear();
      if (!MaxSumForwardBackward(lattice, extra, &maxmarg, &candidate[s], &alpha, &beta, &back)) {
        return absl::NotFoundError(
            absl::StrCat("infeasible: sentence ", s + 1, " of the document has no labeling"));
      }
      for (int t = 0; t < lattice.size(); ++t) {
        for (const auto& [c, u] : member[s][t]) {
          double* out = &to_clique[c][static_cast<size_t>(u) * n];
          for (int y = 0; y < n; ++y) {
            out[y] = maxmarg[static_cast<size_t>(t) * n + y] - messages[c][u * n + y];
          }
        }
      }
    }
    return absl::OkStatus();
  };
  // One clique pass: new clique messages from the chains' messages.
  auto clique_pass = [&]() -> absl::Status {
    std::vector<double> phi;
    for (size_t c = 0; c < cliques.size(); ++c) {
      const int size = static_cast<int>(cliques[c].nodes.size());
      phi.assign(to_clique[c].begin(), to_clique[c].end());
      for (int u = 0; u < size; ++u) {
        double* row = &phi[static_cast<size_t>(u) * n];
        const double top = *std::max_element(row, row + n);
        for (int y = 0; y < n; ++y) row[y] = std::isfinite(row[y]) ? row[y] - top : -kInfeasibleGap;
      }
      auto clique = Clique::Create(size, n, phi, cliques[c].potential);
      if (!clique.ok()) return clique.status();
      auto mm = CliqueMaxMarginals(*clique, options.algorithm);
      if (!mm.ok()) return mm.status();
      for (int u = 0; u < size; ++u) {
        double* msg = &messages[c][static_cast<size_t>(u) * n];
        double top = -kInf;
        for (int y = 0; y < n; ++y) {
          msg[y] = (*mm)[static_cast<size_t>(u) * n + y] - phi[static_cast<size_t>(u) * n + y];
          top = std::max(top, msg[y]);
        }
        for (int y = 0; y < n; ++y) msg[y] -= top;
      }
    }
    return absl::OkStatus();
  };

  if (absl::Status s = chain_pass(); !s.ok()) return s;
  result.plain_labels = candidate;
  result.labels = candidate;
  result.plain_objective = JointObjective(chains, cliques, candidate);
  result.objective = result.plain_objective;
  if (cliques.empty()) {
    result.converged = true;
    return result;
  }
  std::vector<std::vector<int>> previous = candidate;
  for (int it = 1; it <= options.max_iterations; ++it) {
    if (absl::Status s = clique_pass(); !s.ok()) return s;
    if (absl::Status s = chain_pass(); !s.ok()) return s;
    result.iterations = it;
    const double objective = JointObjective(chains, cliques, candidate);
    if (objective > result.objective) {
      result.objective = objective;
      result.labels = candidate;
    }
    if (candidate == previous) {
      result.converged = true;
      break;
    }
    previous = candidate;
  }
  return result;
}

}  // namespace chaintag
