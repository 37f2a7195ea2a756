#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "decode/aux_dp.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ChunkLabels;
using testing::Enumerate;
using testing::ForEachLabeling;
using testing::MakeConstraint;
using testing::Names;
using testing::RandomConstraint;
using testing::RandomLattice;
using testing::ReverseLexLess;
using testing::Scored;

// k-best equals the top K of the sorted enumeration: same scores, same sequences where the score
// is not tied, all distinct and all satisfying the constraints.
TEST(KBestTest, MatchesSortedEnumeration) {
  std::mt19937 rng(41);
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 1500; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    const bool integral = trial % 4 == 0;
    Lattice lattice = RandomLattice(rng, m, n, integral, trial % 3 == 0 ? 0.2 : 0.0);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    std::vector<RandomConstraint> constraints;
    std::vector<const Statistic*> stats;
    const int count = std::uniform_int_distribution<int>(0, 2)(rng);
    for (int i = 0; i < count; ++i) {
      constraints.push_back(MakeConstraint(rng, m, n, chunks, names));
      stats.push_back(constraints.back().statistic.get());
    }
    const int k = std::uniform_int_distribution<int>(1, 12)(rng);
    const std::vector<Scored> all = Enumerate(lattice, constraints);
    auto got = KBestDecode(lattice, k, stats, &decoder);
    if (all.empty()) {
      EXPECT_TRUE(IsInfeasible(got.status())) << got.status() << " trial " << trial;
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), std::min<size_t>(k, all.size())) << "trial " << trial;
    for (size_t i = 0; i < got->size(); ++i) {
      const Labeling& l = (*got)[i];
      EXPECT_NEAR(l.score, all[i].score, 1e-9) << "trial " << trial << " rank " << i;
      EXPECT_EQ(l.score, lattice.Score(l.labels));
      for (const RandomConstraint& c : constraints) EXPECT_TRUE(c.holds(l.labels));
      for (size_t j = 0; j < i; ++j) EXPECT_NE(l.labels, (*got)[j].labels);
      const bool tied = (i > 0 && all[i - 1].score == all[i].score) ||
                        (i + 1 < all.size() && all[i + 1].score == all[i].score);
      if (!tied && !integral) {
        EXPECT_EQ(l.labels, all[i].labels) << "trial " << trial << " rank " << i;
      }
    }
  }
}

// Without constraints KBestDecode takes the plain chain k-best; it lists the same labelings in
// the same order as the engine (ties included: integral scores tie often) and matches the
// enumeration.
TEST(KBestTest, ChainKBestEqualsTheEngineAndTheEnumeration) {
  std::mt19937 rng(43);
  AuxDpDecoder engine, chain;
  for (int trial = 0; trial < 700; ++trial) {
    const int m = 1 + trial % 7;
    const int n = 1 + (trial / 7) % 5;
    Lattice lattice = RandomLattice(rng, m, n, trial % 2 == 0, trial % 3 == 0 ? 0.25 : 0.0);
    const int k = 1 + static_cast<int>(rng() % 40);
    ASSERT_TRUE(engine.Run(lattice, {}).ok());
    absl::StatusOr<std::vector<Labeling>> want = engine.KBest(k);
    absl::StatusOr<std::vector<Labeling>> got = chain.ChainKBest(lattice, k);
    ASSERT_EQ(got.ok(), want.ok()) << "trial " << trial << ": " << got.status();
    if (!want.ok()) {
      EXPECT_TRUE(IsInfeasible(got.status()));
      EXPECT_TRUE(Enumerate(lattice, {}).empty());
      continue;
    }
    ASSERT_EQ(got->size(), want->size()) << "trial " << trial;
    const std::vector<Scored> all = Enumerate(lattice, {});
    ASSERT_EQ(got->size(), std::min<size_t>(k, all.size())) << "trial " << trial;
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].labels, (*want)[i].labels) << "trial " << trial << " rank " << i;
      EXPECT_EQ((*got)[i].score, (*want)[i].score);
      EXPECT_EQ((*got)[i].score, all[i].score) << "trial " << trial << " rank " << i;
    }
  }
}

TEST(KBestTest, ChainKBestStopsAtTheMemoryBound) {
  std::mt19937 rng(5);
  Lattice lattice = RandomLattice(rng, 60, 5, false, 0.0);
  AuxDpDecoder decoder;
  decoder.set_max_bytes(int64_t{1} << 20);
  // Refused up front: the answer alone would not fit.
  absl::StatusOr<std::vector<Labeling>> got = KBestDecode(lattice, 1000000, {}, &decoder);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(got.status().message().find("k-best needs more than 1 MB (the limit): 1000000"),
            std::string::npos)
      << got.status();
  // Stopped on the way: the heap of deviations outgrows the bound before 3000 paths.
  got = KBestDecode(lattice, 3000, {}, &decoder);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(got.status().message().find("of 3000 labelings of a 60-token sentence"),
            std::string::npos)
      << got.status();
  decoder.set_max_bytes(int64_t{64} << 20);
  got = KBestDecode(lattice, 3000, {}, &decoder);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 3000u);
}

TEST(KBestTest, AllLabelingsInOrderWhenKIsLarge) {
  std::mt19937 rng(2);
  Lattice lattice = RandomLattice(rng, 4, 3, false, 0.0);
  auto got = KBestDecode(lattice, 1000);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 81u);
  for (size_t i = 1; i < got->size(); ++i) EXPECT_GE((*got)[i - 1].score, (*got)[i].score);
}

TEST(ExclusionTest, BestNotExcludedMatchesEnumeration) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 800; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    Lattice lattice = RandomLattice(rng, m, n, false, 0.1);
    const std::vector<Scored> all = Enumerate(lattice, {});
    std::vector<std::vector<int>> excluded;
    // Exclude some of the best labelings plus random ones.
    for (size_t i = 0; i < all.size() && i < 4; ++i)
      if (std::bernoulli_distribution(0.7)(rng)) excluded.push_back(all[i].labels);
    for (int i = 0; i < 2; ++i) {
      std::vector<int> y(m);
      for (int& l : y) l = std::uniform_int_distribution<int>(0, n - 1)(rng);
      excluded.push_back(y);
    }
    const Scored* want = nullptr;
    for (const Scored& s : all) {
      if (std::find(excluded.begin(), excluded.end(), s.labels) == excluded.end()) {
        want = &s;
        break;
      }
    }
    auto got = ExclusionDecode(lattice, excluded);
    if (want == nullptr) {
      EXPECT_TRUE(IsInfeasible(got.status())) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_NEAR(got->score, want->score, 1e-9);
    EXPECT_EQ(std::find(excluded.begin(), excluded.end(), got->labels), excluded.end());
  }
}

// Diverse k-best equals the greedy sequential definition by enumeration (Hamming and chunk
// distance, with and without a count constraint), ties broken as ConstrainedDecode breaks them.
TEST(DiverseKBestTest, MatchesGreedyEnumeration) {
  std::mt19937 rng(99);
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 800; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    Lattice lattice = RandomLattice(rng, m, n, true, trial % 4 == 0 ? 0.2 : 0.0);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    const bool by_chunks = trial % 2 == 1;
    const int k = std::uniform_int_distribution<int>(1, 4)(rng);
    const int d = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<RandomConstraint> constraints;
    std::vector<const Statistic*> stats;
    if (trial % 3 == 0) {
      constraints.push_back(MakeConstraint(rng, m, n, chunks, names));
      stats.push_back(constraints.back().statistic.get());
    }
    auto distance = [&](const std::vector<int>& a, const std::vector<int>& b) {
      int dist = 0;
      if (by_chunks) {
        const std::vector<Chunk> theirs = ExtractChunks(Names(names, b));
        for (const Chunk& c : ExtractChunks(Names(names, a)))
          dist += std::find(theirs.begin(), theirs.end(), c) == theirs.end();
      } else {
        for (size_t t = 0; t < a.size(); ++t) dist += a[t] != b[t];
      }
      return dist;
    };
    std::vector<std::vector<int>> want;
    for (int j = 0; j < k; ++j) {
      std::vector<int> arg;
      double best = kNegInf;
      ForEachLabeling(m, n, [&](const std::vector<int>& y) {
        const double s = lattice.Score(y);
        if (s == kNegInf) return;
        for (const RandomConstraint& c : constraints)
          if (!c.holds(y)) return;
        for (const std::vector<int>& w : want)
          if (distance(y, w) < d) return;
        if (arg.empty() || s > best || (s == best && ReverseLexLess(y, arg))) {
          best = s;
          arg = y;
        }
      });
      if (arg.empty()) break;
      want.push_back(arg);
    }
    auto got = DiverseKBest(lattice, k, d, stats, by_chunks ? &chunks : nullptr, &decoder);
    if (want.empty()) {
      EXPECT_TRUE(IsInfeasible(got.status())) << got.status() << " trial " << trial;
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want.size()) << "trial " << trial;
    for (size_t j = 0; j < want.size(); ++j) {
      EXPECT_EQ((*got)[j].labels, want[j]) << "trial " << trial << " rank " << j;
    }
  }
}

// Memory bounds: a request that would exceed the decoder's limit returns ResourceExhausted naming
// the limit, before (Run, DiverseKBest) or while (KBest) it is allocated; within it, results are
// unchanged.
TEST(AuxDpLimitsTest, KBestStopsAtTheMemoryBound) {
  std::mt19937 rng(5);
  const Lattice lattice = RandomLattice(rng, 12, 4, false, 0.0);
  AuxDpDecoder decoder;
  decoder.set_max_bytes(int64_t{2} << 20);
  auto huge = KBestDecode(lattice, 1000000, {}, &decoder);
  ASSERT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted) << huge.status();
  EXPECT_NE(huge.status().message().find("k-best needs more than 2 MB"), std::string::npos);
  auto small = KBestDecode(lattice, 50, {}, &decoder);
  ASSERT_TRUE(small.ok()) << small.status();
  AuxDpDecoder unbounded;
  auto same = KBestDecode(lattice, 50, {}, &unbounded);
  ASSERT_TRUE(same.ok());
  ASSERT_EQ(small->size(), same->size());
  for (size_t i = 0; i < same->size(); ++i) EXPECT_EQ((*small)[i].labels, (*same)[i].labels);
}

TEST(AuxDpLimitsTest, RunRefusesBeforeAllocating) {
  std::mt19937 rng(6);
  const Lattice lattice = RandomLattice(rng, 200, 20, false, 0.0);
  const LabelCountStatistic count(20, {1}, 0, 199);  // 201 states: 200*20*201 cells
  AuxDpDecoder decoder;
  decoder.set_max_bytes(int64_t{4} << 20);
  const Statistic* stats[] = {&count};
  absl::Status status = decoder.Run(lattice, stats);
  ASSERT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_NE(status.message().find("above the limit of 4 MB"), std::string::npos) << status;
  decoder.set_max_bytes(int64_t{64} << 20);
  EXPECT_TRUE(decoder.Run(lattice, stats).ok());
}

TEST(AuxDpLimitsTest, DiverseKBestRefusesUpFrontAndStopsWhenNothingIsFarEnough) {
  std::mt19937 rng(7);
  const Lattice lattice = RandomLattice(rng, 10, 5, false, 0.0);
  AuxDpDecoder decoder;
  decoder.set_max_bytes(int64_t{64} << 20);
  auto refused = DiverseKBest(lattice, 50, 5, {}, nullptr, &decoder);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_NE(refused.status().message().find("diverse k-best of 50 labelings at distance 5"),
            std::string::npos);
  // No two labelings of 10 tokens are 11 apart: the best one only, without any search.
  auto one = DiverseKBest(lattice, 50, 11, {}, nullptr, &decoder);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].labels, ViterbiDecode(lattice)->labels);
}

}  // namespace
}  // namespace chaintag
