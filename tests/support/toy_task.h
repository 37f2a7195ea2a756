// A toy tagging task for the neural tests: label 1 for words ending in "s", 2 for the word after
// "the", 0 otherwise (the last needs context).
#ifndef CHAINTAG_TESTS_SUPPORT_TOY_TASK_H_
#define CHAINTAG_TESTS_SUPPORT_TOY_TASK_H_

#include <random>
#include <string>
#include <vector>

#include "neural_train/neural_trainer.h"

namespace chaintag::testing {

inline NeuralData MakeToyTask(int count, uint64_t seed) {
  const std::vector<std::string> words = {"the", "dog", "dogs", "cat", "cats", "runs", "a", "fast"};
  std::mt19937_64 rng(seed);
  NeuralData d;
  for (int s = 0; s < count; ++s) {
    std::vector<std::string> sentence;
    std::vector<int> labels;
    const int n = 2 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      sentence.push_back(words[rng() % words.size()]);
      labels.push_back(i > 0 && sentence[i - 1] == "the" ? 2 : sentence[i].back() == 's' ? 1 : 0);
    }
    d.tokens.push_back(sentence);
    d.labels.push_back(labels);
  }
  return d;
}

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_TOY_TASK_H_
