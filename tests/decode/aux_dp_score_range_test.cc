#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "decode/aux_dp.h"
#include "decode/round.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ChunkLabels;
using testing::ForEachLabeling;
using testing::MakeConstraint;
using testing::RandomConstraint;
using testing::RandomLattice;
using testing::RandomSecondOrder;

Lattice RandomOfOrder(int order, std::mt19937& rng, int m, int n, bool integral, double p_masked) {
  return order == 2 ? RandomSecondOrder(rng, m, n, integral, p_masked)
                    : RandomLattice(rng, m, n, integral, p_masked);
}

// The documented guarantee on random lattices (of the given order), ranges and resolutions: the
// result's exact score is in range, it is within M * resolution of the best in-range labeling,
// and "infeasible" comes exactly when no labeling (under the extra constraints) scores in range.
void ExpectGuaranteeAgainstEnumeration(int order, int trials) {
  std::mt19937 rng(77);
  const double resolutions[] = {0.01, 0.05, 0.3, 1.0};
  int found = 0, infeasible = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int m = 1 + trial % 7;
    const int n = 1 + (trial / 7) % 4;
    Lattice lattice = RandomOfOrder(order, rng, m, n, trial % 5 == 0, trial % 4 == 0 ? 0.2 : 0.0);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    std::vector<RandomConstraint> constraints;
    std::vector<const Statistic*> stats;
    if (trial % 3 == 0) {
      constraints.push_back(MakeConstraint(rng, m, n, chunks, names));
      stats.push_back(constraints.back().statistic.get());
    }
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      const double s = lattice.Score(y);
      if (s == kNegInf) return;
      for (const RandomConstraint& c : constraints)
        if (!c.holds(y)) return;
      scores.push_back(s);
    });
    std::uniform_real_distribution<double> u(-6.0, 6.0);
    double lower = u(rng);
    if (!scores.empty() && trial % 2 == 0) lower = scores[rng() % scores.size()] - 0.01;
    const double upper = lower + std::uniform_real_distribution<double>(0.01, 3.0)(rng);
    const double resolution = resolutions[trial % 4];
    double best_in_range = kNegInf;
    for (double s : scores)
      if (s >= lower && s <= upper) best_in_range = std::max(best_in_range, s);
    double used = 0;
    auto got = ScoreRangeDecode(lattice, lower, upper, resolution, stats, &used);
    if (best_in_range == kNegInf) {
      ++infeasible;
      EXPECT_TRUE(IsInfeasible(got.status())) << got.status() << " trial " << trial;
      continue;
    }
    ++found;
    ASSERT_TRUE(got.ok()) << got.status() << " trial " << trial;
    EXPECT_EQ(got->score, lattice.Score(got->labels));
    EXPECT_GE(got->score, lower);
    EXPECT_LE(got->score, upper);
    EXPECT_LE(used, resolution);  // small lattices never need coarsening
    EXPECT_GE(got->score, best_in_range - m * used - 1e-9) << "trial " << trial;
    for (const RandomConstraint& c : constraints) EXPECT_TRUE(c.holds(got->labels));
  }
  EXPECT_GT(found, trials / 3);
  EXPECT_GT(infeasible, trials / 15);
}

TEST(ScoreRangeTest, GuaranteeHoldsAgainstEnumeration) {
  ExpectGuaranteeAgainstEnumeration(1, 1500);
}

// On second-order lattices the increments read the trigram score of the label two back (the
// engine's history component): the same guarantee.
TEST(ScoreRangeTest, GuaranteeHoldsOnSecondOrderLattices) {
  ExpectGuaranteeAgainstEnumeration(2, 1000);
}

// A fine resolution finds the exact in-range optimum when scores are far apart.
TEST(ScoreRangeTest, FineResolutionIsExactOnIntegerScores) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int m = 1 + trial % 5, n = 1 + trial % 3;
    Lattice lattice = RandomLattice(rng, m, n, true, 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) { scores.push_back(lattice.Score(y)); });
    const double lower = -3.5, upper = 1.5;
    double want = kNegInf;
    for (double s : scores)
      if (s >= lower && s <= upper) want = std::max(want, s);
    auto got = ScoreRangeDecode(lattice, lower, upper, 0.01);
    if (want == kNegInf) {
      EXPECT_TRUE(IsInfeasible(got.status()));
      continue;
    }
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->score, want);  // integer scores: any error below 0.5 lands on the optimum
  }
}

// A range open at one end needs few states: most partials are "free" or pruned; a fine
// resolution over a long sentence is coarsened to fit and reports the resolution used.
TEST(ScoreRangeTest, WideRangeFitsAndReportsResolution) {
  std::mt19937 rng(1);
  Lattice lattice = RandomLattice(rng, 40, 4, false, 0.0);
  auto stat = ScoreRangeStatistic::Create(lattice, -1e9, 1e9, 0.001);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ((*stat)->NumStates(), 2);  // everything is free
  double used = 0;
  auto best = ViterbiDecode(lattice);
  ASSERT_TRUE(best.ok());
  const double upper = best->score - 1.0;
  auto got = ScoreRangeDecode(lattice, -1e9, upper, 0.001, {}, &used);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_LE(got->score, upper);
  EXPECT_GE(used, 0.001);
  auto k = KBestDecode(lattice, 2000);  // the best in range is among these when not too far down
  ASSERT_TRUE(k.ok());
  for (const Labeling& l : *k) {
    if (l.score <= upper) {
      EXPECT_GE(got->score, l.score - 40 * used);
      break;
    }
  }
}

// A range holding the best labeling does not bind: the answer is that labeling, exactly (with and
// without a constraint), whatever the resolution.
TEST(ScoreRangeTest, NonBindingRangeReturnsTheBestLabeling) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const int m = 1 + trial % 30, n = 2 + trial % 4;
    Lattice lattice = RandomLattice(rng, m, n, false, 0.0);
    auto best = ViterbiDecode(lattice);
    ASSERT_TRUE(best.ok());
    double used = 0;
    auto got = ScoreRangeDecode(lattice, best->score - 0.5, best->score + 0.5, 10.0, {}, &used);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->labels, best->labels) << "trial " << trial;
    EXPECT_EQ(got->score, lattice.Score(best->labels));
    LabelCountStatistic at_most_one_zero(n, {0}, 0, 1);
    const Statistic* stats[] = {&at_most_one_zero};
    auto constrained = ConstrainedDecode(lattice, stats);
    ASSERT_TRUE(constrained.ok());
    auto in_range = ScoreRangeDecode(lattice, -1e9, 1e9, 0.001, stats, &used);
    ASSERT_TRUE(in_range.ok()) << in_range.status();
    EXPECT_EQ(in_range->labels, constrained->labels) << "trial " << trial;
  }
}

// A range one ulp wide refines the resolution to ~1e-19: the windows' cost estimates saturate
// instead of overflowing (UBSan found it through the request-grammar fuzzer), and the decode
// answers with a labeling, infeasible or resource-exhausted, never a crash.
TEST(ScoreRangeTest, RangeOneUlpWideDoesNotOverflowTheEstimates) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    Lattice lattice = RandomLattice(rng, 1 + trial % 6, 2 + trial % 3, trial % 2 == 1, 0.0);
    const double lower = 0.03, upper = std::nextafter(0.03, 1.0);
    double used = 0;
    auto got = ScoreRangeDecode(lattice, lower, upper, 0.001, {}, &used);
    if (got.ok()) {
      EXPECT_GE(got->score, lower - 1e-9);
      EXPECT_LE(got->score, upper + 1e-9);
    } else {
      EXPECT_TRUE(absl::IsNotFound(got.status()) || absl::IsResourceExhausted(got.status()) ||
                  absl::IsInvalidArgument(got.status()))
          << got.status();
    }
  }
}

TEST(ScoreRangeTest, BadArguments) {
  Lattice lattice(3, 2);
  EXPECT_EQ(ScoreRangeDecode(lattice, 1.0, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ScoreRangeDecode(lattice, 0.0, 1.0, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::mt19937 rng(4);
  Lattice big = RandomLattice(rng, 60, 4, false, 0.0);
  auto st = ScoreRangeStatistic::Create(big, -1.0, 1.0, 1e-6, 1000);
  EXPECT_EQ(st.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(st.status().message().find("--score-max-states"), std::string::npos);
}

// The statistic of a second-order lattice reads the engine's history; neither order's statistic
// runs on a lattice of the other order.
TEST(ScoreRangeTest, StatisticBuiltForOneOrderRefusesTheOther) {
  std::mt19937 rng(8);
  Lattice second = RandomSecondOrder(rng, 4, 3, false, 0.0);
  Lattice first = RandomLattice(rng, 4, 3, false, 0.0);
  auto for_second = ScoreRangeStatistic::Create(second, -1, 1, 0.1);
  auto for_first = ScoreRangeStatistic::Create(first, -1, 1, 0.1);
  ASSERT_TRUE(for_second.ok() && for_first.ok());
  EXPECT_TRUE((*for_second)->ReadsHistory());
  EXPECT_FALSE((*for_first)->ReadsHistory());
  AuxDpDecoder decoder;
  const Statistic* reads_history[] = {for_second->get()};
  absl::Status st = decoder.Run(first, reads_history);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("order 2; got order 1"), std::string::npos) << st;
  // The engine itself refuses any statistic that reads the history of a first-order lattice.
  struct ReadsHistoryOnly : Statistic {
    int NumStates() const override { return 1; }
    int Initial() const override { return 0; }
    int Next(int, int, int, int) const override { return 0; }
    bool ReadsHistory() const override { return true; }
  } history_reader;
  const Statistic* generic[] = {&history_reader};
  st = decoder.Run(first, generic);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("expected a second-order lattice"), std::string::npos) << st;
  EXPECT_TRUE(decoder.Run(second, generic).ok());
  const Statistic* plain[] = {for_first->get()};
  st = decoder.Run(second, plain);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("order 1; got order 2"), std::string::npos) << st;
}

TEST(ScoreRangeTest, EmptyLattice) {
  Lattice lattice(0, 2);
  EXPECT_TRUE(ScoreRangeDecode(lattice, -1, 1).ok());
  EXPECT_TRUE(IsInfeasible(ScoreRangeDecode(lattice, 1, 2).status()));
}

// Few states per position force the resolution beyond (upper - lower) / M: the result still lies
// in range within M * r of the best in-range labeling, "infeasible" is still exact, and an
// undecided sentence is ResourceExhausted, never a wrong answer.
TEST(ScoreRangeTest, CoarsenedBeyondTheRangeWidthKeepsTheGuarantee) {
  std::mt19937 rng(91);
  int found = 0, infeasible = 0, undecided = 0, coarse = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    const int m = 2 + trial % 6;
    const int n = 2 + (trial / 6) % 3;
    Lattice lattice = RandomOfOrder(1 + trial % 2, rng, m, n, false, 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) { scores.push_back(lattice.Score(y)); });
    const double lower = trial % 2 == 0 ? scores[rng() % scores.size()] - 0.05
                                        : std::uniform_real_distribution<double>(-6, 6)(rng);
    const double upper = lower + std::uniform_real_distribution<double>(0.05, 0.5)(rng);
    double best_in_range = kNegInf;
    for (double s : scores)
      if (s >= lower && s <= upper) best_in_range = std::max(best_in_range, s);
    double used = 0;
    auto got = ScoreRangeDecode(lattice, lower, upper, 0.001, {}, &used, /*max_states=*/2 * m + 2);
    if (used * m > upper - lower) ++coarse;
    if (got.ok()) {
      ++found;
      ASSERT_NE(best_in_range, kNegInf) << "trial " << trial;
      EXPECT_GE(got->score, lower);
      EXPECT_LE(got->score, upper);
      EXPECT_DOUBLE_EQ(got->score, lattice.Score(got->labels));
      EXPECT_LE(best_in_range - got->score, m * used + 1e-9) << "trial " << trial;
    } else if (IsInfeasible(got.status())) {
      ++infeasible;
      EXPECT_EQ(best_in_range, kNegInf) << "trial " << trial;
    } else {
      ++undecided;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted) << got.status();
      EXPECT_NE(got.status().message().find("undecided"), std::string::npos) << got.status();
    }
  }
  EXPECT_GT(found, 200);
  EXPECT_GT(infeasible, 50);
  EXPECT_GT(coarse, 300);
  EXPECT_LT(undecided, 1200 / 4);
}

// Ranges whose lower end is exactly some labeling's score, masked cells, both orders and few
// states: the one-pass search (no constraints) never loses a labeling to rounding (the exact
// extremes are compared with slack), so "infeasible" stays exact and answers stay in range.
TEST(ScoreRangeTest, ExactBoundariesMasksAndFewStates) {
  std::mt19937 rng(11);
  int found = 0, infeasible = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int m = 1 + rng() % 5, n = 1 + rng() % 4;
    const double p_masked = trial % 3 == 0 ? 0.25 : 0.0;
    Lattice lattice = RandomOfOrder(1 + trial % 2, rng, m, n, trial % 7 == 0, p_masked);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      if (const double s = lattice.Score(y); s != kNegInf) scores.push_back(s);
    });
    const double lower = scores.empty() ? 0 : scores[rng() % scores.size()] - 0.2 * (rng() % 3);
    const double upper = lower + 0.05 + 0.5 * (rng() % 4);
    double best_in_range = kNegInf;
    for (double s : scores)
      if (s >= lower && s <= upper) best_in_range = std::max(best_in_range, s);
    const double resolutions[] = {0.001, 0.05, 0.5};
    const int max_states = trial % 5 == 0 ? 2 + m : 1 << 16;
    double used = 0;
    auto got =
        ScoreRangeDecode(lattice, lower, upper, resolutions[trial % 3], {}, &used, max_states);
    if (got.ok()) {
      ++found;
      EXPECT_EQ(got->score, lattice.Score(got->labels));
      EXPECT_GE(got->score, lower);
      EXPECT_LE(got->score, upper);
      EXPECT_LE(best_in_range - got->score, m * used + 1e-9) << "trial " << trial;
    } else if (IsInfeasible(got.status())) {
      ++infeasible;
      EXPECT_EQ(best_in_range, kNegInf) << "trial " << trial;
    } else {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted) << got.status();
    }
  }
  EXPECT_GT(found, 2000);
  EXPECT_GT(infeasible, 500);
}

}  // namespace
}  // namespace chaintag

namespace chaintag {
namespace {

// With a constraint (the engine path), a resolution far finer than fits (1e-20, 1e-300) is
// coarsened as documented: the result comes at the finest resolution * 2^k whose states fit,
// never ResourceExhausted for want of doublings (issue 27 item 10).
TEST(ScoreRangeTest, FarTooFineResolutionIsCoarsenedWithConstraints) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    Lattice lattice = RandomLattice(rng, 25, 4, false, 0.0);
    auto best = ViterbiDecode(lattice);
    ASSERT_TRUE(best.ok());
    const double lower = best->score - 8.0, upper = best->score - 3.0;  // binding
    LabelCountStatistic count(4, {0}, 0, 25);  // a constraint every labeling meets
    const Statistic* constraints[] = {&count};
    for (const double resolution : {1e-20, 1e-300}) {
      double used = 0;
      auto got = ScoreRangeDecode(lattice, lower, upper, resolution, constraints, &used, 256);
      ASSERT_TRUE(got.ok() || IsInfeasible(got.status())) << resolution << ": " << got.status();
      if (got.ok()) {
        EXPECT_LE(got->score, upper);
      }
      EXPECT_GT(used, resolution);
      // used = resolution * 2^k, and half of it needs more than 256 states.
      const double k = std::log2(used / resolution);
      EXPECT_NEAR(k, std::round(k), 1e-6) << used;
      EXPECT_TRUE(ScoreRangeStatistic::Create(lattice, lower, upper, used, 256, false).ok());
      auto finer = ScoreRangeStatistic::Create(lattice, lower, upper, used / 2, 256, false);
      EXPECT_EQ(finer.status().code(), absl::StatusCode::kResourceExhausted) << used;
    }
  }
}

// When the decoder's cell limit caps the states below --score-max-states, a reason quoting the
// smaller number says where it comes from (issue 27 item 10: "more than 1792 states" with
// --score-max-states 65536).
TEST(ScoreRangeTest, ReasonExplainsACappedStateLimit) {
  std::mt19937 rng(17);
  int explained = 0;
  for (int trial = 0; trial < 400 && explained == 0; ++trial) {
    const int m = 4 + trial % 4;
    Lattice lattice = RandomLattice(rng, m, 3, false, 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, 3, [&](const std::vector<int>& y) { scores.push_back(lattice.Score(y)); });
    const double lower = scores[rng() % scores.size()] - 0.02;
    LabelCountStatistic count(3, {0}, 0, m);
    const Statistic* constraints[] = {&count};
    // Room for (m + 1) count states x 4 x 3 cells per position x about 3 range states.
    const int64_t bytes = int64_t{16} * m * 4 * 3 * (m + 1) * 3;
    auto got =
        ScoreRangeDecode(lattice, lower, lower + 0.04, 0.001, constraints, nullptr, 65536, bytes);
    if (got.ok() || IsInfeasible(got.status())) continue;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(got.status().message().find("--score-max-states 65536 is capped at 3 for this"),
              std::string::npos)
        << got.status();
    EXPECT_NE(got.status().message().find("(--decode-memory-mb)"), std::string::npos);
    ++explained;
  }
  EXPECT_EQ(explained, 1);
}

}  // namespace
}  // namespace chaintag

namespace chaintag {
namespace {

// Ranges far below the best labeling with few states per label (so a coarse step): labelings whose
// best completion cannot overshoot the range keep only their highest partial, exactly, so most of
// these are decided (three in four were undecided when such partials stayed in the windows), and
// every answer keeps the guarantee against enumeration, at both orders and with masks.
TEST(ScoreRangeTest, RangesFarBelowTheBestAreDecidedAtCoarseSteps) {
  std::mt19937 rng(2024);
  int found = 0, infeasible = 0, undecided = 0;
  const int trials = 1500;
  for (int trial = 0; trial < trials; ++trial) {
    const int m = 3 + trial % 5, n = 2 + (trial / 5) % 3;
    Lattice lattice = RandomOfOrder(1 + trial % 2, rng, m, n, false, trial % 4 == 0 ? 0.2 : 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      if (const double s = lattice.Score(y); s != kNegInf) scores.push_back(s);
    });
    if (scores.empty()) continue;
    const double best = *std::max_element(scores.begin(), scores.end());
    const double worst = *std::min_element(scores.begin(), scores.end());
    // A range in the lower part of the score spread, a tenth to a third of it wide.
    const double spread = best - worst;
    const double lower = worst + spread * std::uniform_real_distribution<double>(0.0, 0.5)(rng);
    const double upper = lower + spread * std::uniform_real_distribution<double>(0.1, 0.33)(rng);
    double best_in_range = kNegInf;
    for (double s : scores)
      if (s >= lower && s <= upper) best_in_range = std::max(best_in_range, s);
    double used = 0;
    auto got = ScoreRangeDecode(lattice, lower, upper, 0.001, {}, &used, /*max_states=*/3);
    if (got.ok()) {
      ++found;
      ASSERT_NE(best_in_range, kNegInf) << "trial " << trial;
      EXPECT_EQ(got->score, lattice.Score(got->labels));
      EXPECT_GE(got->score, lower);
      EXPECT_LE(got->score, upper);
      EXPECT_LE(best_in_range - got->score, m * used + 1e-9) << "trial " << trial;
    } else if (IsInfeasible(got.status())) {
      ++infeasible;
      EXPECT_EQ(best_in_range, kNegInf) << "trial " << trial;
    } else {
      ++undecided;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted) << got.status();
    }
  }
  EXPECT_GT(found, trials / 2);
  EXPECT_GT(infeasible, trials / 50);
  EXPECT_LT(undecided, trials / 3);  // 1120 of 1500 before (334 now)
}

}  // namespace
}  // namespace chaintag

namespace chaintag {
namespace {

// The search's inline rounding is std::nearbyint (default mode, ties to even) bit for bit.
TEST(ScoreRangeTest, RoundToNearestEvenIsNearbyint) {
  std::vector<double> values = {0.0,
                                -0.0,
                                0.5,
                                -0.5,
                                1.5,
                                -1.5,
                                2.5,
                                -2.5,
                                0.49999999999999994,
                                4503599627370495.5,
                                -4503599627370495.5,
                                4503599627370496.0,
                                9.5e18,
                                -1e300,
                                1e-300,
                                kNegInf,
                                -kNegInf};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200000; ++i) {
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 120) - 60);
    values.push_back(std::uniform_real_distribution<double>(-1, 1)(rng) * scale);
    values.push_back(static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) / 2);
  }
  for (double v : values) {
    const double want = std::nearbyint(v), got = RoundToNearestEven(v);
    EXPECT_EQ(got, want) << v;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << v;
  }
  EXPECT_TRUE(std::isnan(RoundToNearestEven(std::nan(""))));
}

// The search reuses its thread's cells from one sentence to the next: any order of sentences,
// larger or smaller than the last, gives the answers a fresh thread gives.
TEST(ScoreRangeTest, ReusedCellsGiveTheSameAnswers) {
  std::mt19937 rng(31);
  std::vector<Lattice> lattices;
  for (int i = 0; i < 60; ++i) {
    const int m = 2 + (i * 7) % 11, n = 2 + i % 4;
    lattices.push_back(RandomOfOrder(1 + i % 2, rng, m, n, false, i % 3 == 0 ? 0.2 : 0.0));
  }
  auto decode_all = [&](const std::vector<int>& order) {
    std::vector<std::string> out(lattices.size());
    for (int i : order) {
      const Lattice& l = lattices[i];
      double used = 0;
      // A range a little below the best labeling, with few states: the search binds and refines.
      auto best = ViterbiDecode(l);
      const double top = best.ok() ? l.Score(best->labels) : 0.0;
      auto got = ScoreRangeDecode(l, top - 2.0, top - 0.5, 0.001, {}, &used, 4);
      std::string s = got.ok() ? absl::StrCat(got->score, " ", used, ":")
                               : std::string(got.status().ToString());
      if (got.ok())
        for (int y : got->labels) absl::StrAppend(&s, " ", y);
      out[i] = s;
    }
    return out;
  };
  std::vector<int> forward(lattices.size()), backward;
  for (size_t i = 0; i < forward.size(); ++i) forward[i] = static_cast<int>(i);
  backward.assign(forward.rbegin(), forward.rend());
  std::vector<std::string> fresh;
  std::thread([&] { fresh = decode_all(forward); }).join();
  EXPECT_EQ(decode_all(backward), fresh);
  EXPECT_EQ(decode_all(forward), fresh);
  int ok = 0;
  for (const std::string& s : fresh) ok += s.find(':') != std::string::npos;
  EXPECT_GT(ok, 10);
}

}  // namespace
}  // namespace chaintag
