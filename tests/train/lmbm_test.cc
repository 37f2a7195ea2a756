// LMBM training (Miao and Rao, Algorithm 1 on a chain): the primal against a direct enumeration
// of every wrong label, weak duality and a closing gap, the optimum of a generic subgradient
// solver, the effect of eta0, and Train -> save -> load -> tag.
#include "train/lmbm.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/train.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "train/toy_corpus.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

using train_internal::LmbmSolver;

std::vector<Sentence> Toy(int sentences, uint64_t seed, bool noisy = false) {
  const std::vector<std::string> det = {"the", "a"}, adj = {"big", "red"}, noun = {"dog", "cat"},
                                 verb = {"saw", "ran"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), noisy && b.Random() % 3 == 0 ? "B-NP" : "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), "B-VP");
  }
  return b.Take();
}

FeatureSpec Spec() {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

train_internal::TrainingData Data(const std::vector<Sentence>& corpus) {
  absl::StatusOr<train_internal::TrainingData> data = train_internal::BuildTrainingData(Spec(), corpus, 1);
  EXPECT_TRUE(data.ok()) << data.status();
  return *std::move(data);
}

// The primal written out independently: each position's score of every label against the gold
// neighbours, every wrong label's hinge, and the two regularisers.
double DirectPrimal(const train_internal::TrainingData& d, const std::vector<double>& w, double c2, double eta0) {
  const ModelParameters& p = d.parameters;
  const int n = d.num_labels();
  double loss = 0.0;
  for (int s = 0; s < d.num_sentences(); ++s) {
    const int64_t first = d.sentence_offsets[s], last = d.sentence_offsets[s + 1] - 1;
    for (int64_t t = first; t <= last; ++t) {
      std::vector<double> score(n, 0.0);
      for (int32_t a : d.attributes_at(t)) {
        for (int32_t f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f)
          score[p.feature_labels[f]] += w[f];
      }
      for (int y = 0; y < n; ++y) {
        score[y] += t == first ? w[p.start_offset() + y]
                               : w[p.transition_offset() + d.gold[t - 1] * n + y];
        score[y] += t == last ? w[p.end_offset() + y]
                              : w[p.transition_offset() + y * n + d.gold[t + 1]];
      }
      for (int y = 0; y < n; ++y) {
        if (y != d.gold[t]) loss += std::max(0.0, 1.0 - score[d.gold[t]] + score[y]);
      }
    }
  }
  double all = 0.0, pairs = 0.0;
  for (int64_t j = 0; j < p.size(); ++j) {
    all += w[j] * w[j];
    if (j >= p.transition_offset() && j < p.start_offset()) pairs += w[j] * w[j];
  }
  return c2 * (all + eta0 * pairs) + loss;
}

TEST(LmbmSolverTest, PrimalEqualsDirectEnumerationAtRandomWeights) {
  const train_internal::TrainingData d = Data(Toy(6, 1, /*noisy=*/true));
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> w(d.parameters.size());
    for (double& x : w) x = normal(rng);
    const LmbmSolver solver(d, 0.3, 2.5, 1);
    EXPECT_NEAR(solver.Primal(w, nullptr), DirectPrimal(d, w, 0.3, 2.5), 1e-9);
  }
}

TEST(LmbmSolverTest, DualStaysBelowPrimalRisesAndMeetsItAtTheOptimum) {
  const train_internal::TrainingData d = Data(Toy(8, 3, /*noisy=*/true));
  LmbmSolver solver(d, 0.2, 1.0, 4);
  std::vector<double> w(d.parameters.size(), 0.0);
  double previous = -1e300;
  for (int pass = 0; pass < 300; ++pass) {
    solver.Pass(&w);
    const double primal = solver.Primal(w, nullptr), dual = solver.Dual(w);
    EXPECT_LE(dual, primal + 1e-9);
    EXPECT_GE(dual, previous - 1e-9);  // coordinate ascent on the dual
    previous = dual;
  }
  const double primal = solver.Primal(w, nullptr);
  EXPECT_NEAR(solver.Dual(w), primal, 1e-6 * std::max(1.0, primal));
}

TEST(LmbmSolverTest, ReachesTheOptimumOfAGenericSubgradientSolver) {
  const train_internal::TrainingData d = Data(Toy(5, 5, /*noisy=*/true));
  const double c2 = 0.5, eta0 = 3.0;
  LmbmSolver solver(d, c2, eta0, 6);
  std::vector<double> w(d.parameters.size(), 0.0);
  for (int pass = 0; pass < 500; ++pass) solver.Pass(&w);
  const double dcd = solver.Primal(w, nullptr);
  // Averaged subgradient descent on the strongly convex primal (step 1 / (mu t), mu = 2 c2),
  // with the subgradient taken by finite differences of the direct primal along each weight.
  std::vector<double> v(w.size(), 0.0), average(w.size(), 0.0);
  const double h = 1e-7;
  for (int t = 1; t <= 3000; ++t) {
    std::vector<double> g(v.size());
    const double base = DirectPrimal(d, v, c2, eta0);
    for (size_t j = 0; j < v.size(); ++j) {
      v[j] += h;
      g[j] = (DirectPrimal(d, v, c2, eta0) - base) / h;
      v[j] -= h;
    }
    const double step = 1.0 / (2.0 * c2 * t);
    for (size_t j = 0; j < v.size(); ++j) {
      v[j] -= step * g[j];
      average[j] += (v[j] - average[j]) / t;
    }
  }
  const double generic = DirectPrimal(d, average, c2, eta0);
  EXPECT_LE(dcd, generic + 1e-9);           // nothing beats the DCD optimum
  EXPECT_LE(generic - dcd, 0.01 * dcd);     // and the generic solver gets there too
}

TEST(LmbmSolverTest, Eta0ShrinksTheLabelLabelWeightsOnly) {
  const train_internal::TrainingData d = Data(Toy(10, 7, /*noisy=*/true));
  auto train = [&](double eta0) {
    LmbmSolver solver(d, 0.1, eta0, 8);
    std::vector<double> w(d.parameters.size(), 0.0);
    for (int pass = 0; pass < 200; ++pass) solver.Pass(&w);
    return w;
  };
  auto norm = [&](const std::vector<double>& w, int64_t begin, int64_t end) {
    double s = 0.0;
    for (int64_t j = begin; j < end; ++j) s += w[j] * w[j];
    return s;
  };
  const ModelParameters& p = d.parameters;
  const std::vector<double> free = train(0.0), tied = train(100.0);
  EXPECT_LT(norm(tied, p.transition_offset(), p.start_offset()),
            0.1 * norm(free, p.transition_offset(), p.start_offset()));
  EXPECT_GT(norm(free, p.transition_offset(), p.start_offset()), 0.0);
  // The unary weights take over what the transitions no longer say.
  EXPECT_GT(norm(tied, 0, p.transition_offset()), 0.0);
}

TEST(LmbmTrainTest, TrainsDeterministicallySavesLoadsAndDecodesAsAChain) {
  const std::vector<Sentence> train = Toy(40, 9);
  TrainOptions o;
  o.objective = Objective::kLmbm;
  o.c2 = 0.01;
  o.eta0 = 0.5;
  o.max_iterations = 100;
  absl::StatusOr<Model> model = Train(o, Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->family(), ModelFamily::kLmbm);
  EXPECT_EQ(ModelFamilyName(model->family()), "lmbm");
  EXPECT_EQ(model->Metadata("algorithm"), "dcd");
  EXPECT_EQ(model->Metadata("eta0"), "0.5");
  absl::StatusOr<Model> again = Train(o, Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToBytes(), model->ToBytes());
  absl::StatusOr<Model> loaded = Model::FromBytes(model->ToBytes(), "lmbm.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->family(), ModelFamily::kLmbm);
  EXPECT_EQ(DescribeModel(*loaded).family, "lmbm");
  Tagger tagger(*loaded);
  for (const Sentence& s : train) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok());
    std::vector<std::string> names;
    for (int y : best->labels) names.push_back(loaded->labels()[y]);
    EXPECT_EQ(names, s.labels);
  }
  // A chain: constrained k-best with probabilities runs on it unchanged.
  DecodeRequest request;
  request.kbest = 3;
  request.probability = true;
  absl::StatusOr<CountConstraint> count = ParseCountConstraint("chunk:NP=..1", loaded->labels());
  ASSERT_TRUE(count.ok());
  request.counts.push_back(*count);
  Pipeline pipeline({&*loaded}, request);
  TagResult r;
  r.sentence = train[0];
  pipeline.Run(&r);
  ASSERT_TRUE(r.error.ok()) << r.error;
  ASSERT_FALSE(r.solutions.empty());
  for (size_t i = 1; i < r.solutions.size(); ++i)
    EXPECT_GE(r.solutions[i - 1].score, r.solutions[i].score);
  EXPECT_GT(r.solutions[0].probability, 0.0);
}

TEST(LmbmTrainTest, RefusesOptionsThatDoNotFit) {
  TrainOptions o;
  o.objective = Objective::kLmbm;
  o.loss = LossKind::kHamming;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.loss.reset();
  o.algorithm = Algorithm::kLbfgs;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.algorithm = Algorithm::kAuto;
  o.eta0 = -1;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.eta0 = 1;
  o.order = 2;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.order = 1;
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(o);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->algorithm, Algorithm::kDcd);
}

}  // namespace
}  // namespace chaintag
