// The latent-dynamic CRF: objective against enumeration of hidden paths, gradient against finite
// differences, thread-count independence, --latent parsing, and training end to end.
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "decode/latent.h"
#include "gtest/gtest.h"
#include "model/parameters.h"
#include "support/random_problem.h"
#include "support/toy_corpus.h"
#include "train/ldcrf_objective.h"

namespace chaintag::train_internal {
namespace {

// A random problem over 2-3 labels expanded to 2-3 hidden states per label.
struct LatentProblem {
  TrainingData data;
  LatentLayout layout;
};

// With `masked`, a random label-level transition mask (RandomMask) that ExpandToHiddenStates
// carries over to the hidden states.
LatentProblem MakeProblem(uint64_t seed, int sentences, int max_length, bool weighted = false,
                          bool masked = false) {
  std::mt19937_64 rng(seed);
  const int labels = 2 + static_cast<int>(rng() % 2);
  LatentProblem p{weighted ? WeightedRandomProblem(seed, sentences, max_length, labels, 5)
                           : RandomProblem(seed, sentences, max_length, labels, 5),
                  {}};
  std::vector<int> counts(labels);
  for (int& k : counts) k = 2 + static_cast<int>(rng() % 2);
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts(counts);
  EXPECT_TRUE(layout.ok());
  p.layout = *layout;
  if (masked) p.data.mask = RandomMask(p.data, seed + 5);
  ExpandToHiddenStates(p.layout, &p.data);
  return p;
}

double LogSumExp(const std::vector<double>& v) {
  double mx = -INFINITY;
  for (double x : v) mx = std::max(mx, x);
  double s = 0;
  for (double x : v) s += std::exp(x - mx);
  return mx + std::log(s);
}

// sum_i -log P(y_i|x_i) + c2 |w|^2 by enumerating every hidden path of every sentence (those
// data.mask allows).
double BruteObjective(const LatentProblem& p, const std::vector<double>& w, double c2) {
  double total = 0;
  const int h = p.layout.num_states();
  for (int s = 0; s < p.data.num_sentences(); ++s) {
    const int m = p.data.sentence_size(s);
    const int64_t first = p.data.sentence_offsets[s];
    std::vector<double> all, gold;
    std::vector<int> path(m, 0);
    for (;;) {
      const double f = BruteScore(p.data, s, path, w);
      if (MaskAllows(p.data.mask, path)) {
        all.push_back(f);
        bool matches = true;
        for (int t = 0; t < m; ++t) matches &= p.layout.label_of(path[t]) == p.data.gold[first + t];
        if (matches) gold.push_back(f);
      }
      int t = m - 1;
      while (t >= 0 && ++path[t] == h) path[t--] = 0;
      if (t < 0) break;
    }
    total += LogSumExp(all) - LogSumExp(gold);
  }
  double norm = 0;
  for (double x : w) norm += x * x;
  return total + c2 * norm;
}

TEST(LdcrfObjectiveTest, ObjectiveEqualsEnumeration) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    const LatentProblem p = MakeProblem(seed, 6, 4);
    const std::vector<double> w = RandomWeights(seed + 10, p.data.parameters.size(), 1.0);
    LdcrfObjective objective(p.data, p.layout, 0.3, 1);
    std::vector<double> g(w.size());
    EXPECT_NEAR(objective.Evaluate(w, absl::MakeSpan(g)), BruteObjective(p, w, 0.3), 1e-9);
  }
}

TEST(LdcrfObjectiveTest, WeightedAttributesObjectiveEqualsEnumeration) {
  for (uint64_t seed : {11, 12}) {
    const LatentProblem p = MakeProblem(seed, 6, 4, /*weighted=*/true);
    ASSERT_TRUE(p.data.weighted());
    const std::vector<double> w = RandomWeights(seed + 10, p.data.parameters.size(), 1.0);
    LdcrfObjective objective(p.data, p.layout, 0.3, 1);
    std::vector<double> g(w.size());
    EXPECT_NEAR(objective.Evaluate(w, absl::MakeSpan(g)), BruteObjective(p, w, 0.3), 1e-9);
  }
}

TEST(LdcrfObjectiveTest, GradientEqualsFiniteDifferences) {
  for (uint64_t seed : {5, 6, 7}) {
    // Seed 7: real-valued attributes.
    const LatentProblem p = MakeProblem(seed, 5, 5, /*weighted=*/seed == 7);
    const std::vector<double> w = RandomWeights(seed, p.data.parameters.size(), 1.0);
    LdcrfObjective objective(p.data, p.layout, 0.2, 2);
    ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
  }
}

// Training normalises over the hidden paths the (expanded) transition mask allows, as tagging.
TEST(LdcrfObjectiveTest, MaskedObjectiveEqualsEnumerationAndGradientFiniteDifferences) {
  for (uint64_t seed : {31, 32, 33}) {
    const LatentProblem p = MakeProblem(seed, 5, 4, /*weighted=*/false, /*masked=*/true);
    ASSERT_EQ(p.data.mask.num_labels, p.layout.num_states());
    const std::vector<double> w = RandomWeights(seed + 10, p.data.parameters.size(), 1.0);
    LdcrfObjective objective(p.data, p.layout, 0.3, 2);
    std::vector<double> g(w.size()), scratch(w.size());
    const double value = objective.Evaluate(w, absl::MakeSpan(g));
    EXPECT_NEAR(value, BruteObjective(p, w, 0.3), 1e-9);
    LatentProblem unmasked = p;
    unmasked.data.mask = TransitionMask();
    EXPECT_NE(value, LdcrfObjective(unmasked.data, unmasked.layout, 0.3, 1)
                         .Evaluate(w, absl::MakeSpan(scratch)));
    ExpectGradientMatchesFiniteDifferences(objective, w, 1e-6);
  }
}

TEST(LdcrfObjectiveTest, ThreadCountDoesNotChangeTheResult) {
  const LatentProblem p = MakeProblem(8, 200, 8);
  const std::vector<double> w = RandomWeights(3, p.data.parameters.size(), 1.0);
  std::vector<std::vector<double>> gradients;
  std::vector<double> values;
  for (int threads : {1, 2, 3}) {
    LdcrfObjective objective(p.data, p.layout, 0.1, threads);
    std::vector<double> g(w.size());
    values.push_back(objective.Evaluate(w, absl::MakeSpan(g)));
    gradients.push_back(g);
  }
  for (size_t i = 1; i < values.size(); ++i) {
    EXPECT_EQ(values[i], values[0]);
    EXPECT_EQ(std::memcmp(gradients[i].data(), gradients[0].data(), w.size() * sizeof(double)), 0);
  }
}

TEST(LdcrfObjectiveTest, ExpandedFeaturesCoverEveryHiddenState) {
  TrainingData data = RandomProblem(2, 10, 5, 3, 6);
  const ModelParameters labels = data.parameters;
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts({2, 3, 1});
  ASSERT_TRUE(layout.ok());
  ExpandToHiddenStates(*layout, &data);
  EXPECT_EQ(data.parameters.num_labels, 6);
  for (int a = 0; a < labels.num_attributes(); ++a) {
    std::vector<int32_t> expected;
    for (int32_t f = labels.attribute_offsets[a]; f < labels.attribute_offsets[a + 1]; ++f) {
      const int y = labels.feature_labels[f];
      for (int s = layout->first_state(y); s < layout->end_state(y); ++s) expected.push_back(s);
    }
    const std::vector<int32_t> got(
        data.parameters.feature_labels.begin() + data.parameters.attribute_offsets[a],
        data.parameters.feature_labels.begin() + data.parameters.attribute_offsets[a + 1]);
    EXPECT_EQ(got, expected);
  }
  EXPECT_EQ(data.parameters.size(), data.parameters.num_state_features() + 36 + 12);
}

TEST(LdcrfObjectiveTest, LatentSpecParsing) {
  const std::vector<std::string> labels = {"B-NP", "I-NP", "O"};
  absl::StatusOr<LatentLayout> uniform = ParseLatentSpec("3", labels);
  ASSERT_TRUE(uniform.ok());
  EXPECT_EQ(uniform->num_states(), 9);
  absl::StatusOr<LatentLayout> per_label = ParseLatentSpec("B-NP=4,I-NP=4,O=2", labels);
  ASSERT_TRUE(per_label.ok()) << per_label.status();
  EXPECT_EQ(per_label->states_of(0), 4);
  EXPECT_EQ(per_label->states_of(2), 2);
  absl::StatusOr<LatentLayout> with_default = ParseLatentSpec("I-NP=3,2", labels);
  ASSERT_TRUE(with_default.ok());
  EXPECT_EQ(with_default->states_of(0), 2);
  EXPECT_EQ(with_default->states_of(1), 3);
  absl::StatusOr<LatentLayout> unnamed = ParseLatentSpec("O=2", labels);
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(unnamed->states_of(0), 1);
  for (const std::string bad : {"", "0", "x", "65", "B-VP=2", "O=0", "O=", "=2"}) {
    absl::StatusOr<LatentLayout> parsed = ParseLatentSpec(bad, labels);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(std::string(parsed.status().message()).find("latent"), std::string::npos);
    }
  }
}

TEST(LdcrfObjectiveTest, RandomInitialWeightsAreSeeded) {
  std::vector<double> a(100), b(100), c(100);
  RandomInitialWeights(1, 0.1, &a);
  RandomInitialWeights(1, 0.1, &b);
  RandomInitialWeights(2, 0.1, &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (double x : a) EXPECT_LE(std::abs(x), 0.1);
}

// A toy base-NP corpus: determiners, adjectives and nouns form NPs, verbs are O.
std::vector<Sentence> ToyNpCorpus(int sentences, uint64_t seed) {
  const std::vector<std::string> det = {"the", "a"}, adj = {"big", "red"},
                                 noun = {"dog", "cat", "car"}, verb = {"saw", "likes"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), "O");
    b.Add(b.Pick(det), "B-NP");
    b.Add(b.Pick(noun), "I-NP");
  }
  return b.Take();
}

FeatureSpec ToySpec() {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  EXPECT_TRUE(spec.ok());
  return *spec;
}

TEST(LdcrfTrainTest, OneAndTwoThreadsGiveBitIdenticalWeights) {
  const std::vector<Sentence> train = ToyNpCorpus(80, 3);
  TrainOptions options;
  options.objective = ::chaintag::Objective::kLdcrf;
  options.latent = "2";
  options.max_iterations = 15;
  std::vector<std::vector<double>> weights;
  for (int threads : {1, 2}) {
    options.threads = threads;
    absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(model->latent());
    weights.push_back(model->Parameters().weights);
  }
  ASSERT_EQ(weights[0].size(), weights[1].size());
  EXPECT_EQ(std::memcmp(weights[0].data(), weights[1].data(), weights[0].size() * sizeof(double)),
            0);
  // A different seed starts elsewhere.
  options.seed = 2;
  absl::StatusOr<Model> other = Train(options, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->Parameters().weights, weights[0]);
}

TEST(LdcrfTrainTest, FitsToyDataSavesAndLoads) {
  const std::vector<Sentence> train = ToyNpCorpus(60, 4);
  const std::vector<Sentence> dev = ToyNpCorpus(20, 5);
  TrainOptions options;
  options.objective = ::chaintag::Objective::kLdcrf;
  options.latent = "B-NP=2,I-NP=3,O=1";
  options.max_iterations = 40;
  options.c2 = 0.01;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->latent());
  EXPECT_EQ(model->num_states(), 6);
  EXPECT_EQ(model->Metadata("objective"), "ldcrf");
  EXPECT_EQ(model->Metadata("latent"), "B-NP=2,I-NP=3,O=1");
  // Dev scoring (LDI) runs every iteration and the best iteration is kept.
  options.max_iterations = 5;
  absl::StatusOr<Model> with_dev = Train(options, ToySpec(), train, &dev, nullptr);
  ASSERT_TRUE(with_dev.ok()) << with_dev.status();
  EXPECT_EQ(with_dev->Metadata("dev_metric"), "F1");
  EXPECT_FALSE(with_dev->Metadata("selected_iteration").empty());
  Tagger tagger(*model);
  for (const Sentence& s : dev) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok());
    for (int t = 0; t < s.size(); ++t) EXPECT_EQ(model->labels()[best->labels[t]], s.labels[t]);
  }
  absl::StatusOr<Model> loaded = Model::FromBytes(model->ToBytes(), "ldcrf.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->latent_layout().state_labels(), model->latent_layout().state_labels());
}

TEST(LdcrfTrainTest, OptionsAreChecked) {
  TrainOptions options;
  options.latent = "2";  // without ldcrf
  EXPECT_FALSE(ResolveTrainOptions(options).ok());
  options.objective = ::chaintag::Objective::kLdcrf;
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(options);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->algorithm, Algorithm::kLbfgs);
  options.latent = "";
  resolved = ResolveTrainOptions(options);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->latent, "2");
  options.algorithm = Algorithm::kBcfw;
  EXPECT_FALSE(ResolveTrainOptions(options).ok());
  options.algorithm = Algorithm::kOwlqn;
  options.c1 = 0.5;
  EXPECT_TRUE(ResolveTrainOptions(options).ok());
  const std::vector<Sentence> train = ToyNpCorpus(5, 1);
  TrainOptions bad;
  bad.objective = ::chaintag::Objective::kLdcrf;
  bad.latent = "B-VP=2";
  absl::StatusOr<Model> model = Train(bad, ToySpec(), train, nullptr, nullptr);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(std::string(model.status().message()).find("B-VP"), std::string::npos);
}

}  // namespace
}  // namespace chaintag::train_internal
