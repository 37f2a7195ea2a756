// Issue 2 item 8: every reader rejects malformed input with "FILE:LINE: expected X, found Y".
#include <iostream>
#include <sstream>
#include <string>

#include "chaintag/corpus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Message;
using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using ::testing::HasSubstr;

std::string ErrorOf(const std::string& text, const ReaderOptions& options) {
  auto got = ReadAll(text, options, "in.txt");
  EXPECT_FALSE(got.ok()) << "input was accepted: " << text.substr(0, 60);
  return got.ok() ? "" : Message(got.status());
}

TEST(BadInputTest, InconsistentColumnCountNamesTheLine) {
  const std::string message = ErrorOf("a DT B-NP\nb NN\n\n", Options(CorpusFormat::kConll));
  EXPECT_THAT(message, HasSubstr("in.txt:2: expected 3 columns"));
  EXPECT_THAT(message, HasSubstr("found 2"));
}

TEST(BadInputTest, InvalidUtf8GivesByteOffsetAndLine) {
  const std::string message = ErrorOf("a\xff DT B-NP\n\n", Options(CorpusFormat::kConll));
  EXPECT_THAT(message, HasSubstr("in.txt:1: expected UTF-8 text"));
  EXPECT_THAT(message, HasSubstr("0xFF at byte offset 1"));
  EXPECT_THAT(message, HasSubstr("\"a\\xFF DT B-NP\""));
}

TEST(BadInputTest, InvalidUtf8IsRejectedByEveryFormat) {
  const std::string bad = "x\xC3(";  // truncated two-byte sequence
  EXPECT_THAT(ErrorOf("ok X\n" + bad + " Y\n", Options(CorpusFormat::kConll)),
              HasSubstr("in.txt:2: expected UTF-8 text, found invalid byte 0xC3 at byte offset 1"));
  EXPECT_THAT(
      ErrorOf("# c\n1\t" + bad + "\t_\t_\t_\t_\t_\t_\t_\t_\n", Options(CorpusFormat::kConllu)),
      HasSubstr("in.txt:2: expected UTF-8 text, found invalid byte 0xC3 at byte offset 3"));
  EXPECT_THAT(ErrorOf("((NN " + bad + "))\n", Options(CorpusFormat::kPtb)),
              HasSubstr("in.txt:1: expected UTF-8 text, found invalid byte 0xC3 at byte offset 6"));
  EXPECT_THAT(ErrorOf("a_B " + bad + "_C\n", Options(CorpusFormat::kTagged)),
              HasSubstr("in.txt:1: expected UTF-8 text, found invalid byte 0xC3 at byte offset 5"));
}

TEST(BadInputTest, UnbalancedBracketsMissingClose) {
  const std::string message = ErrorOf("( (S (NN a)\n  (VP (VB b) )\n", Options(CorpusFormat::kPtb));
  EXPECT_THAT(message, HasSubstr("in.txt:2: expected ')' to close the bracket opened at line 1"));
  EXPECT_THAT(message, HasSubstr("found end of input (unbalanced brackets)"));
}

TEST(BadInputTest, UnbalancedBracketsExtraClose) {
  const std::string message = ErrorOf("((S (NN a)))\n((S (NN b))))\n", Options(CorpusFormat::kPtb));
  EXPECT_THAT(message, HasSubstr("in.txt:2: expected '(' to start a tree, found ')'"));
}

TEST(BadInputTest, TreeTextOutsideBrackets) {
  EXPECT_THAT(ErrorOf("((S (NN a)))\nstray\n", Options(CorpusFormat::kPtb)),
              HasSubstr("in.txt:2: expected '(' to start a tree, found \"stray\""));
  EXPECT_THAT(ErrorOf("((NN a b))", Options(CorpusFormat::kPtb)),
              HasSubstr("in.txt:1: expected ')' or '(', found \"b\""));
}

TEST(BadInputTest, ConlluTokenLineWithoutTenFields) {
  const std::string message =
      ErrorOf("# sent_id = 1\n1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\n\n",
              Options(CorpusFormat::kConllu));
  EXPECT_THAT(message, HasSubstr("in.txt:3: expected 10 tab-separated fields, found 4"));
}

TEST(BadInputTest, ConlluSpacesInsteadOfTabs) {
  EXPECT_THAT(ErrorOf("1 The the DET DT _ 2 det _ _\n", Options(CorpusFormat::kConllu)),
              HasSubstr("in.txt:1: expected 10 tab-separated fields, found 1"));
}

TEST(BadInputTest, LabelColumnBeyondColumnsPresent) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.label_column = 5;
  EXPECT_THAT(ErrorOf("a DT B-NP\n", options),
              HasSubstr("in.txt:1: expected at least 5 columns for label column 5, found 3"));
  options.label_column = -4;
  EXPECT_THAT(
      ErrorOf("a DT B-NP\n", options),
      HasSubstr("in.txt:1: expected at least 4 columns for label column -4 (counted from the end), "
                "found 3"));
}

TEST(BadInputTest, SingleColumnHasNoRoomForALabel) {
  EXPECT_THAT(ErrorOf("word\n", Options(CorpusFormat::kConll)),
              HasSubstr("in.txt:1: expected at least 2 columns (a word and a label), found 1"));
}

TEST(BadInputTest, EmptyInputEveryFormat) {
  for (CorpusFormat format :
       {CorpusFormat::kConll, CorpusFormat::kConllu, CorpusFormat::kPtb, CorpusFormat::kTagged}) {
    EXPECT_EQ(ErrorOf("", Options(format)), "in.txt: no sentences found (empty input)")
        << CorpusFormatName(format);
    EXPECT_EQ(ErrorOf("\n  \n", Options(format)), "in.txt: no sentences found (empty input)")
        << CorpusFormatName(format);
  }
}

TEST(BadInputTest, EmptyInputThroughReadCorpusAndStdinName) {
  std::istringstream fake_stdin("");
  std::streambuf* saved = std::cin.rdbuf(fake_stdin.rdbuf());
  auto got = ReadCorpus({"-"}, Options(CorpusFormat::kConll));
  std::cin.rdbuf(saved);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(Message(got.status()), "<stdin>: no sentences found (empty input)");
}

TEST(BadInputTest, StreamingCallerSeesEmptyInputOnFirstNext) {
  std::istringstream in("");
  auto reader = MakeSentenceReader(in, "s.txt", Options(CorpusFormat::kConll));
  auto first = reader->Next();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(Message(first.status()), "s.txt: no sentences found (empty input)");
}

TEST(BadInputTest, LineLongerThanLimit) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.max_line_bytes = 16;
  const std::string message = ErrorOf("a B\n" + std::string(100, 'x') + " Y\n", options);
  EXPECT_THAT(message,
              HasSubstr("in.txt:2: expected a line of at most 16 bytes, found a longer line"));
}

TEST(BadInputTest, DefaultLimitIsOneMebibyte) {
  const std::string message =
      ErrorOf(std::string((1 << 20) + 10, 'x') + " Y\n", Options(CorpusFormat::kTagged));
  EXPECT_THAT(message, HasSubstr("in.txt:1: expected a line of at most 1048576 bytes"));
}

TEST(BadInputTest, BinaryGarbageWithNulBytes) {
  const std::string garbage(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0",
      12);
  for (CorpusFormat format :
       {CorpusFormat::kConll, CorpusFormat::kConllu, CorpusFormat::kPtb, CorpusFormat::kTagged}) {
    EXPECT_THAT(ErrorOf(garbage, Options(format)),
                HasSubstr("in.txt:1: expected text, found a NUL byte at byte offset 7"))
        << CorpusFormatName(format);
  }
}

TEST(BadInputTest, BinaryGarbageWithoutNulBytes) {
  const std::string garbage = "\x89PNG\r\n\x1a\n\xff\xfe\xfd";
  EXPECT_THAT(ErrorOf(garbage, Options(CorpusFormat::kConll)),
              HasSubstr("in.txt:1: expected UTF-8 text, found invalid byte 0x89 at byte offset 0"));
}

TEST(BadInputTest, ErrorsAreSticky) {
  std::istringstream in("a B C\nd E\n\nf G H\n");
  auto reader = MakeSentenceReader(in, "s.txt", Options(CorpusFormat::kConll));
  EXPECT_FALSE(reader->Next().ok());
  EXPECT_FALSE(reader->Next().ok());
}

TEST(BadInputTest, MissingFileAndDirectoryAreNamed) {
  auto missing = OpenSentenceReader("/nonexistent/x.conll", Options(CorpusFormat::kConll));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(Message(missing.status()), HasSubstr("/nonexistent/x.conll: no such file"));
  auto dir = OpenSentenceReader(CHAINTAG_FIXTURES_DIR, Options(CorpusFormat::kConll));
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(Message(dir.status()), HasSubstr("expected a file, found a directory"));
}

}  // namespace
}  // namespace chaintag
