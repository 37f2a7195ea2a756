// End-to-end tests of train, tag (plain, pipelines, constraints, k-best, diverse k-best, output
// formats), eval and info on models trained from small fixtures (issues 3, 4 and 6).
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
using ::testing::StartsWith;

// Trains a chunk model and a POS model once for the whole suite.
class TagTrainTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    chunk_model_ = (dir_->path() / "chunk.model").string();
    pos_model_ = (dir_->path() / "pos.model").string();
    RunResult r = RunChaintag(
        "train --format conll --preset chunk-conll --algorithm lbfgs --max-iterations 50 -o '" +
        chunk_model_ + "' tests/fixtures/cli/sample.conll");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = RunChaintag("train --format tagged --preset pos --max-iterations 50 -o '" + pos_model_ +
                    "' tests/fixtures/cli/pos.tagged");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
  static std::string chunk_model_;
  static std::string pos_model_;
};
TempDir* TagTrainTest::dir_ = nullptr;
std::string TagTrainTest::chunk_model_;
std::string TagTrainTest::pos_model_;

int CountLines(const std::string& s, const std::string& prefix) {
  int n = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    if (s.compare(pos, prefix.size(), prefix) == 0) ++n;
    pos = end + 1;
  }
  return n;
}

TEST_F(TagTrainTest, TrainingPrintsProgressLines) {
  TempDir dir;
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll --max-iterations 3 --dev "
      "tests/fixtures/cli/sample.conll -o '" +
      (dir.path() / "m").string() + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("iter    1  objective"));
  EXPECT_THAT(r.err, HasSubstr("dev F1"));
}

TEST_F(TagTrainTest, TrainChecksOutputPathFirst) {
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll -o /no/such/dir/m.model "
      "tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/no/such/dir"));
  EXPECT_THAT(r.err, Not(HasSubstr("iter")));
}

// Training and dev data with too few columns: the message names the file and line once.
TEST_F(TagTrainTest, MissingColumnIsNamedOnce) {
  TempDir dir;
  const std::string one = (dir.path() / "one.conll").string();
  std::ofstream(one) << "a\tB-NP\nb\tI-NP\n\n";
  for (const std::string& args : {"-o '" + (dir.path() / "m").string() + "' '" + one + "'",
                                  "--dev '" + one + "' -o '" + (dir.path() / "m").string() +
                                      "' tests/fixtures/cli/sample.conll"}) {
    RunResult r = RunChaintag("train --format conll --preset chunk-conll " + args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("one.conll:1: expected at least 2 input columns")) << r.err;
    EXPECT_EQ(r.err.find("one.conll"), r.err.rfind("one.conll")) << r.err;
  }
}

TEST_F(TagTrainTest, TrainUsageErrors) {
  EXPECT_EQ(
      RunChaintag("train --format conll -o x.model tests/fixtures/cli/sample.conll").exit_code, 2);
  EXPECT_EQ(
      RunChaintag("train --format conll --preset nosuch -o x.model tests/fixtures/cli/sample.conll")
          .exit_code,
      2);
  EXPECT_EQ(RunChaintag("train --format conll --preset pos --algorithm nosuch -o x.model "
                        "tests/fixtures/cli/sample.conll")
                .exit_code,
            2);
}

TEST_F(TagTrainTest, LexiconModelsStoreTheirLexicon) {
  TempDir dir;
  const std::string lexicon = (dir.path() / "words.lex").string();
  const std::string model = (dir.path() / "lex.model").string();
  {
    std::ofstream out(lexicon);
    out << "dog\tn\ncat\tn\nbarks\tv-s n-s\nsleeps\tv-s\nold\ta\nwolf\tn\n";
  }
  RunResult r = RunChaintag("train --format tagged --preset pos-lexicon --lexicon '" + lexicon +
                            "' --max-iterations 30 --compress -o '" + model +
                            "' tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The lexicon travels in the (here gzip-compressed) model: tagging needs no --lexicon, and info
  // reports both.
  std::filesystem::remove(lexicon);
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" bytes (gzip-compressed)\n"));
  EXPECT_THAT(r.out, HasSubstr("lexicon        6 words, 4 class sets"));
  EXPECT_THAT(r.out, HasSubstr("lex(lower(%x[0,0]))"));
  r = RunChaintag("info --json '" + model + "'");
  EXPECT_THAT(r.out, HasSubstr("\"lexicon_words\": 6"));
  EXPECT_THAT(r.out, HasSubstr("\"gzip\": true"));
  r = RunChaintag("tag -m '" + model + "' --format tagged tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT DT\ndog NN NN\nbarks VBZ VBZ\n"));
}

TEST_F(TagTrainTest, LexiconUsageErrors) {
  TempDir dir;
  const std::string lexicon = (dir.path() / "bad.lex").string();
  const std::string model = (dir.path() / "m.model").string();
  {
    std::ofstream out(lexicon);
    out << "dog\tn\ncat n\n";
  }
  // A malformed lexicon is named by file and line, before training.
  RunResult r = RunChaintag("train --format tagged --preset pos-lexicon --lexicon '" + lexicon +
                            "' -o '" + model + "' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(lexicon + ":2: expected WORD<TAB>CLASS"));
  EXPECT_FALSE(std::filesystem::exists(model));
  // pos-lexicon without a lexicon, and a lexicon no template reads, are usage errors.
  r = RunChaintag("train --format tagged --preset pos-lexicon -o '" + model +
                  "' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("lex() reads a word-class lexicon"));
  {
    std::ofstream out(lexicon);
    out << "dog\tn\n";
  }
  r = RunChaintag("train --format tagged --preset pos --lexicon '" + lexicon + "' -o '" + model +
                  "' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no template of 'pos' calls lex()"));
  EXPECT_FALSE(std::filesystem::exists(model));
}

TEST_F(TagTrainTest, TagConllAppendsAColumnAndLearnsTheFixture) {
  RunResult r =
      RunChaintag("tag -m '" + chunk_model_ + "' --format conll tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT B-NP B-NP\nsmall JJ I-NP I-NP\n"));
  RunResult e = RunChaintag("eval -m '" + chunk_model_ + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_THAT(e.out, HasSubstr("FB1: 100.00"));
}

TEST_F(TagTrainTest, EvalUnseenFromTakesOneFileAndLeavesTheFilesToScore) {
  TempDir dir;
  const std::string other = (dir.path() / "other.conll").string();
  {
    std::ofstream out(other);
    out << "The DT B-NP\nfirm NN I-NP\n";
  }
  // The file to score follows --unseen-from; it must be scored, not read as a second word file.
  RunResult r = RunChaintag("eval -m '" + chunk_model_ + "' --unseen-from '" + other +
                            "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("FB1: 100.00"));
  EXPECT_THAT(r.out, HasSubstr("unseen words: 16 tokens"));
  // Repeated, the option adds the words of every file it names.
  r = RunChaintag(
      "eval -m '" + chunk_model_ + "' --unseen-from '" + other +
      "' --unseen-from tests/fixtures/cli/sample.conll tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("unseen words: 0 tokens"));
}

TEST_F(TagTrainTest, EvalColumnsMatchesModelEval) {
  TempDir dir;
  const std::string tagged = (dir.path() / "t.conll").string();
  ASSERT_EQ(RunChaintag("tag -m '" + chunk_model_ + "' --format conll -o '" + tagged +
                        "' tests/fixtures/cli/sample.conll")
                .exit_code,
            0);
  RunResult r = RunChaintag("eval --gold-column 3 --pred-column 4 --json '" + tagged + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"tokens\":18"));
  EXPECT_THAT(r.out, HasSubstr("\"chunks\""));
  EXPECT_EQ(RunChaintag("eval --gold-column 3 --pred-column 9 '" + tagged + "'").exit_code, 1);
  EXPECT_EQ(RunChaintag("eval --gold-column 3 '" + tagged + "'").exit_code, 2);
}

TEST_F(TagTrainTest, InfoShowsMetadataAndFeatures) {
  RunResult r = RunChaintag("info --top 3 '" + chunk_model_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("algorithm"));
  EXPECT_THAT(r.out, HasSubstr("templates"));
  EXPECT_THAT(r.out, HasSubstr("top 3 state features"));
  r = RunChaintag("info --json '" + chunk_model_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"labels\": [\"B-NP\""));
}

TEST_F(TagTrainTest, ForeignAndTruncatedModelsAreRejected) {
  RunResult r = RunChaintag("info tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a chaintag model"));
  TempDir dir;
  const std::string cut = (dir.path() / "cut.model").string();
  std::filesystem::copy_file(chunk_model_, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  r = RunChaintag("tag -m '" + cut + "' --format conll tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(cut));
  EXPECT_TRUE(r.out.empty());
}

TEST_F(TagTrainTest, PipelineFeedsPredictedPosToTheChunker) {
  // The POS model reads the words; the chunk model reads words plus the predicted POS.
  RunResult r = RunChaintag(
      "tag -m '" + pos_model_ + "' -m '" + chunk_model_ + "' --format conll --output-format jsonl",
      "printf 'The\\ndog\\nbarks\\n.\\n\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"pipeline\": [[\"DT\", \"NN\", \"VBZ\", \".\"]]"));
  EXPECT_THAT(r.out, HasSubstr("\"status\": \"ok\""));
}

TEST_F(TagTrainTest, KBestListsDistinctSolutionsBestFirst) {
  RunResult r = RunChaintag(
      "tag -m '" + chunk_model_ +
      "' --format conll --kbest 4 --output-format jsonl tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "{\"tokens\""), 2);
  EXPECT_EQ(CountLines(r.out, "{"), 2);
  // Four solutions per sentence.
  size_t first_line_end = r.out.find('\n');
  const std::string line = r.out.substr(0, first_line_end);
  int solutions = 0;
  for (size_t p = line.find("{\"labels\""); p != std::string::npos;
       p = line.find("{\"labels\"", p + 1))
    ++solutions;
  EXPECT_EQ(solutions, 4);
  r = RunChaintag("tag -m '" + chunk_model_ +
                  "' --format conll --kbest 3 tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "# solution "), 6);
  EXPECT_THAT(r.out, HasSubstr("# solution 1 score "));
}

TEST_F(TagTrainTest, DiverseKBestAndCountsAndScoreRange) {
  RunResult r = RunChaintag("tag -m '" + chunk_model_ +
                            "' --format conll --diverse 3 --min-distance 2 --output-format jsonl "
                            "tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"solutions\": [{"));
  r = RunChaintag("tag -m '" + chunk_model_ +
                  "' --format conll --count 'chunk:NP=..2' --output-format jsonl "
                  "tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "{\"tokens\""), 2);
  r = RunChaintag("tag -m '" + chunk_model_ +
                  "' --format conll --score-range=-1e9..0 --output-format jsonl "
                  "tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "{\"tokens\""), 2);
}

TEST_F(TagTrainTest, InfeasibleRequestIsReportedPerSentence) {
  RunResult r = RunChaintag(
      "tag -m '" + chunk_model_ + "' --format conll --count B-NP=9 --output-format jsonl",
      "printf 'a DT\\nb NN\\nc VBZ\\n\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"status\": \"infeasible\""));
  EXPECT_THAT(r.out, HasSubstr("\"solutions\": []"));
  r = RunChaintag("tag -m '" + chunk_model_ + "' --format conll --count B-NP=9",
                  "printf 'a DT\\nb NN\\nc VBZ\\n\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# status infeasible"));
}

TEST_F(TagTrainTest, CountSpecErrorsAreUsageErrors) {
  EXPECT_EQ(RunChaintag("tag -m '" + chunk_model_ +
                        "' --format conll --count 'NOSUCH=1' tests/fixtures/cli/sample.conll")
                .exit_code,
            2);
  EXPECT_EQ(RunChaintag("tag -m '" + chunk_model_ +
                        "' --format conll --count 'B-NP=x' tests/fixtures/cli/sample.conll")
                .exit_code,
            2);
  EXPECT_EQ(RunChaintag("tag -m '" + chunk_model_ +
                        "' --format conll --count 'chunk:ZZ=1' tests/fixtures/cli/sample.conll")
                .exit_code,
            2);
  EXPECT_EQ(RunChaintag("tag -m '" + chunk_model_ +
                        "' --format conll --score-range 5..1 tests/fixtures/cli/sample.conll")
                .exit_code,
            2);
}

// A training sentence (the model, trained with the tagging mask, is sure of it).
TEST_F(TagTrainTest, ExclusionFileSkipsTheBestLabeling) {
  TempDir dir;
  RunResult best = RunChaintag("tag -m '" + chunk_model_ + "' --format conll --output-format jsonl",
                               "printf 'The DT\\nsmall JJ\\nfirm NN\\n\\n' | ");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  ASSERT_THAT(best.out, HasSubstr("\"labels\": [\"B-NP\", \"I-NP\", \"I-NP\"]"));
  const std::string exclude = (dir.path() / "ex.txt").string();
  std::ofstream(exclude) << "B-NP I-NP I-NP\n";
  RunResult r = RunChaintag("tag -m '" + chunk_model_ + "' --format conll --exclude '" + exclude +
                                "' --output-format jsonl",
                            "printf 'The DT\\nsmall JJ\\nfirm NN\\n\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"status\": \"ok\""));
  EXPECT_THAT(r.out, Not(HasSubstr("\"labels\": [\"B-NP\", \"I-NP\", \"I-NP\"]")));
}

TEST_F(TagTrainTest, RawTextIsTheDefaultInput) {
  RunResult r = RunChaintag("tag -m '" + pos_model_ + "' --output-format tagged",
                            "printf 'The dog barks. A cat sleeps.\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "The_DT dog_NN barks_VBZ ._.\nA_DT cat_NN sleeps_VBZ ._.\n");
  r = RunChaintag("tag -m '" + pos_model_ + "' -m '" + chunk_model_ + "' --output-format conll",
                  "printf 'The dog barks.\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("1\tThe\tDT\tB-NP\t0\t3\n2\tdog\tNN\tI-NP\t4\t7\n"));
  r = RunChaintag("tag -m '" + pos_model_ + "' -m '" + chunk_model_ + "' --output-format chunks",
                  "printf 'The dog barks.\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("[NP The/DT dog/NN"));
}

TEST_F(TagTrainTest, RawTextInvalidUtf8) {
  RunResult r = RunChaintag("tag -m '" + pos_model_ + "'", "printf 'The dog\\xff barks.\\n' | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("byte offset"));
  r = RunChaintag("tag -m '" + pos_model_ + "' --on-invalid replace --output-format tagged",
                  "printf 'The dog\\xff barks.\\n' | ");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(TagTrainTest, ThreadsDoNotChangeTheOutput) {
  RunResult one = RunChaintag("tag -m '" + chunk_model_ +
                              "' --format conll --threads 1 --kbest 2 "
                              "tests/fixtures/cli/sample.conll tests/fixtures/cli/sample.conll");
  RunResult two = RunChaintag("tag -m '" + chunk_model_ +
                              "' --format conll --threads 2 --kbest 2 "
                              "tests/fixtures/cli/sample.conll tests/fixtures/cli/sample.conll");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
}

TEST_F(TagTrainTest, OutputDirectoryGetsOneFilePerInput) {
  TempDir dir;
  RunResult r = RunChaintag("tag -m '" + chunk_model_ + "' --format conll -o '" +
                            dir.path().string() + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "sample.conll.conll"));
}

}  // namespace
}  // namespace chaintag::testing

namespace chaintag::testing {
namespace {

// A model trained on CoNLL-U UPOS writes its labels to the UPOS field when tagging CoNLL-U,
// unless --label says otherwise (the input options stored in the model).
TEST(TagInputOptionsTest, TagReadsInputTheWayTheModelWasTrained) {
  TempDir dir;
  const std::string data = (dir.path() / "u.conllu").string();
  {
    std::ofstream out(data);
    for (int i = 0; i < 20; ++i) {
      out << "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
          << "2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
          << "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n";
    }
  }
  const std::string model = (dir.path() / "u.model").string();
  RunResult r =
      RunChaintag("train --format conllu --label upos --preset pos --max-iterations 30 -o '" +
                  model + "' '" + data + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunChaintag("info '" + model + "'");
  EXPECT_THAT(r.out, ::testing::HasSubstr("upos"));
  const std::string input = (dir.path() / "in.conllu").string();
  std::ofstream(input)
      << "1\tThe\tthe\t_\tX1\t_\t2\tdet\t_\t_\n2\tdog\tdog\t_\tX2\t_\t0\troot\t_\t_\n\n";
  r = RunChaintag("tag -m '" + model + "' --format conllu --output-format conllu '" + input + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("1\tThe\tthe\tDET\tX1\t"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("2\tdog\tdog\tNOUN\tX2\t"));
  r = RunChaintag("tag -m '" + model + "' --format conllu --output-format conllu --label xpos '" +
                  input + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("1\tThe\tthe\t_\tDET\t"));
}

}  // namespace
}  // namespace chaintag::testing
