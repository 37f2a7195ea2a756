// Collective document decoding checked against enumeration of every joint labeling of tiny
// documents (2-3 sentences of 1-3 tokens, 2-3 labels).
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "collective/collective.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

constexpr double kTolerance = 1e-7;

Lattice RandomLattice(int m, int n, std::mt19937* rng, bool mask) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  Lattice l(m, n);
  for (int t = 0; t < m; ++t) {
    for (int y = 0; y < n; ++y) l.unary(t, y) = u(*rng);
  }
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) l.transition(a, b) = u(*rng);
  }
  for (int y = 0; y < n; ++y) {
    l.start(y) = u(*rng);
    l.end(y) = u(*rng);
  }
  // A chunk-style mask: label n-1 may not follow label 0, nor start a sentence.
  if (mask && n > 1) {
    l.transition(0, n - 1) = kNegInf;
    l.start(n - 1) = kNegInf;
  }
  return l;
}

// The joint objective computed here from its definition: chain scores summed over tokens and
// transitions, plus the clique potential of each clique's label counts.
double DirectObjective(const std::vector<Lattice>& chains,
                       const std::vector<DocumentClique>& cliques,
                       const std::vector<std::vector<int>>& y) {
  double total = 0;
  for (size_t s = 0; s < chains.size(); ++s) {
    const Lattice& l = chains[s];
    const int m = l.size();
    if (m == 0) continue;
    total += l.start(y[s][0]) + l.end(y[s][m - 1]);
    for (int t = 0; t < m; ++t) {
      total += l.unary(t, y[s][t]);
      if (t > 0) total += l.transition(y[s][t - 1], y[s][t]);
    }
  }
  for (const DocumentClique& c : cliques) {
    std::vector<int> counts(c.potential.num_labels(), 0);
    for (const auto& [s, t] : c.nodes) ++counts[y[s][t]];
    total += c.potential.Value(counts);
  }
  return total;
}

// Every joint labeling of the document.
void ForEachJointLabeling(const std::vector<Lattice>& chains,
                          const std::function<void(const std::vector<std::vector<int>>&)>& fn) {
  const int n = chains[0].num_labels();
  std::vector<std::vector<int>> y;
  for (const Lattice& l : chains) y.emplace_back(l.size(), 0);
  while (true) {
    fn(y);
    size_t s = 0;
    int t = 0;
    while (true) {
      if (s == y.size()) return;
      if (t == static_cast<int>(y[s].size())) {
        ++s;
        t = 0;
        continue;
      }
      if (y[s][t] < n - 1) {
        ++y[s][t];
        break;
      }
      y[s][t] = 0;
      ++t;
    }
  }
}

struct Document {
  std::vector<Lattice> chains;
  std::vector<DocumentClique> cliques;
};

CliquePotential RandomPotential(int n, int size, bool majority, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(0.0, 3.0);
  if (majority) {
    std::vector<std::vector<double>> w(n, std::vector<double>(n));
    for (auto& row : w) {
      for (double& v : row) v = u(*rng) - 1.0;
    }
    return *CliquePotential::Majority(w);
  }
  return *CliquePotential::Potts(u(*rng) / size, n, size);
}

// Random sentences, and cliques over random distinct positions (a position in at most one).
Document RandomDocument(std::mt19937* rng, int n, bool majority, bool mask) {
  Document d;
  const int sentences = std::uniform_int_distribution<int>(2, 3)(*rng);
  std::vector<std::pair<int, int>> positions;
  for (int s = 0; s < sentences; ++s) {
    const int m = std::uniform_int_distribution<int>(1, 3)(*rng);
    d.chains.push_back(RandomLattice(m, n, rng, mask));
    for (int t = 0; t < m; ++t) positions.emplace_back(s, t);
  }
  std::shuffle(positions.begin(), positions.end(), *rng);
  size_t next = 0;
  const int num_cliques = std::uniform_int_distribution<int>(1, 2)(*rng);
  for (int c = 0; c < num_cliques && next + 2 <= positions.size(); ++c) {
    const int size = std::uniform_int_distribution<int>(
        2, std::min<int>(4, static_cast<int>(positions.size() - next)))(*rng);
    std::vector<std::pair<int, int>> nodes(positions.begin() + next,
                                           positions.begin() + next + size);
    next += size;
    d.cliques.push_back(DocumentClique{std::move(nodes), RandomPotential(n, size, majority, rng)});
  }
  return d;
}

double BruteForceBest(const Document& d) {
  double best = kNegInf;
  ForEachJointLabeling(d.chains, [&](const std::vector<std::vector<int>>& y) {
    best = std::max(best, DirectObjective(d.chains, d.cliques, y));
  });
  return best;
}

TEST(JointObjectiveTest, EqualsTheDefinitionOnEveryLabeling) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const Document d = RandomDocument(&rng, 2 + trial % 2, trial % 3 == 0, trial % 2 == 0);
    ForEachJointLabeling(d.chains, [&](const std::vector<std::vector<int>>& y) {
      const double direct = DirectObjective(d.chains, d.cliques, y);
      const double got = JointObjective(d.chains, d.cliques, y);
      if (std::isinf(direct)) {
        EXPECT_EQ(got, direct);
      } else {
        EXPECT_NEAR(got, direct, kTolerance);
      }
    });
  }
}

TEST(CollectiveDecodeTest, NeverWorseThanPlainNeverAboveTheOptimum) {
  std::mt19937 rng(11);
  int improved = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + trial % 2;
    const bool majority = trial % 3 == 0;
    const Document d = RandomDocument(&rng, n, majority, trial % 4 == 1);
    CollectiveDecodeOptions options;
    options.max_iterations = 1 + trial % 10;
    auto got = CollectiveDecode(d.chains, d.cliques, options);
    ASSERT_TRUE(got.ok()) << got.status();
    // The reported objectives are those of the labelings returned.
    EXPECT_NEAR(got->objective, DirectObjective(d.chains, d.cliques, got->labels), kTolerance);
    EXPECT_NEAR(got->plain_objective, DirectObjective(d.chains, d.cliques, got->plain_labels),
                kTolerance);
    // The plain labeling is each chain's own best labeling.
    for (size_t s = 0; s < d.chains.size(); ++s) {
      double best = kNegInf;
      ForEachJointLabeling({d.chains[s]}, [&](const std::vector<std::vector<int>>& y) {
        best = std::max(best, d.chains[s].Score(y[0]));
      });
      EXPECT_NEAR(d.chains[s].Score(got->plain_labels[s]), best, kTolerance);
    }
    EXPECT_GE(got->objective, got->plain_objective - kTolerance);
    const double optimum = BruteForceBest(d);
    EXPECT_LE(got->objective, optimum + kTolerance);
    EXPECT_GE(got->iterations, 1);
    EXPECT_LE(got->iterations, options.max_iterations);
    if (got->objective > got->plain_objective + kTolerance) ++improved;
  }
  // The cliques matter on a good share of these documents (so the test exercises them).
  EXPECT_GT(improved, 30);
}

// One clique whose nodes lie in different sentences: the cluster graph is a tree (a star), so
// max-product with exact clique max-marginals finds the optimum.
TEST(CollectiveDecodeTest, TreeShapedDocumentsReachTheBruteForceOptimum) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + trial % 2;
    const bool majority = trial % 2 == 1;
    Document d;
    const int sentences = 2 + trial % 2;
    std::vector<std::pair<int, int>> nodes;
    for (int s = 0; s < sentences; ++s) {
      const int m = std::uniform_int_distribution<int>(1, 3)(rng);
      d.chains.push_back(RandomLattice(m, n, &rng, trial % 3 == 0));
      nodes.emplace_back(s, std::uniform_int_distribution<int>(0, m - 1)(rng));
    }
    d.cliques.push_back(
        DocumentClique{nodes, RandomPotential(n, static_cast<int>(nodes.size()), majority, &rng)});
    CollectiveDecodeOptions options;
    // Alpha-pass max-marginals are exact for two labels; brute force otherwise.
    options.algorithm = n == 2 ? CliqueAlgorithm::kAlphaPass : CliqueAlgorithm::kExact;
    if (majority && n == 2) options.algorithm = CliqueAlgorithm::kMajorityExact;
    auto got = CollectiveDecode(d.chains, d.cliques, options);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_NEAR(got->objective, BruteForceBest(d), 1e-6) << "trial " << trial;
  }
}

TEST(CollectiveDecodeTest, NoCliquesIsThePlainLabeling) {
  std::mt19937 rng(3);
  std::vector<Lattice> chains = {RandomLattice(3, 3, &rng, true), RandomLattice(2, 3, &rng, false)};
  auto got = CollectiveDecode(chains, {}, CollectiveDecodeOptions{});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->labels, got->plain_labels);
  EXPECT_EQ(got->iterations, 0);
  EXPECT_TRUE(got->converged);
}

TEST(CollectiveDecodeTest, RefusesInconsistentInput) {
  std::mt19937 rng(3);
  std::vector<Lattice> chains = {RandomLattice(2, 3, &rng, false),
                                 RandomLattice(2, 3, &rng, false)};
  CollectiveDecodeOptions options;
  options.max_iterations = 0;
  EXPECT_THAT(CollectiveDecode(chains, {}, options).status().message(), HasSubstr("iterations"));
  options.max_iterations = 5;
  std::vector<DocumentClique> outside = {
      DocumentClique{{{0, 0}, {1, 2}}, *CliquePotential::Potts(0.5, 3, 2)}};
  EXPECT_THAT(CollectiveDecode(chains, outside, options).status().message(),
              HasSubstr("outside the chains"));
  std::vector<DocumentClique> twice = {
      DocumentClique{{{0, 0}, {0, 0}}, *CliquePotential::Potts(0.5, 3, 2)}};
  EXPECT_THAT(CollectiveDecode(chains, twice, options).status().message(), HasSubstr("twice"));
  std::vector<DocumentClique> labels = {
      DocumentClique{{{0, 0}, {1, 0}}, *CliquePotential::Potts(0.5, 2, 2)}};
  EXPECT_THAT(CollectiveDecode(chains, labels, options).status().message(), HasSubstr("labels"));
  std::vector<Lattice> second = chains;
  second[0].EnableSecondOrder();
  EXPECT_THAT(CollectiveDecode(second, {}, options).status().message(), HasSubstr("second order"));
  // A chain without a feasible labeling.
  chains[1].start(0) = chains[1].start(1) = chains[1].start(2) = kNegInf;
  auto infeasible = CollectiveDecode(chains, {}, options);
  EXPECT_EQ(infeasible.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace chaintag
