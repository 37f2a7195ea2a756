#include "train/losses.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "chaintag/train.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ForEachLabeling;
using testing::Names;
using testing::RunStatistic;

const std::vector<std::string> kIob = {"O", "B-NP", "I-NP", "B-VP", "I-VP"};
const std::vector<std::string> kIobes = {"O", "B-NP", "I-NP", "E-NP", "S-NP"};

std::shared_ptr<const BoundLoss> Bind(const std::string& name, const std::string& level,
                                      const std::vector<std::string>& labels,
                                      std::vector<std::string> positives = {}) {
  absl::StatusOr<LossSpec> spec = ParseLossSpec(name, level);
  EXPECT_TRUE(spec.ok()) << spec.status();
  spec->positives = std::move(positives);
  absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(*spec, labels);
  EXPECT_TRUE(loss.ok()) << loss.status();
  return *loss;
}

std::vector<int> Ids(const std::vector<std::string>& labels,
                     const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const std::string& n : names) {
    out.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), n) - labels.begin()));
  }
  return out;
}

double Eval(const std::string& name, const std::string& level,
            const std::vector<std::string>& labels, const std::vector<std::string>& gold,
            const std::vector<std::string>& predicted, std::vector<std::string> positives = {}) {
  auto loss = Bind(name, level, labels, std::move(positives));
  return EvaluateLoss(*loss, Ids(labels, gold), Ids(labels, predicted));
}

TEST(LossSpecTest, NamesRoundTrip) {
  for (const char* name :
       {"none", "hamming", "normalized-hamming", "weighted-hamming", "zero-one"}) {
    absl::StatusOr<LossSpec> spec = ParseLossSpec(name);
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    EXPECT_EQ(LossSpecName(*spec), name);
    EXPECT_TRUE(IsDecomposable(*spec) == (std::string(name) != "zero-one")) << name;
  }
  for (const char* name : {"fp", "precision", "recall", "f1", "fbeta:0.5", "fbeta:2", "iou",
                           "label-count", "fbeta:0.3333333333333333"}) {
    for (const char* level : {"token", "chunk"}) {
      absl::StatusOr<LossSpec> spec = ParseLossSpec(name, level);
      ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
      EXPECT_FALSE(IsDecomposable(*spec));
      const std::string canonical = LossSpecName(*spec);
      EXPECT_EQ(canonical, std::string(name) + "/" + level);
      absl::StatusOr<LossSpec> back = ParseLossSpec(canonical);
      ASSERT_TRUE(back.ok()) << canonical << ": " << back.status();
      EXPECT_EQ(back->kind, spec->kind);
      EXPECT_EQ(back->level, spec->level);
      EXPECT_EQ(back->beta, spec->beta);
    }
  }
  absl::StatusOr<LossSpec> f1 = ParseLossSpec("fbeta:1", "chunk");
  ASSERT_TRUE(f1.ok());
  EXPECT_EQ(LossSpecName(*f1), "f1/chunk");
}

TEST(LossSpecTest, ClearErrors) {
  auto message = [](std::string_view loss, std::string_view level) {
    absl::StatusOr<LossSpec> spec = ParseLossSpec(loss, level);
    EXPECT_FALSE(spec.ok()) << loss << " " << level;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(spec.status().message());
  };
  EXPECT_NE(message("hammming", "token").find("unknown loss 'hammming'"), std::string::npos);
  EXPECT_NE(message("f1", "phrase").find("expected token or chunk"), std::string::npos);
  for (const char* bad : {"fbeta:0", "fbeta:-1", "fbeta:abc", "fbeta:", "fbeta:inf"}) {
    EXPECT_NE(message(bad, "token").find("B > 0"), std::string::npos) << bad;
  }
  EXPECT_NE(message("hamming", "chunk").find("tokens only"), std::string::npos);
  EXPECT_NE(message("zero-one", "chunk").find("tokens only"), std::string::npos);
}

TEST(LossSpecTest, ReadsWeightsAndReportsLine) {
  const std::string path = ::testing::TempDir() + "/chaintag_loss_weights.txt";
  {
    std::ofstream out(path);
    out << "# gold predicted weight\n\nB-NP I-NP 0.5\nO B-VP 2\n";
  }
  absl::StatusOr<LossSpec> spec = ParseLossSpec("weighted-hamming");
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(ReadLossWeights(path, &*spec).ok());
  ASSERT_EQ(spec->weights.size(), 2u);
  EXPECT_EQ(spec->weights[0].gold, "B-NP");
  EXPECT_EQ(spec->weights[0].predicted, "I-NP");
  EXPECT_EQ(spec->weights[0].weight, 0.5);
  EXPECT_EQ(spec->weights[1].weight, 2.0);
  {
    std::ofstream out(path);
    out << "B-NP I-NP 0.5\nO B-VP\n";
  }
  absl::Status st = ReadLossWeights(path, &*spec);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find(path + ":2"), std::string::npos) << st;
  {
    std::ofstream out(path);
    out << "B-NP I-NP -1\n";
  }
  st = ReadLossWeights(path, &*spec);
  EXPECT_NE(st.message().find(":1: expected a finite weight >= 0"), std::string::npos) << st;
  EXPECT_EQ(ReadLossWeights(path + ".missing", &*spec).code(), absl::StatusCode::kNotFound);
}

TEST(BindLossTest, RejectsUnknownNamesAndInexactWeights) {
  LossSpec spec;
  spec.kind = LossKind::kPrecision;
  spec.positives = {"B-XX"};
  EXPECT_EQ(BindLoss(spec, kIob).status().code(), absl::StatusCode::kInvalidArgument);
  spec.level = LossLevel::kChunk;
  spec.positives = {"XX"};
  EXPECT_EQ(BindLoss(spec, kIob).status().code(), absl::StatusCode::kInvalidArgument);
  LossSpec weighted;
  weighted.kind = LossKind::kWeightedHamming;
  weighted.weights = {{"B-NP", "I-NP", 0.125}};
  absl::Status st = BindLoss(weighted, kIob).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("B-NP I-NP 0.125"), std::string::npos) << st;
  weighted.weights = {{"B-NP", "Q", 1}};
  st = BindLoss(weighted, kIob).status();
  EXPECT_NE(st.message().find("'Q'"), std::string::npos) << st;
  weighted.weights = {{"B-NP", "I-NP", 0.25}, {"O", "B-VP", 1.5}};
  absl::StatusOr<std::shared_ptr<const BoundLoss>> bound = BindLoss(weighted, kIob);
  ASSERT_TRUE(bound.ok()) << bound.status();
  // gcd(25, 150, 100) = 25 hundredths: units 1, 6, 4.
  EXPECT_DOUBLE_EQ((*bound)->unit(), 0.25);
  EXPECT_EQ((*bound)->weight_units(1, 2), 1);
  EXPECT_EQ((*bound)->weight_units(0, 3), 6);
  EXPECT_EQ((*bound)->weight_units(0, 1), 4);
  EXPECT_EQ((*bound)->weight_units(2, 2), 0);
}

TEST(EvaluateLossTest, TokenLevel) {
  const std::vector<std::string> gold = {"B-NP", "I-NP", "O", "B-VP"};
  const std::vector<std::string> pred = {"B-NP", "B-NP", "B-VP", "O"};
  EXPECT_EQ(Eval("hamming", "token", kIob, gold, pred), 3);
  EXPECT_DOUBLE_EQ(Eval("normalized-hamming", "token", kIob, gold, pred), 0.75);
  EXPECT_EQ(Eval("zero-one", "token", kIob, gold, pred), 1);
  EXPECT_EQ(Eval("zero-one", "token", kIob, gold, gold), 0);
  // Positives: every label but O. TP = 1 (B-NP), FP = 2, G = 3.
  EXPECT_EQ(Eval("fp", "token", kIob, gold, pred), 2);
  EXPECT_DOUBLE_EQ(Eval("precision", "token", kIob, gold, pred), 1 - 1.0 / 3);
  EXPECT_DOUBLE_EQ(Eval("recall", "token", kIob, gold, pred), 1 - 1.0 / 3);
  EXPECT_DOUBLE_EQ(Eval("f1", "token", kIob, gold, pred), 1 - 2.0 / 6);
  EXPECT_DOUBLE_EQ(Eval("fbeta:2", "token", kIob, gold, pred), 1 - 5.0 / (4 * 3 + 3));
  EXPECT_DOUBLE_EQ(Eval("iou", "token", kIob, gold, pred), 1 - 1.0 / 5);
  EXPECT_EQ(Eval("label-count", "token", kIob, gold, pred), 0);
  // Only B-VP positive: TP 0, FP 1, G 1.
  EXPECT_EQ(Eval("recall", "token", kIob, gold, pred, {"B-VP"}), 1);
  EXPECT_EQ(Eval("fp", "token", kIob, gold, pred, {"B-VP"}), 1);
  // Edge cases with nothing predicted / nothing gold.
  const std::vector<std::string> none = {"O", "O", "O", "O"};
  EXPECT_EQ(Eval("precision", "token", kIob, gold, none), 1);
  EXPECT_EQ(Eval("precision", "token", kIob, none, none), 0);
  EXPECT_EQ(Eval("recall", "token", kIob, none, pred), 0);
  EXPECT_EQ(Eval("f1", "token", kIob, none, none), 0);
  EXPECT_EQ(Eval("iou", "token", kIob, none, none), 0);
  EXPECT_EQ(Eval("f1", "token", kIob, none, pred), 1);
  EXPECT_EQ(Eval("label-count", "token", kIob, none, pred), 3);
}

TEST(EvaluateLossTest, WeightedHamming) {
  LossSpec spec;
  spec.kind = LossKind::kWeightedHamming;
  spec.weights = {{"B-NP", "I-NP", 0.5}, {"O", "O", 0.25}};
  auto loss = BindLoss(spec, kIob);
  ASSERT_TRUE(loss.ok()) << loss.status();
  // B-NP->I-NP 0.5, O->O 0.25 (listed), I-NP->I-NP 0, O->B-VP 1 (unlisted mismatch).
  EXPECT_DOUBLE_EQ(EvaluateLoss(**loss, Ids(kIob, {"B-NP", "O", "I-NP", "O"}),
                                Ids(kIob, {"I-NP", "O", "I-NP", "B-VP"})),
                   1.75);
}

TEST(EvaluateLossTest, ChunkLevelFollowsConlleval) {
  // I- after O starts a chunk: [0,2) NP equals the gold B-NP I-NP.
  EXPECT_EQ(Eval("f1", "chunk", kIob, {"B-NP", "I-NP", "O", "B-VP"}, {"I-NP", "I-NP", "O", "B-VP"}),
            0);
  // A type change splits a phrase: NP [0,1) and VP [1,2) against gold NP [0,2).
  const std::vector<std::string> gold = {"B-NP", "I-NP"};
  const std::vector<std::string> split = {"B-NP", "I-VP"};
  EXPECT_EQ(Eval("fp", "chunk", kIob, gold, split), 2);
  EXPECT_EQ(Eval("precision", "chunk", kIob, gold, split), 1);
  EXPECT_EQ(Eval("recall", "chunk", kIob, gold, split), 1);
  EXPECT_DOUBLE_EQ(Eval("iou", "chunk", kIob, gold, split), 1);
  EXPECT_EQ(Eval("label-count", "chunk", kIob, gold, split), 1);
  // Counting only VP chunks: G = 0, one predicted VP.
  EXPECT_EQ(Eval("fp", "chunk", kIob, gold, split, {"VP"}), 1);
  EXPECT_EQ(Eval("recall", "chunk", kIob, gold, split, {"VP"}), 0);
  EXPECT_EQ(Eval("precision", "chunk", kIob, gold, split, {"NP"}), 1);
  // B- after B- of one type starts a new phrase: two gold chunks, three predicted, two match.
  EXPECT_DOUBLE_EQ(Eval("f1", "chunk", kIob, {"B-NP", "O", "B-VP"}, {"B-NP", "B-NP", "B-VP"}),
                   1 - 2.0 * 2 / (2 + 3));
  // IOBES: B-NP alone at the end is the chunk [2,3) that gold writes S-NP.
  EXPECT_EQ(Eval("f1", "chunk", kIobes, {"B-NP", "E-NP", "S-NP"}, {"B-NP", "E-NP", "B-NP"}), 0);
  EXPECT_EQ(Eval("recall", "chunk", kIobes, {"B-NP", "E-NP", "S-NP"}, {"B-NP", "I-NP", "I-NP"}), 1);
  EXPECT_DOUBLE_EQ(Eval("iou", "chunk", kIobes, {"S-NP", "S-NP", "O"}, {"S-NP", "E-NP", "S-NP"}),
                   1 - 2.0 / (2 + 1));
  // Chunk level differs from token level: same chunks, different labels.
  EXPECT_EQ(Eval("f1", "chunk", kIob, {"B-NP", "O"}, {"I-NP", "O"}), 0);
  EXPECT_EQ(Eval("f1", "token", kIob, {"B-NP", "O"}, {"I-NP", "O"}), 1);
}

// The chunk counts equal conlleval-style counting over label strings (ExtractChunks).
TEST(EvaluateLossTest, ChunkCountsMatchExtractChunks) {
  for (const auto* labels : {&kIob, &kIobes}) {
    auto loss = Bind("f1", "chunk", *labels);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> label(0, 4);
    for (int iter = 0; iter < 300; ++iter) {
      std::vector<int> gold(6), pred(6);
      for (int& g : gold) g = label(rng);
      for (int& p : pred) p = label(rng);
      const std::vector<Chunk> g = ExtractChunks(Names(*labels, gold));
      const std::vector<Chunk> p = ExtractChunks(Names(*labels, pred));
      int tp = 0;
      for (const Chunk& c : p) tp += std::find(g.begin(), g.end(), c) != g.end();
      const train_internal::ConfusionCounts counts =
          train_internal::CountConfusion(*loss, gold, pred);
      EXPECT_EQ(counts.gold, static_cast<int>(g.size()));
      EXPECT_EQ(counts.tp, tp);
      EXPECT_EQ(counts.fp, static_cast<int>(p.size()) - tp);
    }
  }
}

TEST(DecomposedLossCostsTest, SumsEqualEvaluateLoss) {
  LossSpec weighted;
  weighted.kind = LossKind::kWeightedHamming;
  weighted.weights = {{"B-NP", "I-NP", 0.5}, {"O", "B-VP", 3}, {"I-VP", "I-VP", 0.75}};
  std::vector<std::shared_ptr<const BoundLoss>> losses = {
      Bind("none", "token", kIob), Bind("hamming", "token", kIob),
      Bind("normalized-hamming", "token", kIob), *BindLoss(weighted, kIob)};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> label(0, 4);
  std::vector<double> costs;
  for (const auto& loss : losses) {
    for (int m = 0; m <= 4; ++m) {
      std::vector<int> gold(m);
      for (int& g : gold) g = label(rng);
      ASSERT_TRUE(DecomposedLossCosts(*loss, gold, &costs).ok());
      ASSERT_EQ(costs.size(), static_cast<size_t>(m) * 5);
      ForEachLabeling(m, 5, [&](const std::vector<int>& y) {
        double sum = 0;
        for (int t = 0; t < m; ++t) sum += costs[t * 5 + y[t]];
        EXPECT_NEAR(sum, EvaluateLoss(*loss, gold, y), 1e-12);
      });
    }
  }
  EXPECT_EQ(DecomposedLossCosts(*Bind("f1", "chunk", kIob), {0, 1}, &costs).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecomposedLossCosts(*Bind("zero-one", "token", kIob), {0, 1}, &costs).code(),
            absl::StatusCode::kInvalidArgument);
}

// Every loss statistic's final state carries exactly the loss EvaluateLoss computes, on every
// labeling, and stays inside its declared state range.
TEST(LossStatisticsTest, FinalStateLossEqualsEvaluateLoss) {
  struct Case {
    const char* name;
    const char* level;
    std::vector<std::string> positives;
  };
  const std::vector<Case> cases = {{"hamming", "token", {}},
                                   {"normalized-hamming", "token", {}},
                                   {"zero-one", "token", {}},
                                   {"fp", "token", {}},
                                   {"precision", "token", {}},
                                   {"recall", "token", {}},
                                   {"f1", "token", {"B-NP", "I-VP"}},
                                   {"fbeta:0.5", "token", {}},
                                   {"iou", "token", {}},
                                   {"label-count", "token", {}},
                                   {"fp", "chunk", {}},
                                   {"precision", "chunk", {}},
                                   {"recall", "chunk", {}},
                                   {"f1", "chunk", {}},
                                   {"fbeta:2", "chunk", {"VP"}},
                                   {"iou", "chunk", {}},
                                   {"label-count", "chunk", {}}};
  std::mt19937 rng(11);
  std::vector<double> state_loss;
  for (const Case& c : cases) {
    for (const auto* labels : {&kIob, &kIobes}) {
      std::vector<std::string> positives = c.positives;
      if (labels == &kIobes) positives.clear();
      auto loss = Bind(c.name, c.level, *labels, positives);
      for (int m = 0; m <= 5; ++m) {
        std::vector<int> gold(m);
        for (int& g : gold) g = std::uniform_int_distribution<int>(0, 4)(rng);
        TokenErrorStatistic errors;
        TokenConfusionStatistic token;
        ChunkConfusionStatistic chunk;
        LossStatistic* stat;
        if (loss->IsErrorLoss()) {
          errors.Reset(loss->view(), gold);
          stat = &errors;
        } else if (loss->level() == LossLevel::kToken) {
          token.Reset(loss->view(), gold);
          stat = &token;
        } else {
          chunk.Bind(loss->chunks(), loss->counted_labels(), loss->view().count_mode,
                     &loss->view());
          chunk.Reset(gold);
          stat = &chunk;
        }
        stat->StateLosses(&state_loss);
        ASSERT_EQ(static_cast<int>(state_loss.size()), stat->NumStates());
        ForEachLabeling(m, 5, [&](const std::vector<int>& y) {
          const int s = RunStatistic(*stat, y);
          ASSERT_GE(s, 0);
          ASSERT_LT(s, stat->NumStates());
          EXPECT_NEAR(state_loss[s], EvaluateLoss(*loss, gold, y), 1e-12)
              << c.name << "/" << c.level << " m=" << m;
        });
      }
    }
  }
}

}  // namespace
}  // namespace chaintag
