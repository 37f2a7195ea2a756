// chaintag embeddings: exit codes, the same file on every run, no output after an error.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(EmbeddingsCliTest, WritesTheSameVectorsTwiceAndRefusesBadInput) {
  TempDir dir;
  const std::string text = (dir.path() / "text.txt").string();
  {
    std::ofstream out(text);
    for (int i = 0; i < 20; ++i) out << "The dog barks. A cat sleeps, the wolf runs.\n";
  }
  const std::string a = (dir.path() / "a.bin").string(), b = (dir.path() / "b.bin").string();
  const std::string options = "embeddings --dim 8 --epochs 2 --min-count 2 --bucket 5000 ";
  RunResult r = RunChaintag(options + "-o '" + a + "' '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("read 240 tokens in 40 sentences"));
  EXPECT_THAT(r.err, HasSubstr("with vectors of 8, 5000 n-gram rows"));
  r = RunChaintag(options + "--temp-dir '" + dir.path().string() + "' -o '" + b + "' '" + text +
                  "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadAll(a), StartsWith("CTWORDVC"));
  EXPECT_EQ(ReadAll(a), ReadAll(b));

  const std::string bad_text = (dir.path() / "bad.txt").string();
  std::ofstream(bad_text) << "fine\nnot \xff fine\n";
  const std::string c = (dir.path() / "c.bin").string();
  r = RunChaintag(options + "-o '" + c + "' '" + bad_text + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.txt:2"));
  EXPECT_FALSE(std::filesystem::exists(c));
  r = RunChaintag(options + "'" + text + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("-o FILE is required"));
  r = RunChaintag("embeddings --minn 4 --maxn 2 -o '" + c + "' '" + text + "'");
  EXPECT_EQ(r.exit_code, 2);
  // Nothing but the inputs and the two outputs is left (no temporary copies of the text).
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 4);
}

}  // namespace
}  // namespace chaintag::testing
