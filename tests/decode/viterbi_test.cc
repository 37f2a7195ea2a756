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
using testing::ReverseLexLess;

TEST(ViterbiDecodeTest, EmptyLatticeGivesEmptyLabeling) {
  Lattice lattice(0, 3);
  auto best = ViterbiDecode(lattice);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_TRUE(best->labels.empty());
  EXPECT_EQ(best->score, 0.0);
}

TEST(ViterbiDecodeTest, AllMaskedIsInfeasible) {
  Lattice lattice(3, 2);
  for (int y = 0; y < 2; ++y) lattice.unary(1, y) = kNegInf;
  auto best = ViterbiDecode(lattice);
  EXPECT_EQ(best.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(best.status().message().find("infeasible"), std::string::npos);
}

// Compares ViterbiDecode with the best of all N^M labelings (ties: reverse-lexicographically
// smallest, checked on integer lattices); returns 1 if some labeling is feasible.
int CheckAgainstBruteForce(const Lattice& lattice, bool integral, int trial,
                           ViterbiScratch* scratch) {
  const int m = lattice.size(), n = lattice.num_labels();
  double best = kNegInf;
  std::vector<int> arg;
  ForEachLabeling(m, n, [&](const std::vector<int>& y) {
    const double s = lattice.Score(y);
    if (s == kNegInf) return;
    if (arg.empty() || s > best || (s == best && ReverseLexLess(y, arg))) {
      best = s;
      arg = y;
    }
  });
  auto got = ViterbiDecode(lattice, scratch);
  if (arg.empty()) {
    EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound) << "trial " << trial;
    return 0;
  }
  EXPECT_TRUE(got.ok()) << got.status() << " trial " << trial;
  if (!got.ok()) return 1;
  EXPECT_NEAR(got->score, best, 1e-9) << "trial " << trial;
  EXPECT_NEAR(lattice.Score(got->labels), got->score, 1e-9);
  if (integral) {
    EXPECT_EQ(got->labels, arg) << "trial " << trial;
  }
  return 1;
}

// Equals the best of all N^M labelings, ties broken towards the reverse-lexicographically smallest.
TEST(ViterbiDecodeTest, MatchesBruteForceOnRandomLattices) {
  std::mt19937 rng(17);
  ViterbiScratch scratch;
  int feasible = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    const bool integral = trial % 2 == 0;  // integer scores create exact ties
    Lattice lattice = RandomLattice(rng, m, n, integral, trial % 3 == 0 ? 0.3 : 0.0);
    feasible += CheckAgainstBruteForce(lattice, integral, trial, &scratch);
  }
  EXPECT_GT(feasible, 1000);
}

// Label counts around the vector widths of the decoder (blocks of 16 and 4 labels, padding),
// with short lattices so that all N^M labelings can still be enumerated.
TEST(ViterbiDecodeTest, MatchesBruteForceWithManyLabels) {
  std::mt19937 rng(29);
  ViterbiScratch scratch;
  const std::vector<int> label_counts = {5, 7, 15, 16, 17, 21, 23, 33, 50, 53};
  int feasible = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = label_counts[trial % label_counts.size()];
    const int m = 1 + trial % (n > 25 ? 3 : 4);
    const bool integral = trial % 2 == 0;
    Lattice lattice = RandomLattice(rng, m, n, integral, trial % 3 == 0 ? 0.6 : 0.0);
    feasible += CheckAgainstBruteForce(lattice, integral, trial, &scratch);
  }
  EXPECT_GT(feasible, 60);
}

}  // namespace
}  // namespace chaintag
