#include "train/feature_vectors.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "support/random_problem.h"

namespace chaintag::train_internal {
namespace {

// w . phi(y) from the accumulated sparse vector equals the chain score computed directly.
TEST(FeatureVectorsTest, LabelingFeaturesDotWeightsIsTheScore) {
  TrainingData data = RandomProblem(3, 10, 7, 4, 9);
  const int n = data.num_labels();
  std::vector<double> w = RandomWeights(4, data.parameters.size(), 1.0);
  FeatureAccumulator accumulator(data.parameters.size());
  std::mt19937_64 rng(5);
  for (int s = 0; s < data.num_sentences(); ++s) {
    const int m = data.sentence_size(s);
    std::vector<int> y(m);
    for (int& label : y) label = static_cast<int>(rng() % n);
    std::vector<double> unary(m * n, 0.0), transition(n * n + 2 * n, 0.0);
    AddLabeling(n, y, 2.0, unary.data(), transition.data());
    const FeatureAccumulator::Sparse& phi =
        accumulator.Build(data, s, unary.data(), transition.data());
    double dot = 0, norm = 0;
    std::vector<int64_t> seen;
    for (const auto& [f, value] : phi.entries) {
      dot += w[f] * value;
      norm += value * value;
      seen.push_back(f);
    }
    EXPECT_NEAR(dot, 2.0 * BruteScore(data, s, y, w), 1e-9) << "sentence " << s;
    EXPECT_NEAR(norm, phi.squared_norm, 1e-12);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "a feature listed twice";
  }
}

// phi(y) - phi(y) is empty: repeated features cancel instead of being listed with zero weight.
TEST(FeatureVectorsTest, DifferenceOfALabelingWithItselfIsEmpty) {
  TrainingData data = RandomProblem(8, 5, 6, 3, 5);
  const int n = data.num_labels();
  FeatureAccumulator accumulator(data.parameters.size());
  for (int s = 0; s < data.num_sentences(); ++s) {
    const std::vector<int> gold = GoldLabels(data, s);
    std::vector<double> unary(gold.size() * n, 0.0), transition(n * n + 2 * n, 0.0);
    AddLabeling(n, gold, 1.0, unary.data(), transition.data());
    AddLabeling(n, gold, -1.0, unary.data(), transition.data());
    EXPECT_TRUE(accumulator.Build(data, s, unary.data(), transition.data()).entries.empty());
  }
}

TEST(FeatureVectorsTest, ScaleLatticeScalesScores) {
  Lattice lattice(3, 2);
  lattice.unary(1, 1) = 2.0;
  lattice.transition(0, 1) = -1.0;
  lattice.start(1) = 0.5;
  lattice.end(0) = 4.0;
  const double before = lattice.Score({1, 0, 0});
  ScaleLattice(0.25, &lattice);
  EXPECT_DOUBLE_EQ(lattice.Score({1, 0, 0}), 0.25 * before);
}

}  // namespace
}  // namespace chaintag::train_internal
