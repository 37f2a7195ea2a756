// Test helpers: random lattices and exhaustive enumeration of all N^M labelings.
#ifndef CHAINTAG_TESTS_SUPPORT_BRUTE_FORCE_H_
#define CHAINTAG_TESTS_SUPPORT_BRUTE_FORCE_H_

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "chaintag/lattice.h"
#include "decode/aux_dp.h"

namespace chaintag::testing {

// Scores are small integers when `integral` (exact sums, so ties are real ties) else uniform reals;
// each cell is -inf with probability `p_masked`.
inline Lattice RandomLattice(std::mt19937& rng, int m, int n, bool integral, double p_masked) {
  Lattice lattice(m, n);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-2, 2);
  std::bernoulli_distribution masked(p_masked);
  auto draw = [&]() {
    if (masked(rng)) return kNegInf;
    return integral ? static_cast<double>(small(rng)) : real(rng);
  };
  for (int t = 0; t < m; ++t)
    for (int y = 0; y < n; ++y) lattice.unary(t, y) = draw();
  for (int p = 0; p < n; ++p)
    for (int y = 0; y < n; ++y) lattice.transition(p, y) = draw();
  for (int y = 0; y < n; ++y) {
    lattice.start(y) = draw();
    lattice.end(y) = draw();
  }
  return lattice;
}

// RandomLattice made second order, with trigram scores drawn the same way.
inline Lattice RandomSecondOrder(std::mt19937& rng, int m, int n, bool integral, double p_masked) {
  Lattice lattice = RandomLattice(rng, m, n, integral, p_masked);
  lattice.EnableSecondOrder();
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-2, 2);
  std::bernoulli_distribution masked(p_masked);
  for (double& x : lattice.trigram_data()) {
    x = masked(rng) ? kNegInf : integral ? static_cast<double>(small(rng)) : real(rng);
  }
  return lattice;
}

// Calls visit(labels) for every labeling in lexicographic order (position 0 most significant).
inline void ForEachLabeling(int m, int n,
                            const std::function<void(const std::vector<int>&)>& visit) {
  std::vector<int> labels(m, 0);
  while (true) {
    visit(labels);
    int t = m - 1;
    while (t >= 0 && ++labels[t] == n) labels[t--] = 0;
    if (t < 0) break;
  }
}

// True if `a` precedes `b` when both are read from the last position backwards (the decoders'
// tie-break: smallest label id at the last position, then the one before, ...).
inline bool ReverseLexLess(const std::vector<int>& a, const std::vector<int>& b) {
  for (int t = static_cast<int>(a.size()) - 1; t >= 0; --t) {
    if (a[t] != b[t]) return a[t] < b[t];
  }
  return false;
}

inline double LogSumExp(const std::vector<double>& v) {
  double mx = kNegInf;
  for (double x : v) mx = std::max(mx, x);
  if (mx == kNegInf) return kNegInf;
  double s = 0;
  for (double x : v) s += std::exp(x - mx);
  return mx + std::log(s);
}

// Chunk label inventories for chunk statistics on small lattices (N <= 4).
inline std::vector<std::string> ChunkLabels(int n) {
  const std::vector<std::string> all = {"O", "B-NP", "I-NP", "B-VP"};
  return std::vector<std::string>(all.begin(), all.begin() + n);
}

inline std::vector<std::string> Names(const std::vector<std::string>& labels,
                                      const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(labels[id]);
  return out;
}

// Runs a statistic over a labeling with its own Next (kInfeasible sticks).
inline int RunStatistic(const Statistic& s, const std::vector<int>& y) {
  int state = s.Initial();
  for (size_t t = 0; t < y.size() && state != Statistic::kInfeasible; ++t) {
    state = s.Next(state, static_cast<int>(t), t == 0 ? -1 : y[t - 1], y[t]);
  }
  return state;
}

// A random constraint as a Statistic plus the same condition computed directly from its definition.
struct RandomConstraint {
  std::unique_ptr<Statistic> statistic;
  std::function<bool(const std::vector<int>&)> holds;
};

inline RandomConstraint MakeConstraint(std::mt19937& rng, int m, int n, const ChunkTable& chunks,
                                       const std::vector<std::string>& names) {
  std::uniform_int_distribution<int> kind_dist(0, 3);
  std::uniform_int_distribution<int> small(0, 3);
  std::uniform_int_distribution<int> label(0, n - 1);
  RandomConstraint c;
  const int kind = kind_dist(rng);
  if (kind == 0 || kind == 1) {
    const int lower = small(rng);
    const int upper = std::bernoulli_distribution(0.3)(rng) ? -1 : lower + small(rng) / 2;
    auto within = [lower, upper](int count) {
      return count >= lower && (upper < 0 || count <= upper);
    };
    if (kind == 0) {
      std::vector<int> set;
      for (int y = 0; y < n; ++y)
        if (std::bernoulli_distribution(0.5)(rng)) set.push_back(y);
      c.statistic = std::make_unique<LabelCountStatistic>(n, set, lower, upper);
      c.holds = [set, within](const std::vector<int>& y) {
        int count = 0;
        for (int l : y) count += std::count(set.begin(), set.end(), l) > 0;
        return within(count);
      };
    } else {
      std::vector<int> types;
      for (int t = 0; t < chunks.num_types(); ++t)
        if (std::bernoulli_distribution(0.6)(rng)) types.push_back(t);
      std::set<std::string> type_names;
      for (int t : types) type_names.insert(chunks.type_name(t));
      c.statistic = std::make_unique<ChunkCountStatistic>(chunks, types, lower, upper);
      c.holds = [type_names, within, names](const std::vector<int>& y) {
        int count = 0;
        for (const Chunk& ch : ExtractChunks(Names(names, y))) count += type_names.count(ch.type);
        return within(count);
      };
    }
  } else {
    std::vector<int> ref(m);
    for (int& l : ref) l = label(rng);
    const int d = 1 + small(rng) % 3;
    if (kind == 2) {
      c.statistic = std::make_unique<HammingDistanceStatistic>(ref, d);
      c.holds = [ref, d](const std::vector<int>& y) {
        int dist = 0;
        for (size_t t = 0; t < y.size(); ++t) dist += y[t] != ref[t];
        return dist >= d;
      };
    } else {
      c.statistic = std::make_unique<ChunkDistanceStatistic>(chunks, ref, d);
      c.holds = [ref, d, names](const std::vector<int>& y) {
        const std::vector<Chunk> theirs = ExtractChunks(Names(names, ref));
        int dist = 0;
        for (const Chunk& ch : ExtractChunks(Names(names, y)))
          dist += std::find(theirs.begin(), theirs.end(), ch) == theirs.end();
        return dist >= d;
      };
    }
  }
  return c;
}

struct Scored {
  std::vector<int> labels;
  double score;
};

// All labelings with finite score satisfying `constraints`, best first (stable: ties in
// enumeration order).
inline std::vector<Scored> Enumerate(const Lattice& lattice,
                                     const std::vector<RandomConstraint>& constraints) {
  std::vector<Scored> all;
  ForEachLabeling(lattice.size(), lattice.num_labels(), [&](const std::vector<int>& y) {
    const double s = lattice.Score(y);
    if (s == kNegInf) return;
    for (const RandomConstraint& c : constraints)
      if (!c.holds(y)) return;
    all.push_back({y, s});
  });
  std::stable_sort(all.begin(), all.end(),
                   [](const Scored& a, const Scored& b) { return a.score > b.score; });
  return all;
}

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_BRUTE_FORCE_H_
