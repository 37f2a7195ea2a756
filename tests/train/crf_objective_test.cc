#include "train/crf_objective.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "gtest/gtest.h"
#include "train/random_problem.h"

namespace chaintag::train_internal {
namespace {

// Chain score computed directly from the data, independently of the objective's code.
double BruteScore(const TrainingData& data, int s, const std::vector<int>& y,
                  const std::vector<double>& w) {
  const ModelParameters& p = data.parameters;
  const int n = p.num_labels;
  const int64_t first = data.sentence_offsets[s];
  double score = w[p.start_offset() + y.front()] + w[p.end_offset() + y.back()];
  for (size_t t = 0; t < y.size(); ++t) {
    for (int32_t a : data.attributes_at(first + t)) {
      const int64_t f = data.FindFeature(a, y[t]);
      if (f >= 0) score += w[f];
    }
    if (t > 0) score += w[p.transition_offset() + y[t - 1] * n + y[t]];
  }
  return score;
}

// sum_s (log sum_y exp F(y) - F(y*)) + c2 |w|^2 by enumerating every labeling.
double BruteObjective(const TrainingData& data, const std::vector<double>& w, double c2) {
  const int n = data.num_labels();
  double total = 0;
  for (int s = 0; s < data.num_sentences(); ++s) {
    const int m = data.sentence_size(s);
    std::vector<int> y(m, 0);
    std::vector<double> scores;
    for (;;) {
      scores.push_back(BruteScore(data, s, y, w));
      int t = 0;
      while (t < m && ++y[t] == n) y[t++] = 0;
      if (t == m) break;
    }
    double mx = scores[0];
    for (double x : scores) mx = std::max(mx, x);
    double sum = 0;
    for (double x : scores) sum += std::exp(x - mx);
    std::vector<int> gold(data.gold.begin() + data.sentence_offsets[s],
                          data.gold.begin() + data.sentence_offsets[s + 1]);
    total += mx + std::log(sum) - BruteScore(data, s, gold, w);
  }
  for (double x : w) total += c2 * x * x;
  return total;
}

TEST(CrfObjectiveTest, ObjectiveEqualsBruteForce) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    TrainingData data = RandomProblem(seed, 4, 5, 3, 6);
    std::vector<double> w = RandomWeights(seed + 100, data.parameters.size(), 1.0);
    for (double c2 : {0.0, 0.7}) {
      CrfObjective objective(data, c2, 1);
      std::vector<double> g(w.size());
      const double value = objective.Evaluate(w, absl::MakeSpan(g));
      EXPECT_NEAR(value, BruteObjective(data, w, c2), 1e-9 * std::max(1.0, std::abs(value)))
          << "seed " << seed << " c2 " << c2;
    }
  }
}

TEST(CrfObjectiveTest, GradientEqualsFiniteDifferences) {
  for (uint64_t seed = 11; seed <= 13; ++seed) {
    TrainingData data = RandomProblem(seed, 5, 4, 3, 5);
    std::vector<double> w = RandomWeights(seed + 7, data.parameters.size(), 1.0);
    CrfObjective objective(data, 0.3, 1);
    std::vector<double> g(w.size()), scratch(w.size());
    objective.Evaluate(w, absl::MakeSpan(g));
    // Every coordinate: state features, transitions, start and end weights.
    for (size_t i = 0; i < w.size(); ++i) {
      constexpr double kH = 1e-5;
      std::vector<double> plus = w, minus = w;
      plus[i] += kH;
      minus[i] -= kH;
      const double numeric = (objective.Evaluate(plus, absl::MakeSpan(scratch)) -
                              objective.Evaluate(minus, absl::MakeSpan(scratch))) / (2 * kH);
      EXPECT_NEAR(g[i], numeric, 1e-6) << "coordinate " << i << " of " << w.size();
    }
  }
}

TEST(CrfObjectiveTest, ResultsIdenticalForEveryThreadCount) {
  TrainingData data = RandomProblem(42, 300, 12, 5, 40);
  std::vector<double> w = RandomWeights(43, data.parameters.size(), 2.0);
  CrfObjective one(data, 0.5, 1);
  std::vector<double> g1(w.size());
  const double v1 = one.Evaluate(w, absl::MakeSpan(g1));
  for (int threads : {2, 3, 8}) {
    CrfObjective many(data, 0.5, threads);
    EXPECT_EQ(many.threads(), threads);
    std::vector<double> g(w.size());
    const double v = many.Evaluate(w, absl::MakeSpan(g));
    EXPECT_EQ(std::memcmp(&v, &v1, sizeof v), 0) << threads << " threads";
    EXPECT_EQ(std::memcmp(g.data(), g1.data(), g.size() * sizeof(double)), 0) << threads << " threads";
  }
}

TEST(CrfObjectiveTest, ConsumingTheAttributeArrayGivesTheSameResult) {
  TrainingData data = RandomProblem(8, 40, 7, 4, 15);
  std::vector<double> w = RandomWeights(9, data.parameters.size(), 1.0);
  std::vector<double> g1(w.size()), g2(w.size());
  CrfObjective copying(data, 0.2, 2);
  const double v1 = copying.Evaluate(w, absl::MakeSpan(g1));
  CrfObjective consuming(data, 0.2, 2, &data.position_attributes);
  EXPECT_TRUE(data.position_attributes.empty());
  EXPECT_EQ(consuming.Evaluate(w, absl::MakeSpan(g2)), v1);
  EXPECT_EQ(g1, g2);
}

TEST(ScaledForwardBackwardTest, MatchesLogSpaceForwardBackward) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + static_cast<int>(rng() % 7);
    const int n = 1 + static_cast<int>(rng() % 5);
    // Large scores check that the scaling neither overflows nor underflows.
    const double scale = trial % 4 == 3 ? 300.0 : 3.0;
    std::uniform_real_distribution<double> dist(-scale, scale);
    Lattice lattice(m, n);
    for (int t = 0; t < m; ++t)
      for (int y = 0; y < n; ++y) lattice.unary(t, y) = dist(rng);
    for (int p = 0; p < n; ++p)
      for (int y = 0; y < n; ++y) lattice.transition(p, y) = dist(rng);
    for (int y = 0; y < n; ++y) {
      lattice.start(y) = dist(rng);
      lattice.end(y) = dist(rng);
    }
    absl::StatusOr<Marginals> expected = ForwardBackward(lattice);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ExpTables tables;
    std::vector<double> start(n), end(n);
    for (int y = 0; y < n; ++y) {
      start[y] = lattice.start(y);
      end[y] = lattice.end(y);
    }
    tables.Build(n, lattice.transition_data().data(), start.data(), end.data());
    std::vector<double> unary = lattice.unary_data();
    ScaledForwardBackward kernel;
    const double log_z = kernel.Run(m, tables, unary.data());
    EXPECT_NEAR(log_z, expected->log_z, 1e-9 * std::max(1.0, std::abs(log_z))) << "trial " << trial;
    for (int i = 0; i < m * n; ++i) {
      EXPECT_NEAR(kernel.unary_marginals()[i], expected->unary[i], 1e-9) << "trial " << trial;
    }
    for (int i = 0; i < n * n; ++i) {
      EXPECT_NEAR(kernel.transition_marginals()[i], expected->transition[i], 1e-9) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace chaintag::train_internal
