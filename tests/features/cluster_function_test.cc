// cluster(EXPR[, P]) and lex2(): template parsing, values and the resources they need.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/clusters.h"
#include "chaintag/features.h"
#include "features/featurizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Sentence Words(std::vector<std::string> words) {
  Sentence s;
  s.columns = {std::move(words)};
  s.file = "test";
  for (int t = 0; t < s.size(); ++t) s.token_lines.push_back(1);
  return s;
}

FeatureResources Resources() {
  absl::StatusOr<WordClusters> clusters =
      WordClusters::Parse("0010110\tthe\t9\n110\tdog\t3\n\tnothing\t1\n", "test.paths");
  absl::StatusOr<Lexicon> lex = Lexicon::Parse("dog\tn\n", "a.lex");
  absl::StatusOr<Lexicon> lex2 = Lexicon::Parse("dog\tnoun animal\n", "b.lex");
  EXPECT_TRUE(clusters.ok() && lex.ok() && lex2.ok());
  return {std::make_shared<const Lexicon>(*lex), std::make_shared<const Lexicon>(*lex2),
          std::make_shared<const WordClusters>(*clusters)};
}

TEST(ClusterFunctionTest, PrefixesFullPathsAndUnknownWords) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(
      "A:cluster(%x[0,0],4)\nF:cluster(%x[0,0])\nC:cluster(%x[0,0], 2)/cluster(%x[-1,0],1)\n"
      "D:cluster(lower(%x[0,0]),30)\nE:lex(%x[0,0])/lex2(%x[0,0])\n",
      Resources());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->uses_clusters());
  EXPECT_TRUE(spec->uses_lexicon2());
  Featurizer featurizer(*spec);
  const Sentence s = Words({"the", "dog", "Dog", "nothing"});
  EXPECT_THAT(featurizer.Attributes(s, 0),
              ElementsAre("A:0010", "F:0010110", "C:00/_B-1", "D:0010110", "E:-/-"));
  // A prefix longer than the path is the whole path.
  EXPECT_THAT(featurizer.Attributes(s, 1),
              ElementsAre("A:110", "F:110", "C:11/0", "D:110", "E:n/animal|noun"));
  // Unknown words get the fixed "no cluster" value, whatever the prefix; lookups are exact.
  EXPECT_THAT(featurizer.Attributes(s, 2), ElementsAre("A:-", "F:-", "C:-/1", "D:110", "E:-/-"));
  // An empty path (a one-cluster tree) is a value of its own.
  EXPECT_THAT(featurizer.Attributes(s, 3), ElementsAre("A:", "F:", "C:/-", "D:", "E:-/-"));
}

TEST(ClusterFunctionTest, ParseErrorsAndMissingResources) {
  auto error = [](std::string_view text, FeatureResources r) {
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(text, std::move(r));
    EXPECT_FALSE(spec.ok()) << text;
    return spec.ok() ? std::string() : std::string(spec.status().message());
  };
  EXPECT_THAT(error("A:cluster(%x[0,0],0)\n", Resources()),
              HasSubstr("template line 1: expected a prefix length from 1 to 4096"));
  EXPECT_THAT(error("A:cluster(%x[0,0],x)\n", Resources()), HasSubstr("expected a prefix length"));
  EXPECT_THAT(error("A:lower(%x[0,0],3)\n", Resources()), HasSubstr("expected ')' closing lower("));
  EXPECT_THAT(error("A:x\nF:cluster(%x[0,0])\n", {}),
              HasSubstr("template line 2: cluster() reads word clusters, but none were given "
                        "(train --clusters FILE)"));
  EXPECT_THAT(error("A:lex2(%x[0,0])\n", {}),
              HasSubstr("lex2() reads a second word-class lexicon, but none was given"));
}

// A paths file in any order loads into Serialize() order (path, then count descending, then word)
// with every word found; a file already in that order (as chaintag writes it) loads the same.
TEST(WordClustersTest, AnyOrderLoadsSortedAndIndexed) {
  const std::string text = "11\tz\t1\n0\tb\t2\n11\ty\t5\n0\ta\t2\n10\tc\t7\n";
  absl::StatusOr<WordClusters> clusters = WordClusters::Parse(text, "test.paths");
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  const std::string sorted = "0\ta\t2\n0\tb\t2\n10\tc\t7\n11\ty\t5\n11\tz\t1\n";
  EXPECT_EQ(clusters->Serialize(), sorted);
  EXPECT_EQ(clusters->num_words(), 5);
  EXPECT_EQ(clusters->num_clusters(), 3);
  for (const auto& [word, path] : std::vector<std::pair<std::string, std::string>>{
           {"a", "0"}, {"b", "0"}, {"c", "10"}, {"y", "11"}, {"z", "11"}}) {
    EXPECT_EQ(clusters->Lookup(word), path) << word;
  }
  EXPECT_EQ(clusters->Lookup("q"), WordClusters::kAbsent);
  absl::StatusOr<WordClusters> again = WordClusters::Parse(sorted, "sorted.paths");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->Serialize(), sorted);
  EXPECT_EQ(again->Lookup("y"), "11");
}

// Words are indexed in place, as the line reader gives them: NFC, whatever the text's form.
TEST(WordClustersTest, NormalisedWordsAreFoundInAnyLine) {
  const std::string text = "1\tcaf\x65\xCC\x81\t4\n0\tdog\t3\n\n1\tcat\t2\n";
  absl::StatusOr<WordClusters> clusters = WordClusters::Parse(text, "nfc.paths");
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  EXPECT_EQ(clusters->Lookup("caf\xC3\xA9"), "1");
  EXPECT_EQ(clusters->Lookup("dog"), "0");
  EXPECT_EQ(clusters->num_words(), 3);
  EXPECT_EQ(clusters->num_clusters(), 2);
  EXPECT_EQ(clusters->Serialize(), "0\tdog\t3\n1\tcaf\xC3\xA9\t4\n1\tcat\t2\n");
  absl::StatusOr<WordClusters> twice =
      WordClusters::Parse("1\tcaf\xC3\xA9\t4\n0\tdog\t3\n1\tcaf\x65\xCC\x81\t2\n", "twice.paths");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(),
            "twice.paths:3: expected each word once, found 'caf\xC3\xA9' again (first on line 1)");
}

// Two models storing the same clustering share one parsed copy; other texts do not.
TEST(WordClustersTest, TheSameTextIsParsedOnce) {
  const std::string text = "0\tdog\t3\n1\tcat\t2\n";
  absl::StatusOr<WordClusters> a = WordClusters::Parse(text, "a.paths");
  absl::StatusOr<WordClusters> b = WordClusters::Parse(text, "b.paths");
  absl::StatusOr<WordClusters> c = WordClusters::Parse("0\tdog\t3\n1\tcat\t1\n", "c.paths");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(&a->entries(), &b->entries());
  EXPECT_NE(&a->entries(), &c->entries());
  EXPECT_EQ(c->entries()[1].count, 1);
  // A bad text is still an error naming its own file, however often it is parsed.
  for (const char* name : {"x.paths", "y.paths"}) {
    absl::StatusOr<WordClusters> bad = WordClusters::Parse("0\tdog\t3\n0\tdog\t3\n", name);
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(std::string(bad.status().message()),
                ::testing::StartsWith(std::string(name) + ":2:"));
  }
}

TEST(WordClustersTest, AWordListedTwiceIsNamedWithBothLines) {
  absl::StatusOr<WordClusters> clusters =
      WordClusters::Parse("0\tdog\t3\n1\tcat\t2\n1\tdog\t1\n", "test.paths");
  ASSERT_FALSE(clusters.ok());
  EXPECT_EQ(clusters.status().message(),
            "test.paths:3: expected each word once, found 'dog' again (first on line 1)");
  absl::StatusOr<WordClusters> entries =
      WordClusters::FromEntries({{"0", "dog", 3}, {"1", "cat", 2}, {"1", "dog", 1}});
  ASSERT_FALSE(entries.ok());
  EXPECT_THAT(entries.status().message(), HasSubstr("found 'dog' twice"));
}

}  // namespace
}  // namespace chaintag
