// LMSBN training (Crammer-Singer dual coordinate descent with gold history): convergence on a
// tiny separable set, determinism across thread counts, option checks, save/load.
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/train.h"
#include "decode/branch_and_bound.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/family.h"
#include "model/lmsbn_scorer.h"
#include "model/parameters.h"
#include "support/toy_corpus.h"

namespace chaintag {
namespace {

// Toy chunks: NPs of determiner (+ adjective) + noun, verbs as VPs; the label of an adjective or
// noun depends on the label before it, which history templates see.
std::vector<Sentence> Toy(int sentences, uint64_t seed) {
  const std::vector<std::string> det = {"the", "a"}, adj = {"big", "red"}, noun = {"dog", "cat"},
                                 verb = {"saw", "ran"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), "B-VP");
    if (b.Random() % 2) {
      b.Add(b.Pick(det), "B-NP");
      b.Add(b.Pick(noun), "I-NP");
    }
  }
  return b.Take();
}

FeatureSpec Spec() {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(
      "U00:%x[0,0]\nU01:%x[-1,0]\nH00:%y[-1]\nH01:%y[-1]/%x[0,0]\nH02:%h[chunk]/%h[chunklen]\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

class Recorder : public TrainObserver {
 public:
  void OnIteration(const TrainProgress& p) override { progress.push_back(p); }
  std::vector<TrainProgress> progress;
};

TrainOptions LmsbnOptions(int threads) {
  TrainOptions o;
  o.objective = Objective::kLmsbn;
  o.c2 = 0.01;
  o.threads = threads;
  o.max_iterations = 200;
  return o;
}

TEST(LmsbnTrainTest, ConvergesOnASeparableSetAndTagsItExactly) {
  const std::vector<Sentence> train = Toy(40, 1);
  Recorder recorder;
  absl::StatusOr<Model> model = Train(LmsbnOptions(1), Spec(), train, nullptr, &recorder);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->family(), ModelFamily::kLmsbn);
  EXPECT_EQ(model->Metadata("objective"), "lmsbn");
  EXPECT_EQ(model->Metadata("algorithm"), "dcd");
  // Stopped by the optimality conditions (LIBLINEAR's KKT criterion), not by the pass limit.
  EXPECT_THAT(model->Metadata("stop_reason"), ::testing::HasSubstr("KKT violation"));
  ASSERT_GE(recorder.progress.size(), 2u);
  // The objective falls from the first pass to the last; on separable data the hinge vanishes.
  EXPECT_LT(recorder.progress.back().objective, recorder.progress.front().objective);
  EXPECT_LT(*recorder.progress.back().mean_loss, 0.05);
  Tagger tagger(*model);
  for (const Sentence& s : train) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok()) << best.status();
    std::vector<std::string> names;
    for (int y : best->labels) names.push_back(model->labels()[y]);
    EXPECT_EQ(names, s.labels);
  }
}

TEST(LmsbnTrainTest, WeightsAreIdenticalForOneAndTwoThreads) {
  const std::vector<Sentence> train = Toy(60, 2);
  const std::vector<Sentence> dev = Toy(20, 3);
  TrainOptions o = LmsbnOptions(1);
  o.c2 = 0.5;
  o.max_iterations = 6;
  absl::StatusOr<Model> one = Train(o, Spec(), train, &dev, nullptr);
  o.threads = 2;
  absl::StatusOr<Model> two = Train(o, Spec(), train, &dev, nullptr);
  ASSERT_TRUE(one.ok() && two.ok());
  const ModelParameters a = one->Parameters(), b = two->Parameters();
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.feature_labels, b.feature_labels);
  EXPECT_FALSE(one->Metadata("dev_score").empty());
}

TEST(LmsbnTrainTest, SavedModelTagsAsBuiltAndKeepsItsFamily) {
  const std::vector<Sentence> train = Toy(30, 4);
  absl::StatusOr<Model> model = Train(LmsbnOptions(1), Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(model.ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(model->ToBytes(), "lmsbn.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->family(), ModelFamily::kLmsbn);
  EXPECT_EQ(loaded->ToBytes(), model->ToBytes());
  Tagger a(*model), b(*loaded);
  for (const Sentence& s : Toy(10, 5)) {
    EXPECT_EQ(a.Tag(s)->labels, b.Tag(s)->labels);
  }
}

TEST(LmsbnTrainTest, RefusesTemplatesAndOptionsThatDoNotFit) {
  const std::vector<Sentence> train = Toy(5, 6);
  TrainOptions crf;
  absl::StatusOr<Model> m = Train(crf, Spec(), train, nullptr, nullptr);
  EXPECT_THAT(m.status().message(), ::testing::HasSubstr("need --objective lmsbn"));
  absl::StatusOr<FeatureSpec> bigram = FeatureSpec::Parse("U00:%x[0,0]\nB\n");
  m = Train(LmsbnOptions(1), *bigram, train, nullptr, nullptr);
  EXPECT_THAT(m.status().message(), ::testing::HasSubstr("no label-bigram template"));
  TrainOptions o = LmsbnOptions(1);
  o.loss = LossKind::kHamming;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o = LmsbnOptions(1);
  o.algorithm = Algorithm::kLbfgs;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o = LmsbnOptions(1);
  o.c2 = 0;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
}

// The search on a real model (observation and history templates of every kind, a deliberately
// poor fit so the search branches) equals enumeration whose every labeling is scored by a fresh
// scorer, from scratch: checks the scorer's prefix reuse and the featurizer's id cache too.
TEST(LmsbnTrainTest, SearchOnATrainedModelEqualsFreshEnumeration) {
  std::vector<Sentence> train = Toy(30, 11);
  std::mt19937_64 rng(12);
  const std::vector<std::string> names = {"B-NP", "I-NP", "B-VP", "O"};
  for (Sentence& s : train) {
    for (std::string& l : s.labels) {
      if (rng() % 4 == 0) l = names[rng() % names.size()];  // noise: the fit stays poor
    }
  }
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(
      "U00:%x[0,0]\nH00:%y[-1]\nH01:%y[-2]/%y[-1]\nH02:%h[chunk]/%h[chunklen]\n"
      "H03:%h[prevchunk]\nH04:%h[count:B-VP]\nH05:%h[chunks:NP]\nH06:%h[same]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  TrainOptions o = LmsbnOptions(1);
  o.c2 = 2;
  o.max_iterations = 3;
  absl::StatusOr<Model> model = Train(o, *spec, train, nullptr, nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  const int n = model->num_labels();
  ASSERT_EQ(n, 4);
  const std::vector<std::string> words = {"the", "a", "big", "dog", "cat", "saw", "ran", "zz"};
  Tagger tagger(*model);
  int64_t branched = 0;
  for (int trial = 0; trial < 30; ++trial) {
    Sentence x;
    x.file = "random";
    x.columns.resize(1);
    const int m = 1 + static_cast<int>(rng() % 6);
    for (int t = 0; t < m; ++t) {
      x.columns[0].push_back(words[rng() % words.size()]);
      x.token_lines.push_back(t + 1);
    }
    // Every labeling's cost, each scored by a new scorer.
    std::vector<std::pair<double, std::vector<int>>> all;
    std::vector<int> y(m, 0);
    std::vector<double> z(n), loss(n);
    for (;;) {
      LmsbnScorer fresh(*model);
      Lattice observations;
      ASSERT_TRUE(Tagger(*model).BuildLattice(x, &observations).ok());
      fresh.Prepare(x, observations);
      double cost = 0;
      for (int t = 0; t < m; ++t) {
        fresh.Scores(t, y, absl::MakeSpan(z));
        MulticlassHinge(z, absl::MakeSpan(loss));
        cost += loss[y[t]];
      }
      all.emplace_back(cost, y);
      int t = m - 1;
      while (t >= 0 && ++y[t] == n) y[t--] = 0;
      if (t < 0) break;
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    BranchAndBoundOptions options;
    options.kbest = 4;
    absl::StatusOr<BranchAndBoundResult> r = SearchLeftToRight(tagger.family(), x, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->optimal);
    absl::StatusOr<BranchAndBoundResult> best = SearchLeftToRight(tagger.family(), x, {});
    ASSERT_TRUE(best.ok()) << best.status();
    EXPECT_NEAR(best->solutions[0].cost, all[0].first, 1e-9) << "trial " << trial;
    branched += best->nodes > m;
    ASSERT_EQ(r->solutions.size(), std::min<size_t>(4, all.size()));
    for (size_t k = 0; k < r->solutions.size(); ++k) {
      EXPECT_NEAR(r->solutions[k].cost, all[k].first, 1e-9) << "trial " << trial << " rank " << k;
      auto it = std::find_if(all.begin(), all.end(),
                             [&](const auto& e) { return e.second == r->solutions[k].labels; });
      ASSERT_NE(it, all.end());
      EXPECT_NEAR(it->first, r->solutions[k].cost, 1e-9);
    }
  }
  EXPECT_GT(branched, 10);  // the search did more than walk the greedy leaf
}

TEST(LmsbnTrainTest, PipelineRunsTheSearchWithConstraints) {
  const std::vector<Sentence> train = Toy(40, 7);
  absl::StatusOr<Model> model = Train(LmsbnOptions(1), Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(model.ok());
  DecodeRequest request;
  request.kbest = 3;
  absl::StatusOr<CountConstraint> np = ParseCountConstraint("chunk:NP=..1", model->labels());
  ASSERT_TRUE(np.ok());
  request.counts.push_back(*np);
  Pipeline pipeline({&*model}, request);
  for (const Sentence& s : Toy(10, 8)) {
    TagResult r;
    r.sentence = s;
    pipeline.Run(&r);
    ASSERT_TRUE(r.error.ok()) << r.error;
    ASSERT_EQ(r.status, SentenceStatus::kOk);
    EXPECT_GE(r.search.nodes, s.size());
    EXPECT_EQ(r.search.optimal, true);
    EXPECT_TRUE(r.search.cost);
    ASSERT_FALSE(r.solutions.empty());
    for (size_t k = 0; k < r.solutions.size(); ++k) {
      const Solution& sol = r.solutions[k];
      int chunks = 0;
      for (size_t t = 0; t < sol.names.size(); ++t) chunks += sol.names[t] == "B-NP";
      EXPECT_LE(chunks, 1);
      if (k > 0) {
        EXPECT_GE(sol.cost, r.solutions[k - 1].cost);
      }
    }
  }
  DecodeRequest marginals;
  marginals.marginals = true;
  Pipeline refused({&*model}, marginals);
  TagResult r;
  r.sentence = train[0];
  refused.Run(&r);
  EXPECT_THAT(r.error.message(), ::testing::HasSubstr("--marginals"));
}

}  // namespace
}  // namespace chaintag
