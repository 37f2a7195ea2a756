#include <string>
#include <vector>

#include "chaintag/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

// A labelled sentence from "word/TAG" tokens, its tokens on lines first_line, first_line + 1, ...
Sentence Tagged(const std::vector<std::string>& tokens, int64_t first_line = 1) {
  Sentence s;
  s.file = "corpus.txt";
  s.columns.resize(1);
  for (const std::string& token : tokens) {
    const size_t slash = token.rfind('/');
    s.columns[0].push_back(token.substr(0, slash));
    s.labels.push_back(token.substr(slash + 1));
    s.token_lines.push_back(first_line + static_cast<int64_t>(s.token_lines.size()));
  }
  return s;
}

Lexicon MustBuild(const TagLexiconBuilder& builder) {
  absl::StatusOr<Lexicon> lexicon = builder.Build();
  EXPECT_TRUE(lexicon.ok()) << lexicon.status();
  return lexicon.ok() ? *lexicon : Lexicon();
}

TEST(TagLexiconTest, KeepsLabelsWithTheirShareAndCaseFoldsWords) {
  TagLexiconBuilder builder;  // case folding, share 0.1, count 1
  // "run": 9 x VB, 1 x NN (exactly the 10% share: kept); "the": 19 x DT, 1 x NNP (5%: dropped).
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(builder.Add(Tagged({"run/VB"})).ok());
  ASSERT_TRUE(builder.Add(Tagged({"Run/NN"})).ok());
  for (int i = 0; i < 19; ++i) ASSERT_TRUE(builder.Add(Tagged({"the/DT"})).ok());
  ASSERT_TRUE(builder.Add(Tagged({"THE/NNP", "Ärger/NN"})).ok());
  EXPECT_EQ(builder.tokens(), 31);
  const Lexicon lexicon = MustBuild(builder);
  EXPECT_EQ(lexicon.Lookup("run"), "NN|VB");
  EXPECT_EQ(lexicon.Lookup("the"), "DT");
  EXPECT_EQ(lexicon.Lookup("ärger"), "NN");  // ICU case folding, as lower() in templates
  EXPECT_EQ(lexicon.Lookup("Run"), Lexicon::kAbsent);
  EXPECT_EQ(lexicon.num_words(), 3);
  EXPECT_EQ(lexicon.Serialize(), "run\tNN VB\nthe\tDT\närger\tNN\n");
}

TEST(TagLexiconTest, KeepCaseMinShareAndMinCount) {
  TagLexiconBuilder builder({.case_fold = false, .min_share = 0.5, .min_count = 2});
  ASSERT_TRUE(builder.Add(Tagged({"Bank/NNP", "bank/NN", "bank/NN", "bank/VB", "rare/JJ"})).ok());
  const Lexicon lexicon = MustBuild(builder);
  EXPECT_EQ(lexicon.Lookup("bank"), "NN");              // VB is 1 of 3 < 0.5
  EXPECT_EQ(lexicon.Lookup("Bank"), Lexicon::kAbsent);  // seen once < min_count
  EXPECT_EQ(lexicon.Lookup("rare"), Lexicon::kAbsent);
  EXPECT_EQ(lexicon.num_words(), 1);
}

TEST(TagLexiconTest, ErrorsNameFileAndLine) {
  TagLexiconBuilder builder;
  absl::Status s = builder.Add(Tagged({"a/DT", "b/N|N"}, 7));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("corpus.txt:8: expected a label usable as a lexicon class"));
  EXPECT_THAT(s.message(), HasSubstr("found 'N|N'"));
  EXPECT_FALSE(builder.Add(Tagged({"a/-"})).ok());
  EXPECT_FALSE(builder.Add(Tagged({"a/N N"})).ok());

  Sentence unlabelled = Tagged({"a/DT"}, 3);
  unlabelled.labels.clear();
  s = builder.Add(unlabelled);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("corpus.txt:3: expected labelled tokens"));

  // Nothing counted (or nothing frequent enough) is an error, and so is a share outside (0, 1].
  EXPECT_THAT(TagLexiconBuilder().Build().status().message(),
              HasSubstr("found none (0 tokens read)"));
  TagLexiconBuilder rare({.min_count = 5});
  ASSERT_TRUE(rare.Add(Tagged({"a/DT"})).ok());
  EXPECT_FALSE(rare.Build().ok());
  TagLexiconBuilder zero({.min_share = 0});
  ASSERT_TRUE(zero.Add(Tagged({"a/DT"})).ok());
  EXPECT_THAT(zero.Build().status().message(), HasSubstr("expected a share in (0, 1]"));
}

}  // namespace
}  // namespace chaintag
