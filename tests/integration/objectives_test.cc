// End-to-end tests of the training objectives and losses (issue 5): every objective trains from
// the CLI on a small fixture, records its objective and loss in the model, and `eval
// --bound-term` reports the bound term.
#include <cctype>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

const char kFixture[] = "tests/fixtures/cli/sample.conll";

struct ObjectiveCase {
  const char* flags;
  const char* objective;  // expected in `chaintag info`
  const char* algorithm;
  const char* loss;
  const char* progress;  // expected at the start of a progress line
};

class ObjectivesTest : public ::testing::TestWithParam<ObjectiveCase> {};

TEST_P(ObjectivesTest, TrainsRecordsAndTags) {
  const ObjectiveCase& c = GetParam();
  TempDir dir;
  const std::string model = (dir.path() / "m.model").string();
  RunResult r =
      RunChaintag(std::string("train --format conll --preset chunk-conll --max-iterations 8 ") +
                  c.flags + " --dev " + kFixture + " -o '" + model + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(c.progress));
  EXPECT_THAT(r.err, HasSubstr("dev F1"));
  RunResult info = RunChaintag("info '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out,
              MatchesRegex(std::string("(.|\n)*objective +") + c.objective + "\n(.|\n)*"));
  EXPECT_THAT(info.out,
              MatchesRegex(std::string("(.|\n)*algorithm +") + c.algorithm + "\n(.|\n)*"));
  EXPECT_THAT(info.out, MatchesRegex(std::string("(.|\n)*loss +") + c.loss + "\n(.|\n)*"));
  // The fixture is learnable: the model tags its own training data well.
  RunResult e = RunChaintag("eval -m '" + model + "' " + kFixture);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_THAT(e.out, MatchesRegex("(.|\n)*FB1: +(9[0-9]|100)\\.[0-9][0-9](.|\n)*")) << e.out;
}

INSTANTIATE_TEST_SUITE_P(
    Objectives, ObjectivesTest,
    ::testing::Values(
        ObjectiveCase{"", "crf", "lbfgs", "none", "iter "},
        ObjectiveCase{"--objective softmax-margin", "softmax-margin", "lbfgs", "hamming", "iter "},
        ObjectiveCase{"--objective softmax-margin --epsilon 0.5 --p 1.5 --loss normalized-hamming",
                      "softmax-margin", "lbfgs", "normalized-hamming", "iter "},
        ObjectiveCase{"--objective ssvm-margin --c2 0.1", "ssvm-margin", "bcfw", "hamming",
                      "pass "},
        ObjectiveCase{"--objective ssvm-margin --c2 0.1 --loss f1 --loss-level chunk",
                      "ssvm-margin", "bcfw", "f1", "pass "},
        ObjectiveCase{"--objective ssvm-slack --c2 0.1 --loss f1 --loss-level chunk", "ssvm-slack",
                      "sgd", "f1", "pass "},
        ObjectiveCase{"--objective ssvm-slack --c2 0.1 --loss zero-one", "ssvm-slack", "sgd",
                      "zero-one", "pass "},
        ObjectiveCase{"--objective ssvm-slack --c2 0.1 --loss weighted-hamming", "ssvm-slack",
                      "sgd", "weighted-hamming", "pass "},
        ObjectiveCase{
            "--objective ssvm-margin --algorithm sgd --c2 0.1 --loss recall --loss-level chunk",
            "ssvm-margin", "sgd", "recall", "pass "},
        ObjectiveCase{"--objective perceptron", "perceptron", "perceptron", "none", "iter "},
        ObjectiveCase{"--objective lmbm --c2 0.01 --eta0 0.5", "lmbm", "dcd", "none", "pass "},
        ObjectiveCase{"--algorithm perceptron", "perceptron", "perceptron", "none", "iter "}),
    [](const ::testing::TestParamInfo<ObjectiveCase>& info) {
      std::string name = std::string(info.param.objective) + "_" + info.param.loss + "_" +
                         std::to_string(info.index);
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(ObjectivesCliTest, BcfwPrintsTheDualityGap) {
  TempDir dir;
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll --objective ssvm-margin "
      "--c2 0.1 --max-iterations 3 -o '" +
      (dir.path() / "m.model").string() + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err,
              MatchesRegex("(.|\n)*pass +1  primal [0-9.e+]+  gap [0-9.e+-]+  loss (.|\n)*"));
}

TEST(ObjectivesCliTest, BadCombinationsAreUsageErrors) {
  const std::string base =
      std::string("--format conll --preset chunk-conll -o /no/such/dir/never.model ") + kFixture;
  for (const char* flags :
       {"--objective crf --loss hamming", "--objective softmax-margin --loss f1",
        "--objective ssvm-slack --algorithm bcfw", "--objective ssvm-margin --c2 0",
        "--loss fbeta:x", "--objective ssvm-margin --loss hamming --loss-level chunk",
        "--objective ssvm-margin --epsilon 0.5", "--objective softmax-margin --p 2.5",
        "--objective nosuch", "--objective ssvm-margin --loss hamming --loss-weights /dev/null"}) {
    RunResult r = RunChaintag(std::string("train ") + flags + " " + base);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("chaintag train: ")) << flags;
  }
}

TEST(ObjectivesCliTest, WeightedHammingReadsItsWeightsFile) {
  TempDir dir;
  const std::string weights = (dir.path() / "weights.txt").string();
  {
    std::ofstream out(weights);
    out << "# gold predicted weight\nB-NP O 2\nI-NP O 1.5\n";
  }
  const std::string model = (dir.path() / "m.model").string();
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll --objective softmax-margin "
      "--loss weighted-hamming --loss-weights '" +
      weights + "' --max-iterations 5 -o '" + model + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    std::ofstream out(weights);
    out << "B-NP O heavy\n";
  }
  r = RunChaintag(
      "train --format conll --preset chunk-conll --objective ssvm-slack --c2 0.1 "
      "--loss weighted-hamming --loss-weights '" +
      weights + "' -o '" + model + "' " + kFixture);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(weights + ":1"));
}

TEST(ObjectivesCliTest, EvalBoundTerm) {
  TempDir dir;
  const std::string model = (dir.path() / "m.model").string();
  ASSERT_EQ(RunChaintag("train --format conll --preset chunk-conll --max-iterations 20 -o '" +
                        model + "' " + kFixture)
                .exit_code,
            0);
  RunResult r = RunChaintag("eval --bound-term -m '" + model + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out, MatchesRegex("(.|\n)*bound term: [01]\\.[0-9]{6} \\(mean over [0-9]+ sentences\\)\n"));
  RunResult j = RunChaintag("eval --json --bound-term -m '" + model + "' " + kFixture);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_THAT(j.out, HasSubstr("\"bound_term\": "));
  EXPECT_EQ(
      RunChaintag(std::string("eval --bound-term --gold-column 3 --pred-column 3 ") + kFixture)
          .exit_code,
      2);
  // Issue 27 item 14: the Hamming distance by default, chunk errors on request; a gold labeling
  // the transition mask forbids is warned about (its term is 1 whatever the scores).
  EXPECT_THAT(RunChaintag("eval --help").out, HasSubstr("Bauer, Nakajima and Mueller"));
  RunResult hamming =
      RunChaintag("eval --bound-term --bound-distance hamming -m '" + model + "' " + kFixture);
  EXPECT_EQ(hamming.out, r.out);
  RunResult chunks =
      RunChaintag("eval --bound-term --bound-distance chunks -m '" + model + "' " + kFixture);
  ASSERT_EQ(chunks.exit_code, 0) << chunks.err;
  EXPECT_THAT(chunks.err, Not(HasSubstr("warning")));
  EXPECT_EQ(RunChaintag("eval --bound-distance chunks -m '" + model + "' " + kFixture).exit_code,
            2);
  RunResult bad =
      RunChaintag("eval --bound-term --bound-distance f1 -m '" + model + "' " + kFixture);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--bound-distance: expected hamming or chunks, found 'f1'"));
  const std::string forbidden = (dir.path() / "forbidden.conll").string();
  std::ofstream(forbidden) << "The DT B-NP\ndog NN I-NP\n\nA DT O\ncat NN I-NP\n\n";
  RunResult warned = RunChaintag("eval --bound-term -m '" + model + "' '" + forbidden + "'");
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_THAT(warned.err,
              HasSubstr(forbidden + ":4: the model's transition mask forbids the gold labeling, "
                                    "so its bound term is 1 whatever the scores"));
  EXPECT_THAT(warned.err, Not(HasSubstr(forbidden + ":1:")));
}

}  // namespace
}  // namespace chaintag::testing

namespace chaintag::testing {
namespace {

// Issue 14: a latent-dynamic CRF trains, shows its layout and tags through every decoder.
TEST(LatentCliTest, TrainInfoAndTagWithEveryDecoder) {
  TempDir dir;
  const std::string model = (dir.path() / "ld.model").string();
  RunResult r = RunChaintag(
      std::string("train --format conll --preset chunk-conll --objective ldcrf --latent 2 "
                  "--max-iterations 20 -o '") +
      model + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult info = RunChaintag("info '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("(latent-dynamic model): B-NP=2"));
  RunResult kbest = RunChaintag("tag -m '" + model +
                                "' --format conll --output-format jsonl --kbest 3 " + kFixture);
  ASSERT_EQ(kbest.exit_code, 0) << kbest.err;
  EXPECT_THAT(kbest.out, HasSubstr("\"exact\": "));
  EXPECT_THAT(kbest.out, HasSubstr("\"hidden_paths\": "));
  EXPECT_THAT(kbest.out, HasSubstr("\"probability\": "));
  for (const char* decoder : {"ldi", "bhp", "marginal"}) {
    RunResult t = RunChaintag("tag -m '" + model + "' --format conll --latent-decoder " + decoder +
                              " " + kFixture);
    ASSERT_EQ(t.exit_code, 0) << decoder << ": " << t.err;
    EXPECT_THAT(t.out, HasSubstr("The DT B-NP"));
  }
  const std::string out = (dir.path() / "out.txt").string();
  RunResult refused = RunChaintag("tag -m '" + model + "' --format conll --count B-NP=1 -o '" +
                                  out + "' " + kFixture);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("--count is not supported on a latent-dynamic model"));
  EXPECT_FALSE(std::ifstream(out).good());  // no partial output file
  RunResult bad = RunChaintag("tag -m '" + model + "' --latent-decoder viterbi " + kFixture);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  RunResult bound = RunChaintag("eval -m '" + model + "' --bound-term " + kFixture);
  EXPECT_EQ(bound.exit_code, 2) << bound.err;
  EXPECT_THAT(bound.err, HasSubstr("latent-dynamic"));
  RunResult eval = RunChaintag("eval -m '" + model + "' " + kFixture);
  EXPECT_EQ(eval.exit_code, 0) << eval.err;
}

}  // namespace
}  // namespace chaintag::testing

namespace chaintag::testing {
namespace {

// Issue 15: an LMSBN trains from the CLI, shows its family and history templates, and tags by
// branch-and-bound (JSONL cost, optimal, nodes); requests the search cannot serve are refused.
TEST(LmsbnCliTest, TrainInfoTagAndRefusals) {
  TempDir dir;
  const std::string model = (dir.path() / "lm.model").string();
  RunResult r = RunChaintag(
      std::string("train --format conll --preset chunk-history --objective lmsbn -o '") + model +
      "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult info = RunChaintag("info '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("family         lmsbn"));
  EXPECT_THAT(info.out, MatchesRegex("(.|\n)*history        [0-9]+ templates:.*%y\\[-1\\](.|\n)*"));
  RunResult json = RunChaintag("info --json '" + model + "'");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"family\": \"lmsbn\", \"history_templates\": [\""));
  RunResult chain = RunChaintag("info --json models/en-chunk.model");
  if (chain.exit_code == 0) {
    EXPECT_THAT(chain.out, HasSubstr("\"family\": \"linear-chain\""));
  }

  RunResult tagged =
      RunChaintag("tag -m '" + model + "' --format conll --output-format jsonl " + kFixture);
  ASSERT_EQ(tagged.exit_code, 0) << tagged.err;
  int lines = 0;
  for (size_t at = 0; (at = tagged.out.find('\n', at)) != std::string::npos; ++at) ++lines;
  ASSERT_GT(lines, 0);
  size_t with_all = 0;
  for (size_t at = 0; (at = tagged.out.find("\"optimal\": true", at)) != std::string::npos; ++at)
    ++with_all;
  EXPECT_EQ(with_all, static_cast<size_t>(lines)) << tagged.out;
  EXPECT_THAT(tagged.out, HasSubstr("\"nodes\": "));
  EXPECT_THAT(tagged.out, HasSubstr("\"cost\": "));
  RunResult kbest = RunChaintag("tag -m '" + model +
                                "' --format conll --kbest 3 --count 'chunk:NP=..2' "
                                "--output-format jsonl " +
                                kFixture);
  ASSERT_EQ(kbest.exit_code, 0) << kbest.err;
  EXPECT_THAT(
      kbest.out,
      MatchesRegex("\\{.*\"solutions\": \\[(\\{[^}]*\"cost\": [^}]*\\}, ){2}\\{.*\n(.|\n)*"));
  EXPECT_THAT(kbest.out, Not(HasSubstr("probability")));
  RunResult headers = RunChaintag("tag -m '" + model + "' --format conll --kbest 2 " + kFixture);
  ASSERT_EQ(headers.exit_code, 0) << headers.err;
  EXPECT_THAT(headers.out, MatchesRegex("# solution 1 score [-0-9.]+ cost [0-9.e+-]+\n(.|\n)*"));
  RunResult greedy = RunChaintag(
      "tag -m '" + model + "' --format conll --bb-max-nodes 1 --output-format jsonl " + kFixture);
  ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
  RunResult eval = RunChaintag("eval -m '" + model + "' " + kFixture);
  EXPECT_EQ(eval.exit_code, 0) << eval.err;

  const std::string out = (dir.path() / "out.txt").string();
  for (const std::string_view option : {"--score-range 0..1", "--diverse 2", "--marginals"}) {
    RunResult refused = RunChaintag("tag -m '" + model + "' --format conll " + std::string(option) +
                                    " -o '" + out + "' " + kFixture);
    EXPECT_EQ(refused.exit_code, 2) << option;
    EXPECT_THAT(refused.err, HasSubstr(std::string(option.substr(0, option.find(' '))) +
                                       " is not supported on an lmsbn model (branch-and-bound "
                                       "search); use --kbest, --count, --forced-column or "
                                       "--exclude"))
        << option;
    EXPECT_FALSE(std::ifstream(out).good()) << option;  // no partial output file
  }
  RunResult bound = RunChaintag("eval -m '" + model + "' --bound-term " + kFixture);
  EXPECT_EQ(bound.exit_code, 2) << bound.err;
  EXPECT_THAT(bound.err, HasSubstr("not supported on an lmsbn model"));
  RunResult zero = RunChaintag("tag -m '" + model + "' --bb-max-nodes 0 " + kFixture);
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
}

}  // namespace
}  // namespace chaintag::testing

namespace chaintag::testing {
namespace {

// Issue 28: an LMBM trains from the CLI, names its family and eta0, and decodes as a chain: counts,
// k-best with probabilities and marginals all run; a second-order LMBM is refused.
TEST(LmbmCliTest, TrainInfoAndChainRequests) {
  TempDir dir;
  const std::string model = (dir.path() / "lmbm.model").string();
  RunResult r = RunChaintag(
      std::string("train --format conll --preset chunk-conll --objective lmbm --eta0 0.5 -o '") +
      model + "' " + kFixture);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult info = RunChaintag("info '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("family         lmbm\n"));
  EXPECT_THAT(info.out, MatchesRegex("(.|\n)*eta0 +0\\.5\n(.|\n)*"));
  RunResult json = RunChaintag("info --json '" + model + "'");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"family\": \"lmbm\""));
  RunResult kbest = RunChaintag("tag -m '" + model +
                                "' --format conll --count 'chunk:NP=..3' --kbest 3 "
                                "--output-format jsonl " +
                                kFixture);
  ASSERT_EQ(kbest.exit_code, 0) << kbest.err;
  EXPECT_THAT(kbest.out, MatchesRegex("\\{.*\"solutions\": \\[(\\{[^}]*\"probability\": "
                                      "[^}]*\\}, ){2}\\{.*\n(.|\n)*"));
  RunResult marginals = RunChaintag(
      "tag -m '" + model + "' --format conll --marginals --output-format jsonl " + kFixture);
  EXPECT_THAT(marginals.out, HasSubstr("\"marginals\": "));
  EXPECT_EQ(marginals.exit_code, 0) << marginals.err;
  RunResult eval = RunChaintag("eval -m '" + model + "' " + kFixture);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.out, HasSubstr("FB1: 100.00"));
  RunResult second =
      RunChaintag("train --format conll --preset chunk-conll --objective lmbm --order 2 -o '" +
                  (dir.path() / "o2.model").string() + "' " + kFixture);
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_THAT(second.err, HasSubstr("lmbm"));
}

}  // namespace
}  // namespace chaintag::testing
