#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "decode/aux_dp.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ChunkLabels;
using testing::ForEachLabeling;
using testing::Names;
using testing::RunStatistic;

// Each statistic's state after a labeling is what its definition says, on every labeling.
TEST(StatisticsTest, LabelCountCountsAndCaps) {
  LabelCountStatistic stat(3, {0, 2}, 1, 2);
  EXPECT_EQ(stat.NumStates(), 3);
  ForEachLabeling(5, 3, [&](const std::vector<int>& y) {
    const int count = std::count(y.begin(), y.end(), 0) + std::count(y.begin(), y.end(), 2);
    const int state = RunStatistic(stat, y);
    if (count > 2) {
      EXPECT_EQ(state, Statistic::kInfeasible);
    } else {
      EXPECT_EQ(state, count);
      EXPECT_EQ(stat.Accepts(state), count >= 1);
    }
  });
  LabelCountStatistic open_upper(3, {1}, 2, -1);
  EXPECT_EQ(open_upper.NumStates(), 3);
  EXPECT_EQ(RunStatistic(open_upper, {1, 1, 1, 1}), 2);
  EXPECT_TRUE(open_upper.Accepts(2));
  EXPECT_FALSE(open_upper.Accepts(1));
}

TEST(StatisticsTest, ChunkCountCountsChunkStartsOfAType) {
  const std::vector<std::string> names = ChunkLabels(4);
  ChunkTable table(names);
  int np = -1;
  for (int t = 0; t < table.num_types(); ++t)
    if (table.type_name(t) == "NP") np = t;
  ASSERT_GE(np, 0);
  ChunkCountStatistic stat(table, {np}, 0, 3);
  ForEachLabeling(6, 4, [&](const std::vector<int>& y) {
    int count = 0;
    for (const Chunk& c : ExtractChunks(Names(names, y))) count += c.type == "NP";
    const int state = RunStatistic(stat, y);
    EXPECT_EQ(state, count > 3 ? Statistic::kInfeasible : count);
  });
}

TEST(StatisticsTest, HammingDistanceCapsAtMinimum) {
  const std::vector<int> ref = {0, 1, 2, 0};
  HammingDistanceStatistic stat(ref, 2);
  ForEachLabeling(4, 3, [&](const std::vector<int>& y) {
    int d = 0;
    for (int t = 0; t < 4; ++t) d += y[t] != ref[t];
    EXPECT_EQ(RunStatistic(stat, y), std::min(d, 2));
    EXPECT_EQ(stat.Accepts(RunStatistic(stat, y)), d >= 2);
  });
}

TEST(StatisticsTest, ChunkDistanceCountsUnsharedChunks) {
  const std::vector<std::string> names = ChunkLabels(4);
  ChunkTable table(names);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> ref(5);
    for (int& l : ref) l = rng() % 4;
    const std::vector<Chunk> theirs = ExtractChunks(Names(names, ref));
    ChunkDistanceStatistic stat(table, ref, 5);  // cap above any possible count
    ForEachLabeling(5, 4, [&](const std::vector<int>& y) {
      int d = 0;
      for (const Chunk& c : ExtractChunks(Names(names, y)))
        d += std::find(theirs.begin(), theirs.end(), c) == theirs.end();
      EXPECT_EQ(RunStatistic(stat, y) / 3, d);
      EXPECT_EQ(RunStatistic(stat, y) % 3, 0);  // the sentence end closes every phrase
    });
  }
}

TEST(StatisticsTest, ChunkDistanceRejectsMismatchedLabels) {
  ChunkTable table(ChunkLabels(3));
  ChunkDistanceStatistic stat(table, {0, 1}, 1);
  EXPECT_FALSE(stat.Validate(Lattice(2, 4)).ok());
  EXPECT_FALSE(stat.Validate(Lattice(3, 3)).ok());
  EXPECT_TRUE(stat.Validate(Lattice(2, 3)).ok());
}

}  // namespace
}  // namespace chaintag
