#include "train/training_data.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/train.h"
#include "features/featurizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/parameters.h"
#include "support/random_problem.h"

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

// Labels and attribute names a model file cannot store (control characters, whitespace in a
// label) stop the reading at their FILE:LINE, before training, not the save after it (issue 27
// item 11).
TEST(BuildTrainingDataTest, UnstorableLabelsAndAttributesAreErrorsNamingFileAndLine) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  struct Case {
    std::vector<std::string> words, labels;
    std::string message;
  };
  for (const Case& c : {
           Case{{"a", "b"},
                {"X", "I\u0085NP"},
                "toy.conll:5: expected the label to be UTF-8 text without whitespace or control "
                "characters, found U+0085"},
           Case{{"a", "b"}, {"X", "two words"}, "toy.conll:5: expected the label"},
           Case{{"a", "b\x7f"},
                {"X", "Y"},
                "toy.conll:5: expected the feature attribute to be UTF-8 text without line breaks "
                "or control characters, found U+007F at byte offset 5 in \"U00:b\\x7F\""},
       }) {
    std::vector<Sentence> corpus = {MakeSentence({"a"}, {"X"}, 1),
                                    MakeSentence(c.words, c.labels, 4)};
    absl::StatusOr<TrainingData> data = BuildTrainingData(*spec, corpus, 1);
    ASSERT_FALSE(data.ok()) << c.message;
    EXPECT_THAT(std::string(data.status().message()), ::testing::HasSubstr(c.message));
  }
  // Tabs and non-ASCII letters are fine in attributes.
  std::vector<Sentence> corpus = {MakeSentence({"caf\u00e9", "a\tb"}, {"X", "Y"}, 1)};
  EXPECT_TRUE(BuildTrainingData(*spec, corpus, 1).ok());
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

// The two-pass construction the streaming builder replaces: sorted labels, then the dictionary,
// then Featurize per sentence. The streaming result must equal it exactly.
TrainingData ReferenceTrainingData(const FeatureSpec& spec, const std::vector<Sentence>& corpus,
                                   int min_count) {
  TrainingData data;
  for (const Sentence& s : corpus) {
    for (const std::string& label : s.labels) {
      if (std::find(data.labels.begin(), data.labels.end(), label) == data.labels.end()) {
        data.labels.push_back(label);
      }
    }
  }
  std::sort(data.labels.begin(), data.labels.end());
  Featurizer featurizer(spec);
  data.attributes = BuildAttributeDictionary(featurizer, corpus, min_count);
  data.sentence_offsets.push_back(0);
  data.position_offsets.push_back(0);
  FeaturizedSentence featurized;
  for (const Sentence& s : corpus) {
    if (s.size() == 0) continue;
    featurizer.Featurize(s, data.attributes, &featurized);
    for (int t = 0; t < s.size(); ++t) {
      for (int32_t a : featurized.at(t)) data.position_attributes.push_back(a);
      data.position_offsets.push_back(static_cast<int64_t>(data.position_attributes.size()));
      data.gold.push_back(static_cast<int32_t>(
          std::find(data.labels.begin(), data.labels.end(), s.labels[t]) - data.labels.begin()));
    }
    data.sentence_offsets.push_back(static_cast<int64_t>(data.gold.size()));
  }
  BuildFeatureSet(&data);
  return data;
}

void ExpectSameTrainingData(const TrainingData& a, const TrainingData& b) {
  EXPECT_EQ(a.labels, b.labels);
  ASSERT_EQ(a.attributes.size(), b.attributes.size());
  for (int id = 0; id < a.attributes.size(); ++id) {
    ASSERT_EQ(a.attributes.name_view(id), b.attributes.name_view(id)) << id;
  }
  EXPECT_EQ(a.sentence_offsets, b.sentence_offsets);
  EXPECT_EQ(a.position_offsets, b.position_offsets);
  EXPECT_EQ(a.position_attributes, b.position_attributes);
  EXPECT_EQ(a.gold, b.gold);
  EXPECT_EQ(a.parameters.attribute_offsets, b.parameters.attribute_offsets);
  EXPECT_EQ(a.parameters.feature_labels, b.parameters.feature_labels);
  EXPECT_EQ(a.empirical, b.empirical);
  EXPECT_EQ(a.observed_transitions, b.observed_transitions);
}

// prefix + decimal number (appending avoids a GCC 12 -Wrestrict false positive on operator+).
std::string Tagged(const char* prefix, uint64_t number) {
  std::string out = prefix;
  out += std::to_string(number);
  return out;
}

// Random two-column sentences (word, POS) with a few empty ones; labels drawn from `num_labels`.
std::vector<Sentence> RandomCorpus(uint32_t seed, int num_sentences, int num_labels) {
  std::mt19937 rng(seed);
  std::vector<Sentence> corpus;
  for (int i = 0; i < num_sentences; ++i) {
    Sentence s;
    s.file = "random.conll";
    s.columns.resize(2);
    const int m = static_cast<int>(rng() % 12);  // 0 gives an empty sentence
    for (int t = 0; t < m; ++t) {
      s.columns[0].push_back(Tagged("w", rng() % 40));
      s.columns[1].push_back(Tagged("P", rng() % 6));
      s.labels.push_back(Tagged("L", rng() % num_labels));
      s.token_lines.push_back(10 * i + t + 1);
    }
    corpus.push_back(std::move(s));
  }
  return corpus;
}

TEST(BuildTrainingDataStreamingTest, EqualsTwoPassConstructionOnRandomCorpora) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
  ASSERT_TRUE(spec.ok()) << spec.status();
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const std::vector<Sentence> corpus = RandomCorpus(seed, 60, 2 + static_cast<int>(seed));
    for (int min_count : {1, 2, 5}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " min_count " << min_count);
      absl::StatusOr<TrainingData> streamed = BuildTrainingData(*spec, corpus, min_count);
      ASSERT_TRUE(streamed.ok()) << streamed.status();
      ExpectSameTrainingData(*streamed, ReferenceTrainingData(*spec, corpus, min_count));
    }
  }
}

TEST(BuildTrainingDataStreamingTest, EqualsTwoPassConstructionOnConll2000) {
  const std::string path = std::string(CHAINTAG_SHARED_CORPORA) + "/conll2000/train.txt";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA;
  }
  absl::StatusOr<std::unique_ptr<SentenceReader>> reader =
      OpenSentenceReader(path, ReaderOptions());
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<Sentence> corpus;
  while (corpus.size() < 1500) {  // enough for rare and repeated attributes, fast under ASan
    absl::StatusOr<std::optional<Sentence>> next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (!next->has_value()) break;
    corpus.push_back(std::move(**next));
  }
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
  ASSERT_TRUE(spec.ok()) << spec.status();
  for (int min_count : {1, 3}) {
    SCOPED_TRACE(testing::Message() << "min_count " << min_count);
    absl::StatusOr<TrainingData> streamed = BuildTrainingData(*spec, corpus, min_count);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    ExpectSameTrainingData(*streamed, ReferenceTrainingData(*spec, corpus, min_count));
  }
}

TEST(BuildTrainingDataStreamingTest, PullsEachSentenceOnceAndPassesErrorsThrough) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  // Each pulled sentence lives only until the next pull, as with a reader.
  std::optional<Sentence> current;
  int pulls = 0;
  auto pull = [&]() -> absl::StatusOr<const Sentence*> {
    ++pulls;
    if (pulls > 3) return nullptr;
    current = MakeSentence({"w" + std::to_string(pulls)}, {"X"}, pulls);
    return &*current;
  };
  absl::StatusOr<TrainingData> data = BuildTrainingDataStreaming(*spec, pull, 1);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(pulls, 4);
  EXPECT_EQ(data->num_sentences(), 3);
  EXPECT_EQ(data->attributes.name_view(2), "U00:w3");

  int calls = 0;
  auto failing = [&]() -> absl::StatusOr<const Sentence*> {
    if (++calls == 2) return absl::DataLossError("train.txt:7: expected 3 columns, found 2");
    current = MakeSentence({"a"}, {"X"}, 1);
    return &*current;
  };
  data = BuildTrainingDataStreaming(*spec, failing, 1);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(calls, 2);

  data = BuildTrainingDataStreaming(
      *spec, [] { return absl::StatusOr<const Sentence*>(nullptr); }, 1);
  ASSERT_FALSE(data.ok());
  EXPECT_THAT(std::string(data.status().message()), ::testing::HasSubstr("found none"));
}

// Train on a SentenceSource (what the CLI uses) must give the model Train gives on the same
// sentences in memory: same weights, attributes and self-test sentences.
TEST(TrainSourceTest, StreamingEqualsInMemory) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
  ASSERT_TRUE(spec.ok()) << spec.status();
  std::vector<Sentence> corpus = RandomCorpus(9, 80, 4);
  // A long first sentence: the self-test picker must skip it for the short ones.
  Sentence long_sentence;
  long_sentence.columns.resize(2);
  for (int t = 0; t < 20; ++t) {
    long_sentence.columns[0].push_back(Tagged("long", t));
    long_sentence.columns[1].push_back("P0");
    long_sentence.labels.push_back("L0");
  }
  corpus.insert(corpus.begin(), long_sentence);
  TrainOptions options;
  options.max_iterations = 5;
  options.threads = 2;
  absl::StatusOr<Model> in_memory = Train(options, *spec, corpus, nullptr, nullptr);
  ASSERT_TRUE(in_memory.ok()) << in_memory.status();
  size_t next = 0;
  SentenceSource source = [&]() -> absl::StatusOr<std::optional<Sentence>> {
    if (next == corpus.size()) return std::nullopt;
    return std::optional<Sentence>(corpus[next++]);
  };
  absl::StatusOr<Model> streamed = Train(options, *spec, source, nullptr, nullptr);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(next, corpus.size());
  EXPECT_EQ(streamed->labels(), in_memory->labels());
  EXPECT_EQ(streamed->Parameters().weights, in_memory->Parameters().weights);
  EXPECT_EQ(streamed->Parameters().feature_labels, in_memory->Parameters().feature_labels);
  ASSERT_EQ(streamed->attributes().size(), in_memory->attributes().size());
  for (int a = 0; a < streamed->attributes().size(); ++a) {
    ASSERT_EQ(streamed->attributes().name(a), in_memory->attributes().name(a));
  }
  ASSERT_EQ(streamed->self_tests().size(), in_memory->self_tests().size());
  ASSERT_FALSE(streamed->self_tests().empty());
  for (size_t i = 0; i < streamed->self_tests().size(); ++i) {
    const Model::SelfTest& a = streamed->self_tests()[i];
    const Model::SelfTest& b = in_memory->self_tests()[i];
    EXPECT_LE(a.sentence.size(), 15);
    EXPECT_EQ(a.sentence.columns, b.sentence.columns);
    EXPECT_EQ(a.expected, b.expected);
  }

  // With no sentence of at most 15 tokens, the first non-empty sentence is the self-test.
  std::vector<Sentence> long_only = {Sentence(), long_sentence, long_sentence};
  long_only[2].columns[0][0] = "other";
  next = 0;
  SentenceSource long_source = [&]() -> absl::StatusOr<std::optional<Sentence>> {
    if (next == long_only.size()) return std::nullopt;
    return std::optional<Sentence>(long_only[next++]);
  };
  options.max_iterations = 2;
  absl::StatusOr<Model> long_model = Train(options, *spec, long_source, nullptr, nullptr);
  ASSERT_TRUE(long_model.ok()) << long_model.status();
  ASSERT_EQ(long_model->self_tests().size(), 1u);
  EXPECT_EQ(long_model->self_tests()[0].sentence.columns, long_sentence.columns);

  // A source error is returned as is.
  SentenceSource broken = []() -> absl::StatusOr<std::optional<Sentence>> {
    return absl::InvalidArgumentError("train.txt:3: expected UTF-8 text");
  };
  absl::StatusOr<Model> failed = Train(options, *spec, broken, nullptr, nullptr);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), ::testing::HasSubstr("train.txt:3"));
}

}  // namespace
}  // namespace chaintag::train_internal
