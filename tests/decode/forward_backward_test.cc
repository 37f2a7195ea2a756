#include <cmath>
#include <random>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ForEachLabeling;
using testing::RandomLattice;

TEST(ForwardBackwardTest, EmptyLattice) {
  Lattice lattice(0, 2);
  auto z = LogPartition(lattice);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(*z, 0.0);
  auto marg = ForwardBackward(lattice);
  ASSERT_TRUE(marg.ok());
  EXPECT_TRUE(marg->unary.empty());
}

TEST(ForwardBackwardTest, AllMaskedIsInfeasible) {
  Lattice lattice(2, 2);
  for (int y = 0; y < 2; ++y) lattice.end(y) = kNegInf;
  EXPECT_EQ(LogPartition(lattice).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ForwardBackward(lattice).status().code(), absl::StatusCode::kNotFound);
}

// log Z equals log-sum-exp over all labelings and every marginal equals its brute-force value.
TEST(ForwardBackwardTest, MatchesBruteForceOnRandomLattices) {
  std::mt19937 rng(5);
  ForwardBackwardScratch scratch;
  for (int trial = 0; trial < 1000; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    Lattice lattice = RandomLattice(rng, m, n, false, trial % 4 == 0 ? 0.25 : 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) { scores.push_back(lattice.Score(y)); });
    const double log_z = testing::LogSumExp(scores);
    auto marg = ForwardBackward(lattice, &scratch);
    auto z = LogPartition(lattice, &scratch);
    if (log_z == kNegInf) {
      EXPECT_EQ(marg.status().code(), absl::StatusCode::kNotFound);
      EXPECT_EQ(z.status().code(), absl::StatusCode::kNotFound);
      continue;
    }
    ASSERT_TRUE(marg.ok()) << marg.status();
    ASSERT_TRUE(z.ok()) << z.status();
    EXPECT_NEAR(*z, log_z, 1e-9);
    EXPECT_NEAR(marg->log_z, log_z, 1e-9);
    std::vector<double> unary(static_cast<size_t>(m) * n, 0.0), trans(n * n, 0.0), start(n, 0.0),
        end(n, 0.0);
    int k = 0;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      const double s = scores[k++];
      if (s == kNegInf) return;
      const double p = std::exp(s - log_z);
      for (int t = 0; t < m; ++t) {
        unary[t * n + y[t]] += p;
        if (t > 0) trans[y[t - 1] * n + y[t]] += p;
      }
      start[y[0]] += p;
      end[y[m - 1]] += p;
    });
    for (int t = 0; t < m; ++t) {
      double sum = 0;
      for (int y = 0; y < n; ++y) {
        EXPECT_NEAR(marg->unary_at(t, y, n), unary[t * n + y], 1e-9);
        sum += marg->unary_at(t, y, n);
      }
      EXPECT_NEAR(sum, 1.0, 1e-9);
    }
    double trans_sum = 0;
    for (int i = 0; i < n * n; ++i) {
      EXPECT_NEAR(marg->transition[i], trans[i], 1e-9);
      trans_sum += marg->transition[i];
    }
    EXPECT_NEAR(trans_sum, m - 1, 1e-9);  // one transition per adjacent pair
    for (int y = 0; y < n; ++y) {
      EXPECT_NEAR(marg->start[y], start[y], 1e-9);
      EXPECT_NEAR(marg->end[y], end[y], 1e-9);
    }
  }
}

// Large scores must not overflow: log space keeps log Z finite.
TEST(ForwardBackwardTest, StableForLargeScores) {
  Lattice lattice(50, 3);
  for (int t = 0; t < 50; ++t)
    for (int y = 0; y < 3; ++y) lattice.unary(t, y) = 800.0 + y;
  auto z = LogPartition(lattice);
  ASSERT_TRUE(z.ok());
  EXPECT_TRUE(std::isfinite(*z));
  EXPECT_GT(*z, 50 * 802.0);
}

}  // namespace
}  // namespace chaintag
