// Issue 27 (Low, exit codes): 2 for usage, found before the input is read where the options
// alone can tell; 1 for data and runtime errors. A training file that does not exist proves an
// option was refused before any input was opened.
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;

const char kFixture[] = "tests/fixtures/cli/sample.conll";

TEST(ExitCodesTest, ScoreRangesAreUsageErrors) {
  for (const char* range : {"5..5", "5..3", "abc", "1..nan"}) {
    RunResult r = RunChaintag(std::string("tag --score-range=") + range + " docs/sample.txt");
    EXPECT_EQ(r.exit_code, 2) << range << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("--score-range")) << range;
  }
  RunResult r = RunChaintag("tag --score-range=5..5 docs/sample.txt");
  EXPECT_THAT(r.err, HasSubstr("empty range '5..5': the lower end equals the upper"));
}

TEST(ExitCodesTest, TrainOptionsAreRefusedBeforeTheDataIsRead) {
  TempDir dir;
  const std::string model = (dir.path() / "m").string();
  const std::string missing = (dir.path() / "missing.conll").string();
  for (const char* flags :
       {"--objective ldcrf --latent 0", "--objective ldcrf --latent 65",
        "--objective ldcrf "
        "--latent =2",
        "--objective ldcrf --latent B-NP=x", "--latent 2", "--c2 -1", "--objective nope"}) {
    RunResult r = RunChaintag(std::string("train --format conll --preset chunk ") + flags +
                              " -o '" + model + "' '" + missing + "'");
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.err;
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("missing.conll"))) << flags;
    EXPECT_THAT(r.err, HasSubstr("--help")) << flags;
  }
}

// Labels named by an option are only known once the data is read: still a usage error.
TEST(ExitCodesTest, OptionsNamingLabelsTheDataLacksAreUsageErrors) {
  TempDir dir;
  const std::string model = (dir.path() / "m").string();
  RunResult r = RunChaintag("train --format conll --preset chunk --positives FOO -o '" + model +
                            "' " + kFixture);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("option positives: positive label 'FOO' is not a label of the "
                               "training data"));
  r = RunChaintag(
      "train --format conll --preset chunk --objective ssvm-margin --loss f1 --loss-level chunk "
      "--positives FOO -o '" +
      model + "' " + kFixture);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("positive chunk type 'FOO'"));
  r = RunChaintag("train --format conll --preset chunk --objective ldcrf --latent FOO=2 -o '" +
                  model + "' " + kFixture);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("label \"FOO\" does not occur in the training data"));
  struct stat st;
  EXPECT_NE(::stat(model.c_str(), &st), 0);  // no model written
  // Bad data stays a data error.
  const std::string bad = (dir.path() / "bad.conll").string();
  std::ofstream(bad) << "The DT\n";
  r = RunChaintag("train --format conll --preset chunk -o '" + model + "' '" + bad + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

// Options a model cannot honour exit 2 on every family, before any sentence is read.
TEST(ExitCodesTest, OptionsAModelCannotHonourAreUsageErrorsOnEveryFamily) {
  TempDir dir;
  const std::string ldcrf = (dir.path() / "ld.model").string();
  const std::string lmsbn = (dir.path() / "lm.model").string();
  ASSERT_EQ(RunChaintag("train --format conll --preset chunk-conll --objective ldcrf --latent 2 "
                        "--max-iterations 5 -o '" +
                        ldcrf + "' " + kFixture)
                .exit_code,
            0);
  ASSERT_EQ(RunChaintag("train --format conll --preset chunk-history --objective lmsbn "
                        "--max-iterations 5 -o '" +
                        lmsbn + "' " + kFixture)
                .exit_code,
            0);
  const std::string missing = (dir.path() / "missing.conll").string();
  for (const std::string& flags :
       std::vector<std::string>{"--count B-NP=1", "--score-range 1..2", "--diverse 2",
                                "--exclude '" + missing + "'", "--kbest 2 --latent-decoder bhp"}) {
    RunResult r =
        RunChaintag("tag -m '" + ldcrf + "' --format conll " + flags + " '" + missing + "'");
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("latent-dynamic model")) << flags;
  }
  for (const char* flags : {"--score-range 1..2", "--diverse 2"}) {
    RunResult r =
        RunChaintag("tag -m '" + lmsbn + "' --format conll " + flags + " '" + missing + "'");
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("lmsbn model")) << flags;
  }
  // A missing input is a data error.
  RunResult r = RunChaintag("tag -m '" + ldcrf + "' --format conll '" + missing + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

// Issue 27 (Low): a FIFO model without a writer is refused at once, never waited on.
TEST(ExitCodesTest, AFifoModelWithoutAWriterIsRefusedAtOnce) {
  TempDir dir;
  const std::string fifo = (dir.path() / "m.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& command :
       std::vector<std::string>{"info '" + fifo + "'", "tag -m '" + fifo + "' docs/sample.txt"}) {
    RunResult r = RunChaintag(command, "timeout 20 ");
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("a FIFO with no writer")) << command;
  }
  // With a writer the model is read through the FIFO (info does not open it twice).
  RunResult r = RunChaintag("info '" + fifo + "'",
                            "(cat models/en-np.model > '" + fifo + "' &); sleep 0.3; timeout 20 ");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("labels"));
}

}  // namespace
}  // namespace chaintag::testing
