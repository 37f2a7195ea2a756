// chaintag clusters, and train --clusters / --lexicon2 with cluster() and lex2() templates.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ClustersCliTest, ClustersRawTextDeterministicallyAndFeedsTraining) {
  TempDir dir;
  const std::string text = (dir.path() / "text.txt").string();
  {
    std::ofstream out(text);
    for (int i = 0; i < 3; ++i) {
      for (const char* det : {"The", "A"}) {
        for (const char* noun : {"dog", "cat", "wolf"}) {
          for (const char* verb : {"barks.", "sleeps.", "runs."}) {
            out << det << " " << noun << " " << verb << "\n";
          }
        }
      }
    }
  }
  const std::string paths = (dir.path() / "paths.txt").string();
  RunResult r =
      RunChaintag("clusters --clusters 4 --min-count 2 -o '" + paths + "' '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("chaintag clusters: 9 words in 4 clusters"));
  const std::string first = ReadAll(paths);
  // Liang's format: BITSTRING<TAB>WORD<TAB>COUNT; the tokeniser split off the periods.
  EXPECT_THAT(first, HasSubstr("\t.\t54\n"));
  EXPECT_THAT(first, HasSubstr("\tdog\t18\n"));
  r = RunChaintag("clusters --clusters 4 --min-count 2 --threads 2 '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, first);

  const std::string model = (dir.path() / "c.model").string();
  const std::string lex2 = (dir.path() / "b.lex").string();
  const std::string tmpl = (dir.path() / "t.txt").string();
  std::ofstream(lex2) << "dog\tn\nbarks\tv\n";
  std::ofstream(tmpl) << "U00:%x[0,0]\nU01:cluster(%x[0,0],2)\nU02:cluster(%x[0,0])\n"
                         "U03:lex2(lower(%x[0,0]))\nB\n";
  r = RunChaintag("train --format tagged --template '" + tmpl + "' --clusters '" + paths +
                  "' --lexicon2 '" + lex2 + "' --max-iterations 30 -o '" + model +
                  "' tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The clusters and the second lexicon travel in the model.
  std::filesystem::remove(paths);
  std::filesystem::remove(lex2);
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("clusters       9 words, 4 clusters"));
  EXPECT_THAT(r.out, HasSubstr("lexicon 2      2 words, 2 class sets"));
  r = RunChaintag("tag -m '" + model + "' --format tagged tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT DT\ndog NN NN\n"));
  // A preset without cluster() templates adds its own when --clusters is given.
  std::ofstream(paths) << first;
  r = RunChaintag("train --format tagged --preset pos --clusters '" + paths +
                  "' --max-iterations 5 -o '" + model + "' tests/fixtures/cli/pos.tagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("clusters       9 words, 4 clusters"));
  EXPECT_THAT(r.out, HasSubstr("U64:cluster(%x[0,0])"));
}

TEST(ClustersCliTest, ErrorsAreClearAndLeaveNoOutput) {
  TempDir dir;
  const std::string out = (dir.path() / "out").string();
  std::filesystem::create_directory(out);
  const std::string paths = out + "/paths.txt";
  RunResult r =
      RunChaintag("clusters --clusters 0 -o '" + paths + "' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--clusters: expected 1 to 2048, found 0"));
  r = RunChaintag("clusters --min-count 1000 -o '" + paths + "' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("expected text with at least one word seen 1000 times"));
  r = RunChaintag("clusters -o '" + paths + "' '" + out + "/missing.txt'");
  EXPECT_EQ(r.exit_code, 1);
  ExpectEmptyDirectory(out);
  // A bad paths file is named by file and line; clusters no template reads are a usage error.
  const std::string bad = (dir.path() / "bad.paths").string();
  std::ofstream(bad) << "01\tdog\t3\n0x1\tcat\t2\n";
  r = RunChaintag("train --format tagged --preset pos-clusters --clusters '" + bad + "' -o '" +
                  out + "/m.model' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(bad + ":2: expected a bit string of 0s and 1s"));
  std::ofstream(bad) << "01\tdog\t3\n";
  const std::string tmpl = (dir.path() / "t.txt").string();
  std::ofstream(tmpl) << "U00:%x[0,0]\nB\n";
  r = RunChaintag("train --format tagged --template '" + tmpl + "' --clusters '" + bad + "' -o '" +
                  out + "/m.model' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("--clusters is given, but no template of '" + tmpl + "' calls cluster()"));
  r = RunChaintag("train --format tagged --preset pos-clusters -o '" + out +
                  "/m.model' tests/fixtures/cli/pos.tagged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cluster() reads word clusters, but none were given"));
  ExpectEmptyDirectory(out);
}

// Issue 27 (Low): a vocabulary cap, so 2 million distinct words cannot run for days. Words w0..w9
// are seen 10..1 times: --max-words 4 clusters w0..w3 and says what it left out, with estimates.
TEST(ClustersCliTest, MaxWordsKeepsTheMostFrequentAndWarnsWithAnEstimate) {
  TempDir dir;
  const std::string text = (dir.path() / "u.txt").string();
  {
    std::ofstream out(text);
    for (int w = 0; w < 10; ++w) {
      for (int k = 0; k < 10 - w; ++k) out << "w" << w << " w" << (9 - w) << "\n";
    }
  }
  RunResult r = RunChaintag("clusters --pretokenized --clusters 2 --max-words 4 '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: 10 words are seen at least 1 times; clustering the 4 most "
                               "frequent (--max-words), about 0 s"));
  EXPECT_THAT(r.err, HasSubstr("raise --max-words or --min-count"));
  int lines = 0;
  std::istringstream paths(r.out);
  for (std::string line; std::getline(paths, line); ++lines) {
    EXPECT_THAT(line, ::testing::MatchesRegex("[01]+\tw[0-3]\t[0-9]+")) << line;
  }
  EXPECT_EQ(lines, 4);
  // Under the cap: no warning, every word.
  r = RunChaintag("clusters --pretokenized --clusters 2 '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("warning")));
  r = RunChaintag("clusters --pretokenized --max-words 0 '" + text + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-words: expected at least 1, found 0"));
}

}  // namespace
}  // namespace chaintag::testing
