#include "train/training_data.h"

#include <vector>

#include "chaintag/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "train/random_problem.h"

namespace chaintag::train_internal {
namespace {

Sentence MakeSentence(std::vector<std::string> words, std::vector<std::string> labels, int line) {
  Sentence s;
  s.columns.push_back(std::move(words));
  s.labels = std::move(labels);
  s.file = "toy.conll";
  for (int t = 0; t < s.size(); ++t) s.token_lines.push_back(line + t);
  return s;
}

TEST(BuildFeatureSetTest, FeaturesAreObservedPairsWithCounts) {
  TrainingData data;
  data.labels = {"A", "B"};
  for (const char* a : {"x", "y", "z"}) data.attributes.Insert(a);
  // Sentence 0: (x,y)/A (x)/B ; sentence 1: (x)/A.  z never occurs.
  data.sentence_offsets = {0, 2, 3};
  data.position_offsets = {0, 2, 3, 4};
  data.position_attributes = {0, 1, 0, 0};
  data.gold = {0, 1, 0};
  BuildFeatureSet(&data);
  const ModelParameters& p = data.parameters;
  EXPECT_THAT(p.attribute_offsets, ::testing::ElementsAre(0, 2, 3, 3));
  EXPECT_THAT(p.feature_labels, ::testing::ElementsAre(0, 1, 0));
  EXPECT_EQ(p.size(), 3 + 4 + 2 + 2);
  EXPECT_EQ(data.FindFeature(0, 1), 1);
  EXPECT_EQ(data.FindFeature(1, 1), -1);
  EXPECT_EQ(data.FindFeature(2, 0), -1);
  // x/A twice, x/B once, y/A once; transition A->B once; starts A twice; ends B, A.
  EXPECT_THAT(data.empirical, ::testing::ElementsAre(2, 1, 1, 0, 1, 0, 0, 2, 0, 1, 1));
  // Rows: start, A, B.
  EXPECT_THAT(data.observed_transitions, ::testing::ElementsAre(1, 0, 0, 1, 0, 0));
}

TEST(BuildFeatureSetTest, EmpiricalCountsSumToTokensTimesAttributes) {
  TrainingData data = RandomProblem(77, 50, 9, 4, 20);
  int64_t state = 0, transitions = 0;
  for (int64_t f = 0; f < data.parameters.num_state_features(); ++f) state += data.empirical[f];
  for (int64_t f = data.parameters.transition_offset(); f < data.parameters.start_offset(); ++f)
    transitions += data.empirical[f];
  EXPECT_EQ(state, static_cast<int64_t>(data.position_attributes.size()));
  EXPECT_EQ(transitions, data.num_positions() - data.num_sentences());
}

TEST(BuildTrainingDataTest, FeaturizesCorpusWithSortedLabels) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  std::vector<Sentence> corpus = {MakeSentence({"the", "dog"}, {"DT", "NN"}, 1),
                                  MakeSentence({"a", "cat", "ran"}, {"DT", "NN", "VB"}, 4)};
  absl::StatusOr<TrainingData> data = BuildTrainingData(*spec, corpus, 1);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_THAT(data->labels, ::testing::ElementsAre("DT", "NN", "VB"));
  EXPECT_EQ(data->num_sentences(), 2);
  EXPECT_EQ(data->num_positions(), 5);
  EXPECT_THAT(data->gold, ::testing::ElementsAre(0, 1, 0, 1, 2));
  // Each position fires both templates.
  for (int64_t p = 0; p < 5; ++p) EXPECT_EQ(data->attributes_at(p).size(), 2u) << p;
  // Every feature is an observed (attribute, label) pair: one per occurrence here except the
  // shared sentence-start attribute, which is seen twice with DT.
  EXPECT_EQ(data->parameters.num_state_features(), data->attributes.size());
}

TEST(BuildTrainingDataTest, MinFeatureCountDropsRareAttributes) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nB\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  std::vector<Sentence> corpus = {MakeSentence({"a", "b"}, {"X", "Y"}, 1),
                                  MakeSentence({"a", "c"}, {"X", "Y"}, 4)};
  absl::StatusOr<TrainingData> data = BuildTrainingData(*spec, corpus, 2);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->attributes.size(), 1);
  EXPECT_EQ(data->parameters.num_state_features(), 1);
}

TEST(BuildTrainingDataTest, UnlabelledSentenceIsAnErrorNamingFileAndLine) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  std::vector<Sentence> corpus = {MakeSentence({"a"}, {"X"}, 1), MakeSentence({"b", "c"}, {}, 3)};
  absl::StatusOr<TrainingData> data = BuildTrainingData(*spec, corpus, 1);
  ASSERT_FALSE(data.ok());
  EXPECT_THAT(std::string(data.status().message()), ::testing::HasSubstr("toy.conll:3"));
}

TEST(ScoreTrainingSentenceTest, MatchesModelParametersScore) {
  TrainingData data = RandomProblem(21, 6, 5, 3, 8);
  std::vector<double> w = RandomWeights(22, data.parameters.size(), 1.0);
  Lattice mine, theirs;
  for (int s = 0; s < data.num_sentences(); ++s) {
    ScoreTrainingSentence(data, s, w.data(), &mine);
    FeaturizedSentence fs;
    fs.offsets.push_back(0);
    for (int64_t p = data.sentence_offsets[s]; p < data.sentence_offsets[s + 1]; ++p) {
      for (int32_t a : data.attributes_at(p)) fs.attributes.push_back(a);
      fs.offsets.push_back(static_cast<int32_t>(fs.attributes.size()));
    }
    data.parameters.Score(fs, w, &theirs);
    ASSERT_EQ(mine.size(), theirs.size());
    for (size_t i = 0; i < mine.unary_data().size(); ++i)
      EXPECT_NEAR(mine.unary_data()[i], theirs.unary_data()[i], 1e-12);
    for (size_t i = 0; i < mine.transition_data().size(); ++i)
      EXPECT_EQ(mine.transition_data()[i], theirs.transition_data()[i]);
    for (int y = 0; y < 3; ++y) {
      EXPECT_EQ(mine.start(y), theirs.start(y));
      EXPECT_EQ(mine.end(y), theirs.end(y));
    }
  }
}

}  // namespace
}  // namespace chaintag::train_internal
