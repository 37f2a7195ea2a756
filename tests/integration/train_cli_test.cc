// The trainer option table seen through `chaintag train --help` and `chaintag info`: the help
// shows each option's real default, and a trained model records every option, the iterations run
// and the iteration kept.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "chaintag/train.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag {
namespace {

using testing::JsonNumbers;
using testing::RunChaintag;
using testing::RunResult;
using testing::TempDir;

TEST(TrainCliTest, HelpShowsEveryOptionWithItsRealDefault) {
  const RunResult r = RunChaintag("train --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    const std::string flag = absl::StrReplaceAll(def.name, {{"_", "-"}});
    // Boost prints no "(=)" for an empty default.
    const std::string expected = def.default_value.empty()
                                     ? absl::StrCat("--", flag, " arg  ")
                                     : absl::StrCat("--", flag, " arg (=", def.default_value, ")");
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
    // The help text is the table's (its first words are enough: Boost wraps lines).
    const std::string first_words = def.help.substr(0, def.help.find(' ', 12));
    EXPECT_NE(r.out.find(first_words), std::string::npos) << first_words;
  }
  // The defaults are those of a default-constructed TrainOptions, not text typed twice.
  EXPECT_NE(r.out.find("--c2 arg (=1)"), std::string::npos);
  EXPECT_NE(r.out.find("--max-iterations arg (=1000)"), std::string::npos);
  EXPECT_NE(r.out.find("--objective arg (=crf)"), std::string::npos);
  EXPECT_NE(r.out.find("--loss arg (=auto)"), std::string::npos);
}

TEST(TrainCliTest, InfoShowsOptionsIterationsAndInputOptions) {
  TempDir dir;
  const std::string model = (dir.path() / "m.model").string();
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll --max-iterations 12 --early-stopping 3 --c2 0.5 "
      "--dev tests/fixtures/cli/sample.conll -o '" +
      model + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    // Recorded for ldcrf / order 2 / a changed value / neural encoders only.
    if (def.recorded && !def.recorded(TrainOptions())) {
      EXPECT_EQ(r.out.find("\n  " + def.name + " "), std::string::npos) << r.out;
      continue;
    }
    EXPECT_NE(r.out.find("\n  " + def.name + " "), std::string::npos) << def.name << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("\n  c2                   0.5\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  iterations "), std::string::npos);
  EXPECT_NE(r.out.find("\n  selected_iteration "), std::string::npos);
  EXPECT_NE(r.out.find("\ninput          conll, label column -1\n"), std::string::npos) << r.out;
  r = RunChaintag("info --json '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"input\": {\"format\": \"conll\", \"label_column\": -1, "
                       "\"conllu_label\": \"xpos\", \"np_chunks\": false}"),
            std::string::npos)
      << r.out;
  // --transitions other than iob is recorded and shown.
  r = RunChaintag(
      "train --format conll --preset chunk-conll --max-iterations 5 --transitions observed -o '" +
      model + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  transitions          observed\n"), std::string::npos) << r.out;
  r = RunChaintag("train --format conll --preset chunk-conll --transitions most -o '" + model +
                  "' tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("expected iob, all or observed"), std::string::npos) << r.err;
}

// A second-order model end to end: train, info, and every decoding request of `tag`.
TEST(TrainCliTest, SecondOrderModelTagsWithEveryRequest) {
  TempDir dir;
  const std::string model = (dir.path() / "o2.model").string();
  RunResult r = RunChaintag(
      "train --format conll --preset chunk-conll --order 2 --max-iterations 15 "
      "-o '" +
      model + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nlabel order    2 (label-trigram weights)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  order                2\n"), std::string::npos) << r.out;
  const std::string input = " --format conll tests/fixtures/cli/sample.conll";
  const RunResult plain = RunChaintag("tag -m '" + model + "'" + input);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(plain.out.empty());
  for (const std::string request :
       {"--kbest 3 --output-format jsonl", "--diverse 2 --min-distance 2 --output-format jsonl",
        "--count 'chunk:NP=1..' --output-format jsonl", "--marginals --output-format jsonl"}) {
    r = RunChaintag("tag -m '" + model + "' " + request + input);
    EXPECT_EQ(r.exit_code, 0) << request << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << request;
  }
  // A binding score range: every labeling found scores at most 0, below each plain best.
  std::vector<double> plain_scores =
      JsonNumbers(RunChaintag("tag -m '" + model + "' --output-format jsonl" + input).out, "score");
  ASSERT_FALSE(plain_scores.empty());
  for (double s : plain_scores) EXPECT_GT(s, 0.0);
  r = RunChaintag("tag -m '" + model + "' --score-range=-1e9..0 --output-format jsonl" + input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<double> ranged = JsonNumbers(r.out, "score");
  EXPECT_EQ(ranged.size(), plain_scores.size()) << r.out;
  for (double s : ranged) EXPECT_LE(s, 0.0);
}

// A model file of format 1 (before issue 12) is refused with a request to retrain.
TEST(TrainCliTest, OldModelFormatAsksForRetraining) {
  TempDir dir;
  const std::string model = (dir.path() / "old.model").string();
  RunResult r = RunChaintag("train --format conll --preset chunk-conll --max-iterations 2 -o '" +
                            model + "' tests/fixtures/cli/sample.conll");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    std::fstream file(model, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(8);
    const char version_one[4] = {1, 0, 0, 0};
    file.write(version_one, 4);
  }
  r = RunChaintag("tag -m '" + model + "' tests/fixtures/cli/sample.conll");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(model + ": made by an older chaintag (model format 1); retrain it with "
                               "tools/train-models.sh"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace chaintag
