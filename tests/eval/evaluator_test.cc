#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/chunks.h"
#include "chaintag/eval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/eval_fixture.h"

namespace chaintag {
namespace {

using ::chaintag::testing::EvaluateFixture;

const PhraseScore* FindType(const EvalReport& report, const std::string& type) {
  for (const PhraseScore& score : report.chunks) {
    if (score.type == type) return &score;
  }
  return nullptr;
}

const LabelScore* FindLabel(const EvalReport& report, const std::string& label) {
  for (const LabelScore& score : report.labels) {
    if (score.label == label) return &score;
  }
  return nullptr;
}

int64_t Confusion(const EvalReport& report, const std::string& gold, const std::string& pred) {
  const int n = static_cast<int>(report.confusion_labels.size());
  int g = -1, p = -1;
  for (int i = 0; i < n; ++i) {
    if (report.confusion_labels[i] == gold) g = i;
    if (report.confusion_labels[i] == pred) p = i;
  }
  if (g < 0 || p < 0) return -1;
  return report.confusion[g * n + p];
}

void ExpectPhrase(const PhraseScore* score, int64_t gold, int64_t predicted, int64_t correct,
                  double precision, double recall, double f1) {
  ASSERT_NE(score, nullptr);
  EXPECT_EQ(score->gold, gold) << score->type;
  EXPECT_EQ(score->predicted, predicted) << score->type;
  EXPECT_EQ(score->correct, correct) << score->type;
  EXPECT_NEAR(score->precision, precision, 0.005) << score->type;
  EXPECT_NEAR(score->recall, recall, 0.005) << score->type;
  EXPECT_NEAR(score->f1, f1, 0.005) << score->type;
}

// Numbers below were worked out by hand by stepping through conlleval's main loop.
TEST(EvaluatorTest, Iob2FixtureMatchesConlleval) {
  const EvalReport report = EvaluateFixture("iob2.txt");
  EXPECT_EQ(report.sentences, 2);
  EXPECT_EQ(report.tokens, 16);
  EXPECT_EQ(report.correct_tokens, 13);
  EXPECT_NEAR(report.accuracy, 81.25, 1e-9);
  ASSERT_TRUE(report.has_chunks);
  ExpectPhrase(&report.overall, 7, 8, 5, 62.50, 71.43, 66.67);
  ASSERT_EQ(report.chunks.size(), 3u);
  EXPECT_EQ(report.chunks[0].type, "NP");
  EXPECT_EQ(report.chunks[1].type, "PP");
  EXPECT_EQ(report.chunks[2].type, "VP");
  ExpectPhrase(FindType(report, "NP"), 4, 5, 2, 40.00, 50.00, 44.44);
  ExpectPhrase(FindType(report, "PP"), 1, 1, 1, 100, 100, 100);
  ExpectPhrase(FindType(report, "VP"), 2, 2, 2, 100, 100, 100);
}

TEST(EvaluatorTest, Iob2FixturePerLabelAndConfusion) {
  const EvalReport report = EvaluateFixture("iob2.txt");
  std::vector<std::string> names;
  for (const LabelScore& s : report.labels) names.push_back(s.label);
  EXPECT_THAT(names, ::testing::ElementsAre("B-NP", "B-PP", "B-VP", "I-NP", "I-VP", "O"));
  EXPECT_EQ(report.confusion_labels, names);
  const LabelScore* b_np = FindLabel(report, "B-NP");
  ASSERT_NE(b_np, nullptr);
  EXPECT_EQ(b_np->gold, 4);
  EXPECT_EQ(b_np->predicted, 5);
  EXPECT_EQ(b_np->correct, 3);
  EXPECT_NEAR(b_np->precision, 60.0, 1e-9);
  EXPECT_NEAR(b_np->recall, 75.0, 1e-9);
  EXPECT_NEAR(b_np->f1, 66.6667, 1e-3);
  const LabelScore* i_np = FindLabel(report, "I-NP");
  ASSERT_NE(i_np, nullptr);
  EXPECT_EQ(i_np->gold, 6);
  EXPECT_EQ(i_np->predicted, 4);
  EXPECT_EQ(i_np->correct, 4);
  EXPECT_NEAR(i_np->f1, 80.0, 1e-9);
  EXPECT_EQ(Confusion(report, "I-NP", "B-NP"), 2);
  EXPECT_EQ(Confusion(report, "B-NP", "O"), 1);
  EXPECT_EQ(Confusion(report, "O", "O"), 2);
  EXPECT_EQ(Confusion(report, "O", "B-NP"), 0);
  int64_t total = 0, diagonal = 0;
  const size_t n = report.confusion_labels.size();
  for (size_t g = 0; g < n; ++g) {
    for (size_t p = 0; p < n; ++p) {
      total += report.confusion[g * n + p];
      if (g == p) diagonal += report.confusion[g * n + p];
    }
  }
  EXPECT_EQ(total, report.tokens);
  EXPECT_EQ(diagonal, report.correct_tokens);
}

TEST(EvaluatorTest, Iob1WithIllFormedPredictions) {
  const EvalReport report = EvaluateFixture("iob1_ill_formed.txt");
  EXPECT_EQ(report.tokens, 9);
  EXPECT_EQ(report.correct_tokens, 6);
  ASSERT_TRUE(report.has_chunks);
  ExpectPhrase(&report.overall, 5, 3, 1, 33.33, 20.00, 25.00);
  ExpectPhrase(FindType(report, "NP"), 3, 2, 0, 0, 0, 0);
  ExpectPhrase(FindType(report, "VP"), 1, 1, 1, 100, 100, 100);
  // Found in gold only: precision is 0 by conlleval's zero-division rule.
  ExpectPhrase(FindType(report, "PP"), 1, 0, 0, 0, 0, 0);
}

TEST(EvaluatorTest, TypeNeverInGold) {
  const EvalReport report = EvaluateFixture("iob2_unseen_type.txt");
  EXPECT_EQ(report.correct_tokens, 3);
  ExpectPhrase(&report.overall, 2, 3, 0, 0, 0, 0);
  ASSERT_EQ(report.chunks.size(), 3u);
  EXPECT_EQ(report.chunks[0].type, "ADJP");
  ExpectPhrase(FindType(report, "ADJP"), 0, 1, 0, 0, 0, 0);
  ExpectPhrase(FindType(report, "NP"), 1, 1, 0, 0, 0, 0);
  ExpectPhrase(FindType(report, "VP"), 1, 1, 0, 0, 0, 0);
  const LabelScore* adjp = FindLabel(report, "B-ADJP");
  ASSERT_NE(adjp, nullptr);
  EXPECT_EQ(adjp->gold, 0);
  EXPECT_EQ(adjp->predicted, 1);
  EXPECT_EQ(adjp->recall, 0.0);
  EXPECT_EQ(adjp->f1, 0.0);
}

TEST(EvaluatorTest, Iobes) {
  const EvalReport report = EvaluateFixture("iobes.txt");
  EXPECT_EQ(report.correct_tokens, 4);
  ExpectPhrase(&report.overall, 5, 4, 1, 25.00, 20.00, 22.22);
  ExpectPhrase(FindType(report, "NP"), 3, 2, 1, 50.00, 33.33, 40.00);
  ExpectPhrase(FindType(report, "VP"), 1, 1, 0, 0, 0, 0);
  ExpectPhrase(FindType(report, "PP"), 1, 1, 0, 0, 0, 0);
}

TEST(EvaluatorTest, EmptyEvaluatorReportsZerosNotNan) {
  Evaluator evaluator;
  const EvalReport report = evaluator.Report();
  EXPECT_EQ(report.tokens, 0);
  EXPECT_EQ(report.accuracy, 0.0);
  EXPECT_FALSE(report.has_chunks);
  EXPECT_TRUE(report.labels.empty());
  EXPECT_TRUE(report.confusion.empty());
  EXPECT_FALSE(std::isnan(report.overall.f1));
}

TEST(EvaluatorTest, NoPredictedPhrasesGivesZeroScores) {
  Evaluator evaluator;
  ASSERT_TRUE(evaluator.Add({"B-NP", "I-NP", "O"}, {"O", "O", "O"}).ok());
  const EvalReport report = evaluator.Report();
  ASSERT_TRUE(report.has_chunks);
  ExpectPhrase(&report.overall, 1, 0, 0, 0, 0, 0);
  const LabelScore* b_np = FindLabel(report, "B-NP");
  ASSERT_NE(b_np, nullptr);
  EXPECT_EQ(b_np->precision, 0.0);
  EXPECT_EQ(b_np->f1, 0.0);
}

TEST(EvaluatorTest, SizeMismatchIsAnErrorAndCountsNothing) {
  Evaluator evaluator;
  ASSERT_TRUE(evaluator.Add({"B-NP"}, {"B-NP"}).ok());
  const absl::Status status = evaluator.Add({"B-NP", "O"}, {"B-NP"});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("sentence 2"));
  const EvalReport report = evaluator.Report();
  EXPECT_EQ(report.sentences, 1);
  EXPECT_EQ(report.tokens, 1);
  EXPECT_EQ(report.overall.gold, 1);
}

TEST(EvaluatorTest, PosLabelsHaveNoChunks) {
  Evaluator evaluator;
  ASSERT_TRUE(evaluator.Add({"DT", "NN", "VBZ"}, {"DT", "VB", "VBZ"}).ok());
  const EvalReport report = evaluator.Report();
  EXPECT_FALSE(report.has_chunks);
  EXPECT_TRUE(report.chunks.empty());
  EXPECT_EQ(report.overall.gold, 0);
  EXPECT_NEAR(report.accuracy, 200.0 / 3, 1e-9);
  EXPECT_EQ(Confusion(report, "NN", "VB"), 1);
}

TEST(EvaluatorTest, ManyLabelsGrowTheConfusionMatrix) {
  Evaluator evaluator;
  std::vector<std::string> gold, pred;
  for (int i = 0; i < 40; ++i) {
    gold.push_back(absl::StrCat("L", i));
    pred.push_back(absl::StrCat("L", (i + 1) % 40));
  }
  ASSERT_TRUE(evaluator.Add(gold, pred).ok());
  ASSERT_TRUE(evaluator.Add(gold, gold).ok());
  const EvalReport report = evaluator.Report();
  ASSERT_EQ(report.confusion_labels.size(), 40u);
  for (int i = 0; i < 40; ++i) {
    const std::string g = absl::StrCat("L", i);
    EXPECT_EQ(Confusion(report, g, g), 1);
    EXPECT_EQ(Confusion(report, g, absl::StrCat("L", (i + 1) % 40)), 1);
  }
}

// conlleval's state machine must agree with an independent count: phrases from ExtractChunks,
// correct = phrases identical in gold and prediction, on random (often ill-formed) sequences.
TEST(EvaluatorTest, AgreesWithChunkSetIntersectionOnRandomSequences) {
  const std::vector<std::string> labels = {"O",   "B-A", "I-A", "E-A", "S-A",
                                           "B-B", "I-B", "E-B", "S-B"};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Evaluator evaluator;
    std::map<std::string, std::tuple<int64_t, int64_t, int64_t>> expected;
    int64_t gold_total = 0, pred_total = 0, correct_total = 0;
    const int num_sentences = 1 + static_cast<int>(rng() % 4);
    for (int s = 0; s < num_sentences; ++s) {
      const int n = static_cast<int>(rng() % 9);
      std::vector<std::string> gold(n), pred(n);
      for (int t = 0; t < n; ++t) {
        gold[t] = labels[rng() % labels.size()];
        pred[t] = rng() % 2 ? gold[t] : labels[rng() % labels.size()];
      }
      ASSERT_TRUE(evaluator.Add(gold, pred).ok());
      const std::vector<Chunk> gold_chunks = ExtractChunks(gold);
      const std::vector<Chunk> pred_chunks = ExtractChunks(pred);
      std::set<std::tuple<int, int, std::string>> gold_set;
      for (const Chunk& c : gold_chunks) {
        gold_set.insert({c.begin, c.end, c.type});
        ++std::get<0>(expected[c.type]);
        ++gold_total;
      }
      for (const Chunk& c : pred_chunks) {
        ++std::get<1>(expected[c.type]);
        ++pred_total;
        if (gold_set.count({c.begin, c.end, c.type})) {
          ++std::get<2>(expected[c.type]);
          ++correct_total;
        }
      }
    }
    const EvalReport report = evaluator.Report();
    if (gold_total + pred_total == 0) continue;
    ASSERT_TRUE(report.has_chunks);
    EXPECT_EQ(report.overall.gold, gold_total) << "trial " << trial;
    EXPECT_EQ(report.overall.predicted, pred_total) << "trial " << trial;
    EXPECT_EQ(report.overall.correct, correct_total) << "trial " << trial;
    ASSERT_EQ(report.chunks.size(), expected.size()) << "trial " << trial;
    for (const auto& [type, counts] : expected) {
      const PhraseScore* score = FindType(report, type);
      ASSERT_NE(score, nullptr) << type;
      EXPECT_EQ(score->gold, std::get<0>(counts)) << "trial " << trial << " " << type;
      EXPECT_EQ(score->predicted, std::get<1>(counts)) << "trial " << trial << " " << type;
      EXPECT_EQ(score->correct, std::get<2>(counts)) << "trial " << trial << " " << type;
    }
  }
}

// Label ids (a model's label set given up front, some labels never used) give the same report as
// the label strings, to the byte.
TEST(EvaluatorTest, IdsGiveTheSameReportAsStrings) {
  const std::vector<std::string> labels = {"O",   "B-A", "I-A", "E-A", "S-A", "B-B",
                                           "I-B", "E-B", "S-B", "B-C", "NN"};
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    Evaluator by_name, by_id(labels);
    // Trials alternate chunk-only label draws and draws that may use "NN" (no phrase scores).
    const size_t used = trial % 2 ? labels.size() : labels.size() - 2;
    for (int s = 0; s < 3; ++s) {
      const int n = static_cast<int>(rng() % 9);
      std::vector<int> gold(n), pred(n);
      std::vector<std::string> gold_names, pred_names;
      for (int t = 0; t < n; ++t) {
        gold[t] = static_cast<int>(rng() % used);
        pred[t] = rng() % 2 ? gold[t] : static_cast<int>(rng() % used);
        gold_names.push_back(labels[gold[t]]);
        pred_names.push_back(labels[pred[t]]);
      }
      ASSERT_TRUE(by_name.Add(gold_names, pred_names).ok());
      ASSERT_TRUE(by_id.AddIds(gold, pred).ok());
    }
    EXPECT_EQ(FormatEvalReportJson(by_id.Report()), FormatEvalReportJson(by_name.Report()))
        << "trial " << trial;
    EXPECT_EQ(FormatEvalReport(by_id.Report()), FormatEvalReport(by_name.Report()));
  }
}

TEST(EvaluatorTest, AddIdsRefusesUnknownIdsAndCountsNothing) {
  Evaluator evaluator({"O", "B-NP"});
  const absl::Status bad = evaluator.AddIds(std::vector<int>{0, 2}, std::vector<int>{0, 1});
  EXPECT_THAT(std::string(bad.message()), ::testing::HasSubstr("expected a label id below 2"));
  EXPECT_FALSE(evaluator.AddIds(std::vector<int>{0}, std::vector<int>{-1}).ok());
  EXPECT_FALSE(evaluator.AddIds(std::vector<int>{0}, std::vector<int>{0, 1}).ok());
  EXPECT_EQ(evaluator.Report().tokens, 0);
  ASSERT_TRUE(evaluator.AddIds(std::vector<int>{1, 0}, std::vector<int>{1, 0}).ok());
  EXPECT_EQ(evaluator.Report().overall.correct, 1);
}

}  // namespace
}  // namespace chaintag
