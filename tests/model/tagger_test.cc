#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/train.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"
#include "support/tiny_model.h"
#include "train/model_builder.h"

namespace chaintag {
namespace {

using testing_model::BuildTinyModel;
using testing_model::ForEachLabeling;
using testing_model::MakeSentence;
using testing_model::TinyCorpus;

// Chain score of `y` computed from attribute strings and the raw parameters, independently of
// ModelParameters::Score and the lattice; -inf when the mask forbids it.
double ReferenceScore(const Model& model, const Sentence& s, const std::vector<int>& y) {
  const ModelParameters p = model.Parameters();
  const int n = model.num_labels();
  const TransitionMask& mask = model.transition_mask();
  Featurizer featurizer(model.spec());
  double score = 0;
  for (int t = 0; t < s.size(); ++t) {
    for (const std::string& attr : featurizer.Attributes(s, t)) {
      const int a = model.attributes().Find(attr);
      if (a < 0) continue;
      for (int f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f) {
        if (p.feature_labels[f] == y[t]) score += p.weights[f];
      }
    }
    if (t > 0) {
      if (mask.num_labels && !mask.allowed[y[t - 1] * n + y[t]]) return kNegInf;
      score += p.weights[p.transition_offset() + y[t - 1] * n + y[t]];
    }
  }
  if (s.size() > 0) {
    if (mask.num_labels && (!mask.allowed_start[y[0]] || !mask.allowed_end[y.back()]))
      return kNegInf;
    score += p.weights[p.start_offset() + y[0]] + p.weights[p.end_offset() + y.back()];
  }
  return score;
}

std::vector<Sentence> TestSentences() {
  std::vector<Sentence> sentences = TinyCorpus();
  // Unseen words and tags too.
  sentences.push_back(MakeSentence({"Zebras", "the", "cat", "sat", "quietly"},
                                   {"NNS", "DT", "NN", "VBD", "RB"}, 20));
  sentences.push_back(MakeSentence({"x"}, {"SYM"}, 30));
  return sentences;
}

TEST(TaggerTest, TagIsBestOfAllLabelings) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    for (bool with_mask : {false, true}) {
      const Model model = BuildTinyModel(seed, 0.0, with_mask);
      Tagger tagger(model);
      for (const Sentence& s : TestSentences()) {
        absl::StatusOr<Labeling> best = tagger.Tag(s);
        ASSERT_TRUE(best.ok()) << best.status();
        ASSERT_EQ(static_cast<int>(best->labels.size()), s.size());
        double max_score = kNegInf;
        ForEachLabeling(s.size(), model.num_labels(), [&](const std::vector<int>& y) {
          max_score = std::max(max_score, ReferenceScore(model, s, y));
        });
        EXPECT_NEAR(best->score, max_score, 1e-9);
        EXPECT_NEAR(ReferenceScore(model, s, best->labels), max_score, 1e-9);
      }
    }
  }
}

// A sentence with too few columns is named once ("tiny.conll:4: expected ..."), not twice.
TEST(TaggerTest, MissingColumnErrorNamesThePlaceOnce) {
  const Model model = BuildTinyModel(5);
  Tagger tagger(model);
  Sentence s = MakeSentence({"The", "cat"}, {"DT", "NN"}, 4);
  s.columns.resize(1);
  const absl::StatusOr<Labeling> result = tagger.Tag(s);
  ASSERT_FALSE(result.ok());
  const std::string message(result.status().message());
  EXPECT_EQ(message.rfind("tiny.conll:4: expected at least 2 input column", 0), 0u) << message;
  EXPECT_EQ(message.find("tiny.conll", 1), std::string::npos) << message;
}

TEST(TaggerTest, MaskIsApplied) {
  const Model model = BuildTinyModel(5, 0.0, true);
  Tagger tagger(model);
  for (const Sentence& s : TestSentences()) {
    Lattice lattice;
    ASSERT_TRUE(tagger.BuildLattice(s, &lattice).ok());
    EXPECT_EQ(lattice.start(1), kNegInf);          // I-NP cannot start
    EXPECT_EQ(lattice.transition(2, 1), kNegInf);  // O -> I-NP forbidden
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok());
    EXPECT_NE(best->labels[0], 1);
    for (size_t t = 1; t < best->labels.size(); ++t) {
      EXPECT_FALSE(best->labels[t - 1] == 2 && best->labels[t] == 1);
    }
  }
}

// The tagger's packed layout and pre-masked transitions must give exactly Score + mask.
void ExpectLatticeEqualsScorePlusMask(const Model& model) {
  Tagger tagger(model);
  Featurizer featurizer(model.spec());
  const ModelParameters params = model.Parameters();
  for (const Sentence& s : TestSentences()) {
    Lattice fast;
    ASSERT_TRUE(tagger.BuildLattice(s, &fast).ok());
    FeaturizedSentence featurized;
    featurizer.Featurize(s, model.attributes(), &featurized);
    Lattice reference;
    params.Score(featurized, params.weights, &reference);
    if (model.transition_mask().num_labels == model.num_labels()) {
      ApplyTransitionMask(model.transition_mask(), &reference);
    }
    ASSERT_EQ(fast.size(), reference.size());
    ASSERT_EQ(fast.num_labels(), reference.num_labels());
    EXPECT_EQ(fast.unary_data(), reference.unary_data());
    EXPECT_EQ(fast.transition_data(), reference.transition_data());
    for (int y = 0; y < model.num_labels(); ++y) {
      EXPECT_EQ(fast.start(y), reference.start(y));
      EXPECT_EQ(fast.end(y), reference.end(y));
    }
  }
}

TEST(TaggerTest, LatticeEqualsScorePlusMask) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    for (bool with_mask : {false, true}) {
      ExpectLatticeEqualsScorePlusMask(BuildTinyModel(seed, 0.0, with_mask));
      // A pruned model is laid out from the pruned parameters.
      ModelBuilder pruned = testing_model::TinyModelBuilder(seed, 0.3, with_mask);
      pruned.Prune();
      ExpectLatticeEqualsScorePlusMask(testing_model::Built(std::move(pruned)));
    }
  }
}

TEST(TaggerTest, AnalyzeMatchesEnumeration) {
  const Model model = BuildTinyModel(9, 0.0, true);
  Tagger tagger(model);
  const int n = model.num_labels();
  for (const Sentence& s : TestSentences()) {
    absl::StatusOr<Tagger::Analysis> analysis = tagger.Analyze(s);
    ASSERT_TRUE(analysis.ok()) << analysis.status();
    double max_score = kNegInf;
    std::vector<double> scores;
    std::vector<std::vector<int>> labelings;
    ForEachLabeling(s.size(), n, [&](const std::vector<int>& y) {
      scores.push_back(ReferenceScore(model, s, y));
      labelings.push_back(y);
      max_score = std::max(max_score, scores.back());
    });
    double sum = 0;
    for (double x : scores) sum += std::exp(x - max_score);
    const double log_z = max_score + std::log(sum);
    EXPECT_NEAR(analysis->log_z, log_z, 1e-9);
    EXPECT_NEAR(analysis->best.score, max_score, 1e-9);
    const double probability = std::exp(analysis->best.score - analysis->log_z);
    EXPECT_GT(probability, 0.0);
    EXPECT_LE(probability, 1.0 + 1e-12);
    for (int t = 0; t < s.size(); ++t) {
      double total = 0;
      for (int y = 0; y < n; ++y) {
        double expected = 0;
        for (size_t k = 0; k < scores.size(); ++k) {
          if (labelings[k][t] == y) expected += std::exp(scores[k] - log_z);
        }
        EXPECT_NEAR(analysis->marginals.unary_at(t, y, n), expected, 1e-9);
        total += analysis->marginals.unary_at(t, y, n);
      }
      EXPECT_NEAR(total, 1.0, 1e-9);
    }
  }
}

TEST(TaggerTest, MissingColumnErrorNamesFileAndLine) {
  const Model model = BuildTinyModel();
  Tagger tagger(model);
  Sentence s;
  s.columns = {{"words", "only"}};
  s.file = "input.conll";
  s.token_lines = {17, 18};
  absl::StatusOr<Labeling> best = tagger.Tag(s);
  ASSERT_FALSE(best.ok());
  EXPECT_NE(best.status().message().find("input.conll:17"), std::string::npos) << best.status();
  EXPECT_NE(best.status().message().find("column"), std::string::npos) << best.status();
}

TEST(TaggerTest, RaggedColumnsRejected) {
  const Model model = BuildTinyModel();
  Tagger tagger(model);
  Sentence s = MakeSentence({"a", "b"}, {"DT"}, 4);
  EXPECT_FALSE(tagger.Tag(s).ok());
}

TEST(TaggerTest, EmptySentence) {
  const Model model = BuildTinyModel();
  Tagger tagger(model);
  Sentence s;
  s.columns = {{}, {}};
  absl::StatusOr<Labeling> best = tagger.Tag(s);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_TRUE(best->labels.empty());
}

}  // namespace
}  // namespace chaintag
