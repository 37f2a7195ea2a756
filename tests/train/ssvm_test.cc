#include "train/ssvm.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "chaintag/decode.h"
#include "gtest/gtest.h"
#include "support/random_problem.h"
#include "train/losses.h"

namespace chaintag::train_internal {
namespace {

std::shared_ptr<const BoundLoss> Bind(const TrainingData& data, const char* name,
                                      const char* level = "token") {
  absl::StatusOr<LossSpec> spec = ParseLossSpec(name, level);
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(*spec, data.labels);
  EXPECT_TRUE(loss.ok()) << loss.status();
  return *loss;
}

// c2 |w|^2 + sum_i max_y [margin: Delta + F(y) - F(y_i); slack: Delta (1 + F(y) - F(y_i))] by
// enumerating every labeling.
double BrutePrimal(const TrainingData& data, const BoundLoss& loss, LossScaling scaling, double c2,
                   const std::vector<double>& w) {
  double total = 0;
  for (double x : w) total += c2 * x * x;
  for (int s = 0; s < data.num_sentences(); ++s) {
    const std::vector<int> gold = GoldLabels(data, s);
    const double gold_score = BruteScore(data, s, gold, w);
    double best = 0;
    ForEachLabeling(data, s, [&](const std::vector<int>& y) {
      if (!MaskAllows(data.mask, y)) return;  // the labelings tagging can produce
      const double delta = EvaluateLoss(loss, gold, y);
      const double f = BruteScore(data, s, y, w) - gold_score;
      best = std::max(best, scaling == LossScaling::kMargin ? delta + f : delta * (1 + f));
    });
    total += best;
  }
  return total;
}

TEST(SsvmTest, PrimalEqualsBruteForce) {
  TrainingData data = RandomProblem(5, 6, 5, 3, 7);
  std::vector<double> w = RandomWeights(6, data.parameters.size(), 1.0);
  for (const char* name : {"hamming", "zero-one", "f1", "normalized-hamming"}) {
    std::shared_ptr<const BoundLoss> loss = Bind(data, name);
    for (LossScaling scaling : {LossScaling::kMargin, LossScaling::kSlack}) {
      absl::StatusOr<double> primal = SsvmPrimal(data, *loss, scaling, 0.3, w, 2);
      ASSERT_TRUE(primal.ok()) << primal.status();
      EXPECT_NEAR(*primal, BrutePrimal(data, *loss, scaling, 0.3, w), 1e-9 * std::abs(*primal))
          << name;
    }
  }
}

// The maximisers search only the labelings the transition mask allows (training's data.mask),
// with token- and chunk-level losses: the primal against enumeration of the allowed labelings.
TEST(SsvmTest, MaskedPrimalEqualsBruteForceOverAllowedLabelings) {
  TrainingData data = RandomProblem(15, 6, 5, 3, 7);
  std::vector<double> w = RandomWeights(16, data.parameters.size(), 2.0);
  std::shared_ptr<const BoundLoss> hamming = Bind(data, "hamming");
  const double unmasked = *SsvmPrimal(data, *hamming, LossScaling::kMargin, 0.3, w, 2);
  data.mask = RandomMask(data, 17, 0.8);
  for (const char* name : {"hamming", "zero-one", "f1"}) {
    std::shared_ptr<const BoundLoss> loss = Bind(data, name);
    for (LossScaling scaling : {LossScaling::kMargin, LossScaling::kSlack}) {
      absl::StatusOr<double> primal = SsvmPrimal(data, *loss, scaling, 0.3, w, 2);
      ASSERT_TRUE(primal.ok()) << primal.status();
      EXPECT_NEAR(*primal, BrutePrimal(data, *loss, scaling, 0.3, w), 1e-9 * std::abs(*primal))
          << name;
    }
  }
  EXPECT_LT(*SsvmPrimal(data, *hamming, LossScaling::kMargin, 0.3, w, 2), unmasked);
}

// Weak duality: each pass's dual value (primal - gap) must not exceed any primal value seen, and
// the gap closes.
TEST(SsvmTest, BcfwDualBoundsEveryPrimalAndGapCloses) {
  TrainingData data = RandomProblem(7, 25, 6, 3, 10);
  for (const char* name : {"hamming", "f1"}) {
    std::shared_ptr<const BoundLoss> loss = Bind(data, name);
    SsvmSettings settings;
    settings.c2 = 0.5;
    settings.max_passes = 300;
    settings.duality_gap = 0.02;
    settings.threads = 2;
    std::vector<double> primals, duals, averaged_primals;
    std::vector<double> w;
    absl::StatusOr<int> passes = TrainBcfw(
        data, *loss, settings, &w, [&](const TrainProgress& p, absl::Span<const double> weights) {
          EXPECT_TRUE(p.duality_gap.has_value());
          EXPECT_GE(*p.duality_gap, -1e-9);
          // The objective reported is that of the averaged weights reported (the ones a model
          // gets), not the iterate's.
          averaged_primals.push_back(
              BrutePrimal(data, *loss, LossScaling::kMargin, 0.5,
                          std::vector<double>(weights.begin(), weights.end())));
          EXPECT_NEAR(p.objective, averaged_primals.back(), 1e-9 * p.objective) << name;
          primals.push_back(p.objective);
          duals.push_back(p.objective - *p.duality_gap);
          return true;
        });
    ASSERT_TRUE(passes.ok()) << passes.status();
    EXPECT_LT(*passes, 300) << name << ": gap did not close";
    double best_primal = *std::min_element(primals.begin(), primals.end());
    best_primal =
        std::min(best_primal, *std::min_element(averaged_primals.begin(), averaged_primals.end()));
    for (double d : duals) EXPECT_LE(d, best_primal + 1e-9) << name;
    // The average converges too.
    EXPECT_LE(averaged_primals.back(), duals.back() * 1.05) << name;
    EXPECT_LE(primals.back() - duals.back(), 0.04 * primals.back() + 1e-12);
    EXPECT_LT(primals.back() - duals.back(), (primals.front() - duals.front()) / 20);
    // The optimum is well below the value at w = 0 (the sum of the largest losses).
    EXPECT_LT(primals.back(), BrutePrimal(data, *loss, LossScaling::kMargin, 0.5,
                                          std::vector<double>(w.size(), 0.0)));
  }
}

// Averaged SGD on the margin objective approaches the optimum BCFW certifies with its gap.
TEST(SsvmTest, SubgradientApproachesTheCertifiedOptimum) {
  TrainingData data = RandomProblem(9, 20, 5, 3, 8);
  std::shared_ptr<const BoundLoss> loss = Bind(data, "hamming");
  SsvmSettings settings;
  settings.c2 = 1.0;
  settings.max_passes = 400;
  settings.duality_gap = 1e-6;
  std::vector<double> w;
  double dual = 0;
  ASSERT_TRUE(
      TrainBcfw(data, *loss, settings, &w, [&](const TrainProgress& p, absl::Span<const double>) {
        dual = p.objective - *p.duality_gap;
        return true;
      }).ok());
  settings.max_passes = 150;
  double primal = 0;
  ASSERT_TRUE(TrainSubgradient(data, *loss, settings, &w,
                               [&](const TrainProgress& p, absl::Span<const double>) {
                                 EXPECT_FALSE(p.duality_gap.has_value());
                                 primal = p.objective;
                                 return true;
                               })
                  .ok());
  EXPECT_GE(primal, dual - 1e-9);
  EXPECT_LE(primal, dual * 1.03) << "averaged SGD ended far from the optimum";
}

// On separable data slack scaling drives its objective far below the value at w = 0 and fits the
// training labels; the result does not depend on the evaluation threads.
TEST(SsvmTest, SlackScalingLearnsSeparableDataAndIsDeterministic) {
  TrainingData data = SeparableProblem();
  for (const char* name : {"hamming", "f1"}) {
    std::shared_ptr<const BoundLoss> loss = Bind(data, name);
    SsvmSettings settings;
    settings.scaling = LossScaling::kSlack;
    settings.c2 = 0.01;
    settings.max_passes = 40;
    std::vector<double> w1, w2;
    double last = 0;
    ASSERT_TRUE(TrainSubgradient(data, *loss, settings, &w1,
                                 [&](const TrainProgress& p, absl::Span<const double>) {
                                   last = p.objective;
                                   return true;
                                 })
                    .ok());
    std::vector<double> zero(w1.size(), 0.0);
    absl::StatusOr<double> start = SsvmPrimal(data, *loss, LossScaling::kSlack, 0.01, zero, 1);
    ASSERT_TRUE(start.ok());
    EXPECT_LT(last, 0.1 * *start) << name;
    Lattice lattice;
    for (int s = 0; s < data.num_sentences(); ++s) {
      ScoreTrainingSentence(data, s, w1.data(), &lattice);
      absl::StatusOr<Labeling> best = ViterbiDecode(lattice);
      ASSERT_TRUE(best.ok());
      EXPECT_EQ(best->labels, GoldLabels(data, s)) << name << " sentence " << s;
    }
    settings.threads = 2;
    ASSERT_TRUE(TrainSubgradient(data, *loss, settings, &w2, nullptr).ok());
    EXPECT_EQ(w1, w2);
  }
}

// A learning rate far too large (1e300) is reported as a diverged run with the cure, not as
// "infeasible: every labeling of the lattice has score -inf" (issue 27 item 11).
TEST(SsvmTest, HugeLearningRateIsReportedAsDivergence) {
  TrainingData data = RandomProblem(3, 20, 5, 3, 6);
  std::shared_ptr<const BoundLoss> loss = Bind(data, "hamming");
  SsvmSettings settings;
  settings.c2 = 1;
  settings.max_passes = 3;
  for (const double rate : {1e300, 1e200}) {
    settings.learning_rate = rate;
    std::vector<double> w;
    absl::StatusOr<int> run = TrainSubgradient(data, *loss, settings, &w, nullptr);
    ASSERT_FALSE(run.ok()) << rate;
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(run.status().message().find("training diverged"), std::string::npos) << run.status();
    EXPECT_NE(run.status().message().find("try a smaller --learning-rate (below 10,"),
              std::string::npos)
        << run.status();
  }
  settings.learning_rate = 0.1;  // a sane rate still trains
  std::vector<double> w;
  EXPECT_TRUE(TrainSubgradient(data, *loss, settings, &w, nullptr).ok());
}

// A sentence whose exact loss-augmented decoding is over the memory limit (a chunk-level loss on
// a long sentence) gets the Hamming-loss maximiser with its real loss and one warning naming it,
// instead of stopping training (issue 27 item 11: "AuxDpDecoder: M*N*R ... exceeds the limit").
TEST(SsvmTest, SentencesOverTheLossMemoryLimitFallBackWithAWarning) {
  TrainingData data = RandomProblem(23, 12, 6, 3, 6);
  std::shared_ptr<const BoundLoss> loss = Bind(data, "f1");  // engine-decoded, not decomposable
  std::vector<double> w = RandomWeights(24, data.parameters.size(), 1.0);
  Lattice lattice;
  ScoreTrainingSentence(data, 0, w.data(), &lattice);
  const std::vector<int> gold = GoldLabels(data, 0);
  LossAugmentedScratchPtr tiny = MakeLossAugmentedScratch(64);
  absl::StatusOr<LossAugmentedResult> approx =
      LossAugmentedDecode(lattice, gold, *loss, LossScaling::kMargin, tiny.get());
  ASSERT_TRUE(approx.ok()) << approx.status();
  EXPECT_TRUE(approx->fallback);
  EXPECT_DOUBLE_EQ(approx->loss, EvaluateLoss(*loss, gold, approx->labeling.labels));
  EXPECT_DOUBLE_EQ(approx->value, lattice.Score(approx->labeling.labels) + approx->loss);
  absl::StatusOr<LossAugmentedResult> exact =
      LossAugmentedDecode(lattice, gold, *loss, LossScaling::kMargin, nullptr);
  ASSERT_TRUE(exact.ok());
  EXPECT_FALSE(exact->fallback);
  EXPECT_LE(approx->value, exact->value + 1e-9);

  data.loss_max_bytes = 64;  // every sentence is over it
  SsvmSettings settings;
  settings.max_passes = 3;
  settings.threads = 2;
  std::vector<std::string> warnings;
  for (const bool bcfw : {true, false}) {
    data.fallbacks = std::make_shared<FallbackLog>();
    warnings.clear();
    auto on_pass = [&](const TrainProgress& p, absl::Span<const double>) {
      warnings.insert(warnings.end(), p.warnings.begin(), p.warnings.end());
      return true;
    };
    std::vector<double> trained;
    absl::StatusOr<int> run = bcfw ? TrainBcfw(data, *loss, settings, &trained, on_pass)
                                   : TrainSubgradient(data, *loss, settings, &trained, on_pass);
    ASSERT_TRUE(run.ok()) << run.status();
    ASSERT_EQ(warnings.size(), static_cast<size_t>(data.num_sentences())) << bcfw;  // once each
    EXPECT_NE(warnings[0].find("(training sentence 1, "), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("raise --loss-memory-mb"), std::string::npos) << warnings[0];
  }
}

TEST(SsvmTest, RejectsBadSettings) {
  TrainingData data = RandomProblem(1, 3, 3, 2, 3);
  std::shared_ptr<const BoundLoss> loss = Bind(data, "hamming");
  std::vector<double> w;
  SsvmSettings settings;
  settings.c2 = 0;
  EXPECT_FALSE(TrainBcfw(data, *loss, settings, &w, nullptr).ok());
  settings.c2 = 1;
  settings.scaling = LossScaling::kSlack;
  absl::StatusOr<int> slack = TrainBcfw(data, *loss, settings, &w, nullptr);
  ASSERT_FALSE(slack.ok());
  EXPECT_NE(slack.status().message().find("slack"), std::string::npos);
}

}  // namespace
}  // namespace chaintag::train_internal
