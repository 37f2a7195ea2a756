// End-to-end tests of tag --collective (issue 16 part 3): documents from -DOCSTART- lines and
// raw-text files, JSONL document reports, MAJORITY weights from a training file, the document
// size cap and usage errors; on a small entity model trained from a fixture written here.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// "Brugge" is an organisation before "wint" and a location after "in": tagged sentence by
// sentence the two readings differ; a strong clique makes one article agree.
class CollectiveTagTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    train_ = (dir_->path() / "train.conll").string();
    model_ = (dir_->path() / "ner.model").string();
    doc_ = (dir_->path() / "doc.conll").string();
    {
      std::ofstream out(train_);
      for (int i = 0; i < 6; ++i) {
        out << "-DOCSTART- -X- O\n\n";
        out << "Brugge N B-ORG\nwint V O\nvandaag Adv O\n. Punc O\n\n";
        out << "Jan N B-PER\nwoont V O\nin Prep O\nBrugge N B-LOC\n. Punc O\n\n";
        out << "Club N B-ORG\nBrugge N I-ORG\nspeelt V O\n. Punc O\n\n";
        out << "Gent N B-LOC\nligt V O\nin Prep O\nVlaanderen N B-LOC\n. Punc O\n\n";
        out << "Gent N B-ORG\nwint V O\n. Punc O\n\n";
      }
    }
    {
      std::ofstream out(doc_);
      out << "-DOCSTART- -X- O\n\nBrugge N B-ORG\nwint V O\n. Punc O\n\n"
          << "Piet N B-PER\nwoont V O\nin Prep O\nBrugge N B-ORG\n. Punc O\n\n"
          << "-DOCSTART- -X- O\n\nGent N B-LOC\nligt V O\n. Punc O\n\n"
          << "Gent N B-LOC\nwint V O\n. Punc O\n\n";
    }
    RunResult r = RunChaintag("train --format conll --preset ner --max-iterations 60 -o '" +
                              model_ + "' '" + train_ + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static RunResult Tag(const std::string& options, const std::string& input = "") {
    return RunChaintag("tag -m '" + model_ + "' --format conll " + options + " '" +
                       (input.empty() ? doc_ : input) + "'");
  }
  static TempDir* dir_;
  static std::string train_, model_, doc_;
};
TempDir* CollectiveTagTest::dir_ = nullptr;
std::string CollectiveTagTest::train_, CollectiveTagTest::model_, CollectiveTagTest::doc_;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

TEST_F(CollectiveTagTest, PottsReportsDocumentsAndNeverLowersTheObjective) {
  RunResult r = Tag("--collective potts --output-format jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u);
  // The first sentence of each article carries its report; the others do not.
  EXPECT_THAT(lines[0], HasSubstr("\"document\": {\"index\": 0, \"sentences\": 2"));
  EXPECT_THAT(lines[1], Not(HasSubstr("\"document\"")));
  EXPECT_THAT(lines[2], HasSubstr("\"document\": {\"index\": 1, \"sentences\": 2"));
  // Cliques: "Brugge" and "." in article 0; "Gent", "." in article 1.
  EXPECT_THAT(lines[0], HasSubstr("\"cliques\": 2"));
  EXPECT_THAT(r.err, HasSubstr("collective: 2 documents jointly"));
}

TEST_F(CollectiveTagTest, AStrongCliqueMakesAnArticleAgree) {
  RunResult plain = Tag("");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::vector<std::string> p = Lines(plain.out);
  // Line 0 is Brugge (organisation reading), line 7 Brugge after "in" (location reading).
  ASSERT_GE(p.size(), 8u);
  EXPECT_THAT(p[0], HasSubstr("B-ORG B-ORG"));
  EXPECT_THAT(p[7], HasSubstr("B-ORG B-LOC"));
  RunResult joint = Tag("--collective potts --collective-lambda 20 --collective-capitalised");
  ASSERT_EQ(joint.exit_code, 0) << joint.err;
  const std::vector<std::string> j = Lines(joint.out);
  ASSERT_EQ(j.size(), p.size());
  const std::string first = j[0].substr(j[0].rfind(' ') + 1);
  EXPECT_EQ(j[7].substr(j[7].rfind(' ') + 1), first);
}

TEST_F(CollectiveTagTest, MajorityNeedsTrainingDataAndUsesIt) {
  RunResult r = Tag("--collective majority");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--collective-train"));
  r = Tag("--collective majority --collective-train '" + train_ + "' --output-format jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"objective\""));
  // Training data the model cannot read: a clear error naming the file and line.
  const std::string bad = (dir_->path() / "bad.conll").string();
  std::ofstream(bad) << "Brugge N B-XYZ\n";
  r = Tag("--collective majority --collective-train '" + bad + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.conll:1"));
  EXPECT_THAT(r.out, ::testing::IsEmpty());
}

TEST_F(CollectiveTagTest, LargeDocumentsFallBackWithAWarning) {
  RunResult r = Tag("--collective potts --collective-max-sentences 1 --output-format jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& line : Lines(r.out)) {
    EXPECT_THAT(line, HasSubstr("\"warning\": \"document larger than"));
  }
  EXPECT_THAT(r.err, HasSubstr("2 document(s) exceeded"));
}

TEST_F(CollectiveTagTest, RawTextFileIsOneDocument) {
  // A words-only model reads raw text.
  const std::string templates = (dir_->path() / "words.templates").string();
  const std::string words_model = (dir_->path() / "words.model").string();
  std::ofstream(templates) << "U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nB\n";
  RunResult r = RunChaintag("train --format conll --template '" + templates +
                            "' --max-iterations 30 -o '" + words_model + "' '" + train_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = (dir_->path() / "text.txt").string();
  std::ofstream(text) << "Brugge wint. Piet woont in Brugge. Gent wint.\n";
  r = RunChaintag("tag -m '" + words_model + "' --collective potts --output-format jsonl '" + text +
                  "' '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_THAT(lines[0], HasSubstr("\"document\": {\"index\": 0, \"sentences\": 3"));
  EXPECT_THAT(lines[3], HasSubstr("\"document\": {\"index\": 1, \"sentences\": 3"));
}

TEST_F(CollectiveTagTest, UsageErrors) {
  for (const std::string& options :
       {std::string("--collective dense"), std::string("--collective potts --kbest 2"),
        std::string("--collective potts --collective-iterations 0"),
        std::string("--collective potts --collective-key upper"),
        std::string("--collective potts --collective-lambda -1"),
        std::string("--collective potts --collective-max-clique 1"),
        std::string("--collective potts --collective-train x.conll")}) {
    RunResult r = Tag(options);
    EXPECT_EQ(r.exit_code, 2) << options << "\n" << r.err;
    EXPECT_THAT(r.out, ::testing::IsEmpty()) << options;
  }
}

}  // namespace
}  // namespace chaintag::testing
