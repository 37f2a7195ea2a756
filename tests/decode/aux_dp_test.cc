#include "decode/aux_dp.h"

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::ChunkLabels;
using testing::ForEachLabeling;
using testing::MakeConstraint;
using testing::Names;
using testing::RandomConstraint;
using testing::RandomLattice;
using testing::ReverseLexLess;

TEST(AuxDpTest, NoStatisticsEqualsViterbi) {
  std::mt19937 rng(3);
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 300; ++trial) {
    Lattice lattice = RandomLattice(rng, 1 + trial % 7, 1 + trial % 4, trial % 2 == 0, 0.1);
    auto a = ConstrainedDecode(lattice, {}, &decoder);
    auto b = ViterbiDecode(lattice);
    ASSERT_EQ(a.ok(), b.ok());
    if (!a.ok()) {
      EXPECT_TRUE(IsInfeasible(a.status()));
      continue;
    }
    EXPECT_EQ(a->labels, b->labels);
    EXPECT_EQ(a->score, b->score);
  }
}

// Every combination of up to three random constraints equals exhaustive enumeration, including
// the tie-break (higher F, then reverse-lexicographically smallest) on integer-valued lattices.
TEST(AuxDpTest, RandomConstraintsMatchEnumeration) {
  std::mt19937 rng(11);
  AuxDpDecoder decoder;
  int feasible = 0, infeasible = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int m = 1 + trial % 7;
    const int n = 1 + (trial / 7) % 4;
    const bool integral = trial % 3 != 0;
    Lattice lattice = RandomLattice(rng, m, n, integral, trial % 5 == 0 ? 0.2 : 0.0);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    std::vector<RandomConstraint> constraints;
    const int count = std::uniform_int_distribution<int>(0, 3)(rng);
    std::vector<const Statistic*> stats;
    for (int i = 0; i < count; ++i) {
      constraints.push_back(MakeConstraint(rng, m, n, chunks, names));
      stats.push_back(constraints.back().statistic.get());
    }
    double best = kNegInf;
    std::vector<int> arg;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      const double s = lattice.Score(y);
      if (s == kNegInf) return;
      for (const RandomConstraint& c : constraints)
        if (!c.holds(y)) return;
      if (arg.empty() || s > best || (s == best && ReverseLexLess(y, arg))) {
        best = s;
        arg = y;
      }
    });
    auto got = ConstrainedDecode(lattice, stats, &decoder);
    if (arg.empty()) {
      ++infeasible;
      EXPECT_TRUE(IsInfeasible(got.status())) << got.status() << " trial " << trial;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(got.ok()) << got.status() << " trial " << trial;
    EXPECT_NEAR(got->score, best, 1e-9) << "trial " << trial;
    for (const RandomConstraint& c : constraints) EXPECT_TRUE(c.holds(got->labels));
    if (integral) {
      EXPECT_EQ(got->labels, arg) << "trial " << trial;
    }
  }
  EXPECT_GT(feasible, 500);
  EXPECT_GT(infeasible, 100);
}

// Runs both decoders on the lattice (each with its statistics) and expects the same best labeling,
// final state and 4-best list.
void ExpectSameResults(const Lattice& lattice, AuxDpDecoder* a,
                       absl::Span<const Statistic* const> a_stats, AuxDpDecoder* b,
                       absl::Span<const Statistic* const> b_stats, int trial) {
  ASSERT_TRUE(a->Run(lattice, a_stats).ok());
  ASSERT_TRUE(b->Run(lattice, b_stats).ok());
  int state_a = -1, state_b = -1;
  auto best_a = a->BestAccepted(&state_a);
  auto best_b = b->BestAccepted(&state_b);
  ASSERT_EQ(best_a.ok(), best_b.ok()) << "trial " << trial;
  if (!best_a.ok()) return;
  EXPECT_EQ(best_a->labels, best_b->labels) << "trial " << trial;
  EXPECT_EQ(state_a, state_b);
  auto ka = a->KBest(4);
  auto kb = b->KBest(4);
  ASSERT_TRUE(ka.ok() && kb.ok());
  ASSERT_EQ(ka->size(), kb->size());
  for (size_t i = 0; i < ka->size(); ++i) EXPECT_EQ((*ka)[i].labels, (*kb)[i].labels);
}

// Random integral lattices (M <= 7, N <= 4) with a random reference labeling over chunk labels:
// fn(trial, lattice, chunks, reference) for each of 400 trials.
template <typename Fn>
void ForEachDistanceCase(uint32_t seed, Fn&& fn) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 400; ++trial) {
    const int m = 1 + trial % 7;
    const int n = 1 + (trial / 7) % 4;
    Lattice lattice = RandomLattice(rng, m, n, true, 0.1);
    const std::vector<std::string> names = ChunkLabels(n);
    ChunkTable chunks(names);
    std::vector<int> ref(m);
    for (int& l : ref) l = std::uniform_int_distribution<int>(0, n - 1)(rng);
    fn(trial, lattice, chunks, ref);
  }
}

// With the table budget at zero every position-dependent successor table is refilled on demand;
// best, k-best and final states must not change.
TEST(AuxDpTest, StreamingSuccessorTablesGiveTheSameResults) {
  AuxDpDecoder stored, streaming;
  streaming.set_max_table_entries(0);
  ForEachDistanceCase(29, [&](int trial, const Lattice& lattice, const ChunkTable& chunks,
                              const std::vector<int>& ref) {
    HammingDistanceStatistic hamming(ref, 1 + trial % 3);
    ChunkDistanceStatistic chunk_distance(chunks, ref, trial % 2);
    const Statistic* stats[] = {&hamming, &chunk_distance};
    ExpectSameResults(lattice, &stored, stats, &streaming, stats, trial);
  });
}

// A statistic that asks for rows on demand gives what its table-filling twin gives.
class RowHammingStatistic : public HammingDistanceStatistic {
 public:
  using HammingDistanceStatistic::HammingDistanceStatistic;
  bool ComputesRows() const override { return true; }
};
class RowChunkDistanceStatistic : public ChunkDistanceStatistic {
 public:
  using ChunkDistanceStatistic::ChunkDistanceStatistic;
  bool ComputesRows() const override { return true; }
};

TEST(AuxDpTest, RowsOnDemandGiveTheSameResults) {
  AuxDpDecoder tables, rows;
  ForEachDistanceCase(31, [&](int trial, const Lattice& lattice, const ChunkTable& chunks,
                              const std::vector<int>& ref) {
    HammingDistanceStatistic hamming(ref, 1 + trial % 3);
    ChunkDistanceStatistic chunk_distance(chunks, ref, trial % 2);
    RowHammingStatistic row_hamming(ref, 1 + trial % 3);
    RowChunkDistanceStatistic row_chunk_distance(chunks, ref, trial % 2);
    const Statistic* a_stats[] = {&hamming, &chunk_distance};
    const Statistic* b_stats[] = {&row_hamming, &row_chunk_distance};
    const int count = 1 + trial % 2;  // one statistic (the k == 1 fast path) or two
    ExpectSameResults(lattice, &tables, absl::MakeConstSpan(a_stats, count), &rows,
                      absl::MakeConstSpan(b_stats, count), trial);
  });
}

// A pruned Run keeps live cells only (no dense table); with thresholds that prune nothing it must
// give what the dense Run gives: every final cell score, the best labeling, its final state and
// the 4-best (which rebuilds the dense table). The pruned decoder also runs densely in between,
// so each kind of run starts from what the other left.
TEST(AuxDpTest, PrunedRunKeepingEveryCellGivesTheSameResults) {
  AuxDpDecoder dense, pruned;
  const std::vector<double> suffix(64, 0.0);
  const std::vector<double> nothing(1 << 12, kNegInf);
  int second_order = 0;
  ForEachDistanceCase(37, [&](int trial, const Lattice& first, const ChunkTable& chunks,
                              const std::vector<int>& ref) {
    std::mt19937 rng(trial);
    const bool order2 = trial % 3 == 0;
    const Lattice lattice =
        order2 ? testing::RandomSecondOrder(rng, first.size(), first.num_labels(), true, 0.1)
               : first;
    second_order += order2;
    HammingDistanceStatistic hamming(ref, 1 + trial % 3);
    ChunkDistanceStatistic chunk_distance(chunks, ref, trial % 2);
    RowChunkDistanceStatistic row_chunk_distance(chunks, ref, trial % 2);
    const Statistic* stats[] = {
        &hamming, trial % 2 ? static_cast<const Statistic*>(&chunk_distance) : &row_chunk_distance};
    const int count = 1 + trial % 4 / 2;
    const auto used = absl::MakeConstSpan(stats, count);
    // One threshold per product state (the history of a second-order lattice included).
    int product_states = order2 ? lattice.num_labels() + 1 : 1;
    for (const Statistic* st : used) product_states *= st->NumStates();
    ASSERT_LE(product_states, static_cast<int>(nothing.size()));
    ASSERT_LE(lattice.size() * lattice.num_labels(), static_cast<int>(suffix.size()));
    pruned.set_pruning(suffix.data(), nothing.data());
    ExpectSameResults(lattice, &dense, used, &pruned, used, trial);
    ASSERT_TRUE(pruned.Run(lattice, used).ok());
    EXPECT_EQ(pruned.pruned_cells(), 0);
    ASSERT_EQ(pruned.num_states(), product_states);
    for (int y = 0; y < lattice.num_labels(); ++y) {
      for (int st = 0; st < dense.num_states(); ++st) {
        EXPECT_EQ(pruned.CellScore(y, st), dense.CellScore(y, st)) << "trial " << trial;
      }
    }
    pruned.clear_pruning();
    ExpectSameResults(lattice, &dense, used, &pruned, used, trial);
  });
  EXPECT_GT(second_order, 100);
}

// A general H (margin-rescaling shape F + w * distance, with some states rejected) picks the
// labeling enumeration finds: best H, then best F, then reverse-lexicographically smallest.
TEST(AuxDpTest, GeneralObjectiveMatchesEnumeration) {
  std::mt19937 rng(23);
  AuxDpDecoder decoder;
  for (int trial = 0; trial < 1000; ++trial) {
    const int m = 1 + trial % 6;
    const int n = 1 + (trial / 6) % 4;
    Lattice lattice = RandomLattice(rng, m, n, true, 0.1);
    std::vector<int> ref(m);
    for (int& l : ref) l = std::uniform_int_distribution<int>(0, n - 1)(rng);
    HammingDistanceStatistic distance(ref, m);  // cap M: the state is the exact distance
    const double w = std::uniform_int_distribution<int>(0, 2)(rng);
    const int banned = std::uniform_int_distribution<int>(0, m)(rng);
    FinalObjective h = [&](double f, int d) { return d == banned ? kNegInf : f + w * d; };
    double best_h = kNegInf, best_f = kNegInf;
    std::vector<int> arg;
    ForEachLabeling(m, n, [&](const std::vector<int>& y) {
      const double f = lattice.Score(y);
      if (f == kNegInf) return;
      int d = 0;
      for (int t = 0; t < m; ++t) d += y[t] != ref[t];
      const double hv = h(f, d);
      if (hv == kNegInf) return;
      if (arg.empty() || hv > best_h || (hv == best_h && f > best_f) ||
          (hv == best_h && f == best_f && ReverseLexLess(y, arg))) {
        best_h = hv;
        best_f = f;
        arg = y;
      }
    });
    const Statistic* stats[] = {&distance};
    ASSERT_TRUE(decoder.Run(lattice, stats).ok());
    int final_state = -1;
    auto got = decoder.Best(h, &final_state);
    if (arg.empty()) {
      EXPECT_TRUE(IsInfeasible(got.status())) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->labels, arg) << "trial " << trial;
    EXPECT_EQ(got->score, best_f);
    EXPECT_EQ(final_state, testing::RunStatistic(distance, got->labels));
  }
}

TEST(AuxDpTest, EmptyLattice) {
  Lattice lattice(0, 3);
  LabelCountStatistic at_least_one(3, {0}, 1, -1);
  const Statistic* reject[] = {&at_least_one};
  EXPECT_TRUE(IsInfeasible(ConstrainedDecode(lattice, reject).status()));
  LabelCountStatistic none(3, {0}, 0, 0);
  const Statistic* accept[] = {&none};
  auto got = ConstrainedDecode(lattice, accept);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->labels.empty());
}

TEST(AuxDpTest, InfeasibleCountOnShortSentence) {
  Lattice lattice(3, 2);
  LabelCountStatistic nine(2, {1}, 9, 9);
  const Statistic* stats[] = {&nine};
  auto got = ConstrainedDecode(lattice, stats);
  EXPECT_TRUE(IsInfeasible(got.status())) << got.status();
  EXPECT_FALSE(IsInfeasible(absl::InvalidArgumentError("infeasible")));
}

class BrokenStatistic : public Statistic {
 public:
  int NumStates() const override { return 2; }
  int Initial() const override { return 0; }
  int Next(int, int, int, int) const override { return 5; }
};

TEST(AuxDpTest, RejectsBadStatistics) {
  Lattice lattice(3, 2);
  AuxDpDecoder decoder;
  BrokenStatistic broken;
  const Statistic* bad[] = {&broken};
  EXPECT_EQ(decoder.Run(lattice, bad).code(), absl::StatusCode::kInvalidArgument);
  HammingDistanceStatistic short_ref({0, 1}, 1);
  const Statistic* wrong_length[] = {&short_ref};
  absl::Status st = decoder.Run(lattice, wrong_length);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("expected 3"), std::string::npos) << st;
  std::vector<std::unique_ptr<Statistic>> many;
  std::vector<const Statistic*> stats;
  for (int i = 0; i < 30; ++i) {
    many.push_back(std::make_unique<LabelCountStatistic>(2, std::vector<int>{1}, 0, 9));
    stats.push_back(many.back().get());
  }
  EXPECT_EQ(decoder.Run(lattice, stats).code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace chaintag
