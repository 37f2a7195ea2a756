#include "train/crf_objective.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "gtest/gtest.h"
#include "support/random_problem.h"

namespace chaintag::train_internal {
namespace {

// sum_s (eps log sum_{y allowed by data.mask} exp((Delta + F(y)) / eps) - F(y*)) + (2 c2 / p)
// |w|_p^p by enumeration.
double BruteEpsilonObjective(const TrainingData& data, const std::vector<double>& w, double c2,
                             const SmoothLoss& loss) {
  const int n = data.num_labels();
  double total = 0;
  for (int s = 0; s < data.num_sentences(); ++s) {
    const int m = data.sentence_size(s);
    std::vector<int> gold(data.gold.begin() + data.sentence_offsets[s],
                          data.gold.begin() + data.sentence_offsets[s + 1]);
    std::vector<int> y(m, 0);
    std::vector<double> values;
    for (;;) {
      double delta = 0;
      if (!loss.cost.empty()) {
        for (int t = 0; t < m; ++t) delta += loss.cost[gold[t] * n + y[t]];
        if (loss.per_token_average) delta /= m;
      }
      // Only the labelings the mask allows (those tagging can produce) are normalised over.
      if (MaskAllows(data.mask, y)) {
        values.push_back((delta + BruteScore(data, s, y, w)) / loss.epsilon);
      }
      int t = 0;
      while (t < m && ++y[t] == n) y[t++] = 0;
      if (t == m) break;
    }
    double mx = values[0];
    for (double x : values) mx = std::max(mx, x);
    double sum = 0;
    for (double x : values) sum += std::exp(x - mx);
    total += loss.epsilon * (mx + std::log(sum)) - BruteScore(data, s, gold, w);
  }
  for (double x : w) total += 2.0 * c2 / loss.p * std::pow(std::abs(x), loss.p);
  return total;
}

// The CRF objective sum_s (log sum_y exp F(y) - F(y*)) + c2 |w|^2: eps = 1, no loss, p = 2.
double BruteObjective(const TrainingData& data, const std::vector<double>& w, double c2) {
  return BruteEpsilonObjective(data, w, c2, SmoothLoss());
}

// A random problem, made second order (trigram weights, their counts and expectations) when
// `order` is 2.
TrainingData RandomProblemOfOrder(int order, uint64_t seed, int sentences, int max_length,
                                  int num_labels, int num_attributes) {
  TrainingData data = RandomProblem(seed, sentences, max_length, num_labels, num_attributes);
  if (order == 2) EnableSecondOrder(&data);
  EXPECT_EQ(data.parameters.order, order);
  return data;
}

TEST(CrfObjectiveTest, ObjectiveEqualsBruteForce) {
  for (int order : {1, 2}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      TrainingData data = RandomProblemOfOrder(order, seed, 4, 5, 3, 6);
      std::vector<double> w = RandomWeights(seed + 100, data.parameters.size(), 1.0);
      for (double c2 : {0.0, 0.7}) {
        CrfObjective objective(data, c2, 1);
        std::vector<double> g(w.size());
        const double value = objective.Evaluate(w, absl::MakeSpan(g));
        EXPECT_NEAR(value, BruteObjective(data, w, c2), 1e-9 * std::max(1.0, std::abs(value)))
            << "order " << order << " seed " << seed << " c2 " << c2;
      }
      SmoothLoss loss;
      loss.epsilon = 0.6;
      loss.cost = {0, 1, 1, 1, 0, 1, 1, 1, 0};
      CrfObjective tempered(data, 0.2, 1, nullptr, loss);
      std::vector<double> g(w.size());
      const double value = tempered.Evaluate(w, absl::MakeSpan(g));
      EXPECT_NEAR(value, BruteEpsilonObjective(data, w, 0.2, loss),
                  1e-9 * std::max(1.0, std::abs(value)))
          << "order " << order << " seed " << seed;
    }
  }
}

TEST(CrfObjectiveTest, GradientEqualsFiniteDifferences) {
  for (int order : {1, 2}) {
    for (uint64_t seed = 11; seed <= 13; ++seed) {
      TrainingData data = RandomProblemOfOrder(order, seed, 5, 4, 3, 5);
      std::vector<double> w = RandomWeights(seed + 7, data.parameters.size(), 1.0);
      CrfObjective objective(data, 0.3, 1);
      ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
    }
  }
}

// Training normalises over the labelings the transition mask allows (the ones tagging can
// produce): CRF and softmax-margin, first and second order, against enumeration of the allowed
// labelings and finite differences; the mask must change the value.
TEST(CrfObjectiveTest, MaskedObjectiveEqualsEnumerationOfAllowedLabelings) {
  for (int order : {1, 2}) {
    for (uint64_t seed = 61; seed <= 64; ++seed) {
      TrainingData data = RandomProblemOfOrder(order, seed, 4, 5, 3, 6);
      std::vector<double> w = RandomWeights(seed + 100, data.parameters.size(), 1.0);
      const int n = data.num_labels();
      SmoothLoss margin;
      margin.cost.assign(n * n, 1.0);
      for (int y = 0; y < n; ++y) margin.cost[y * n + y] = 0.0;
      SmoothLoss tempered = margin;
      tempered.epsilon = 0.6;
      for (const SmoothLoss& loss : {SmoothLoss(), margin, tempered}) {
        SCOPED_TRACE(testing::Message() << "order " << order << " seed " << seed << " eps "
                                        << loss.epsilon << " cost " << !loss.cost.empty());
        std::vector<double> g(w.size());
        const double unmasked =
            CrfObjective(data, 0.3, 1, nullptr, loss).Evaluate(w, absl::MakeSpan(g));
        data.mask = RandomMask(data, seed);
        CrfObjective objective(data, 0.3, 2, nullptr, loss);
        const double value = objective.Evaluate(w, absl::MakeSpan(g));
        EXPECT_NEAR(value, BruteEpsilonObjective(data, w, 0.3, loss),
                    1e-9 * std::max(1.0, std::abs(value)));
        EXPECT_LT(value, unmasked);  // fewer labelings in the normaliser
        if (seed == 61) ExpectGradientMatchesFiniteDifferences(objective, w, 2e-6);
        data.mask = TransitionMask();
      }
    }
  }
}

// Attributes with many features go through dense rows, the others through the label
// indirection: both kinds in one problem, plain and weighted, against enumeration and finite
// differences.
TEST(CrfObjectiveTest, DenseAndSparseAttributesTogether) {
  for (uint64_t seed = 31; seed <= 33; ++seed) {
    for (bool weighted : {false, true}) {
      TrainingData data =
          weighted ? WeightedRandomProblem(seed, 6, 4, 6, 12) : RandomProblem(seed, 6, 4, 6, 12);
      CrfObjective objective(data, 0.4, 1);
      EXPECT_GT(objective.dense_attributes(), 0) << seed;
      EXPECT_LT(objective.dense_attributes(), data.parameters.num_attributes()) << seed;
      std::vector<double> w = RandomWeights(seed + 3, data.parameters.size(), 1.0);
      std::vector<double> g(w.size());
      const double value = objective.Evaluate(w, absl::MakeSpan(g));
      EXPECT_NEAR(value, BruteObjective(data, w, 0.4), 1e-9 * std::max(1.0, std::abs(value)))
          << "seed " << seed << " weighted " << weighted;
      ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
    }
  }
}

// Attribute input with real values: the values multiply the features in scores and gradients.
TEST(CrfObjectiveTest, WeightedAttributesObjectiveAndGradient) {
  for (uint64_t seed = 21; seed <= 23; ++seed) {
    TrainingData data = WeightedRandomProblem(seed, 5, 4, 3, 5);
    ASSERT_TRUE(data.weighted());
    std::vector<double> w = RandomWeights(seed + 7, data.parameters.size(), 1.0);
    CrfObjective objective(data, 0.3, 1);
    std::vector<double> g(w.size());
    const double value = objective.Evaluate(w, absl::MakeSpan(g));
    EXPECT_NEAR(value, BruteObjective(data, w, 0.3), 1e-9 * std::max(1.0, std::abs(value)));
    ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
    // Softmax-margin (eps != 1, Hamming costs) on the same weighted data.
    SmoothLoss loss;
    loss.epsilon = 0.5;
    const int n = data.num_labels();
    loss.cost.assign(n * n, 1.0);
    for (int y = 0; y < n; ++y) loss.cost[y * n + y] = 0.0;
    CrfObjective margin(data, 0.3, 1, nullptr, loss);
    const double margin_value = margin.Evaluate(w, absl::MakeSpan(g));
    EXPECT_NEAR(margin_value, BruteEpsilonObjective(data, w, 0.3, loss),
                1e-9 * std::max(1.0, std::abs(margin_value)));
    ExpectGradientMatchesFiniteDifferences(margin, w, 2e-6);
  }
}

TEST(CrfObjectiveTest, WeightedAttributesSecondOrder) {
  for (uint64_t seed = 31; seed <= 32; ++seed) {
    TrainingData data = WeightedRandomProblem(seed, 4, 5, 3, 6);
    EnableSecondOrder(&data);
    std::vector<double> w = RandomWeights(seed + 7, data.parameters.size(), 1.0);
    CrfObjective objective(data, 0.3, 1);
    std::vector<double> g(w.size());
    const double value = objective.Evaluate(w, absl::MakeSpan(g));
    EXPECT_NEAR(value, BruteObjective(data, w, 0.3), 1e-9 * std::max(1.0, std::abs(value)));
    ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
  }
}

TEST(CrfObjectiveTest, WeightedResultsIdenticalForEveryThreadCount) {
  TrainingData data = WeightedRandomProblem(44, 200, 10, 4, 30);
  std::vector<double> w = RandomWeights(45, data.parameters.size(), 1.0);
  CrfObjective one(data, 0.5, 1);
  std::vector<double> g1(w.size()), g3(w.size());
  const double v1 = one.Evaluate(w, absl::MakeSpan(g1));
  CrfObjective three(data, 0.5, 3);
  EXPECT_EQ(three.Evaluate(w, absl::MakeSpan(g3)), v1);
  EXPECT_EQ(std::memcmp(g1.data(), g3.data(), g1.size() * sizeof(double)), 0);
}

TEST(CrfObjectiveTest, ResultsIdenticalForEveryThreadCount) {
  for (int order : {1, 2}) {
    TrainingData data = RandomProblemOfOrder(order, 42, 300, 12, 5, 40);
    std::vector<double> w = RandomWeights(43, data.parameters.size(), 2.0);
    CrfObjective one(data, 0.5, 1);
    std::vector<double> g1(w.size());
    const double v1 = one.Evaluate(w, absl::MakeSpan(g1));
    for (int threads : {2, 3, 8}) {
      CrfObjective many(data, 0.5, threads);
      EXPECT_EQ(many.threads(), threads);
      std::vector<double> g(w.size());
      const double v = many.Evaluate(w, absl::MakeSpan(g));
      EXPECT_EQ(std::memcmp(&v, &v1, sizeof v), 0)
          << "order " << order << ", " << threads << " threads";
      EXPECT_EQ(std::memcmp(g.data(), g1.data(), g.size() * sizeof(double)), 0)
          << "order " << order << ", " << threads << " threads";
    }
  }
}

// The per-sentence loops compiled for AVX2 (where the CPU has it) and as built give the same
// bits: plain and weighted attributes, dense rows and the label indirection, both orders.
TEST(CrfObjectiveTest, Avx2LoopsGiveTheSameBitsAsPortableOnes) {
  for (int order : {1, 2}) {
    for (bool weighted : {false, true}) {
      TrainingData data = weighted ? WeightedRandomProblem(51, 60, 9, 5, 20)
                                   : RandomProblemOfOrder(order, 51, 60, 9, 5, 20);
      if (weighted && order == 2) EnableSecondOrder(&data);
      std::vector<double> w = RandomWeights(52, data.parameters.size(), 1.5);
      std::vector<double> portable_g(w.size()), g(w.size());
      CrfObjective::UseAvx2LoopsForTesting(false);
      CrfObjective portable(data, 0.5, 1);
      EXPECT_GT(portable.dense_attributes(), 0);
      const double portable_value = portable.Evaluate(w, absl::MakeSpan(portable_g));
      CrfObjective::UseAvx2LoopsForTesting(true);
      CrfObjective avx2(data, 0.5, 1);
      const double value = avx2.Evaluate(w, absl::MakeSpan(g));
      EXPECT_EQ(std::memcmp(&value, &portable_value, sizeof value), 0)
          << "order " << order << " weighted " << weighted;
      EXPECT_EQ(std::memcmp(g.data(), portable_g.data(), g.size() * sizeof(double)), 0)
          << "order " << order << " weighted " << weighted;
    }
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

SmoothLoss HammingLoss(int n, double epsilon, double p, bool average) {
  SmoothLoss loss;
  loss.epsilon = epsilon;
  loss.p = p;
  loss.per_token_average = average;
  loss.cost.assign(n * n, 1.0);
  for (int y = 0; y < n; ++y) loss.cost[y * n + y] = 0.0;
  return loss;
}

TEST(EpsilonObjectiveTest, EqualsBruteForce) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    TrainingData data = RandomProblem(seed, 4, 5, 3, 6);
    const int n = data.num_labels();
    std::vector<double> w = RandomWeights(seed + 100, data.parameters.size(), 1.0);
    std::vector<SmoothLoss> losses = {
        HammingLoss(n, 1.0, 2.0, false), HammingLoss(n, 0.1, 2.0, false),
        HammingLoss(n, 3.0, 1.5, true), HammingLoss(n, 0.5, 1.2, false)};
    SmoothLoss weighted = HammingLoss(n, 0.7, 2.0, false);
    for (size_t i = 0; i < weighted.cost.size(); ++i) weighted.cost[i] *= 0.5 + 0.25 * (i % 5);
    losses.push_back(weighted);
    SmoothLoss tempered_crf;  // no loss, eps != 1
    tempered_crf.epsilon = 0.3;
    losses.push_back(tempered_crf);
    for (const SmoothLoss& loss : losses) {
      CrfObjective objective(data, 0.4, 1, nullptr, loss);
      std::vector<double> g(w.size());
      const double value = objective.Evaluate(w, absl::MakeSpan(g));
      EXPECT_NEAR(value, BruteEpsilonObjective(data, w, 0.4, loss),
                  1e-9 * std::max(1.0, std::abs(value)))
          << "seed " << seed << " eps " << loss.epsilon << " p " << loss.p;
    }
  }
}

TEST(EpsilonObjectiveTest, GradientEqualsFiniteDifferences) {
  TrainingData data = RandomProblem(21, 4, 4, 3, 5);
  const int n = data.num_labels();
  std::vector<double> w = RandomWeights(22, data.parameters.size(), 1.0);
  for (const SmoothLoss& loss : {HammingLoss(n, 1.0, 2.0, false), HammingLoss(n, 0.25, 1.5, true),
                                 HammingLoss(n, 2.0, 1.1, false)}) {
    CrfObjective objective(data, 0.3, 1, nullptr, loss);
    SCOPED_TRACE(testing::Message() << "eps " << loss.epsilon << " p " << loss.p);
    ExpectGradientMatchesFiniteDifferences(objective, w, 2e-6);
  }
}

// At eps = 1 with Delta = 0 (given as an all-zero cost table, so the loss path runs) and p = 2 the
// objective is the CRF's, value and gradient.
TEST(EpsilonObjectiveTest, EpsilonOneWithoutLossIsTheCrf) {
  TrainingData data = RandomProblem(31, 15, 7, 4, 12);
  const int n = data.num_labels();
  std::vector<double> w = RandomWeights(32, data.parameters.size(), 1.5);
  CrfObjective crf(data, 0.6, 1);
  SmoothLoss zero = HammingLoss(n, 1.0, 2.0, false);
  std::fill(zero.cost.begin(), zero.cost.end(), 0.0);
  CrfObjective epsilon(data, 0.6, 1, nullptr, zero);
  std::vector<double> g1(w.size()), g2(w.size());
  const double v1 = crf.Evaluate(w, absl::MakeSpan(g1));
  const double v2 = epsilon.Evaluate(w, absl::MakeSpan(g2));
  EXPECT_NEAR(v1, v2, 1e-9);
  EXPECT_NEAR(v1, BruteObjective(RandomProblem(31, 15, 7, 4, 12), w, 0.6), 1e-9 * std::abs(v1));
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(g1[i], g2[i], 1e-9) << i;
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
      EXPECT_NEAR(kernel.transition_marginals()[i], expected->transition[i], 1e-9)
          << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace chaintag::train_internal
