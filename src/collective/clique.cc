// Cardinality clique potentials and their MAP algorithms (Gupta, Diwan and Sarawagi, ICML 2007).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collective/collective.h"
#include "collective/internal.h"

namespace chaintag {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// `what` names the table in messages ("majority W"); user-given tables also get the magnitude
// cap, tables derived from a capped lambda do not (lambda * n^2 may exceed it).
absl::Status CheckTable(const std::vector<std::vector<double>>& table, const std::string& what,
                        bool check_magnitude) {
  if (table.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no labels"));
  if (static_cast<int64_t>(table.size()) > kMaxCliqueLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", table.size(), " labels, more than the limit ", kMaxCliqueLabels));
  }
  for (size_t y = 0; y < table.size(); ++y) {
    if (table[y].size() != table[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": row ", y, " has ", table[y].size(),
                                                     " values, row 0 has ", table[0].size()));
    }
    for (size_t k = 0; k < table[y].size(); ++k) {
      const double v = table[y][k];
      if (!std::isfinite(v)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, "[", y, "][", k, "] is not a finite number"));
      }
      if (check_magnitude && std::abs(v) > kMaxCliqueMagnitude) {
        return absl::InvalidArgumentError(absl::StrCat(what, "[", y, "][", k, "] = ", v,
                                                       " is larger in magnitude than the limit ",
                                                       kMaxCliqueMagnitude));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckShape(const char* kind, double lambda, int num_labels, int max_nodes) {
  if (!std::isfinite(lambda)) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " lambda must be a finite number"));
  }
  if (std::abs(lambda) > kMaxCliqueMagnitude) {
    return absl::InvalidArgumentError(absl::StrCat(
        kind, " lambda ", lambda, " is larger in magnitude than the limit ", kMaxCliqueMagnitude));
  }
  if (num_labels < 1 || num_labels > kMaxCliqueLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat("number of labels ", num_labels, " is outside 1..", kMaxCliqueLabels));
  }
  if (max_nodes < 0 || max_nodes > kMaxCliqueNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("number of nodes ", max_nodes, " is outside 0..", kMaxCliqueNodes));
  }
  if (static_cast<int64_t>(num_labels) * max_nodes > kMaxCliqueCells) {
    return absl::InvalidArgumentError(absl::StrCat("a potential for ", max_nodes, " nodes x ",
                                                   num_labels, " labels exceeds the limit of ",
                                                   kMaxCliqueCells, " cells"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CliquePotential> CliquePotential::FromTable(CliquePotentialFamily family,
                                                           const char* kind,
                                                           std::vector<std::vector<double>> table,
                                                           bool user_values) {
  const std::string what = absl::StrCat(kind, " table");
  if (auto s = CheckTable(table, what, user_values); !s.ok()) return s;
  if (table[0].empty() || static_cast<int64_t>(table[0].size()) - 1 > kMaxCliqueNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": rows must hold f_y(0..n) with n <= ", kMaxCliqueNodes, ", got ",
                     table[0].size(), " values"));
  }
  CliquePotential p;
  p.family_ = family;
  p.kind_ = kind;
  p.num_labels_ = static_cast<int>(table.size());
  p.max_nodes_ = static_cast<int>(table[0].size()) - 1;
  auto flat = std::make_shared<std::vector<double>>();
  for (const auto& row : table) flat->insert(flat->end(), row.begin(), row.end());
  p.table_ = std::move(flat);
  return p;
}

absl::StatusOr<CliquePotential> CliquePotential::MaxOf(std::vector<std::vector<double>> table) {
  return FromTable(CliquePotentialFamily::kMax, "max", std::move(table), true);
}

absl::StatusOr<CliquePotential> CliquePotential::SumOf(std::vector<std::vector<double>> table) {
  return FromTable(CliquePotentialFamily::kSum, "sum", std::move(table), true);
}

absl::StatusOr<CliquePotential> CliquePotential::Majority(std::vector<std::vector<double>> w) {
  if (auto s = CheckTable(w, "majority W", true); !s.ok()) return s;
  if (w[0].size() != w.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("majority W must be square: ", w.size(), " rows of ", w[0].size(), " values"));
  }
  CliquePotential p;
  p.family_ = CliquePotentialFamily::kMajority;
  p.kind_ = "majority";
  p.num_labels_ = static_cast<int>(w.size());
  p.max_nodes_ = kMaxCliqueNodes;
  auto flat = std::make_shared<std::vector<double>>();
  for (const auto& row : w) flat->insert(flat->end(), row.begin(), row.end());
  p.table_ = std::move(flat);
  return p;
}

absl::StatusOr<CliquePotential> CliquePotential::Potts(double lambda, int num_labels,
                                                       int max_nodes) {
  if (auto s = CheckShape("potts", lambda, num_labels, max_nodes); !s.ok()) return s;
  std::vector<double> row(max_nodes + 1);
  for (int k = 0; k <= max_nodes; ++k) row[k] = lambda * k * static_cast<double>(k);
  return FromTable(CliquePotentialFamily::kSum, "potts",
                   std::vector<std::vector<double>>(num_labels, row), false);
}

absl::StatusOr<CliquePotential> CliquePotential::NegativeEntropy(double lambda, int num_labels,
                                                                 int max_nodes) {
  if (auto s = CheckShape("entropy", lambda, num_labels, max_nodes); !s.ok()) return s;
  std::vector<double> row(max_nodes + 1, 0.0);
  for (int k = 1; k <= max_nodes; ++k) row[k] = lambda * k * std::log(static_cast<double>(k));
  return FromTable(CliquePotentialFamily::kSum, "entropy",
                   std::vector<std::vector<double>>(num_labels, row), false);
}

absl::StatusOr<CliquePotential> CliquePotential::Makespan(double lambda, int power, int num_labels,
                                                          int max_nodes) {
  if (auto s = CheckShape("makespan", lambda, num_labels, max_nodes); !s.ok()) return s;
  if (power != 1 && power != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("makespan power must be 1 (linear) or 2 (square), got ", power));
  }
  std::vector<double> row(max_nodes + 1);
  for (int k = 0; k <= max_nodes; ++k) row[k] = lambda * (power == 1 ? k : double{1} * k * k);
  return FromTable(CliquePotentialFamily::kMax, "makespan",
                   std::vector<std::vector<double>>(num_labels, row), false);
}

int CliquePotential::MajorityLabel(absl::Span<const int> counts) {
  int a = 0;
  for (size_t y = 1; y < counts.size(); ++y) {
    if (counts[y] > counts[a]) a = static_cast<int>(y);
  }
  return a;
}

double CliquePotential::Value(absl::Span<const int> counts) const {
  switch (family_) {
    case CliquePotentialFamily::kMax: {
      double best = -kInf;
      for (int y = 0; y < num_labels_; ++y) best = std::max(best, f(y, counts[y]));
      return best;
    }
    case CliquePotentialFamily::kSum: {
      double sum = 0;
      for (int y = 0; y < num_labels_; ++y) sum += f(y, counts[y]);
      return sum;
    }
    case CliquePotentialFamily::kMajority: {
      const int a = MajorityLabel(counts);
      double sum = 0;
      for (int y = 0; y < num_labels_; ++y) sum += w(a, y) * counts[y];
      return sum;
    }
  }
  return 0;
}

absl::StatusOr<Clique> Clique::Create(int num_nodes, int num_labels,
                                      std::vector<double> node_potentials,
                                      CliquePotential potential) {
  if (num_nodes < 1 || num_nodes > kMaxCliqueNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a clique needs 1..", kMaxCliqueNodes, " nodes, got ", num_nodes));
  }
  if (num_labels < 1 || num_labels > kMaxCliqueLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat("a clique needs 1..", kMaxCliqueLabels, " labels, got ", num_labels));
  }
  if (static_cast<int64_t>(num_nodes) * num_labels > kMaxCliqueCells) {
    return absl::InvalidArgumentError(absl::StrCat("a clique of ", num_nodes, " nodes x ",
                                                   num_labels, " labels exceeds the limit of ",
                                                   kMaxCliqueCells, " cells"));
  }
  if (node_potentials.size() != static_cast<size_t>(num_nodes) * num_labels) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", num_nodes, " x ", num_labels,
                                                   " node potentials, got ",
                                                   node_potentials.size()));
  }
  for (size_t i = 0; i < node_potentials.size(); ++i) {
    if (!std::isfinite(node_potentials[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node ", i / num_labels, " label ", i % num_labels, ": node potential is not finite"));
    }
    if (std::abs(node_potentials[i]) > kMaxCliqueMagnitude) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node ", i / num_labels, " label ", i % num_labels, ": node potential ",
          node_potentials[i], " is larger in magnitude than the limit ", kMaxCliqueMagnitude));
    }
  }
  if (potential.num_labels() != num_labels) {
    return absl::InvalidArgumentError(absl::StrCat("the clique potential has ",
                                                   potential.num_labels(),
                                                   " labels, the node potentials ", num_labels));
  }
  if (potential.max_nodes() < num_nodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the clique potential's table covers counts up to ", potential.max_nodes(),
                     ", the clique has ", num_nodes, " nodes"));
  }
  return Clique(num_nodes, num_labels, std::move(node_potentials), std::move(potential));
}

double Clique::Score(absl::Span<const int> labels) const {
  std::vector<int> counts(num_labels_, 0);
  double np = 0;
  for (int u = 0; u < num_nodes_; ++u) {
    np += phi(u, labels[u]);
    ++counts[labels[u]];
  }
  return np + potential_.Value(counts);
}

namespace collective_internal {

// Generalized alpha-pass (Section 3.2.2; p = 1 is the alpha-pass of Section 3.1, and MAJORITY
// potentials use the modified alpha-pass of Section 3.3.1). With fixed.node >= 0 only labelings
// giving that node fixed.label are considered.
absl::StatusOr<CliqueSolution> AlphaPassFixed(const Clique& clique, int p, FixedNode fixed) {
  const int n = clique.num_nodes();
  const int m = clique.num_labels();
  const CliquePotential& potential = clique.potential();
  const bool majority = potential.family() == CliquePotentialFamily::kMajority;
  if (p < 1) return absl::InvalidArgumentError("alpha-pass needs p >= 1");
  if (majority && p > 1) {
    return absl::InvalidArgumentError(
        "the generalized alpha-pass (p > 1) is for MAX and SUM potentials; MAJORITY potentials "
        "take the modified alpha-pass (p = 1) or majority-exact");
  }
  p = std::min(p, m);
  // Number of subsets of size <= p.
  double subsets = 0, binom = 1;
  for (int s = 1; s <= p; ++s) {
    binom = binom * (m - s + 1) / s;
    subsets += binom;
  }
  if (subsets * n * m > kMaxCliqueWork) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "alpha-pass with p = ", p, " over ", m, " labels visits ", subsets, " label subsets of ", n,
        " nodes: more than the limit of ", kMaxCliqueWork, " steps"));
  }

  std::vector<char> in_set(m, 0);
  std::vector<int> subset;
  std::vector<double> offset(m, 0.0);  // w[alpha][y] for MAJORITY, else 0
  std::vector<int> in_label(n), out_label(n), order(n), labels(n), counts(m);
  std::vector<double> key(n);
  CliqueSolution best;
  best.score = -kInf;

  auto visit = [&]() {
    if (majority) {
      for (int y = 0; y < m; ++y) offset[y] = potential.w(subset[0], y);
    }
    const bool covers_all = static_cast<int>(subset.size()) == m;
    for (int u = 0; u < n; ++u) {
      int bi = -1, bo = -1;
      double vi = -kInf, vo = -kInf;
      for (int y = 0; y < m; ++y) {
        const double v = clique.phi(u, y) + offset[y];
        if (in_set[y]) {
          if (bi < 0 || v > vi) bi = y, vi = v;
        } else if (bo < 0 || v > vo) {
          bo = y, vo = v;
        }
      }
      if (u == fixed.node) {
        if (in_set[fixed.label]) {
          bi = fixed.label;
          key[u] = kInf;  // first in the order: inside the set whenever k >= 1
        } else {
          bo = fixed.label;
          key[u] = -kInf;  // last: outside the set whenever k <= n - 1
        }
      } else {
        key[u] = covers_all ? kInf : vi - vo;
      }
      in_label[u] = bi;
      out_label[u] = covers_all ? bi : bo;
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] > key[b]; });
    std::fill(counts.begin(), counts.end(), 0);
    double np = 0;
    for (int u = 0; u < n; ++u) {
      labels[u] = out_label[u];
      ++counts[labels[u]];
      np += clique.phi(u, labels[u]);
    }
    const int k_min = (covers_all || (fixed.node >= 0 && in_set[fixed.label])) ? 1 : 0;
    const int k_max = (fixed.node >= 0 && !in_set[fixed.label]) ? n - 1 : n;
    for (int k = 0; k <= n; ++k) {
      if (k > 0) {
        const int u = order[k - 1];
        np += clique.phi(u, in_label[u]) - clique.phi(u, labels[u]);
        --counts[labels[u]];
        labels[u] = in_label[u];
        ++counts[labels[u]];
      }
      if (k < k_min || k > k_max) continue;
      if (covers_all && k < n) continue;
      if (majority && CliquePotential::MajorityLabel(counts) != subset[0]) continue;
      const double score = np + potential.Value(counts);
      if (score > best.score) {
        best.score = score;
        best.labels = labels;
      }
    }
  };

  // Enumerate subsets of size 1..p in lexicographic order.
  for (int size = 1; size <= p; ++size) {
    subset.resize(size);
    std::iota(subset.begin(), subset.end(), 0);
    while (true) {
      for (int y : subset) in_set[y] = 1;
      visit();
      for (int y : subset) in_set[y] = 0;
      int i = size - 1;
      while (i >= 0 && subset[i] == m - size + i) --i;
      if (i < 0) break;
      ++subset[i];
      for (int j = i + 1; j < size; ++j) subset[j] = subset[j - 1] + 1;
    }
  }
  if (best.labels.empty()) return absl::InternalError("alpha-pass found no labeling");
  best.score = clique.Score(best.labels);
  return best;
}

absl::StatusOr<CliqueSolution> IcmFixed(const Clique& clique, int max_sweeps, FixedNode fixed) {
  const int n = clique.num_nodes();
  const int m = clique.num_labels();
  if (max_sweeps < 1) return absl::InvalidArgumentError("ICM needs at least one sweep");
  if (static_cast<double>(n) * m * m > kMaxCliqueWork) {
    return absl::ResourceExhaustedError(absl::StrCat("an ICM sweep over ", n, " nodes and ", m,
                                                     " labels takes more than the limit of ",
                                                     kMaxCliqueWork, " steps"));
  }
  // Every sweep raises the score; the sweeps are also bounded by the work limit.
  max_sweeps = static_cast<int>(std::min<double>(
      max_sweeps, std::max(1.0, kMaxCliqueWork / (static_cast<double>(n) * m * m))));
  std::vector<int> labels(n), counts(m, 0);
  for (int u = 0; u < n; ++u) {
    int best = 0;
    for (int y = 1; y < m; ++y) {
      if (clique.phi(u, y) > clique.phi(u, best)) best = y;
    }
    labels[u] = u == fixed.node ? fixed.label : best;
    ++counts[labels[u]];
  }
  const CliquePotential& potential = clique.potential();
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    bool changed = false;
    for (int u = 0; u < n; ++u) {
      if (u == fixed.node) continue;
      const int current = labels[u];
      --counts[current];
      int best = current;
      ++counts[current];
      double best_value = clique.phi(u, current) + potential.Value(counts);
      --counts[current];
      for (int y = 0; y < m; ++y) {
        if (y == current) continue;
        ++counts[y];
        const double v = clique.phi(u, y) + potential.Value(counts);
        --counts[y];
        // Strictly better by more than rounding noise, so ICM always terminates.
        if (v > best_value + 1e-12 * (1 + std::abs(best_value))) best = y, best_value = v;
      }
      ++counts[best];
      if (best != current) {
        labels[u] = best;
        changed = true;
      }
    }
    if (!changed) break;
  }
  CliqueSolution solution;
  solution.score = clique.Score(labels);
  solution.labels = std::move(labels);
  return solution;
}

absl::Status CheckBruteForceSize(const Clique& clique) {
  double labelings = 1;
  for (int u = 0; u < clique.num_nodes(); ++u) {
    labelings *= clique.num_labels();
    if (labelings > static_cast<double>(kMaxBruteForceLabelings)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "exact (brute force) enumerates ", clique.num_labels(), "^", clique.num_nodes(),
          " labelings, more than the limit ", kMaxBruteForceLabelings,
          "; use alpha-pass (exact for MAX potentials) or "
          "majority-exact"));
    }
  }
  return absl::OkStatus();
}

// Enumerates every labeling; calls fn(labels, score).
template <typename Fn>
void EnumerateLabelings(const Clique& clique, Fn fn) {
  const int n = clique.num_nodes();
  const int m = clique.num_labels();
  std::vector<int> labels(n, 0), counts(m, 0);
  counts[0] = n;
  double np = 0;
  for (int u = 0; u < n; ++u) np += clique.phi(u, 0);
  while (true) {
    fn(labels, np + clique.potential().Value(counts));
    int u = 0;
    while (u < n && labels[u] == m - 1) {
      np += clique.phi(u, 0) - clique.phi(u, m - 1);
      --counts[m - 1];
      ++counts[0];
      labels[u] = 0;
      ++u;
    }
    if (u == n) break;
    np += clique.phi(u, labels[u] + 1) - clique.phi(u, labels[u]);
    --counts[labels[u]];
    ++labels[u];
    ++counts[labels[u]];
  }
}

}  // namespace collective_internal

using collective_internal::FixedNode;

absl::StatusOr<CliqueSolution> AlphaPass(const Clique& clique, int p) {
  return collective_internal::AlphaPassFixed(clique, p, FixedNode{});
}

absl::StatusOr<CliqueSolution> Icm(const Clique& clique, int max_sweeps) {
  return collective_internal::IcmFixed(clique, max_sweeps, FixedNode{});
}

absl::StatusOr<CliqueSolution> BruteForceMap(const Clique& clique) {
  if (auto s = collective_internal::CheckBruteForceSize(clique); !s.ok()) return s;
  CliqueSolution best;
  best.score = -kInf;
  collective_internal::EnumerateLabelings(clique, [&](const std::vector<int>& labels, double) {
    const double score = clique.Score(labels);  // recomputed: no drift from the running sum
    if (score > best.score) {
      best.score = score;
      best.labels = labels;
    }
  });
  return best;
}

absl::StatusOr<CliqueAlgorithm> ParseCliqueAlgorithm(std::string_view name) {
  if (name == "alpha-pass") return CliqueAlgorithm::kAlphaPass;
  if (name == "alpha-pass-2") return CliqueAlgorithm::kAlphaPass2;
  if (name == "icm") return CliqueAlgorithm::kIcm;
  if (name == "exact") return CliqueAlgorithm::kExact;
  if (name == "majority-exact") return CliqueAlgorithm::kMajorityExact;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown clique algorithm '", std::string(name),
                   "' (expected alpha-pass, alpha-pass-2, icm, exact or majority-exact)"));
}

std::string_view CliqueAlgorithmName(CliqueAlgorithm algorithm) {
  switch (algorithm) {
    case CliqueAlgorithm::kAlphaPass:
      return "alpha-pass";
    case CliqueAlgorithm::kAlphaPass2:
      return "alpha-pass-2";
    case CliqueAlgorithm::kIcm:
      return "icm";
    case CliqueAlgorithm::kExact:
      return "exact";
    case CliqueAlgorithm::kMajorityExact:
      return "majority-exact";
  }
  return "?";
}

namespace {

absl::StatusOr<CliqueSolution> SolveFixed(const Clique& clique, CliqueAlgorithm algorithm,
                                          FixedNode fixed) {
  switch (algorithm) {
    case CliqueAlgorithm::kAlphaPass:
      return collective_internal::AlphaPassFixed(clique, 1, fixed);
    case CliqueAlgorithm::kAlphaPass2:
      return collective_internal::AlphaPassFixed(clique, 2, fixed);
    case CliqueAlgorithm::kIcm:
      return collective_internal::IcmFixed(clique, 1000, fixed);
    case CliqueAlgorithm::kMajorityExact:
      return collective_internal::MajorityExactFixed(clique, fixed);
    case CliqueAlgorithm::kExact:
      break;
  }
  return absl::InternalError("SolveFixed: unexpected algorithm");
}

}  // namespace

absl::StatusOr<CliqueSolution> SolveClique(const Clique& clique, CliqueAlgorithm algorithm) {
  if (algorithm == CliqueAlgorithm::kExact) return BruteForceMap(clique);
  return SolveFixed(clique, algorithm, FixedNode{});
}

absl::StatusOr<std::vector<double>> CliqueMaxMarginals(const Clique& clique,
                                                       CliqueAlgorithm algorithm) {
  const int n = clique.num_nodes();
  const int m = clique.num_labels();
  std::vector<double> result(static_cast<size_t>(n) * m, -kInf);
  if (algorithm == CliqueAlgorithm::kExact) {
    if (auto s = collective_internal::CheckBruteForceSize(clique); !s.ok()) return s;
    collective_internal::EnumerateLabelings(clique, [&](const std::vector<int>& labels, double) {
      const double score = clique.Score(labels);
      for (int u = 0; u < n; ++u) {
        double& cell = result[static_cast<size_t>(u) * m + labels[u]];
        cell = std::max(cell, score);
      }
    });
    return result;
  }
  // n*m solves: refused when that many solves would exceed the work limit.
  const double cells = static_cast<double>(n) * m;
  double per_solve = 0;
  switch (algorithm) {
    case CliqueAlgorithm::kAlphaPass:
      per_solve = cells * m;
      break;
    case CliqueAlgorithm::kAlphaPass2:
      per_solve = cells * m * (m + 1) / 2;
      break;
    case CliqueAlgorithm::kIcm:
      per_solve = cells * m * 10;  // a few sweeps
      break;
    default:
      per_solve = cells * cells * 10;  // a few flow problems
      break;
  }
  if (cells * per_solve > kMaxCliqueWork) {
    return absl::ResourceExhaustedError(
        absl::StrCat("max-marginals of ", n, " nodes x ", m, " labels with ",
                     std::string(CliqueAlgorithmName(algorithm)), " solve the clique ", cells,
                     " times: more than the limit of ", kMaxCliqueWork, " steps"));
  }
  for (int u = 0; u < n; ++u) {
    for (int y = 0; y < m; ++y) {
      auto solution = SolveFixed(clique, algorithm, FixedNode{u, y});
      if (!solution.ok()) return solution.status();
      result[static_cast<size_t>(u) * m + y] = solution->score;
    }
  }
  return result;
}

}  // namespace chaintag
