#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/eval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/eval_fixture.h"

namespace chaintag {
namespace {

using ::chaintag::testing::EvaluateFixture;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A strict recursive-descent JSON checker (RFC 8259 grammar), enough to prove the output parses.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : s_(text) {}
  bool Valid() {
    Space();
    if (!Value()) return false;
    Space();
    return i_ == s_.size();
  }

 private:
  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool String() {
    if (!Eat('"')) return false;
    while (i_ < s_.size()) {
      const unsigned char c = s_[i_++];
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        const char e = s_[i_++];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_++]))) {
              return false;
            }
          }
        } else if (std::string("\"\\/bfnrt").find(e) == std::string::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool Number() {
    Space();
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+')) {
      ++i_;
    }
    return i_ > start;
  }
  bool Value() {
    Space();
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '{') {
      ++i_;
      if (Eat('}')) return true;
      do {
        if (!String() || !Eat(':') || !Value()) return false;
      } while (Eat(','));
      return Eat('}');
    }
    if (s_[i_] == '[') {
      ++i_;
      if (Eat(']')) return true;
      do {
        if (!Value()) return false;
      } while (Eat(','));
      return Eat(']');
    }
    if (s_[i_] == '"') return String();
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(i_, std::string(word).size(), word) == 0) {
        i_ += std::string(word).size();
        return true;
      }
    }
    return Number();
  }
  const std::string& s_;
  size_t i_ = 0;
};

TEST(FormatEvalReportTest, StartsWithConllevalLines) {
  const std::string text = FormatEvalReport(EvaluateFixture("iob2.txt"));
  EXPECT_THAT(
      text, StartsWith("processed 16 tokens with 7 phrases; found: 8 phrases; correct: 5.\n"
                       "accuracy:  81.25%; precision:  62.50%; recall:  71.43%; FB1:  66.67\n"
                       "               NP: precision:  40.00%; recall:  50.00%; FB1:  44.44  5\n"
                       "               PP: precision: 100.00%; recall: 100.00%; FB1: 100.00  1\n"
                       "               VP: precision: 100.00%; recall: 100.00%; FB1: 100.00  2\n"));
  EXPECT_THAT(text, HasSubstr("confusion matrix"));
  EXPECT_THAT(text, HasSubstr("I-NP"));
}

TEST(FormatEvalReportTest, OmitsConfusionMatrixAboveSixtyLabels) {
  Evaluator evaluator;
  std::vector<std::string> labels;
  for (int i = 0; i < 61; ++i) labels.push_back(absl::StrCat("T", i));
  ASSERT_TRUE(evaluator.Add(labels, labels).ok());
  const std::string text = FormatEvalReport(evaluator.Report());
  EXPECT_THAT(text, HasSubstr("confusion matrix omitted: 61 labels"));
  EXPECT_THAT(text, StartsWith("processed 61 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"
                               "accuracy: 100.00%;"));
}

TEST(FormatEvalReportTest, EmptyReportPrintsOnlyTheHeader) {
  const std::string text = FormatEvalReport(Evaluator().Report());
  EXPECT_THAT(text,
              StartsWith("processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"));
  EXPECT_THAT(text, Not(HasSubstr("accuracy:")));
}

TEST(FormatEvalReportJsonTest, ChunkReportIsValidJsonWithExpectedKeys) {
  const std::string json = FormatEvalReportJson(EvaluateFixture("iob2.txt"));
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_THAT(json, StartsWith("{\"sentences\":2,\"tokens\":16,"));
  EXPECT_THAT(json, HasSubstr("\"accuracy\":81.2500"));
  EXPECT_THAT(json, HasSubstr("\"B-NP\":{\"precision\":60.0000,\"recall\":75.0000,\"f1\":66.6667,"
                              "\"gold\":4,\"predicted\":5,\"correct\":3}"));
  EXPECT_THAT(json, HasSubstr("\"confusion\":{\"labels\":[\"B-NP\",\"B-PP\",\"B-VP\",\"I-NP\","
                              "\"I-VP\",\"O\"],\"matrix\":[["));
  EXPECT_THAT(json, HasSubstr("\"chunks\":{\"overall\":{\"precision\":62.5000,"));
  EXPECT_THAT(json, HasSubstr("\"NP\":{\"precision\":40.0000,\"recall\":50.0000,\"f1\":44.4444,"
                              "\"gold\":4,\"predicted\":5,\"correct\":2}"));
}

TEST(FormatEvalReportJsonTest, NoChunksKeyWithoutChunkLabels) {
  Evaluator evaluator;
  ASSERT_TRUE(evaluator.Add({"DT", "NN"}, {"DT", "VB"}).ok());
  const std::string json = FormatEvalReportJson(evaluator.Report());
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_THAT(json, Not(HasSubstr("\"chunks\"")));
  EXPECT_THAT(json, HasSubstr("\"matrix\":[[1,0,0],[0,0,1],[0,0,0]]"));
}

TEST(FormatEvalReportJsonTest, EscapesLabels) {
  Evaluator evaluator;
  const std::string odd = std::string("a\"b\\c\x01\n") + "\xc3\xa9";
  ASSERT_TRUE(evaluator.Add({odd}, {odd}).ok());
  const std::string json = FormatEvalReportJson(evaluator.Report());
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_THAT(json, HasSubstr("\"a\\\"b\\\\c\\u0001\\n\xc3\xa9\""));
  EXPECT_TRUE(JsonChecker(FormatEvalReportJson(Evaluator().Report())).Valid());
}

}  // namespace
}  // namespace chaintag
