#include <string>
#include <vector>

#include "chaintag/labels.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

TEST(LabelSetTest, IdsFollowTheOrderGivenAndAdded) {
  LabelSet labels({"B-NP", "I-NP", "O"});
  EXPECT_EQ(labels.size(), 3);
  EXPECT_EQ(labels.Id("I-NP"), 1);
  EXPECT_EQ(labels.Id("B-VP"), -1);
  EXPECT_EQ(labels.Add("B-VP"), 3);
  EXPECT_EQ(labels.Add("O"), 2);
  EXPECT_EQ(labels.name(3), "B-VP");
  EXPECT_EQ(labels.names(), (std::vector<std::string>{"B-NP", "I-NP", "O", "B-VP"}));
}

TEST(IsChunkTagTest, OneDefinition) {
  for (const char* yes : {"O", "B-NP", "I-NP", "E-VP", "S-PP", "B-NP-SBJ"}) {
    EXPECT_TRUE(IsChunkTag(yes)) << yes;
  }
  for (const char* no : {"NN", "B-", "BNP", "X-NP", "", "o", "-NP"})
    EXPECT_FALSE(IsChunkTag(no)) << no;
}

TEST(InferChunkTransitionMaskTest, PosTagsAreFreeAndInsideTagsNeedAnOpenPhrase) {
  const std::vector<std::string> labels = {"B-NP", "I-NP", "NN", "O"};
  const TransitionMask mask = InferChunkTransitionMask(labels, {});
  const int n = 4;
  EXPECT_FALSE(mask.allowed_start[1]);    // I-NP cannot start a sentence
  EXPECT_TRUE(mask.allowed[0 * n + 1]);   // B-NP -> I-NP
  EXPECT_FALSE(mask.allowed[3 * n + 1]);  // O -> I-NP
  EXPECT_FALSE(mask.allowed[2 * n + 1]);  // NN (no scheme) -> I-NP
  EXPECT_TRUE(mask.allowed[3 * n + 2]);   // anything -> NN
  EXPECT_TRUE(mask.allowed_start[2]);
}

}  // namespace
}  // namespace chaintag
