// Second-order lattices: every decoder against exhaustive enumeration of all N^M labelings.
#include "decode/second_order.h"

#include <algorithm>
#include <cmath>
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
using testing::LogSumExp;
using testing::MakeConstraint;
using testing::RandomConstraint;
using testing::RandomSecondOrder;
using testing::ReverseLexLess;
using testing::Scored;

TEST(SecondOrderTest, ScoreAddsTrigramsFromTheSecondPosition) {
  Lattice lattice(3, 2);
  lattice.EnableSecondOrder();
  EXPECT_EQ(lattice.order(), 2);
  lattice.trigram(lattice.bos(), 1, 0) = 1.5;  // (BOS, y0 = 1, y1 = 0)
  lattice.trigram(1, 0, 1) = 0.25;             // (y0 = 1, y1 = 0, y2 = 1)
  lattice.trigram(0, 1, 1) = 100;              // never used by {1, 0, 1}
  EXPECT_DOUBLE_EQ(lattice.Score({1, 0, 1}), 1.75);
  lattice.Reset(3, 2);
  EXPECT_EQ(lattice.order(), 1);
}

// Viterbi finds the best score, and with exact (integral) ties the labeling smallest read from the
// end; the AuxDp engine agrees.
TEST(SecondOrderTest, ViterbiEqualsEnumeration) {
  std::mt19937 rng(7);
  ViterbiScratch scratch;
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 1500; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    const bool integral = trial % 3 == 0;
    Lattice lattice = RandomSecondOrder(rng, m, n, integral, trial % 4 == 0 ? 0.3 : 0.0);
    // Large unary scores spread the pair scores far apart, so Viterbi's exact pruning of
    // hopeless labels two positions back takes effect.
    if (trial % 5 == 1) {
      for (int t = 0; t < m; ++t)
        for (double& x : lattice.unary_row(t)) x *= 8;
    }
    const std::vector<Scored> all = Enumerate(lattice, {});
    absl::StatusOr<Labeling> best = ViterbiDecode(lattice, &scratch);
    absl::StatusOr<Labeling> engine = ConstrainedDecode(lattice, {}, &decoder);
    if (all.empty()) {
      EXPECT_TRUE(IsInfeasible(best.status())) << best.status();
      EXPECT_TRUE(IsInfeasible(engine.status())) << engine.status();
      continue;
    }
    ASSERT_TRUE(best.ok()) << best.status();
    ASSERT_TRUE(engine.ok()) << engine.status();
    EXPECT_NEAR(best->score, all[0].score, 1e-9) << "trial " << trial;
    EXPECT_NEAR(engine->score, all[0].score, 1e-9) << "trial " << trial;
    EXPECT_NEAR(lattice.Score(best->labels), all[0].score, 1e-9);
    std::vector<int> expected = all[0].labels;
    for (const Scored& s : all) {
      if (s.score == all[0].score && ReverseLexLess(s.labels, expected)) expected = s.labels;
    }
    if (integral) {
      EXPECT_EQ(best->labels, expected) << "trial " << trial;
      EXPECT_EQ(engine->labels, expected) << "trial " << trial;
    } else {
      EXPECT_EQ(best->labels, all[0].labels) << "trial " << trial;
      EXPECT_EQ(engine->labels, all[0].labels) << "trial " << trial;
    }
  }
}

TEST(SecondOrderTest, ForwardBackwardEqualsEnumeration) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 600; ++trial) {
    const int m = 1 + trial % 5;
    const int n = 1 + (trial / 5) % 4;
    Lattice lattice = RandomSecondOrder(rng, m, n, false, trial % 3 == 0 ? 0.25 : 0.0);
    std::vector<double> scores;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) { scores.push_back(lattice.Score(y)); });
    const double log_z = LogSumExp(scores);
    absl::StatusOr<Marginals> marginals = ForwardBackward(lattice);
    absl::StatusOr<double> partition = LogPartition(lattice);
    if (log_z == kNegInf) {
      EXPECT_TRUE(IsInfeasible(marginals.status()));
      EXPECT_TRUE(IsInfeasible(partition.status()));
      continue;
    }
    ASSERT_TRUE(marginals.ok()) << marginals.status();
    ASSERT_TRUE(partition.ok()) << partition.status();
    EXPECT_NEAR(marginals->log_z, log_z, 1e-9);
    EXPECT_NEAR(*partition, log_z, 1e-9) << "m " << m << " n " << n << " trial " << trial;
    std::vector<double> unary(static_cast<size_t>(m) * n, 0.0);
    std::vector<double> transition(static_cast<size_t>(n) * n, 0.0);
    std::vector<double> trigram(static_cast<size_t>(n + 1) * n * n, 0.0);
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      const double s = lattice.Score(y);
      if (s == kNegInf) return;
      const double p = std::exp(s - log_z);
      for (int t = 0; t < m; ++t) {
        unary[static_cast<size_t>(t) * n + y[t]] += p;
        if (t == 0) continue;
        transition[static_cast<size_t>(y[t - 1]) * n + y[t]] += p;
        const int a = t == 1 ? n : y[t - 2];
        trigram[(static_cast<size_t>(a) * n + y[t - 1]) * n + y[t]] += p;
      }
    });
    for (size_t i = 0; i < unary.size(); ++i) EXPECT_NEAR(marginals->unary[i], unary[i], 1e-9);
    for (size_t i = 0; i < transition.size(); ++i)
      EXPECT_NEAR(marginals->transition[i], transition[i], 1e-9);
    ASSERT_EQ(marginals->trigram.size(), trigram.size());
    for (size_t i = 0; i < trigram.size(); ++i)
      EXPECT_NEAR(marginals->trigram[i], trigram[i], 1e-9);
    for (int y = 0; y < n; ++y) {
      EXPECT_NEAR(marginals->start[y], unary[y], 1e-9);
      EXPECT_NEAR(marginals->end[y], unary[static_cast<size_t>(m - 1) * n + y], 1e-9);
    }
  }
}

// k-best (with and without constraints), exclusion and diverse k-best against the filtered,
// sorted enumeration.
TEST(SecondOrderTest, KBestAndConstraintsEqualEnumeration) {
  std::mt19937 rng(23);
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 800; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    Lattice lattice = RandomSecondOrder(rng, m, n, false, trial % 3 == 0 ? 0.2 : 0.0);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    std::vector<RandomConstraint> constraints;
    std::vector<const Statistic*> stats;
    const int count = trial % 2;
    for (int i = 0; i < count; ++i) {
      constraints.push_back(MakeConstraint(rng, m, n, chunks, names));
      stats.push_back(constraints.back().statistic.get());
    }
    const std::vector<Scored> all = Enumerate(lattice, constraints);
    const int k = 1 + trial % 7;
    absl::StatusOr<std::vector<Labeling>> kbest = KBestDecode(lattice, k, stats, &decoder);
    if (all.empty()) {
      EXPECT_TRUE(IsInfeasible(kbest.status())) << kbest.status();
      continue;
    }
    ASSERT_TRUE(kbest.ok()) << kbest.status();
    ASSERT_EQ(kbest->size(), std::min<size_t>(k, all.size())) << "trial " << trial;
    for (size_t i = 0; i < kbest->size(); ++i) {
      EXPECT_NEAR((*kbest)[i].score, all[i].score, 1e-9) << "trial " << trial << " rank " << i;
      EXPECT_EQ((*kbest)[i].labels, all[i].labels) << "trial " << trial << " rank " << i;
    }
    // Excluding the best labeling gives the second one (or infeasible).
    absl::StatusOr<Labeling> excluded = ExclusionDecode(lattice, {all[0].labels}, stats, &decoder);
    if (all.size() == 1) {
      EXPECT_TRUE(IsInfeasible(excluded.status())) << excluded.status();
    } else {
      ASSERT_TRUE(excluded.ok()) << excluded.status();
      EXPECT_EQ(excluded->labels, all[1].labels) << "trial " << trial;
    }
    // Diverse 2-best at Hamming distance 2: the best labeling at least 2 tokens from the first.
    absl::StatusOr<std::vector<Labeling>> diverse =
        DiverseKBest(lattice, 2, 2, stats, nullptr, &decoder);
    ASSERT_TRUE(diverse.ok()) << diverse.status();
    const Scored* second = nullptr;
    for (const Scored& s : all) {
      int d = 0;
      for (int t = 0; t < m; ++t) d += s.labels[t] != all[0].labels[t];
      if (d >= 2) {
        second = &s;
        break;
      }
    }
    ASSERT_EQ(diverse->size(), second == nullptr ? 1u : 2u) << "trial " << trial;
    if (second != nullptr) {
      EXPECT_EQ((*diverse)[1].labels, second->labels) << "trial " << trial;
    }
  }
}

// Shared trigram scores (as a model's tagger sets them) decode the same, and a mutable access
// copies them rather than writing through.
TEST(SecondOrderTest, SharedTrigramScoresDecodeTheSame) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 50; ++trial) {
    Lattice owned = RandomSecondOrder(rng, 2 + trial % 5, 1 + trial % 4, false, 0.0);
    const int n = owned.num_labels();
    const std::vector<double> trigram(owned.trigram_data().begin(), owned.trigram_data().end());
    Lattice shared = owned;
    shared.ShareSecondOrder({trigram.data()});
    EXPECT_EQ(shared.order(), 2);
    absl::StatusOr<Labeling> a = ViterbiDecode(owned), b = ViterbiDecode(shared);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->labels, b->labels);
    EXPECT_EQ(a->score, b->score);
    // With the model's precomputed bounds and exponentiated scores too (as the tagger shares
    // them): the same labeling and log Z.
    const std::vector<double> bounds = decode_internal::TrigramBounds(trigram.data(), n);
    std::vector<double> exp(trigram.size());
    const double shift = decode_internal::ExpShifted(trigram.data(), trigram.size(), exp.data());
    Lattice tables = owned;
    tables.ShareSecondOrder({trigram.data(), bounds.data(), exp.data(), shift});
    absl::StatusOr<Labeling> c = ViterbiDecode(tables);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->labels, a->labels);
    absl::StatusOr<double> z_owned = LogPartition(owned), z_tables = LogPartition(tables);
    ASSERT_TRUE(z_owned.ok() && z_tables.ok());
    EXPECT_NEAR(*z_tables, *z_owned, 1e-12);
    shared.trigram(n, 0, 0) += 1.0;  // copy on write
    EXPECT_EQ(trigram[static_cast<size_t>(n) * n * n], owned.trigram(n, 0, 0));
    EXPECT_EQ(shared.trigram(n, 0, 0), owned.trigram(n, 0, 0) + 1.0);
  }
}

}  // namespace
}  // namespace chaintag
