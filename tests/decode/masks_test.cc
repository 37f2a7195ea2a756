#include <string>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

int Id(const std::vector<std::string>& labels, const std::string& l) {
  for (int i = 0; i < static_cast<int>(labels.size()); ++i)
    if (labels[i] == l) return i;
  return -1;
}

TEST(InferChunkTransitionMaskTest, Iob2InsideNeedsSameTypeBeforeIt) {
  const std::vector<std::string> labels = {"O", "B-NP", "I-NP", "B-VP", "I-VP"};
  TransitionMask mask = InferChunkTransitionMask(labels, {});
  const int n = labels.size();
  auto allowed = [&](const std::string& a, const std::string& b) {
    return mask.allowed[Id(labels, a) * n + Id(labels, b)] != 0;
  };
  EXPECT_TRUE(allowed("B-NP", "I-NP"));
  EXPECT_TRUE(allowed("I-NP", "I-NP"));
  EXPECT_FALSE(allowed("O", "I-NP"));
  EXPECT_FALSE(allowed("B-VP", "I-NP"));
  EXPECT_TRUE(allowed("I-NP", "B-NP"));
  EXPECT_TRUE(allowed("I-VP", "O"));
  EXPECT_FALSE(mask.allowed_start[Id(labels, "I-NP")]);
  EXPECT_TRUE(mask.allowed_start[Id(labels, "B-NP")]);
  for (int y = 0; y < n; ++y) EXPECT_TRUE(mask.allowed_end[y]);
}

TEST(InferChunkTransitionMaskTest, ObservedTransitionsStayAllowed) {
  // IOB1: I-NP legitimately follows O and starts sentences.
  const std::vector<std::string> labels = {"O", "I-NP", "B-NP"};
  const int n = labels.size();
  std::vector<char> observed((n + 1) * n, 0);
  observed[0 * n + 1] = 1;        // start -> I-NP
  observed[(0 + 1) * n + 1] = 1;  // O -> I-NP
  TransitionMask mask = InferChunkTransitionMask(labels, observed);
  EXPECT_TRUE(mask.allowed_start[1]);
  EXPECT_TRUE(mask.allowed[0 * n + 1]);
}

TEST(InferChunkTransitionMaskTest, IobesPhrasesMustClose) {
  const std::vector<std::string> labels = {"O", "B-NP", "I-NP", "E-NP", "S-NP"};
  TransitionMask mask = InferChunkTransitionMask(labels, {});
  const int n = labels.size();
  EXPECT_FALSE(mask.allowed[1 * n + 0]);  // B-NP -> O
  EXPECT_TRUE(mask.allowed[1 * n + 3]);   // B-NP -> E-NP
  EXPECT_FALSE(mask.allowed[0 * n + 3]);  // O -> E-NP
  EXPECT_TRUE(mask.allowed[3 * n + 4]);   // E-NP -> S-NP
  EXPECT_FALSE(mask.allowed_end[1]);
  EXPECT_TRUE(mask.allowed_end[3]);
}

TEST(InferChunkTransitionMaskTest, NonChunkLabelsAreFree) {
  const std::vector<std::string> labels = {"NN", "VB", "I-"};
  TransitionMask mask = InferChunkTransitionMask(labels, {});
  for (char a : mask.allowed) EXPECT_TRUE(a);
  for (char a : mask.allowed_start) EXPECT_TRUE(a);
}

TEST(ApplyTransitionMaskTest, MaskedTransitionsAreNeverDecoded) {
  const std::vector<std::string> labels = {"O", "B-NP", "I-NP"};
  Lattice lattice(4, 3);
  for (int t = 0; t < 4; ++t) lattice.unary(t, 2) = 5.0;  // I-NP everywhere is tempting
  ApplyTransitionMask(InferChunkTransitionMask(labels, {}), &lattice);
  EXPECT_EQ(lattice.transition(0, 2), kNegInf);
  EXPECT_EQ(lattice.start(2), kNegInf);
  auto best = ViterbiDecode(lattice);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->labels, (std::vector<int>{1, 2, 2, 2}));
}

TEST(ApplyForcedLabelsTest, ForcedPositionsKeepOnlyTheirLabel) {
  Lattice lattice(3, 3);
  lattice.unary(1, 0) = 10.0;
  const std::vector<int> forced = {-1, 2, -1};
  ApplyForcedLabels(forced, &lattice);
  EXPECT_EQ(lattice.unary(1, 0), kNegInf);
  EXPECT_EQ(lattice.unary(1, 2), 0.0);
  EXPECT_EQ(lattice.unary(0, 0), 0.0);
  auto best = ViterbiDecode(lattice);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->labels[1], 2);
}

}  // namespace
}  // namespace chaintag
