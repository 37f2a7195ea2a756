// chaintag train/tag/eval --format attributes (CRFsuite data format) end to end.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTrain = "tests/fixtures/attributes/train.txt";

TEST(AttributesCliTest, TrainTagEvalRoundTrip) {
  TempDir dir;
  const std::string model = (dir.path() / "a.model").string();
  RunResult train = RunChaintag("train --format attributes --c2 0.01 -o '" + model + "' " + kTrain);
  ASSERT_EQ(train.exit_code, 0) << train.err;
  RunResult info = RunChaintag("info '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("input          attributes"));
  // No --format: the model says it reads attributes. Output: gold then predicted per token.
  RunResult tag = RunChaintag("tag -m '" + model + "' " + kTrain);
  ASSERT_EQ(tag.exit_code, 0) << tag.err;
  EXPECT_EQ(tag.out,
            "B-NP B-NP\nB-VP B-VP\nO O\n\nB-NP B-NP\nB-VP B-VP\nB-NP B-NP\nO O\n\n"
            "B-NP B-NP\nB-VP B-VP\nO O\n\n");
  RunResult eval = RunChaintag("eval -m '" + model + "' --format attributes " + kTrain);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.out, HasSubstr("accuracy: 100.00%"));
  // A template model refuses attribute input, an attribute model refuses columns.
  RunResult columns =
      RunChaintag("tag -m '" + model + "' --format conll tests/fixtures/cli/sample.conll");
  EXPECT_EQ(columns.exit_code, 1);
  EXPECT_THAT(columns.err, HasSubstr("expected attribute input"));
}

TEST(AttributesCliTest, BadInputNamesFileLineAndLeavesNoModel) {
  TempDir dir;
  const std::string model = (dir.path() / "a.model").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"O\\ta\\t\\tb\\n", "<stdin>:1: expected an attribute, found an empty field"},
      {"O\\ta\\nO\\ta:zz\\n", "<stdin>:2: expected a number as the weight of attribute 'a'"},
      {"O\\ta:nan\\n", "<stdin>:1: expected a finite weight"},
      {"O\\ta:inf\\n", "<stdin>:1: expected a finite weight"},
      {"\\ta\\n\\tb\\n", "<stdin>:1: expected a gold label for each of the 2 tokens"},
  };
  for (const auto& [text, expected] : cases) {
    RunResult r =
        RunChaintag("train --format attributes -o '" + model + "' -", "printf '" + text + "' | ");
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_THAT(r.err, HasSubstr(expected)) << text;
    ExpectEmptyDirectory(dir.path());
  }
  RunResult templ =
      RunChaintag("train --format attributes --preset pos -o '" + model + "' " + kTrain);
  EXPECT_EQ(templ.exit_code, 2);
  EXPECT_THAT(templ.err, HasSubstr("give no --preset"));
}

}  // namespace
}  // namespace chaintag::testing
