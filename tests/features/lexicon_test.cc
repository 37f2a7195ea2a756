#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "chaintag/features.h"
#include "features/featurizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Lexicon MustParse(std::string_view text) {
  absl::StatusOr<Lexicon> lexicon = Lexicon::Parse(text, "test.lex");
  EXPECT_TRUE(lexicon.ok()) << lexicon.status();
  return lexicon.ok() ? *lexicon : Lexicon();
}

std::string ParseError(std::string_view text) {
  absl::StatusOr<Lexicon> lexicon = Lexicon::Parse(text, "bad.lex");
  EXPECT_FALSE(lexicon.ok()) << "accepted: " << text;
  return lexicon.ok() ? "" : std::string(lexicon.status().message());
}

TEST(LexiconTest, LookupJoinsSortedUniqueClassesAndMergesLines) {
  const Lexicon lexicon = MustParse("run\tv n\nrun\tn\n\nfast\tr\ta\n#tag\tn\nrun \tx\n");
  EXPECT_EQ(lexicon.Lookup("run"), "n|v");
  EXPECT_EQ(lexicon.Lookup("fast"), "a|r");
  EXPECT_EQ(lexicon.Lookup("#tag"), "n");  // no comment syntax: any word can be listed
  EXPECT_EQ(lexicon.Lookup("run "), "x");  // words are exact byte strings
  EXPECT_EQ(lexicon.Lookup("Run"), Lexicon::kAbsent);
  EXPECT_EQ(lexicon.Lookup(""), Lexicon::kAbsent);
  EXPECT_EQ(lexicon.num_words(), 4);
  EXPECT_EQ(lexicon.num_class_sets(), 4);  // n|v, a|r, n, x
}

// A class field repeated on later lines (the common case in a stored lexicon) gives the same sets
// as parsing it afresh, also when a later line repeats a word with a field seen before.
TEST(LexiconTest, RepeatedClassFieldsGiveTheSameSets) {
  const Lexicon lexicon =
      MustParse("a\tv n\nb\tv n\na\tj\nc\tv n\na\tv n\nd\tn  v\ne\tv n v\nb\tv n\n");
  EXPECT_EQ(lexicon.Lookup("a"), "j|n|v");
  EXPECT_EQ(lexicon.Lookup("b"), "n|v");
  EXPECT_EQ(lexicon.Lookup("c"), "n|v");
  EXPECT_EQ(lexicon.Lookup("d"), "n|v");
  EXPECT_EQ(lexicon.Lookup("e"), "n|v");
  EXPECT_EQ(lexicon.num_class_sets(), 2);  // n|v, j|n|v
  EXPECT_EQ(lexicon.Serialize(), "a\tj n v\nb\tn v\nc\tn v\nd\tn v\ne\tn v\n");
  // A bad field is refused wherever it appears, also after good lines.
  EXPECT_THAT(ParseError("a\tv n\nb\tv n|x\n"), HasSubstr("bad.lex:2: expected a class name"));
}

TEST(LexiconTest, SerializeIsCanonicalAndParsesBack) {
  const Lexicon lexicon = MustParse("zebra\tn\r\nant\tn\nrun\tv n\n");
  EXPECT_EQ(lexicon.Serialize(), "ant\tn\nrun\tn v\nzebra\tn\n");
  const Lexicon again = MustParse(lexicon.Serialize());
  EXPECT_EQ(again.Serialize(), lexicon.Serialize());
  EXPECT_EQ(again.Lookup("run"), "n|v");
}

TEST(LexiconTest, InputIsNfcNormalisedLikeCorpora) {
  // "café" with a combining acute accent is stored as the precomposed form readers produce.
  const Lexicon lexicon = MustParse("cafe\xCC\x81\tn\n");
  EXPECT_EQ(lexicon.Lookup("caf\xC3\xA9"), "n");
}

TEST(LexiconTest, ErrorsNameTheLineAndWhatWasExpected) {
  EXPECT_EQ(ParseError("run\tv\nwalk v\n"),
            "bad.lex:2: expected WORD<TAB>CLASS [CLASS ...], found no tab in \"walk v\"");
  EXPECT_THAT(ParseError("\tv\n"),
              HasSubstr("bad.lex:1: expected WORD<TAB>CLASS [CLASS ...], found an empty word in "));
  EXPECT_THAT(ParseError("run\t \n"), HasSubstr("bad.lex:1: expected at least one class"));
  EXPECT_THAT(
      ParseError("a\tn\nrun\tn|v\n"),
      HasSubstr("bad.lex:2: expected a class name without '|' and other than '-', found 'n|v'"));
  EXPECT_THAT(ParseError("run\t-\n"), HasSubstr("found '-'"));
  EXPECT_EQ(ParseError(""), "bad.lex:1: expected WORD<TAB>CLASS lines, found none");
  EXPECT_EQ(ParseError("\n \n"), "bad.lex:2: expected WORD<TAB>CLASS lines, found none");
  EXPECT_THAT(ParseError("ok\tn\nbad\xFF\tn\n"), HasSubstr("bad.lex:2: expected UTF-8"));
}

TEST(LexiconTest, ReadsFilesAndNamesMissingOnes) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "chaintag_lexicon_test.lex").string();
  {
    std::ofstream out(path);
    out << "dog\tn\nbark\tn v\n";
  }
  absl::StatusOr<Lexicon> lexicon = Lexicon::Read(path);
  ASSERT_TRUE(lexicon.ok()) << lexicon.status();
  EXPECT_EQ(lexicon->Lookup("bark"), "n|v");
  {
    std::ofstream out(path);
    out << "dog\tn\nbark\n";
  }
  absl::StatusOr<Lexicon> bad = Lexicon::Read(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(path + ":2: expected WORD<TAB>CLASS"));
  std::filesystem::remove(path);
  absl::StatusOr<Lexicon> missing = Lexicon::Read(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(path));
}

Sentence Words(std::vector<std::string> words) {
  Sentence s;
  s.columns = {std::move(words)};
  s.file = "test.txt";
  for (int t = 0; t < s.size(); ++t) s.token_lines.push_back(t + 1);
  return s;
}

// Issue 18: lexicon files share the corpus line reader: a BOM is skipped, bare CRs and
// directories are refused.
TEST(LexiconTest, ByteOrderMarkBareCrAndDirectories) {
  absl::StatusOr<Lexicon> lexicon = Lexicon::Parse(
      "\xEF\xBB\xBF"
      "dog\tNN\r\ncat\tNN\r\n",
      "l");
  ASSERT_TRUE(lexicon.ok()) << lexicon.status();
  EXPECT_EQ(lexicon->Lookup("dog"), "NN");
  EXPECT_EQ(lexicon->num_words(), 2);
  lexicon = Lexicon::Parse("dog\tNN\rcat\tNN\r", "l");
  ASSERT_FALSE(lexicon.ok());
  EXPECT_THAT(std::string(lexicon.status().message()),
              HasSubstr("l:1: expected LF or CRLF line endings, found a bare CR"));
  const std::string dir = ::testing::TempDir() + "/chaintag_lexicon_dir";
  std::filesystem::create_directories(dir);
  lexicon = Lexicon::Read(dir);
  ASSERT_FALSE(lexicon.ok());
  EXPECT_EQ(lexicon.status().message(), dir + ": expected a file, found a directory");
  std::filesystem::remove(dir);
}

TEST(LexiconTest, LexFunctionInTemplates) {
  auto lexicon = std::make_shared<const Lexicon>(MustParse("run\tv n\ndogs\tn\n"));
  absl::StatusOr<FeatureSpec> spec =
      FeatureSpec::Parse("U0:lex(lower(%x[0,0]))\nU1:lex(%x[1,0])/suf1(%x[0,0])\nB\n", lexicon);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->uses_lexicon());
  EXPECT_EQ(spec->lexicon(), lexicon);
  Featurizer featurizer(*spec);
  const Sentence s = Words({"Run", "dogs", "Dogs"});
  EXPECT_THAT(featurizer.Attributes(s, 0), ElementsAre("U0:n|v", "U1:n/n"));
  EXPECT_THAT(featurizer.Attributes(s, 1), ElementsAre("U0:n", "U1:-/s"));  // "Dogs" is not listed
  EXPECT_THAT(featurizer.Attributes(s, 2), ElementsAre("U0:n", "U1:_B+1/s"));
}

TEST(LexiconTest, LexWithoutALexiconIsAnError) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U0:%x[0,0]\n\nU1:lex(%x[0,0])\nB\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "template line 3: lex() reads a word-class lexicon, but none was given (train "
            "--lexicon FILE)");
  // Templates without lex() ignore a lexicon they are given.
  absl::StatusOr<FeatureSpec> plain =
      FeatureSpec::Parse("U0:%x[0,0]\n", std::make_shared<const Lexicon>(MustParse("a\tb\n")));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->uses_lexicon());
}

}  // namespace
}  // namespace chaintag
