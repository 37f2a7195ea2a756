// Training on attribute input (CRFsuite data format): real-valued attributes reach every trainer,
// the model stores no templates and round-trips through its file.
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/parameters.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

// A sentence from token lines "LABEL<TAB>fields" (label may be empty).
Sentence Make(const std::vector<std::string>& lines) {
  Sentence s;
  s.file = "mem";
  for (size_t t = 0; t < lines.size(); ++t) {
    const size_t tab = lines[t].find('\t');
    const std::string label = lines[t].substr(0, tab);
    if (!label.empty()) s.labels.push_back(label);
    EXPECT_TRUE(AppendAttributeToken(tab == std::string::npos ? "" : lines[t].substr(tab + 1),
                                     s.file, static_cast<int64_t>(t + 1), &s)
                    .ok());
    s.token_lines.push_back(static_cast<int64_t>(t + 1));
  }
  return s;
}

// Random sentences whose label depends on a real-valued attribute "x" and a word attribute; in
// the `duplicated` form every "x:2" is written as "x\tx" (the same features), so every trainer
// must give the same model to both forms.
std::vector<Sentence> Corpus(uint64_t seed, bool duplicated) {
  std::mt19937_64 rng(seed);
  std::vector<Sentence> out;
  for (int s = 0; s < 30; ++s) {
    std::vector<std::string> lines;
    const int m = 2 + static_cast<int>(rng() % 5);
    for (int t = 0; t < m; ++t) {
      const int word = static_cast<int>(rng() % 6);
      const bool two = rng() % 2 == 0;
      const std::string label = word < 2 ? "A" : (two ? "B" : "C");
      std::string fields = absl::StrCat("w=", word, "\tbias:0.5");
      if (two) {
        absl::StrAppend(&fields, duplicated ? "\tx\tx" : "\tx:2");
      } else {
        absl::StrAppend(&fields, "\tx:-0.75");
      }
      lines.push_back(label + "\t" + fields);
    }
    out.push_back(Make(lines));
  }
  return out;
}

TrainDataInfo AttributeInfo() {
  TrainDataInfo info;
  info.input.format = CorpusFormat::kAttributes;
  return info;
}

absl::StatusOr<Model> TrainOn(const std::vector<Sentence>& corpus, const std::string& objective,
                              const std::string& algorithm = "auto") {
  TrainOptions options;
  EXPECT_TRUE(SetTrainOption(&options, "objective", objective).ok());
  EXPECT_TRUE(SetTrainOption(&options, "algorithm", algorithm).ok());
  options.max_iterations = 30;
  options.threads = 1;
  options.c2 = 0.1;
  return Train(options, FeatureSpec::AttributeInput(), corpus, nullptr, nullptr, AttributeInfo());
}

TEST(AttributeTrainingTest, WeightsEqualDuplicatedAttributesForEveryTrainer) {
  const std::vector<Sentence> weighted = Corpus(1, false);
  const std::vector<Sentence> duplicated = Corpus(1, true);
  for (const auto& [objective, algorithm] :
       std::vector<std::pair<std::string, std::string>>{{"crf", "lbfgs"},
                                                        {"softmax-margin", "auto"},
                                                        {"ssvm-margin", "bcfw"},
                                                        {"ssvm-margin", "sgd"},
                                                        {"ssvm-slack", "auto"},
                                                        {"perceptron", "auto"},
                                                        {"ldcrf", "auto"}}) {
    SCOPED_TRACE(objective + "/" + algorithm);
    absl::StatusOr<Model> a = TrainOn(weighted, objective, algorithm);
    absl::StatusOr<Model> b = TrainOn(duplicated, objective, algorithm);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    const ModelParameters pa = a->Parameters();
    const ModelParameters pb = b->Parameters();
    ASSERT_EQ(pa.weights.size(), pb.weights.size());
    double largest = 0;
    for (size_t i = 0; i < pa.weights.size(); ++i) {
      EXPECT_NEAR(pa.weights[i], pb.weights[i], 1e-2 * std::max(1.0, std::abs(pb.weights[i])))
          << "weight " << i;
      largest = std::max(largest, std::abs(pa.weights[i]));
    }
    EXPECT_GT(largest, 0.0);
    Tagger ta(*a), tb(*b);
    for (size_t s = 0; s < weighted.size(); ++s) {
      absl::StatusOr<Labeling> la = ta.Tag(weighted[s]);
      absl::StatusOr<Labeling> lb = tb.Tag(duplicated[s]);
      ASSERT_TRUE(la.ok() && lb.ok());
      EXPECT_EQ(la->labels, lb->labels) << "sentence " << s;
    }
  }
}

TEST(AttributeTrainingTest, SecondOrderUsesTheValues) {
  TrainOptions options;
  ASSERT_TRUE(SetTrainOption(&options, "order", "2").ok());
  options.max_iterations = 30;
  options.threads = 1;
  options.c2 = 0.1;
  absl::StatusOr<Model> a = Train(options, FeatureSpec::AttributeInput(), Corpus(4, false), nullptr,
                                  nullptr, AttributeInfo());
  absl::StatusOr<Model> b = Train(options, FeatureSpec::AttributeInput(), Corpus(4, true), nullptr,
                                  nullptr, AttributeInfo());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const ModelParameters pa = a->Parameters();
  const ModelParameters pb = b->Parameters();
  ASSERT_EQ(pa.weights.size(), pb.weights.size());
  for (size_t i = 0; i < pa.weights.size(); ++i)
    EXPECT_NEAR(pa.weights[i], pb.weights[i], 1e-2 * std::max(1.0, std::abs(pb.weights[i])));
}

TEST(AttributeTrainingTest, ValuesChangeTheModel) {
  // Scaling "x" changes the weights (a trainer that assumed 1 would give equal models).
  std::vector<Sentence> scaled = Corpus(1, false);
  for (Sentence& s : scaled) {
    for (float& v : s.attribute_values) v *= 3.0f;
  }
  absl::StatusOr<Model> a = TrainOn(Corpus(1, false), "crf");
  absl::StatusOr<Model> b = TrainOn(scaled, "crf");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->Parameters().weights, b->Parameters().weights);
}

TEST(AttributeTrainingTest, SaveLoadTagRoundTrip) {
  const std::vector<Sentence> corpus = Corpus(2, false);
  absl::StatusOr<Model> model = TrainOn(corpus, "crf");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->spec().reads_attributes());
  EXPECT_EQ(model->spec().text(), "");
  EXPECT_EQ(model->input_options().format, CorpusFormat::kAttributes);
  EXPECT_FALSE(model->self_tests().empty());
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "attributes_round_trip.model").string();
  ASSERT_TRUE(model->Save(path).ok());
  absl::StatusOr<Model> loaded = Model::Load(path);  // runs the stored self-tests
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->spec().reads_attributes());
  EXPECT_EQ(loaded->self_tests().size(), model->self_tests().size());
  Tagger before(*model), after(*loaded);
  int correct = 0, total = 0;
  for (const Sentence& s : corpus) {
    absl::StatusOr<Labeling> a = before.Tag(s);
    absl::StatusOr<Labeling> b = after.Tag(s);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->labels, b->labels);
    EXPECT_DOUBLE_EQ(a->score, b->score);
    for (int t = 0; t < s.size(); ++t) {
      correct += loaded->labels()[b->labels[t]] == s.labels[t];
      ++total;
    }
  }
  EXPECT_GT(correct, total * 9 / 10);  // the labels follow from the attributes
  std::filesystem::remove(path);
}

TEST(AttributeTrainingTest, ZeroWeightAttributeScoresNothing) {
  absl::StatusOr<Model> model = TrainOn(Corpus(3, false), "crf");
  ASSERT_TRUE(model.ok());
  Tagger tagger(*model);
  Lattice with, without;
  ASSERT_TRUE(tagger.BuildLattice(Make({"\tw=1\tx:0", "\tw=4\tbias:0.5"}), &with).ok());
  ASSERT_TRUE(tagger.BuildLattice(Make({"\tw=1", "\tw=4\tbias:0.5"}), &without).ok());
  for (int t = 0; t < 2; ++t) {
    for (int y = 0; y < model->num_labels(); ++y)
      EXPECT_DOUBLE_EQ(with.unary(t, y), without.unary(t, y));
  }
}

TEST(AttributeTrainingTest, RefusalsNameTheProblem) {
  std::vector<Sentence> unlabelled = {Make({"\tw=1", "\tw=2"})};
  absl::StatusOr<Model> missing = TrainOn(unlabelled, "crf");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("mem:1: expected a gold label for each of the 2 tokens"));

  absl::StatusOr<Model> lmsbn = TrainOn(Corpus(1, false), "lmsbn");
  ASSERT_FALSE(lmsbn.ok());
  EXPECT_THAT(std::string(lmsbn.status().message()), HasSubstr("lmsbn"));

  TrainOptions options;
  options.max_iterations = 2;
  absl::StatusOr<FeatureSpec> templates = FeatureSpec::Preset("pos");
  ASSERT_TRUE(templates.ok());
  absl::StatusOr<Model> mixed =
      Train(options, *templates, Corpus(1, false), nullptr, nullptr, AttributeInfo());
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(std::string(mixed.status().message()), HasSubstr("takes no templates"));

  absl::StatusOr<Model> model = TrainOn(Corpus(1, false), "crf");
  ASSERT_TRUE(model.ok());
  Tagger tagger(*model);
  Sentence columns;
  columns.file = "cols";
  columns.columns = {{"a", "b"}};
  columns.token_lines = {1, 2};
  absl::StatusOr<Labeling> refused = tagger.Tag(columns);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("cols:1: expected attribute input"));
}

}  // namespace
}  // namespace chaintag
