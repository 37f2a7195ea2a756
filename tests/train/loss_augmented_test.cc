#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "chaintag/train.h"
#include "decode/loss_statistics.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"
#include "train/losses.h"

namespace chaintag {
namespace {

using testing::ChunkLabels;
using testing::ForEachLabeling;
using testing::Names;
using testing::RandomLattice;

// Chunk inventories of 1..4 labels: the conlleval-style {O, B-NP, I-NP, B-VP} prefixes, and an
// IOBES one for 4 labels.
std::vector<std::string> RandomInventory(std::mt19937& rng, int n) {
  if (n == 4 && std::bernoulli_distribution(0.4)(rng)) return {"O", "B-NP", "E-NP", "S-NP"};
  return ChunkLabels(n);
}

// Replaces masked cells on the gold path with finite scores (so F(y*) is usually finite).
void UnmaskPath(std::mt19937& rng, const std::vector<int>& y, Lattice* lattice) {
  std::uniform_int_distribution<int> small(-2, 2);
  auto fix = [&](double& v) {
    if (v == kNegInf) v = small(rng);
  };
  const int m = lattice->size();
  if (m == 0) return;
  fix(lattice->start(y[0]));
  fix(lattice->end(y[m - 1]));
  for (int t = 0; t < m; ++t) {
    fix(lattice->unary(t, y[t]));
    if (t > 0) fix(lattice->transition(y[t - 1], y[t]));
  }
}

struct LossCase {
  std::string name;
  std::string level;
  bool restrict_positives = false;  // token: {B-NP}; chunk: {NP}
  bool weighted = false;
};

void PrintTo(const LossCase& c, std::ostream* os) {
  *os << c.name << "/" << c.level << (c.restrict_positives ? " restricted" : "");
}

std::vector<LossCase> AllCases() {
  std::vector<LossCase> cases = {{"none", "token"},
                                 {"hamming", "token"},
                                 {"normalized-hamming", "token"},
                                 {"weighted-hamming", "token", false, true},
                                 {"zero-one", "token"}};
  for (const char* name : {"fp", "precision", "recall", "f1", "fbeta:0.5", "iou", "label-count"}) {
    for (const char* level : {"token", "chunk"}) cases.push_back({name, level});
  }
  cases.push_back({"f1", "token", true});
  cases.push_back({"f1", "chunk", true});
  cases.push_back({"precision", "chunk", true});
  return cases;
}

class LossAugmentedBruteForceTest : public ::testing::TestWithParam<LossCase> {};

// LossAugmentedDecode equals exhaustive search over all N^M labelings, for both scalings.
TEST_P(LossAugmentedBruteForceTest, EqualsBruteForce) {
  const LossCase& c = GetParam();
  std::mt19937 rng(std::hash<std::string>()(c.name + c.level) % 100000 + c.restrict_positives);
  LossAugmentedScratchPtr scratch = MakeLossAugmentedScratch();
  int checked = 0, infeasible = 0, masked_gold = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const int n = std::uniform_int_distribution<int>(c.restrict_positives ? 2 : 1, 4)(rng);
    const int m = std::uniform_int_distribution<int>(0, 7)(rng);
    const std::vector<std::string> labels = RandomInventory(rng, n);
    absl::StatusOr<LossSpec> spec = ParseLossSpec(c.name, c.level);
    ASSERT_TRUE(spec.ok()) << spec.status();
    if (c.restrict_positives) spec->positives = {c.level == "chunk" ? "NP" : "B-NP"};
    if (c.weighted) {
      spec->weights = {{"O", "B-NP", 0.5}, {"B-NP", "O", 2.25}};
      if (n >= 3) spec->weights.push_back({labels[2], labels[2], 0.75});
      if (n < 2) spec->weights.clear();
    }
    absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(*spec, labels);
    ASSERT_TRUE(loss.ok()) << loss.status();
    std::vector<int> gold(m);
    for (int& g : gold) g = std::uniform_int_distribution<int>(0, n - 1)(rng);
    const bool integral = std::bernoulli_distribution(0.5)(rng);
    Lattice lattice = RandomLattice(rng, m, n, integral, 0.15);
    if (std::bernoulli_distribution(0.8)(rng)) UnmaskPath(rng, gold, &lattice);
    const double gold_score = lattice.Score(gold);

    std::vector<double> score_of, loss_of;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      score_of.push_back(lattice.Score(y));
      loss_of.push_back(EvaluateLoss(**loss, gold, y));
    });
    for (LossScaling scaling : {LossScaling::kMargin, LossScaling::kSlack}) {
      auto objective = [&](double f, double delta) {
        return scaling == LossScaling::kMargin ? f + delta : (1 + f - gold_score) * delta;
      };
      double best = kNegInf;
      for (size_t i = 0; i < score_of.size(); ++i) {
        if (score_of[i] == kNegInf) continue;
        best = std::max(best, objective(score_of[i], loss_of[i]));
      }
      absl::StatusOr<LossAugmentedResult> result = LossAugmentedDecode(
          lattice, gold, **loss, scaling, iter % 3 == 0 ? nullptr : scratch.get());
      const std::string where = c.name + "/" + c.level + " iter " + std::to_string(iter) +
                                (scaling == LossScaling::kMargin ? " margin" : " slack");
      if (scaling == LossScaling::kSlack && gold_score == kNegInf) {
        EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << where;
        ++masked_gold;
        continue;
      }
      if (best == kNegInf) {
        EXPECT_FALSE(result.ok()) << where;
        ++infeasible;
        continue;
      }
      ASSERT_TRUE(result.ok()) << where << ": " << result.status();
      const std::vector<int>& y = result->labeling.labels;
      ASSERT_EQ(static_cast<int>(y.size()), m) << where;
      EXPECT_NEAR(result->value, best, 1e-9 * std::max(1.0, std::abs(best))) << where;
      EXPECT_EQ(result->labeling.score, lattice.Score(y)) << where;
      EXPECT_NE(result->labeling.score, kNegInf) << where;
      EXPECT_NEAR(result->loss, EvaluateLoss(**loss, gold, y), 1e-12) << where;
      EXPECT_NEAR(result->value, objective(result->labeling.score, result->loss), 1e-9) << where;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);  // most instances are feasible
  RecordProperty("checked", checked);
  RecordProperty("infeasible", infeasible);
  RecordProperty("masked_gold", masked_gold);
}

// The loss of a case over `labels` (the weights of weighted cases on the NP labels only).
absl::StatusOr<std::shared_ptr<const BoundLoss>> BindCase(const LossCase& c,
                                                          const std::vector<std::string>& labels) {
  absl::StatusOr<LossSpec> spec = ParseLossSpec(c.name, c.level);
  if (!spec.ok()) return spec.status();
  if (c.restrict_positives) spec->positives = {c.level == "chunk" ? "NP" : "B-NP"};
  if (c.weighted) spec->weights = {{"O", "B-NP", 0.5}, {"B-NP", "O", 2.25}};
  return BindLoss(*spec, labels);
}

// Pruning the engine's cells by suffix bounds changes nothing: the same labeling, loss, value and
// score as the unpruned engine, on lattices too large to enumerate, for both scalings, while it
// does drop cells.
TEST_P(LossAugmentedBruteForceTest, PruningChangesNothing) {
  const LossCase& c = GetParam();
  std::mt19937 rng(std::hash<std::string>()(c.name + c.level) % 1000 + 7 + c.restrict_positives);
  LossAugmentedScratchPtr pruned = MakeLossAugmentedScratch();
  LossAugmentedScratchPtr full = MakeLossAugmentedScratch();
  full->prune = false;
  int64_t dropped = 0;
  int compared = 0;
  for (int iter = 0; iter < 40; ++iter) {
    const int n = std::uniform_int_distribution<int>(2, 5)(rng);
    const int m = std::uniform_int_distribution<int>(1, 14)(rng);
    const std::vector<std::string> all = {"O", "B-NP", "I-NP", "B-VP", "I-VP"};
    const std::vector<std::string> labels(all.begin(), all.begin() + n);
    absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindCase(c, labels);
    ASSERT_TRUE(loss.ok()) << loss.status();
    std::vector<int> gold(m);
    for (int& g : gold) g = std::uniform_int_distribution<int>(0, n - 1)(rng);
    const bool integral = std::bernoulli_distribution(0.3)(rng);
    Lattice lattice = RandomLattice(rng, m, n, integral, 0.1);
    UnmaskPath(rng, gold, &lattice);
    // Scores of trained-model size, so that bounds bite.
    const double scale = std::uniform_real_distribution<double>(0.5, 6.0)(rng);
    for (int t = 0; t < m; ++t) {
      for (int y = 0; y < n; ++y) lattice.unary(t, y) *= scale;
    }
    for (LossScaling scaling : {LossScaling::kMargin, LossScaling::kSlack}) {
      absl::StatusOr<LossAugmentedResult> a =
          LossAugmentedDecode(lattice, gold, **loss, scaling, pruned.get());
      dropped += pruned->decoder.pruned_cells();
      absl::StatusOr<LossAugmentedResult> b =
          LossAugmentedDecode(lattice, gold, **loss, scaling, full.get());
      EXPECT_EQ(full->decoder.pruned_cells(), 0);
      const std::string where = " iter " + std::to_string(iter);
      ASSERT_EQ(a.ok(), b.ok()) << where << a.status() << b.status();
      if (!a.ok()) continue;
      EXPECT_EQ(a->labeling.labels, b->labeling.labels) << where;
      EXPECT_EQ(a->loss, b->loss) << where;
      EXPECT_EQ(a->value, b->value) << where;
      EXPECT_EQ(a->labeling.score, b->labeling.score) << where;
      // A hint (the maximiser itself, the tightest one, or any labeling) changes nothing either.
      std::vector<int> any(m);
      for (int& y : any) y = std::uniform_int_distribution<int>(0, n - 1)(rng);
      for (const std::vector<int>& hint : {b->labeling.labels, any}) {
        absl::StatusOr<LossAugmentedResult> h =
            LossAugmentedDecode(lattice, gold, **loss, scaling, pruned.get(), hint);
        ASSERT_TRUE(h.ok()) << where << h.status();
        EXPECT_EQ(h->labeling.labels, b->labeling.labels) << where;
        EXPECT_EQ(h->loss, b->loss) << where;
        EXPECT_EQ(h->value, b->value) << where;
        EXPECT_EQ(h->labeling.score, b->labeling.score) << where;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 40);
  // The engine runs (and prunes) unless the loss is none or folds into the scores. (How much a
  // hint saves is not asserted: pruned_cells counts cells reached and then dropped, and a tighter
  // threshold drops cells earlier, so fewer are ever reached; the savings are measured in
  // docs/training.md.)
  if (c.name != "none") {
    EXPECT_GT(dropped, 0) << "pruning never dropped a cell";
  }
}

// ReachableLossBounds bounds the final loss of every labeling from every state its path passes
// through (the pruning thresholds rely on it), by enumeration of all labelings.
TEST_P(LossAugmentedBruteForceTest, ReachableLossBoundsHoldOnEveryPath) {
  const LossCase& c = GetParam();
  if (c.name == "none") return;  // no statistic
  std::mt19937 rng(std::hash<std::string>()(c.name + c.level) % 1000 + 11);
  int checked = 0;
  for (int iter = 0; iter < 12; ++iter) {
    const int n = std::uniform_int_distribution<int>(2, 4)(rng);
    const int m = std::uniform_int_distribution<int>(1, 6)(rng);
    const std::vector<std::string> labels = ChunkLabels(n);
    absl::StatusOr<std::shared_ptr<const BoundLoss>> bound_loss = BindCase(c, labels);
    ASSERT_TRUE(bound_loss.ok()) << bound_loss.status();
    const BoundLoss& loss = **bound_loss;
    std::vector<int> gold(m);
    for (int& g : gold) g = std::uniform_int_distribution<int>(0, n - 1)(rng);
    TokenErrorStatistic errors;
    TokenConfusionStatistic token;
    ChunkConfusionStatistic chunk;
    LossStatistic* statistic;
    if (loss.IsErrorLoss()) {
      errors.Reset(loss.view(), gold);
      statistic = &errors;
    } else if (loss.level() == LossLevel::kToken) {
      token.Reset(loss.view(), gold);
      statistic = &token;
    } else {
      chunk.Bind(loss.chunks(), loss.counted_labels(), loss.view().count_mode, &loss.view());
      chunk.Reset(gold);
      statistic = &chunk;
    }
    std::vector<double> state_loss, bound;
    statistic->StateLosses(&state_loss);
    statistic->ReachableLossBounds(state_loss, &bound);
    ASSERT_EQ(bound.size(), state_loss.size());
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      std::vector<int> states;
      int state = statistic->Initial();
      for (int t = 0; t < m && state >= 0; ++t) {
        state = statistic->Next(state, t, t == 0 ? -1 : y[t - 1], y[t]);
        states.push_back(state);
      }
      if (state < 0) return;  // a labeling the statistic rules out
      const double final_loss = state_loss[state];
      EXPECT_NEAR(final_loss, EvaluateLoss(loss, gold, y), 1e-12);
      for (int s : states) EXPECT_GE(bound[s], final_loss) << Names(labels, y).size();
      ++checked;
    });
  }
  EXPECT_GT(checked, 50);
}

INSTANTIATE_TEST_SUITE_P(AllLosses, LossAugmentedBruteForceTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<LossCase>& info) {
                           std::string name = info.param.name + "_" + info.param.level +
                                              (info.param.restrict_positives ? "_restricted" : "");
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(LossAugmentedDecodeTest, NoneIsViterbiUnderMarginAndGoldUnderSlack) {
  std::mt19937 rng(5);
  const std::vector<std::string> labels = ChunkLabels(4);
  auto loss = BindLoss(LossSpec{}, labels);
  ASSERT_TRUE(loss.ok());
  Lattice lattice = RandomLattice(rng, 6, 4, false, 0.0);
  const std::vector<int> gold = {0, 1, 2, 0, 3, 0};
  auto margin = LossAugmentedDecode(lattice, gold, **loss, LossScaling::kMargin);
  auto viterbi = ViterbiDecode(lattice);
  ASSERT_TRUE(margin.ok() && viterbi.ok());
  EXPECT_EQ(margin->labeling.labels, viterbi->labels);
  EXPECT_EQ(margin->loss, 0);
  auto slack = LossAugmentedDecode(lattice, gold, **loss, LossScaling::kSlack);
  ASSERT_TRUE(slack.ok());
  EXPECT_EQ(slack->labeling.labels, gold);
  EXPECT_EQ(slack->value, 0);
  EXPECT_EQ(slack->labeling.score, lattice.Score(gold));
}

TEST(LossAugmentedDecodeTest, RejectsMismatchedInputs) {
  const std::vector<std::string> labels = ChunkLabels(3);
  auto loss = BindLoss(*ParseLossSpec("f1", "chunk"), labels);
  ASSERT_TRUE(loss.ok());
  Lattice lattice(3, 3);
  absl::Status st;
  EXPECT_EQ(LossAugmentedDecode(lattice, {0, 1}, **loss, LossScaling::kMargin).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LossAugmentedDecode(lattice, {0, 1, 3}, **loss, LossScaling::kMargin).status().code(),
            absl::StatusCode::kInvalidArgument);
  Lattice wrong(3, 4);
  EXPECT_EQ(LossAugmentedDecode(wrong, {0, 1, 2}, **loss, LossScaling::kMargin).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A hint of the wrong length or with a label out of range.
  const std::vector<int> gold = {0, 1, 2}, short_hint = {0, 1}, bad_hint = {0, 5, 1};
  EXPECT_EQ(LossAugmentedDecode(lattice, gold, **loss, LossScaling::kMargin, nullptr, short_hint)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  st = LossAugmentedDecode(lattice, gold, **loss, LossScaling::kMargin, nullptr, bad_hint).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("hint label 5 at position 1"), std::string::npos) << st;
  lattice.unary(1, 1) = kNegInf;
  st = LossAugmentedDecode(lattice, {0, 1, 2}, **loss, LossScaling::kSlack).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("-inf"), std::string::npos) << st;
}

// BoundTerm = max_y 1[F(y*) - F(y) <= D(y*, y)] (1 - F1) over chunks, D the Hamming distance
// (default) or chunk FP + FN, by exhaustive search with chunks counted from label strings.
TEST(BoundTermTest, EqualsBruteForce) {
  for (const BoundDistance distance : {BoundDistance::kHamming, BoundDistance::kChunks}) {
    SCOPED_TRACE(distance == BoundDistance::kHamming ? "hamming" : "chunks");
    std::mt19937 rng(17);
    int positive = 0;
    for (int iter = 0; iter < 300; ++iter) {
      const int n = std::uniform_int_distribution<int>(1, 4)(rng);
      const int m = std::uniform_int_distribution<int>(0, 7)(rng);
      const std::vector<std::string> labels = RandomInventory(rng, n);
      const ChunkTable chunks(labels);
      std::vector<int> gold(m);
      for (int& g : gold) g = std::uniform_int_distribution<int>(0, n - 1)(rng);
      // Scale so F(y*) - F(y) is comparable with chunk error counts.
      const double scale = std::uniform_real_distribution<double>(0.2, 3.0)(rng);
      const bool integral = std::bernoulli_distribution(0.5)(rng);
      Lattice lattice = RandomLattice(rng, m, n, integral, 0.1);
      if (!integral) {
        for (int t = 0; t < m; ++t)
          for (int y = 0; y < n; ++y) lattice.unary(t, y) *= scale;
      }
      if (std::bernoulli_distribution(0.8)(rng)) UnmaskPath(rng, gold, &lattice);
      const double gold_score = lattice.Score(gold);
      const std::vector<Chunk> gold_chunks = ExtractChunks(Names(labels, gold));
      double best = kNegInf;
      ForEachLabeling(m, n, [&](const std::vector<int>& y) {
        const std::vector<Chunk> pred = ExtractChunks(Names(labels, y));
        int tp = 0;
        for (const Chunk& ch : pred)
          tp += std::find(gold_chunks.begin(), gold_chunks.end(), ch) != gold_chunks.end();
        const int g = static_cast<int>(gold_chunks.size());
        const int p = static_cast<int>(pred.size());
        const double f1 = g + p == 0 ? 1.0 : 2.0 * tp / (g + p);
        int hamming = 0;
        for (int t = 0; t < m; ++t) hamming += y[t] != gold[t];
        const int errors = distance == BoundDistance::kChunks ? (p - tp) + (g - tp) : hamming;
        const double f = lattice.Score(y);
        const double term = f != kNegInf && gold_score - f <= errors ? 1 - f1 : 0.0;
        if (f != kNegInf) best = std::max(best, term);
      });
      absl::StatusOr<double> term = BoundTerm(lattice, gold, chunks, distance);
      if (best == kNegInf) {
        EXPECT_FALSE(term.ok()) << iter;
        continue;
      }
      ASSERT_TRUE(term.ok()) << iter << ": " << term.status();
      EXPECT_NEAR(*term, best, 1e-12) << "iter " << iter << " m=" << m << " n=" << n;
      positive += best > 0;
    }
    EXPECT_GT(positive, 50);  // the indicator is not trivially always off
  }
}

// The default is the Hamming distance of McAllester's theorem; the two differ on some instances
// (so the test above sees both).
TEST(BoundTermTest, HammingIsTheDefaultAndDiffersFromChunks) {
  std::mt19937 rng(5);
  int differ = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const int n = 3, m = std::uniform_int_distribution<int>(2, 6)(rng);
    const std::vector<std::string> labels = RandomInventory(rng, n);
    const ChunkTable chunks(labels);
    std::vector<int> gold(m);
    for (int& g : gold) g = std::uniform_int_distribution<int>(0, n - 1)(rng);
    Lattice lattice = RandomLattice(rng, m, n, /*integral=*/false, 0.0);
    UnmaskPath(rng, gold, &lattice);
    absl::StatusOr<double> by_default = BoundTerm(lattice, gold, chunks);
    absl::StatusOr<double> hamming = BoundTerm(lattice, gold, chunks, BoundDistance::kHamming);
    absl::StatusOr<double> chunk = BoundTerm(lattice, gold, chunks, BoundDistance::kChunks);
    ASSERT_TRUE(by_default.ok() && hamming.ok() && chunk.ok());
    EXPECT_EQ(*by_default, *hamming);
    differ += *hamming != *chunk;
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace chaintag
