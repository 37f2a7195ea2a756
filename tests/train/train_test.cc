#include "chaintag/train.h"

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

// A toy chunking corpus: determiners and adjectives open or continue NPs before nouns; verbs
// form VPs. Separable from the word and its left neighbour.
std::vector<Sentence> ToyCorpus(int sentences, uint64_t seed) {
  const std::vector<std::string> det = {"the", "a", "this"}, adj = {"big", "red", "old"},
                                 noun = {"dog", "cat", "house", "car"}, verb = {"saw", "likes", "ran"};
  std::mt19937_64 rng(seed);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  std::vector<Sentence> corpus;
  for (int i = 0; i < sentences; ++i) {
    Sentence s;
    s.columns.resize(1);
    s.file = "toy";
    auto add = [&](const std::string& w, const std::string& l) {
      s.columns[0].push_back(w);
      s.labels.push_back(l);
      s.token_lines.push_back(static_cast<int64_t>(i) * 10 + s.size());
    };
    auto np = [&]() {
      add(pick(det), "B-NP");
      if (rng() % 2) add(pick(adj), "I-NP");
      add(pick(noun), "I-NP");
    };
    np();
    add(pick(verb), "B-VP");
    if (rng() % 2) np();
    if (rng() % 3 == 0) add(".", "O");
    corpus.push_back(std::move(s));
  }
  return corpus;
}

FeatureSpec ToySpec() {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nB\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

double TrainAccuracy(const Model& model, const std::vector<Sentence>& corpus) {
  Tagger tagger(model);
  int64_t correct = 0, total = 0;
  for (const Sentence& s : corpus) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    EXPECT_TRUE(best.ok()) << best.status();
    if (!best.ok()) continue;
    for (int t = 0; t < s.size(); ++t) {
      correct += model.labels()[best->labels[t]] == s.labels[t];
      ++total;
    }
  }
  return static_cast<double>(correct) / total;
}

TEST(TrainCrfTest, LbfgsFitsSeparableDataAndReportsProgress) {
  const std::vector<Sentence> train = ToyCorpus(80, 1), dev = ToyCorpus(20, 2);
  TrainOptions options;
  options.c2 = 0.01;
  options.threads = 2;
  std::vector<TrainProgress> seen;
  absl::StatusOr<Model> model =
      TrainCrf(options, ToySpec(), train, &dev, [&](const TrainProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(TrainAccuracy(*model, train), 1.0);
  ASSERT_FALSE(seen.empty());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].iteration, static_cast<int>(i) + 1);
    EXPECT_TRUE(seen[i].dev_score.has_value());
    EXPECT_EQ(seen[i].dev_metric, "F1");
    EXPECT_GT(seen[i].active_features, 0);
  }
  EXPECT_LT(seen.back().objective, seen.front().objective);
  EXPECT_EQ(*seen.back().dev_score, 100.0);
  EXPECT_EQ(model->Metadata("objective"), "crf");
  EXPECT_EQ(model->Metadata("algorithm"), "lbfgs");
  EXPECT_EQ(model->Metadata("c2"), "0.01");
  EXPECT_EQ(model->Metadata("training_sentences"), "80");
  EXPECT_EQ(model->Metadata("dev_metric"), "F1");
  EXPECT_EQ(model->Metadata("iterations"), absl::StrCat(seen.size()));
  EXPECT_FALSE(model->self_tests().empty());
  EXPECT_LE(model->self_tests().size(), 5u);
  // Weights are stored as float32.
  for (double w : model->parameters().weights) EXPECT_EQ(w, static_cast<double>(static_cast<float>(w)));
}

TEST(TrainCrfTest, ThreadCountDoesNotChangeWeights) {
  const std::vector<Sentence> train = ToyCorpus(120, 3);
  TrainOptions options;
  options.max_iterations = 30;
  std::vector<std::vector<double>> weights;
  for (int threads : {1, 2, 5}) {
    options.threads = threads;
    absl::StatusOr<Model> model = TrainCrf(options, ToySpec(), train, nullptr, nullptr);
    ASSERT_TRUE(model.ok()) << model.status();
    weights.push_back(model->parameters().weights);
  }
  for (size_t i = 1; i < weights.size(); ++i) {
    ASSERT_EQ(weights[i].size(), weights[0].size());
    EXPECT_EQ(std::memcmp(weights[i].data(), weights[0].data(), weights[0].size() * sizeof(double)), 0);
  }
}

TEST(TrainCrfTest, OwlqnYieldsSparseModel) {
  const std::vector<Sentence> train = ToyCorpus(80, 4);
  TrainOptions l2;
  absl::StatusOr<Model> dense = TrainCrf(l2, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(dense.ok()) << dense.status();
  TrainOptions l1;
  l1.algorithm = "owlqn";
  l1.c1 = 1.0;
  l1.c2 = 0.0;
  absl::StatusOr<Model> sparse = TrainCrf(l1, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  // Prune() removed zero-weight state features.
  EXPECT_LT(sparse->parameters().num_state_features(), dense->parameters().num_state_features() / 2);
  EXPECT_GT(TrainAccuracy(*sparse, train), 0.9);
}

TEST(TrainCrfTest, PerceptronFitsSeparableData) {
  const std::vector<Sentence> train = ToyCorpus(80, 5);
  TrainOptions options;
  options.algorithm = "perceptron";
  options.max_iterations = 8;
  std::vector<double> mistakes;
  absl::StatusOr<Model> model = TrainCrf(options, ToySpec(), train, nullptr,
                                         [&](const TrainProgress& p) { mistakes.push_back(p.objective); });
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(mistakes.size(), 8u);
  EXPECT_EQ(model->Metadata("objective"), "perceptron");
  EXPECT_EQ(TrainAccuracy(*model, train), 1.0);
}

TEST(TrainCrfTest, EarlyStoppingKeepsBestDevWeights) {
  const std::vector<Sentence> train = ToyCorpus(60, 6), dev = ToyCorpus(20, 7);
  TrainOptions options;
  options.early_stopping = 2;
  std::vector<double> scores;
  absl::StatusOr<Model> model = TrainCrf(options, ToySpec(), train, &dev,
                                         [&](const TrainProgress& p) { scores.push_back(*p.dev_score); });
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_GE(scores.size(), 3u);
  // Stops once two evaluations in a row fail to beat the best one.
  const double best = *std::max_element(scores.begin(), scores.end());
  EXPECT_LT(scores[scores.size() - 1], best + 1e-12);
  EXPECT_LE(scores[scores.size() - 2], best);
  EXPECT_EQ(model->Metadata("dev_score"), absl::StrCat(best));
  EXPECT_EQ(model->Metadata("stop_reason"), "early stopping");
}

TEST(TrainCrfTest, RejectsUnlabelledDataAndBadOptions) {
  std::vector<Sentence> train = ToyCorpus(3, 8);
  train[1].labels.clear();
  EXPECT_FALSE(TrainCrf(TrainOptions(), ToySpec(), train, nullptr, nullptr).ok());
  TrainOptions bad;
  bad.algorithm = "owlqn";  // needs c1 > 0
  EXPECT_FALSE(TrainCrf(bad, ToySpec(), ToyCorpus(3, 8), nullptr, nullptr).ok());
}

TEST(TrainOptionTableTest, DefaultsRoundTripAndSettersValidate) {
  const TrainOptions defaults;
  std::set<std::string> names;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    EXPECT_TRUE(names.insert(def.name).second) << def.name;
    EXPECT_FALSE(def.help.empty()) << def.name;
    EXPECT_EQ(def.get(defaults), def.default_value) << def.name;
    TrainOptions o;
    ASSERT_TRUE(def.set(&o, def.default_value).ok()) << def.name;
    EXPECT_EQ(def.get(o), def.default_value) << def.name;
  }
  EXPECT_TRUE(names.count("c2"));
  EXPECT_TRUE(names.count("max_iterations"));
  TrainOptions o;
  ASSERT_TRUE(SetTrainOption(&o, "c2", "0.25").ok());
  EXPECT_EQ(o.c2, 0.25);
  ASSERT_TRUE(SetTrainOption(&o, "max_iterations", "7").ok());
  EXPECT_EQ(o.max_iterations, 7);
  EXPECT_FALSE(SetTrainOption(&o, "c2", "abc").ok());
  EXPECT_FALSE(SetTrainOption(&o, "max_iterations", "1.5").ok());
  EXPECT_FALSE(SetTrainOption(&o, "algorithm", "newton").ok());
  EXPECT_FALSE(SetTrainOption(&o, "objective", "hinge").ok());
  EXPECT_FALSE(SetTrainOption(&o, "loss", "fbeta:").ok());
  ASSERT_TRUE(SetTrainOption(&o, "loss", "fbeta:0.5").ok());
  EXPECT_FALSE(SetTrainOption(&o, "no_such_option", "1").ok());
  EXPECT_TRUE(ValidateTrainOptions(TrainOptions()).ok());
  TrainOptions l1;
  l1.c1 = 1;
  EXPECT_FALSE(ValidateTrainOptions(l1).ok());  // lbfgs with c1 > 0
  l1.algorithm = "owlqn";
  EXPECT_TRUE(ValidateTrainOptions(l1).ok());
}

TEST(TrainOptionTableTest, ResolveFillsTheAutoChoicesPerObjective) {
  struct Case {
    const char* objective;
    const char* algorithm;
    const char* loss;
  };
  for (const Case& c : {Case{"crf", "lbfgs", "none"}, Case{"softmax-margin", "lbfgs", "hamming"},
                        Case{"ssvm-margin", "bcfw", "hamming"}, Case{"ssvm-slack", "sgd", "hamming"},
                        Case{"perceptron", "perceptron", "none"}}) {
    TrainOptions o;
    o.objective = c.objective;
    absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(o);
    ASSERT_TRUE(resolved.ok()) << c.objective << ": " << resolved.status();
    EXPECT_EQ(resolved->algorithm, c.algorithm) << c.objective;
    EXPECT_EQ(resolved->loss, c.loss) << c.objective;
  }
  TrainOptions legacy;
  legacy.algorithm = "perceptron";
  EXPECT_EQ(ResolveTrainOptions(legacy)->objective, "perceptron");
  TrainOptions slack;
  slack.objective = "ssvm-slack";
  slack.algorithm = "bcfw";  // Frank-Wolfe does not solve slack scaling
  EXPECT_FALSE(ResolveTrainOptions(slack).ok());
  TrainOptions smooth;
  smooth.objective = "softmax-margin";
  smooth.loss = "f1";  // not decomposable
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.loss = "hamming";
  smooth.p = 1.0;
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.p = 1.5;
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
  smooth.loss_weights = "weights.txt";  // weights belong to weighted-hamming only
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.loss = "weighted-hamming";
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
  smooth.loss_weights.clear();  // no file: every mismatch weighs 1
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
}

}  // namespace
}  // namespace chaintag
