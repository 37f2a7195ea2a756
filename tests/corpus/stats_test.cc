#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using ::chaintag::testing::SharedCorpus;

// Independent reference computation with std containers.
CorpusStats Reference(const std::vector<Sentence>& sentences) {
  CorpusStats stats;
  std::set<std::string> types;
  std::map<std::string, int64_t> labels;
  std::map<int, int64_t> buckets;
  for (const Sentence& s : sentences) {
    ++stats.sentences;
    stats.tokens += s.size();
    for (const std::string& w : s.columns[0]) types.insert(w);
    for (const std::string& l : s.labels) ++labels[l];
    int lower = 1;
    while (lower + CorpusStatsAccumulator::kLengthBucket <= s.size()) {
      lower += CorpusStatsAccumulator::kLengthBucket;
    }
    ++buckets[lower];
  }
  stats.types = static_cast<int64_t>(types.size());
  stats.labels.assign(labels.begin(), labels.end());
  stats.length_histogram.assign(buckets.begin(), buckets.end());
  return stats;
}

void ExpectEqual(const CorpusStats& a, const CorpusStats& b) {
  EXPECT_EQ(a.sentences, b.sentences);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.types, b.types);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.length_histogram, b.length_histogram);
}

TEST(CorpusStatsTest, SmallCorpusByHand) {
  auto in = ReadAll("a X\nb Y\na X\n\nc Z\n\n1 X\n2 X\n3 X\n4 X\n5 X\n6 X\n",
                    Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  CorpusStatsAccumulator acc;
  for (const Sentence& s : *in) acc.Add(s);
  const CorpusStats stats = acc.Finish();
  EXPECT_EQ(stats.sentences, 3);
  EXPECT_EQ(stats.tokens, 10);
  EXPECT_EQ(stats.types, 9);  // a b c 1..6
  EXPECT_EQ(stats.labels,
            (std::vector<std::pair<std::string, int64_t>>{{"X", 8}, {"Y", 1}, {"Z", 1}}));
  EXPECT_EQ(stats.length_histogram, (std::vector<std::pair<int, int64_t>>{{1, 2}, {6, 1}}));
  ExpectEqual(stats, Reference(*in));
}

TEST(CorpusStatsTest, EmptyAccumulator) {
  CorpusStatsAccumulator acc;
  const CorpusStats stats = acc.Finish();
  EXPECT_EQ(stats.sentences, 0);
  EXPECT_TRUE(stats.labels.empty());
  EXPECT_TRUE(stats.length_histogram.empty());
}

TEST(CorpusStatsTest, SharedCorporaMatchReferenceAndDocumentedTotals) {
  if (!std::filesystem::exists(SharedCorpus(""))) {
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA;
  }
  struct Case {
    std::string file;
    CorpusFormat format;
    int64_t sentences, tokens;
  };
  for (const Case& c :
       {Case{"conll2000/train.txt", CorpusFormat::kConll, 8936, 211727},
        Case{"ud-english-ewt/en_ewt-ud-train.conllu", CorpusFormat::kConllu, 12544, 204577}}) {
    auto sentences = ReadCorpus({SharedCorpus(c.file)}, Options(c.format));
    ASSERT_TRUE(sentences.ok()) << sentences.status();
    CorpusStatsAccumulator acc;
    for (const Sentence& s : *sentences) acc.Add(s);
    const CorpusStats stats = acc.Finish();
    EXPECT_EQ(stats.sentences, c.sentences) << c.file;
    EXPECT_EQ(stats.tokens, c.tokens) << c.file;
    ExpectEqual(stats, Reference(*sentences));
  }
}

}  // namespace
}  // namespace chaintag
