// train --encoder neural|hybrid --embeddings through the command line: the model does not depend
// on the thread count (identical bytes), tag decodes it with counts and k-best, and bad vectors
// are refused with no model written.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;

// A CoNLL file of word/tag sentences; "walks" is a noun after "the" and a verb otherwise.
void WriteToyCorpus(const std::string& path, int sentences) {
  std::ofstream out(path);
  const char* names[] = {"John", "Mary", "Paris"};
  const char* nouns[] = {"dog", "walks", "car"};
  const char* verbs[] = {"sees", "walks"};
  for (int i = 0; i < sentences; ++i) {
    auto subject = [&](int k) {
      if (k % 2)
        out << names[k % 3] << "\tNNP\n";
      else
        out << "the\tDT\n" << nouns[k % 3] << "\tNN\n";
    };
    subject(i);
    out << verbs[i % 2] << "\tVBZ\n";
    subject(i / 2 + 1);
    out << "\n";
  }
}

TEST(NeuralCliTest, ModelBytesDoNotDependOnTheThreadCount) {
  TempDir dir;
  const std::string train = (dir.path() / "train.conll").string();
  const std::string text = (dir.path() / "text.txt").string();
  const std::string vectors = (dir.path() / "vec.bin").string();
  WriteToyCorpus(train, 40);
  {
    std::ofstream out(text);
    for (int i = 0; i < 20; ++i) out << "John sees the dog. Mary walks the car to Paris.\n";
  }
  RunResult r = RunChaintag("embeddings --dim 8 --epochs 2 --min-count 1 --bucket 2000 -o '" +
                            vectors + "' '" + text + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string common =
      "train --format conll --template /dev/stdin --encoder hybrid --embeddings '" + vectors +
      "' --epochs 4 --batch-size 4 --hidden 8 --char-filters 4 --dev '" + train + "' ";
  const std::string templates = "printf 'U00:%%x[0,0]\\nB\\n' | ";
  std::string models[2];
  for (int threads = 1; threads <= 2; ++threads) {
    const std::string model = (dir.path() / ("m" + std::to_string(threads))).string();
    r = RunChaintag(
        common + "--threads " + std::to_string(threads) + " -o '" + model + "' '" + train + "'",
        templates);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    models[threads - 1] = ReadAll(model);
  }
  ASSERT_FALSE(models[0].empty());
  EXPECT_EQ(models[0], models[1]);

  const std::string model = (dir.path() / "m1").string();
  r = RunChaintag("info '" + model + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("hybrid"));
  r = RunChaintag("tag -m '" + model + "' --kbest 3 --count 'NNP=..1' --output-format jsonl '" +
                  train + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every solution of every sentence has at most one NNP.
  size_t lines = 0;
  for (size_t start = 0; start < r.out.size();) {
    const size_t end = r.out.find('\n', start);
    const std::string line = r.out.substr(start, end - start);
    start = end == std::string::npos ? r.out.size() : end + 1;
    ++lines;
    size_t at = line.find("\"solutions\"");
    ASSERT_NE(at, std::string::npos) << line;
    for (at = line.find("{\"labels\"", at); at != std::string::npos;
         at = line.find("{\"labels\"", at + 1)) {
      const std::string labels = line.substr(at, line.find(']', at) - at);
      int nnp = 0;
      for (size_t p = labels.find("\"NNP\""); p != std::string::npos;
           p = labels.find("\"NNP\"", p + 1)) {
        ++nnp;
      }
      EXPECT_LE(nnp, 1) << line;
    }
  }
  EXPECT_EQ(lines, 40u);

  // Vectors that are not a vectors file: exit 1, no model.
  const std::string bad = (dir.path() / "bad.model").string();
  r = RunChaintag("train --format conll --template /dev/stdin --encoder neural --embeddings '" +
                      train + "' --epochs 1 -o '" + bad + "' '" + train + "'",
                  templates);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("train.conll"));
  EXPECT_FALSE(std::filesystem::exists(bad));
}

}  // namespace
}  // namespace chaintag::testing
