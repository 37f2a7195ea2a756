// Random tiny training problems shared by the train module's tests.
#ifndef CHAINTAG_TESTS_TRAIN_RANDOM_PROBLEM_H_
#define CHAINTAG_TESTS_TRAIN_RANDOM_PROBLEM_H_

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "train/training_data.h"

namespace chaintag::train_internal {

// `sentences` sentences of 1..max_length tokens, each position with 1..3 of `num_attributes`
// attributes and a random gold label; random weights in [-1, 1] (scaled by `scale`).
inline TrainingData RandomProblem(uint64_t seed, int sentences, int max_length, int num_labels,
                                  int num_attributes) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  TrainingData data;
  for (int y = 0; y < num_labels; ++y) data.labels.push_back(absl::StrCat("L", y));
  for (int a = 0; a < num_attributes; ++a) data.attributes.Insert(absl::StrCat("a", a));
  data.sentence_offsets.push_back(0);
  data.position_offsets.push_back(0);
  for (int s = 0; s < sentences; ++s) {
    const int m = 1 + uniform(max_length);
    for (int t = 0; t < m; ++t) {
      const int k = 1 + uniform(3);
      for (int i = 0; i < k; ++i) data.position_attributes.push_back(uniform(num_attributes));
      data.position_offsets.push_back(static_cast<int64_t>(data.position_attributes.size()));
      data.gold.push_back(uniform(num_labels));
    }
    data.sentence_offsets.push_back(static_cast<int64_t>(data.gold.size()));
  }
  BuildFeatureSet(&data);
  return data;
}

inline std::vector<double> RandomWeights(uint64_t seed, int64_t n, double scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<double> w(n);
  for (double& x : w) x = dist(rng);
  return w;
}

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_TESTS_TRAIN_RANDOM_PROBLEM_H_
