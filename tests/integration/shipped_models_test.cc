// The shipped models through the CLI, as the issues' acceptance commands run them.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

int CountSubstr(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(ShippedModelsTest, RawTextExampleThroughTheDefaultPipeline) {
  RunResult r = RunChaintag(
      "tag --output-format tagged",
      "printf \"I can't believe it's not butter. Mr. Smith paid \\$3.50 for 2 books.\\n\" | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountSubstr(r.out, "\n"), 2) << r.out;
  EXPECT_THAT(r.out, StartsWith("I_PRP ca_MD n't_RB believe_VB it_PRP 's_VBZ"));
  EXPECT_THAT(r.out, HasSubstr("\nMr._NNP Smith_NNP paid_VBD $_$ 3.50_CD"));
}

TEST(ShippedModelsTest, SampleTextChunks) {
  RunResult r = RunChaintag("tag --output-format chunks docs/sample.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("[NP The/DT city/NN council/NN] [VP approved/VBD]"));
}

TEST(ShippedModelsTest, ChunkerOnConll2000DevAppendsAFourthColumn) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  RunResult r = RunChaintag(
      "tag -m models/en-chunk.model --format conll < ../shared/corpora/conll2000/dev.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT B-NP B-NP\n"));
  EXPECT_EQ(CountSubstr(r.out, "\n\n"), 1844);
}

TEST(ShippedModelsTest, PosModelWritesConlluWithPredictedXpos) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  RunResult r = RunChaintag(
      "tag -m models/en-pos.model --format conllu --output-format conllu "
      "../shared/corpora/ud-english-ewt/en_ewt-ud-dev.conllu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("# "));
  EXPECT_EQ(CountSubstr(r.out, "\n\n"), 2001);
}

TEST(ShippedModelsTest, KBestAndDiverseOnConll2000Dev) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  for (const std::string flags :
       {"--kbest 5", "--diverse 5 --min-distance 2", "--count 'chunk:NP=..2'"}) {
    RunResult r = RunChaintag("tag -m models/en-chunk.model --format conll " + flags +
                              " --output-format jsonl < ../shared/corpora/conll2000/dev.txt");
    ASSERT_EQ(r.exit_code, 0) << flags << ": " << r.err;
    EXPECT_EQ(CountSubstr(r.out, "{\"tokens\""), 1844) << flags;
  }
}

// --accurate: en-pos-nn (the hybrid neural POS tagger) then en-chunk-nn. "spending" is where the
// two POS models differ on the sample (en-pos: NN, en-pos-nn: VBG).
TEST(ShippedModelsTest, AccuratePipelineRunsTheNeuralPosModel) {
  RunResult r = RunChaintag("tag --accurate --output-format chunks docs/sample.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("[NP The/DT city/NN council/NN] [VP approved/VBD]"));
  EXPECT_THAT(r.out, HasSubstr("[VP spending/VBG]"));
  RunResult fast = RunChaintag("tag --output-format chunks docs/sample.txt");
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  EXPECT_THAT(fast.out, HasSubstr("[NP spending/NN]"));
  RunResult both = RunChaintag("tag --accurate -m models/en-pos.model docs/sample.txt");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--accurate chooses the shipped models"));
}

// --accurate's chunker is en-chunk-nn: on this sentence it alone chunks "trading" as the subject
// NP (en-chunk, given the same POS tags, puts "trading ended" in one VP).
TEST(ShippedModelsTest, AccuratePipelineRunsTheNeuralChunker) {
  const std::string text = "printf 'The decision was announced after trading ended.\\n' | ";
  RunResult r = RunChaintag("tag --accurate --output-format chunks", text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[PP after/IN] [NP trading/VBG] [VP ended/VBN]"));
  RunResult old = RunChaintag(
      "tag -m models/en-pos-nn.model -m models/en-chunk.model --output-format chunks", text);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_THAT(old.out, HasSubstr("[PP after/IN] [VP trading/VBG ended/VBN]"));
}

// en-chunk-nn's dev figure (models/MODELS.md).
TEST(ShippedModelsTest, AccurateChunkModelOnConll2000Dev) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  RunResult eval =
      RunChaintag("eval -m models/en-chunk-nn.model ../shared/corpora/conll2000/dev.txt");
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.out, HasSubstr("FB1:  95.78"));
}

// en-np-nn's dev figure (models/MODELS.md): NP dev is CoNLL-2000 dev with non-NP chunks as O.
TEST(ShippedModelsTest, AccurateNpModelOnConll2000Dev) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  RunResult eval = RunChaintag("eval -m models/en-np-nn.model",
                               "awk 'NF == 3 && $3 !~ /-NP$/ { $3 = \"O\" } { print }' "
                               "../shared/corpora/conll2000/dev.txt | ");
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.out, HasSubstr("FB1:  96.10"));
}

// The accurate model's dev figure (models/MODELS.md) and the issue-30 count command on it.
TEST(ShippedModelsTest, AccuratePosModelOnEwtDev) {
  if (!HaveSharedCorpora()) GTEST_SKIP() << "../shared/corpora is absent";
  RunResult eval = RunChaintag(
      "eval -m models/en-pos-nn.model --format conllu "
      "../shared/corpora/ud-english-ewt/en_ewt-ud-dev.conllu");
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.out, HasSubstr("accuracy:  95.39%"));
  RunResult r = RunChaintag(
      "tag -m models/en-pos-nn.model --format conllu --kbest 3 --count 'NNP=..2' "
      "--output-format jsonl ../shared/corpora/ud-english-ewt/en_ewt-ud-dev.conllu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountSubstr(r.out, "\n"), 2001);
  EXPECT_EQ(CountSubstr(r.out, "{\"labels\": "), 3 * 2001);
  // No solution has three NNP tags: each "labels" list is cut at its closing bracket.
  for (size_t p = r.out.find("{\"labels\": ["); p != std::string::npos;
       p = r.out.find("{\"labels\": [", p + 1)) {
    const std::string labels = r.out.substr(p, r.out.find(']', p) - p);
    EXPECT_LE(CountSubstr(labels, "\"NNP\""), 2) << labels;
  }
}

}  // namespace
}  // namespace chaintag::testing
