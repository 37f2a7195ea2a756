#include "chaintag/model.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "chaintag/train.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"
#include "support/tiny_model.h"
#include "train/model_builder.h"

namespace chaintag {
namespace {

using testing_model::BuildTinyModel;
using testing_model::Built;
using testing_model::TinyCorpus;
using testing_model::TinyModelBuilder;

TEST(ScoreTest, MatchesHandComputation) {
  // Two labels, three attributes; attribute 1 has no feature.
  ModelParameters p;
  p.num_labels = 2;
  p.attribute_offsets = {0, 2, 2, 3};
  p.feature_labels = {0, 1, 1};
  // state: a0/y0 = 0.5, a0/y1 = -1, a2/y1 = 0.25; trans (0,0)=1 (0,1)=2 (1,0)=3 (1,1)=4;
  // start 5 6; end 7 8.
  p.weights = {0.5, -1.0, 0.25, 1, 2, 3, 4, 5, 6, 7, 8};
  FeaturizedSentence s;
  s.offsets = {0, 2, 3};
  s.attributes = {0, 2, 1};  // position 0: a0 and a2; position 1: a1
  Lattice lattice;
  p.Score(s, p.weights, &lattice);
  ASSERT_EQ(lattice.size(), 2);
  ASSERT_EQ(lattice.num_labels(), 2);
  EXPECT_DOUBLE_EQ(lattice.unary(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(lattice.unary(0, 1), -1.0 + 0.25);
  EXPECT_DOUBLE_EQ(lattice.unary(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(lattice.unary(1, 1), 0.0);
  EXPECT_DOUBLE_EQ(lattice.transition(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(lattice.transition(1, 0), 3.0);
  EXPECT_DOUBLE_EQ(lattice.start(1), 6.0);
  EXPECT_DOUBLE_EQ(lattice.end(0), 7.0);
}

// Reference: unary(t, y) as a sum over all features whose attribute occurs at t.
TEST(ScoreTest, MatchesBruteForceOnRandomParameters) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 4);
    const int num_attr = 1 + static_cast<int>(rng() % 8);
    ModelParameters p;
    p.num_labels = n;
    p.attribute_offsets.push_back(0);
    std::vector<int> attribute_of;
    for (int a = 0; a < num_attr; ++a) {
      for (int y = 0; y < n; ++y) {
        if (rng() % 2) continue;
        p.feature_labels.push_back(y);
        attribute_of.push_back(a);
      }
      p.attribute_offsets.push_back(static_cast<int32_t>(p.feature_labels.size()));
    }
    std::uniform_real_distribution<double> dist(-3, 3);
    std::vector<double> w(p.size());
    for (double& x : w) x = dist(rng);
    p.weights.assign(p.size(), 0.0);  // Score must read `w`, not `weights`
    const int m = static_cast<int>(rng() % 6);
    FeaturizedSentence s;
    s.offsets.push_back(0);
    std::vector<std::set<int>> present(m);
    for (int t = 0; t < m; ++t) {
      for (int a = 0; a < num_attr; ++a) {
        if (rng() % 2) {
          s.attributes.push_back(a);
          present[t].insert(a);
        }
      }
      s.offsets.push_back(static_cast<int32_t>(s.attributes.size()));
    }
    Lattice lattice(7, 7);  // stale size: Score must resize
    p.Score(s, w, &lattice);
    ASSERT_EQ(lattice.size(), m);
    ASSERT_EQ(lattice.num_labels(), n);
    for (int t = 0; t < m; ++t) {
      for (int y = 0; y < n; ++y) {
        double expected = 0;
        for (size_t f = 0; f < p.feature_labels.size(); ++f) {
          if (p.feature_labels[f] == y && present[t].count(attribute_of[f])) expected += w[f];
        }
        EXPECT_NEAR(lattice.unary(t, y), expected, 1e-12);
      }
    }
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b)
        EXPECT_EQ(lattice.transition(a, b), w[p.transition_offset() + a * n + b]);
      EXPECT_EQ(lattice.start(a), w[p.start_offset() + a]);
      EXPECT_EQ(lattice.end(a), w[p.end_offset() + a]);
    }
  }
}

TEST(ModelTest, ConstructorRoundsWeightsToFloat32) {
  ModelParameters p;
  p.num_labels = 1;
  p.attribute_offsets = {0, 1};
  p.feature_labels = {0};
  p.weights = {0.1, 0.2, 0.3, 0.4};
  AttributeDictionary dict;
  dict.Insert("U00:x");
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ModelBuilder builder({"X"}, *spec, dict, p, TransitionMask());
  for (size_t i = 0; i < p.weights.size(); ++i) {
    EXPECT_EQ(builder.parameters().weights[i],
              static_cast<double>(static_cast<float>(p.weights[i])));
  }
  absl::StatusOr<Model> model = std::move(builder).Build();
  ASSERT_TRUE(model.ok()) << model.status();
  const ModelParameters stored = model->Parameters();
  ASSERT_EQ(stored.weights.size(), p.weights.size());
  for (size_t i = 0; i < p.weights.size(); ++i) {
    EXPECT_EQ(stored.weights[i], static_cast<double>(static_cast<float>(p.weights[i])));
    EXPECT_NE(stored.weights[i], p.weights[i]);
  }
  EXPECT_EQ(stored.attribute_offsets, p.attribute_offsets);
  EXPECT_EQ(stored.feature_labels, p.feature_labels);
}

// The model keeps one copy of its weights (the tagging layout); Parameters() rebuilds the
// trainers' layout from it exactly, and scoring with either gives the Tagger's lattice.
TEST(ModelTest, ParametersRebuildTheTrainerLayout) {
  const ModelBuilder builder = TinyModelBuilder(3);
  const ModelParameters expected = builder.parameters();
  const Model model = Built(builder);
  const ModelParameters p = model.Parameters();
  EXPECT_EQ(p.num_labels, expected.num_labels);
  EXPECT_EQ(p.attribute_offsets, expected.attribute_offsets);
  EXPECT_EQ(p.feature_labels, expected.feature_labels);
  EXPECT_EQ(p.weights, expected.weights);
  EXPECT_EQ(model.num_state_features(), expected.num_state_features());
}

TEST(ModelBuilderTest, BuildRefusesInconsistentParameters) {
  ModelBuilder good = TinyModelBuilder();
  ModelParameters p = good.parameters();
  p.feature_labels[0] = 7;  // only 3 labels
  ModelBuilder bad({"B-NP", "I-NP", "O"},
                   FeatureSpec(*FeatureSpec::Parse(testing_model::kTinyTemplates)),
                   good.attributes(), p, TransitionMask());
  absl::StatusOr<Model> model = std::move(bad).Build();
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("has label id 7"), std::string_view::npos)
      << model.status();
}

TEST(ModelTest, LabelIdAndMetadata) {
  const Model model = BuildTinyModel();
  for (int y = 0; y < model.num_labels(); ++y) EXPECT_EQ(model.LabelId(model.labels()[y]), y);
  EXPECT_EQ(model.LabelId("NOPE"), -1);
  EXPECT_EQ(model.Metadata("task"), "tiny");
  EXPECT_EQ(model.Metadata("c2"), "1.5");
  EXPECT_EQ(model.Metadata("missing"), "");
  ASSERT_EQ(model.metadata().size(), 3u);
  EXPECT_EQ(model.metadata()[0].first, "task");
}

TEST(ModelBuilderTest, SelfTestsRecordCurrentLabels) {
  const std::vector<Sentence> corpus = TinyCorpus();
  const Model model = Built(TinyModelBuilder(), /*self_tests=*/true);
  ASSERT_EQ(model.self_tests().size(), corpus.size());
  Tagger tagger(model);
  for (size_t k = 0; k < corpus.size(); ++k) {
    absl::StatusOr<Labeling> best = tagger.Tag(corpus[k]);
    ASSERT_TRUE(best.ok()) << best.status();
    std::vector<std::string> names;
    for (int y : best->labels) names.push_back(model.labels()[y]);
    EXPECT_EQ(model.self_tests()[k].expected, names);
    EXPECT_EQ(model.self_tests()[k].sentence.columns, corpus[k].columns);
  }
}

TEST(ModelBuilderTest, SelfTestsFailOnMissingColumns) {
  ModelBuilder builder = TinyModelBuilder();
  Sentence s;
  s.columns = {{"only", "words"}};
  s.file = "x.conll";
  s.token_lines = {3, 4};
  builder.SetSelfTestSentences({s});
  EXPECT_FALSE(std::move(builder).Build().ok());
}

TEST(ModelBuilderTest, PruneDropsZeroWeightsKeepsTags) {
  const Model original = BuildTinyModel(11, 0.5);
  ModelBuilder pruning = TinyModelBuilder(11, 0.5);
  pruning.Prune();
  const Model pruned = Built(std::move(pruning));
  const ModelParameters before = original.Parameters();
  const ModelParameters after = pruned.Parameters();
  int64_t nonzero = 0;
  for (int64_t f = 0; f < before.num_state_features(); ++f) nonzero += before.weights[f] != 0.0;
  ASSERT_LT(nonzero, before.num_state_features());  // the seed must produce zeros
  EXPECT_EQ(after.num_state_features(), nonzero);
  EXPECT_EQ(after.size(), nonzero + before.size() - before.num_state_features());
  EXPECT_EQ(after.num_attributes(), pruned.attributes().size());
  EXPECT_LT(after.num_attributes(), before.num_attributes());
  for (int a = 0; a < after.num_attributes(); ++a) {
    EXPECT_LT(after.attribute_offsets[a], after.attribute_offsets[a + 1]) << "empty attribute kept";
  }
  for (int64_t f = 0; f < after.num_state_features(); ++f) EXPECT_NE(after.weights[f], 0.0);
  // Transitions, start and end are untouched.
  EXPECT_TRUE(std::equal(after.weights.begin() + after.transition_offset(), after.weights.end(),
                         before.weights.begin() + before.transition_offset()));
  Tagger t1(original), t2(pruned);
  for (const Sentence& s : TinyCorpus()) {
    Lattice l1, l2;
    ASSERT_TRUE(t1.BuildLattice(s, &l1).ok());
    ASSERT_TRUE(t2.BuildLattice(s, &l2).ok());
    EXPECT_EQ(l1.unary_data(), l2.unary_data());
    EXPECT_EQ(t1.Tag(s)->labels, t2.Tag(s)->labels);
  }
}

TEST(TopFeaturesTest, SortedByMagnitudeAndClamped) {
  const Model model = BuildTinyModel();
  const ModelParameters p = model.Parameters();
  const std::vector<WeightedFeature> top = TopFeatures(model, 5);
  ASSERT_EQ(top.size(), 5u);
  for (size_t i = 1; i < top.size(); ++i) {
    EXPECT_GE(std::fabs(top[i - 1].weight), std::fabs(top[i].weight));
  }
  double max_abs = 0;
  int64_t arg = 0;
  for (int64_t f = 0; f < p.num_state_features(); ++f) {
    if (std::fabs(p.weights[f]) > max_abs) {
      max_abs = std::fabs(p.weights[f]);
      arg = f;
    }
  }
  EXPECT_EQ(top[0].weight, p.weights[arg]);
  EXPECT_EQ(top[0].label, model.labels()[p.feature_labels[arg]]);
  int a = 0;
  while (p.attribute_offsets[a + 1] <= arg) ++a;
  EXPECT_EQ(top[0].attribute, model.attributes().name(a));
  EXPECT_EQ(TopFeatures(model, 1 << 20).size(), static_cast<size_t>(p.num_state_features()));
  EXPECT_TRUE(TopFeatures(model, 0).empty());
  EXPECT_TRUE(TopFeatures(model, -3).empty());
}

}  // namespace
}  // namespace chaintag
