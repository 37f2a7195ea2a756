// Test helpers: a tiny hand-built model (ModelBuilder, no trainer) and brute-force references.
#ifndef CHAINTAG_TESTS_SUPPORT_TINY_MODEL_H_
#define CHAINTAG_TESTS_SUPPORT_TINY_MODEL_H_

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"
#include "train/model_builder.h"

namespace chaintag::testing_model {

inline Sentence MakeSentence(const std::vector<std::string>& words,
                             const std::vector<std::string>& tags, int first_line = 1) {
  Sentence s;
  s.columns = {words, tags};
  s.file = "tiny.conll";
  for (size_t t = 0; t < words.size(); ++t) s.token_lines.push_back(first_line + t);
  return s;
}

inline std::vector<Sentence> TinyCorpus() {
  return {
      MakeSentence({"The", "cat", "sat"}, {"DT", "NN", "VBD"}, 1),
      MakeSentence({"A", "dog", "barked", "loudly"}, {"DT", "NN", "VBD", "RB"}, 5),
      MakeSentence({"Dogs", "bark"}, {"NNS", "VBP"}, 10),
      MakeSentence({"the", "big", "cat"}, {"DT", "JJ", "NN"}, 13),
  };
}

inline const char* kTinyTemplates =
    "U00:%x[0,0]\n"
    "U01:%x[-1,0]\n"
    "U02:%x[0,1]\n"
    "U03:%x[-1,1]/%x[0,1]\n"
    "B\n";

// Labels B-NP, I-NP, O with random weights: every attribute of the corpus gets a feature for a
// random non-empty subset of labels. `zero_fraction` of state weights are set to exactly 0.
// With `lexicon`, one more template reads it: U04:lex(lower(%x[0,0])).
inline ModelBuilder TinyModelBuilder(uint32_t seed = 7, double zero_fraction = 0.0,
                                     bool with_mask = true,
                                     std::shared_ptr<const Lexicon> lexicon = nullptr) {
  const std::string templates = lexicon == nullptr
                                    ? std::string(kTinyTemplates)
                                    : std::string(kTinyTemplates) + "U04:lex(lower(%x[0,0]))\n";
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(templates, std::move(lexicon));
  EXPECT_TRUE(spec.ok()) << spec.status();
  std::vector<std::string> labels = {"B-NP", "I-NP", "O"};
  const int n = static_cast<int>(labels.size());
  Featurizer featurizer(*spec);
  AttributeDictionary dict;
  for (const Sentence& s : TinyCorpus()) {
    featurizer.ForEachAttribute(s, [&](int, std::string_view a) { dict.Insert(a); });
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> weight(-2.0, 2.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ModelParameters p;
  p.num_labels = n;
  p.attribute_offsets.push_back(0);
  std::vector<double> state;
  for (int a = 0; a < dict.size(); ++a) {
    // Some attributes get no feature at all, to exercise the compaction on save.
    if (a % 5 != 4) {
      for (int y = 0; y < n; ++y) {
        if (y != 0 && unit(rng) < 0.4) continue;
        p.feature_labels.push_back(y);
        state.push_back(unit(rng) < zero_fraction ? 0.0 : weight(rng));
      }
    }
    p.attribute_offsets.push_back(static_cast<int32_t>(p.feature_labels.size()));
  }
  p.weights = state;
  for (int i = 0; i < n * n + 2 * n; ++i) p.weights.push_back(weight(rng));
  TransitionMask mask;
  if (with_mask) {
    // I-NP may not follow O nor start a sentence.
    mask.num_labels = n;
    mask.allowed.assign(n * n, 1);
    mask.allowed[2 * n + 1] = 0;
    mask.allowed_start.assign(n, 1);
    mask.allowed_start[1] = 0;
    mask.allowed_end.assign(n, 1);
  }
  ModelBuilder builder(labels, *spec, dict, p, mask);
  builder.AddMetadata("task", "tiny");
  builder.AddMetadata("c2", "1.5");
  builder.AddMetadata("empty", "");
  return builder;
}

// The builder's model; with `self_tests`, the tiny corpus is stored as its self-tests.
inline Model Built(ModelBuilder builder, bool self_tests = false) {
  if (self_tests) builder.SetSelfTestSentences(TinyCorpus());
  absl::StatusOr<Model> model = std::move(builder).Build();
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : Model();
}

inline Model BuildTinyModel(uint32_t seed = 7, double zero_fraction = 0.0, bool with_mask = true,
                            std::shared_ptr<const Lexicon> lexicon = nullptr) {
  return Built(TinyModelBuilder(seed, zero_fraction, with_mask, std::move(lexicon)));
}

// Visits every labeling of M positions over N labels.
template <typename Fn>
void ForEachLabeling(int m, int n, Fn&& fn) {
  std::vector<int> y(m, 0);
  while (true) {
    fn(y);
    int t = m - 1;
    while (t >= 0 && ++y[t] == n) y[t--] = 0;
    if (t < 0) return;
  }
}

}  // namespace chaintag::testing_model

#endif  // CHAINTAG_TESTS_SUPPORT_TINY_MODEL_H_
