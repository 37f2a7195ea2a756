// The request grammar (--count, --score-range, exclusion lines) and DecodeRequest::Validate.
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "chaintag/tagging.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<std::string> kLabels = {"B-NP", "B-VP", "I-NP", "NN", "NNS", "O", "VB", "VBD"};

TEST(ParseCountConstraintTest, EveryDocumentedForm) {
  auto a = ParseCountConstraint("B-NP=2..4", kLabels);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->chunks);
  EXPECT_THAT(a->ids, ElementsAre(0));
  EXPECT_EQ(a->lower, 2);
  EXPECT_EQ(a->upper, 4);

  auto b = ParseCountConstraint("NN,NNS=..3", kLabels);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->ids, ElementsAre(3, 4));
  EXPECT_EQ(b->lower, 0);
  EXPECT_EQ(b->upper, 3);

  auto c = ParseCountConstraint("VB*=1..", kLabels);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->ids, ElementsAre(6, 7));
  EXPECT_EQ(c->lower, 1);
  EXPECT_EQ(c->upper, -1);

  auto d = ParseCountConstraint("chunk:NP=3", kLabels);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->chunks);
  ASSERT_EQ(d->ids.size(), 1u);
  EXPECT_EQ(ChunkTable(kLabels).type_name(d->ids[0]), "NP");
  EXPECT_EQ(d->lower, 3);
  EXPECT_EQ(d->upper, 3);

  // The largest int bound parses; the pipeline clamps it to the sentence length.
  auto e = ParseCountConstraint("B-NP=..2147483647", kLabels);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->upper, INT_MAX);
}

TEST(ParseCountConstraintTest, EveryMalformedFormIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"B-NP", "expected LABELS=RANGE"},
      {"=3", "expected LABELS=RANGE"},
      {"B-NP=", "non-negative integer bound"},
      {"B-NP=..", "the range has no bound"},
      {"B-NP=x", "non-negative integer bound"},
      {"B-NP=-1", "non-negative integer bound"},
      {"B-NP=2147483648", "non-negative integer bound"},
      {"B-NP=4..2", "lower bound exceeds the upper"},
      {"B-NP,=1", "empty label in the list"},
      {"XX=1", "no label of the model matches 'XX'"},
      {"Z*=1", "no label of the model matches 'Z*'"},
      {"chunk:PP=1", "no chunk type 'PP'"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = ParseCountConstraint(text, kLabels);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(message)) << text;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(text)) << text;
  }
}

TEST(ParseScoreRangeTest, FormsAndErrors) {
  double lo = 0, hi = 0;
  ASSERT_TRUE(ParseScoreRange("80..85", &lo, &hi).ok());
  EXPECT_EQ(lo, 80);
  EXPECT_EQ(hi, 85);
  ASSERT_TRUE(ParseScoreRange("-3.5..", &lo, &hi).ok());
  EXPECT_EQ(lo, -3.5);
  EXPECT_TRUE(std::isinf(hi));
  ASSERT_TRUE(ParseScoreRange("..2", &lo, &hi).ok());
  EXPECT_TRUE(std::isinf(lo) && lo < 0);
  EXPECT_EQ(hi, 2);
  for (const char* bad : {"5", "a..b", "3..1", "5..5", "nan..1", "inf..", "1..1e999"}) {
    EXPECT_FALSE(ParseScoreRange(bad, &lo, &hi).ok()) << bad;
  }
}

TEST(ParseExclusionLineTest, LabelingsAndLabels) {
  auto l = ParseExclusionLine("B-NP I-NP O | O O O\t|");
  ASSERT_TRUE(l.ok()) << l.status();
  ASSERT_EQ(l->size(), 2u);
  EXPECT_THAT((*l)[0], ElementsAre("B-NP", "I-NP", "O"));
  EXPECT_THAT((*l)[1], ElementsAre("O", "O", "O"));
  auto empty = ParseExclusionLine("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(ParseExclusionLineTest, RefusesInvalidUtf8AndControlCharacters) {
  auto invalid = ParseExclusionLine("B-NP \xff");
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(std::string(invalid.status().message()), HasSubstr("invalid UTF-8 at byte 6"));
  auto cr = ParseExclusionLine("O O\r");
  ASSERT_FALSE(cr.ok());
  EXPECT_THAT(std::string(cr.status().message()),
              HasSubstr("control character \"\\x0D\" at byte 4"));
  auto nul = ParseExclusionLine(std::string("O\0O", 3));
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(std::string(nul.status().message()), HasSubstr("NUL"));
}

TEST(DecodeRequestTest, ValidateCapsEveryNumber) {
  DecodeRequest ok;
  EXPECT_TRUE(ok.Validate().ok());
  auto invalid = [](auto mutate) {
    DecodeRequest r;
    mutate(r);
    return !r.Validate().ok();
  };
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.kbest = -1; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.kbest = 2, r.diverse = 2; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.diverse = 2, r.min_distance = 0; }));
  EXPECT_TRUE(
      invalid([](DecodeRequest& r) { r.score_range = true, r.score_resolution = INFINITY; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.score_range = true, r.score_resolution = NAN; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.score_range = true, r.score_resolution = 0; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) {
    r.score_range = true, r.score_max_states = DecodeRequest::kMaxScoreStates + 1;
  }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.score_range = true, r.kbest = 3; }));
  EXPECT_TRUE(invalid([](DecodeRequest& r) { r.max_memory_bytes = 1000; }));
  DecodeRequest at_cap;
  at_cap.score_range = true;
  at_cap.score_upper = 1;  // a score range needs width (lower 0)
  at_cap.score_max_states = DecodeRequest::kMaxScoreStates;
  EXPECT_TRUE(at_cap.Validate().ok());
}

TEST(SentenceStatusTest, Names) {
  EXPECT_STREQ(SentenceStatusName(SentenceStatus::kOk), "ok");
  EXPECT_STREQ(SentenceStatusName(SentenceStatus::kInfeasible), "infeasible");
  EXPECT_STREQ(SentenceStatusName(SentenceStatus::kTooLarge), "too_large");
}

}  // namespace
}  // namespace chaintag
