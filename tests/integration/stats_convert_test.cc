// End-to-end tests of `chaintag stats`, `chaintag convert` (issue 2) and `chaintag lexicon` (issue
// 3).
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;

#define SKIP_WITHOUT_CORPORA()                                     \
  if (!HaveSharedCorpora())                                        \
  GTEST_SKIP() << "../shared/corpora is absent: skipping test on " \
                  "the reference corpora"

TEST(StatsTest, Conll2000TrainCounts) {
  SKIP_WITHOUT_CORPORA();
  RunResult r = RunChaintag("stats --json ../shared/corpora/conll2000/train.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"sentences\": 8936"));
  EXPECT_THAT(r.out, HasSubstr("\"tokens\": 211727"));
  EXPECT_THAT(r.out, HasSubstr("\"B-NP\": "));
}

TEST(StatsTest, EwtTrainCounts) {
  SKIP_WITHOUT_CORPORA();
  RunResult r = RunChaintag(
      "stats --json --format conllu ../shared/corpora/ud-english-ewt/en_ewt-ud-train.conllu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"sentences\": 12544"));
  EXPECT_THAT(r.out, HasSubstr("\"tokens\": 204577"));
}

TEST(StatsTest, PtbSampleCounts) {
  SKIP_WITHOUT_CORPORA();
  RunResult r = RunChaintag("stats --json --format ptb ../shared/corpora/ptb-sample/*.mrg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"sentences\": 1921"));
  EXPECT_THAT(r.out, HasSubstr("\"tokens\": 46451"));
}

TEST(StatsTest, FixtureTextAndJson) {
  RunResult r = RunChaintag("stats tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sentences  2"));
  EXPECT_THAT(r.out, HasSubstr("tokens     18"));
  r = RunChaintag("stats --json tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"sentences\": 2, \"tokens\": 18"));
  EXPECT_THAT(r.out, HasSubstr("\"labels\": {\"B-NP\": 5"));
}

TEST(StatsTest, InconsistentColumnsNameLineTwo) {
  RunResult r = RunChaintag("stats --format conll", "printf 'a DT B-NP\\nb NN\\n\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(":2:"));
  EXPECT_TRUE(r.out.empty());
}

TEST(StatsTest, InvalidUtf8NamesByteOffset) {
  RunResult r = RunChaintag("stats --format conll", "printf 'a\\xff DT B-NP\\n\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(":1:"));
  EXPECT_THAT(r.err, HasSubstr("byte"));
}

TEST(StatsTest, EmptyInputIsAnError) {
  RunResult r = RunChaintag("stats --format conll", "printf '' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("empty"));
}

TEST(StatsTest, MissingFileIsNamed) {
  RunResult r = RunChaintag("stats no/such/file.txt");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no/such/file.txt"));
}

TEST(StatsTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunChaintag("stats --no-such-flag x").exit_code, 2);
  EXPECT_EQ(RunChaintag("stats --format nosuchformat tests/fixtures/cli/sample.conll").exit_code,
            2);
  EXPECT_EQ(RunChaintag("no-such-command").exit_code, 2);
  EXPECT_EQ(RunChaintag("").exit_code, 2);
}

TEST(StatsTest, EveryCommandHasHelp) {
  for (const char* command : {"tag", "train", "eval", "convert", "stats", "info", "lexicon"}) {
    RunResult r = RunChaintag(std::string(command) + " --help");
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(std::string("usage: chaintag ") + command));
  }
}

TEST(ConvertTest, ConllToTaggedAndBack) {
  TempDir dir;
  const std::string tagged = (dir.path() / "s.tagged").string();
  RunResult r = RunChaintag("convert --from conll --to tagged --label-column 2 -o '" + tagged +
                            "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadAll(tagged), HasSubstr("The_DT small_JJ firm_NN"));
  r = RunChaintag("convert --from tagged --to conll '" + tagged + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("firm NN\n"));
}

TEST(ConvertTest, FailureLeavesNoPartialFile) {
  TempDir dir;
  const std::string target = (dir.path() / "out.conll").string();
  // Valid first sentence, then a broken one: nothing may be left behind.
  RunResult r = RunChaintag("convert --from conll --to conll -o '" + target + "'",
                            "printf 'a DT B-NP\\n\\nb NN B-NP\\nc NN\\n\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(":4:"));
  EXPECT_FALSE(std::filesystem::exists(target));
  ExpectEmptyDirectory(dir.path());
}

TEST(ConvertTest, PtbToConllWithNpChunks) {
  SKIP_WITHOUT_CORPORA();
  RunResult r = RunChaintag(
      "convert --from ptb --to conll --np-chunks ../shared/corpora/ptb-sample/wsj_0001.mrg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Pierre NNP B-NP\nVinken NNP I-NP\n"));
}

TEST(LexiconCommandTest, BuildsATagLexiconThatTrainingReads) {
  TempDir dir;
  const std::string lexicon = (dir.path() / "tags.lex").string();
  RunResult r = RunChaintag("lexicon --format conll --label-column 2 -o '" + lexicon +
                            "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("chaintag lexicon: "));
  EXPECT_THAT(r.err, HasSubstr(" words, "));
  const std::string text = ReadAll(lexicon);
  EXPECT_THAT(text, HasSubstr("\nfirm\tNN\n"));
  EXPECT_THAT(text, HasSubstr("\nthe\tDT\n"));  // "The" case-folded
  // --keep-case keeps the form; standard output by default.
  r = RunChaintag(
      "lexicon --format conll --label-column 2 --keep-case tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("The\tDT\n"));
  // The lexicon feeds train --lexicon.
  const std::string model = (dir.path() / "m.model").string();
  r = RunChaintag("train --format tagged --preset pos-lexicon --lexicon '" + lexicon +
                  "' --max-iterations 5 -o '" + model + "' tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(LexiconCommandTest, BadInputAndUsageErrors) {
  TempDir dir;
  const std::string target = (dir.path() / "out.lex").string();
  // A broken sentence after a valid one: the error names the line and nothing is left behind.
  RunResult r = RunChaintag("lexicon --format conll --label-column 2 -o '" + target + "'",
                            "printf 'a DT B-NP\\n\\nb NN B-NP\\nc NN\\n\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(":4:"));
  // A label that cannot be a class name.
  r = RunChaintag("lexicon --format conll --label-column 2 -o '" + target + "'",
                  "printf 'a D|T\\n\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:1: expected a label usable as a lexicon class"));
  EXPECT_FALSE(std::filesystem::exists(target));
  ExpectEmptyDirectory(dir.path());
  r = RunChaintag("lexicon --min-share 1.5 tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--min-share: expected a share in (0, 1]"));
  r = RunChaintag("lexicon --min-count 0 tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 2);
  r = RunChaintag(
      "lexicon --format conll --label-column 2 --min-count 1000 tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("seen 1000 times or more, found none"));
}

TEST(LexiconCommandTest, Conll2000TagLexicon) {
  SKIP_WITHOUT_CORPORA();
  RunResult r = RunChaintag(
      "lexicon --format conll --label-column 2 ../shared/corpora/conll2000/train.txt "
      "../shared/corpora/conll2000/dev.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("chaintag lexicon: 19158 words, 125 class sets, from 256079 tokens"));
  EXPECT_THAT(r.out, HasSubstr("\nthe\tDT\n"));
}

}  // namespace
}  // namespace chaintag::testing
