// Random tiny training problems shared by the train module's tests.
#ifndef CHAINTAG_TESTS_SUPPORT_RANDOM_PROBLEM_H_
#define CHAINTAG_TESTS_SUPPORT_RANDOM_PROBLEM_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "model/parameters.h"
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

// RandomProblem with real-valued attributes: every occurrence gets a value in [-2, 2] (attribute
// input with weights), so trainers must use the value instead of assuming 1.
inline TrainingData WeightedRandomProblem(uint64_t seed, int sentences, int max_length,
                                          int num_labels, int num_attributes) {
  TrainingData data = RandomProblem(seed, sentences, max_length, num_labels, num_attributes);
  std::mt19937_64 rng(seed + 1000);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  data.position_values.resize(data.position_attributes.size());
  for (float& v : data.position_values) v = dist(rng);
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

// Each position carries one attribute that names its gold label, plus noise: separable.
inline TrainingData SeparableProblem() {
  TrainingData data = RandomProblem(3, 60, 8, 4, 12);
  std::vector<int32_t> attributes;
  std::vector<int64_t> offsets = {0};
  for (int a = 0; a < 4; ++a) data.attributes.Insert(absl::StrCat("gold=", a));
  for (int64_t p = 0; p < data.num_positions(); ++p) {
    for (int32_t a : data.attributes_at(p)) attributes.push_back(a);
    attributes.push_back(12 + data.gold[p]);
    offsets.push_back(static_cast<int64_t>(attributes.size()));
  }
  data.position_attributes = attributes;
  data.position_offsets = offsets;
  BuildFeatureSet(&data);
  return data;
}

// Chain score of labeling `y` of sentence `s` computed directly from the data, independently of
// the trainers' code.
inline double BruteScore(const TrainingData& data, int s, const std::vector<int>& y,
                         const std::vector<double>& w) {
  const ModelParameters& p = data.parameters;
  const int n = p.num_labels;
  const int64_t first = data.sentence_offsets[s];
  double score = w[p.start_offset() + y.front()] + w[p.end_offset() + y.back()];
  for (size_t t = 0; t < y.size(); ++t) {
    const int64_t pos = first + static_cast<int64_t>(t);
    for (int64_t k = data.position_offsets[pos]; k < data.position_offsets[pos + 1]; ++k) {
      const int64_t f = data.FindFeature(data.position_attributes[k], y[t]);
      if (f >= 0) score += data.value(k) * w[f];
    }
    if (t > 0) score += w[p.transition_offset() + y[t - 1] * n + y[t]];
    if (t > 0 && p.order == 2) {
      const int64_t before = t == 1 ? n : y[t - 2];
      score += w[p.trigram_offset() + (before * n + y[t - 1]) * n + y[t]];
    }
  }
  return score;
}

// Calls visit(y) for every labeling of sentence `s` (N^M of them).
template <typename Visit>
void ForEachLabeling(const TrainingData& data, int s, Visit visit) {
  const int m = data.sentence_size(s);
  const int n = data.num_labels();
  std::vector<int> y(m, 0);
  for (;;) {
    visit(y);
    int t = 0;
    while (t < m && ++y[t] == n) y[t++] = 0;
    if (t == m) break;
  }
}

// A random transition mask over data's labels that forbids about `share` of the transitions,
// starts and ends but none the gold labelings use (as training's mask, which allows every
// transition of the training data).
inline TransitionMask RandomMask(const TrainingData& data, uint64_t seed, double share = 0.4) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = data.num_labels();
  TransitionMask mask;
  mask.num_labels = n;
  mask.allowed.assign(static_cast<size_t>(n) * n, 1);
  mask.allowed_start.assign(n, 1);
  mask.allowed_end.assign(n, 1);
  for (char& a : mask.allowed) a = u(rng) >= share;
  for (char& a : mask.allowed_start) a = u(rng) >= share;
  for (char& a : mask.allowed_end) a = u(rng) >= share;
  for (int s = 0; s < data.num_sentences(); ++s) {
    const int64_t begin = data.sentence_offsets[s], end = data.sentence_offsets[s + 1];
    if (begin == end) continue;
    mask.allowed_start[data.gold[begin]] = 1;
    mask.allowed_end[data.gold[end - 1]] = 1;
    for (int64_t p = begin + 1; p < end; ++p) {
      mask.allowed[static_cast<size_t>(data.gold[p - 1]) * n + data.gold[p]] = 1;
    }
  }
  return mask;
}

// Whether `mask` allows labeling `y` (an empty mask allows every labeling).
inline bool MaskAllows(const TransitionMask& mask, const std::vector<int>& y) {
  if (mask.num_labels == 0 || y.empty()) return true;
  const size_t n = static_cast<size_t>(mask.num_labels);
  if (!mask.allowed_start[y.front()] || !mask.allowed_end[y.back()]) return false;
  for (size_t t = 1; t < y.size(); ++t) {
    if (!mask.allowed[y[t - 1] * n + y[t]]) return false;
  }
  return true;
}

inline std::vector<int> GoldLabels(const TrainingData& data, int s) {
  return std::vector<int>(data.gold.begin() + data.sentence_offsets[s],
                          data.gold.begin() + data.sentence_offsets[s + 1]);
}

// Every coordinate of an objective's gradient (Evaluate(w, gradient) returns the value) against
// central differences.
template <typename Objective>
void ExpectGradientMatchesFiniteDifferences(Objective& objective, const std::vector<double>& w,
                                            double tolerance) {
  std::vector<double> g(w.size()), scratch(w.size());
  objective.Evaluate(w, absl::MakeSpan(g));
  for (size_t i = 0; i < w.size(); ++i) {
    constexpr double kH = 1e-5;
    std::vector<double> plus = w, minus = w;
    plus[i] += kH;
    minus[i] -= kH;
    const double numeric = (objective.Evaluate(plus, absl::MakeSpan(scratch)) -
                            objective.Evaluate(minus, absl::MakeSpan(scratch))) /
                           (2 * kH);
    EXPECT_NEAR(g[i], numeric, tolerance) << "coordinate " << i << " of " << w.size();
  }
}

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_TESTS_SUPPORT_RANDOM_PROBLEM_H_
