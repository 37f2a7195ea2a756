// cluster(EXPR[, P]) and lex2(): template parsing, values and the resources they need.
#include <memory>
#include <string>
#include <vector>

#include "chaintag/clusters.h"
#include "chaintag/features.h"
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

}  // namespace
}  // namespace chaintag
