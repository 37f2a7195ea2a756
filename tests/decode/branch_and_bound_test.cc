// Branch-and-bound against brute-force enumeration on random history-dependent scorers.
#include "decode/branch_and_bound.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "chaintag/chunks.h"
#include "decode/aux_dp.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

// z_t(y) = a random function of (t, y, the whole history): a hash of the prefix picks the value,
// plus a random "observation" part, so scores depend on every earlier label.
class RandomHistoryScorer : public LeftToRightScorer {
 public:
  RandomHistoryScorer(int m, int n, uint64_t seed, double history_scale)
      : m_(m), n_(n), seed_(seed), history_scale_(history_scale) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.5);
    observation_.resize(static_cast<size_t>(m) * n);
    for (double& v : observation_) v = normal(rng);
  }
  int size() const override { return m_; }
  int num_labels() const override { return n_; }
  void Scores(int t, absl::Span<const int> history, absl::Span<double> scores) override {
    ++calls_;
    uint64_t h = seed_ * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(t);
    for (int i = 0; i < t; ++i) h = (h ^ static_cast<uint64_t>(history[i] + 1)) * 0x100000001B3ull;
    for (int y = 0; y < n_; ++y) {
      uint64_t x = (h + static_cast<uint64_t>(y)) * 0xBF58476D1CE4E5B9ull;
      x ^= x >> 31;
      x *= 0x94D049BB133111EBull;
      x ^= x >> 29;
      const double u = static_cast<double>(x >> 11) / static_cast<double>(uint64_t{1} << 53);
      scores[y] = observation_[static_cast<size_t>(t) * n_ + y] + history_scale_ * (u - 0.5);
    }
  }
  int64_t calls() const { return calls_; }

 private:
  int m_, n_;
  uint64_t seed_;
  double history_scale_;
  std::vector<double> observation_;
  int64_t calls_ = 0;
};

struct Enumerated {
  std::vector<int> labels;
  double cost = 0, score = 0;
};

// Every labeling with its cost summed in position order (as the search sums it).
std::vector<Enumerated> Enumerate(LeftToRightScorer& scorer) {
  const int m = scorer.size(), n = scorer.num_labels();
  std::vector<Enumerated> all;
  std::vector<int> y(m, 0);
  std::vector<double> z(n), loss(n);
  for (;;) {
    Enumerated e;
    e.labels = y;
    for (int t = 0; t < m; ++t) {
      scorer.Scores(t, y, absl::MakeSpan(z));
      MulticlassHinge(z, absl::MakeSpan(loss));
      e.cost += loss[y[t]];
      e.score += z[y[t]];
    }
    all.push_back(e);
    int t = m - 1;
    while (t >= 0 && ++y[t] == n) y[t--] = 0;
    if (t < 0) break;
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Enumerated& a, const Enumerated& b) { return a.cost < b.cost; });
  return all;
}

bool Accepted(const std::vector<const Statistic*>& constraints, const std::vector<int>& forced,
              const std::vector<int>& y) {
  for (size_t t = 0; t < forced.size(); ++t) {
    if (forced[t] >= 0 && y[t] != forced[t]) return false;
  }
  for (const Statistic* s : constraints) {
    int state = s->Initial();
    for (size_t t = 0; t < y.size() && state != Statistic::kInfeasible; ++t) {
      state = s->Next(state, static_cast<int>(t), t == 0 ? -1 : y[t - 1], y[t]);
    }
    if (state == Statistic::kInfeasible || !s->Accepts(state)) return false;
  }
  return true;
}

// The search's solutions must be the K cheapest accepted labelings: same costs in order, each
// labeling accepted, distinct, and costing what enumeration says.
void ExpectKBest(const BranchAndBoundResult& r, const std::vector<Enumerated>& accepted, int k,
                 LeftToRightScorer& scorer) {
  const size_t expected = std::min<size_t>(k, accepted.size());
  ASSERT_EQ(r.solutions.size(), expected);
  std::vector<Enumerated> by_labels = accepted;
  for (size_t i = 0; i < expected; ++i) {
    EXPECT_DOUBLE_EQ(r.solutions[i].cost, accepted[i].cost) << "rank " << i;
    auto it = std::find_if(by_labels.begin(), by_labels.end(),
                           [&](const Enumerated& e) { return e.labels == r.solutions[i].labels; });
    ASSERT_NE(it, by_labels.end()) << "rank " << i << " is not an accepted labeling";
    EXPECT_EQ(it->cost, r.solutions[i].cost);
    EXPECT_NEAR(it->score, r.solutions[i].score, 1e-9);
    by_labels.erase(it);  // distinct
  }
  (void)scorer;
}

TEST(MulticlassHingeTest, MatchesTheDefinition) {
  std::vector<double> z = {0.5, 2.0, 1.7, -1.0}, loss(4);
  MulticlassHinge(z, absl::MakeSpan(loss));
  EXPECT_DOUBLE_EQ(loss[0], 1 + 2.0 - 0.5);
  EXPECT_DOUBLE_EQ(loss[1], 1 + 1.7 - 2.0);
  EXPECT_DOUBLE_EQ(loss[2], 1 + 2.0 - 1.7);
  EXPECT_DOUBLE_EQ(loss[3], 1 + 2.0 + 1.0);
  std::vector<double> clear = {5.0, 1.0}, l2(2);
  MulticlassHinge(clear, absl::MakeSpan(l2));
  EXPECT_EQ(l2[0], 0.0);
  std::vector<double> one = {3.0}, l1(1);
  MulticlassHinge(one, absl::MakeSpan(l1));
  EXPECT_EQ(l1[0], 0.0);
}

TEST(BranchAndBoundTest, FindsTheEnumeratedMinimumOnRandomHistoryModels) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const int m = 1 + static_cast<int>(seed % 7);
    const int n = 1 + static_cast<int>((seed / 7) % 4);
    RandomHistoryScorer scorer(m, n, seed, seed % 3 == 0 ? 6.0 : 2.0);
    const std::vector<Enumerated> all = Enumerate(scorer);
    absl::StatusOr<BranchAndBoundResult> r = BranchAndBoundDecode(scorer, {});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->optimal);
    ASSERT_EQ(r->solutions.size(), 1u);
    EXPECT_EQ(r->solutions[0].cost, all[0].cost) << "seed " << seed;
    EXPECT_GE(r->nodes, m);
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

TEST(BranchAndBoundTest, KBestEqualsTheSortedEnumeration) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const int m = 1 + static_cast<int>(seed % 7);
    const int n = 2 + static_cast<int>((seed / 7) % 3);
    RandomHistoryScorer scorer(m, n, seed, 4.0);
    const std::vector<Enumerated> all = Enumerate(scorer);
    for (int k : {1, 2, 3, 7, 40}) {
      BranchAndBoundOptions o;
      o.kbest = k;
      absl::StatusOr<BranchAndBoundResult> r = BranchAndBoundDecode(scorer, o);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(r->optimal);
      ExpectKBest(*r, all, k, scorer);
    }
  }
}

TEST(BranchAndBoundTest, ConstraintsForcedLabelsAndExclusionsEqualFilteredEnumeration) {
  const std::vector<std::string> names = {"B-NP", "I-NP", "O", "B-VP"};
  const ChunkTable table(names);
  int infeasible = 0, feasible = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const int m = 1 + static_cast<int>(rng() % 7);
    const int n = 2 + static_cast<int>(rng() % 3);
    RandomHistoryScorer scorer(m, n, seed, 3.0);
    const std::vector<Enumerated> all = Enumerate(scorer);
    std::vector<std::unique_ptr<Statistic>> owned;
    BranchAndBoundOptions o;
    o.kbest = 1 + static_cast<int>(rng() % 4);
    if (rng() % 2) {
      const int lower = static_cast<int>(rng() % 3);
      const int upper = rng() % 3 == 0 ? -1 : lower + static_cast<int>(rng() % 3);
      owned.push_back(std::make_unique<LabelCountStatistic>(n, std::vector<int>{0}, lower, upper));
    }
    if (n == 4 && rng() % 2) {
      // Chunks of type NP (labels 0, 1 of `names`).
      const int lower = static_cast<int>(rng() % 3);
      owned.push_back(std::make_unique<ChunkCountStatistic>(table, std::vector<int>{0}, lower,
                                                            lower + static_cast<int>(rng() % 2)));
    }
    if (rng() % 2) {
      // Exclude the two best unconstrained labelings.
      for (int i = 0; i < std::min<int>(2, all.size()); ++i) {
        owned.push_back(std::make_unique<HammingDistanceStatistic>(all[i].labels, 1));
      }
    }
    if (rng() % 2) {
      o.forced.assign(m, -1);
      for (int t = 0; t < m; ++t) {
        if (rng() % 3 == 0) o.forced[t] = static_cast<int>(rng() % n);
      }
    }
    for (const auto& s : owned) o.constraints.push_back(s.get());
    std::vector<Enumerated> accepted;
    for (const Enumerated& e : all) {
      if (Accepted(o.constraints, o.forced, e.labels)) accepted.push_back(e);
    }
    absl::StatusOr<BranchAndBoundResult> r = BranchAndBoundDecode(scorer, o);
    if (accepted.empty()) {
      EXPECT_TRUE(IsInfeasible(r.status())) << "seed " << seed << ": " << r.status();
      ++infeasible;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.status();
    EXPECT_TRUE(r->optimal);
    ExpectKBest(*r, accepted, o.kbest, scorer);
  }
  EXPECT_GT(infeasible, 10);
  EXPECT_GT(feasible, 200);
}

TEST(BranchAndBoundTest, InitialBoundKeepsOnlyCheaperLabelings) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    RandomHistoryScorer scorer(5, 3, seed, 3.0);
    const std::vector<Enumerated> all = Enumerate(scorer);
    BranchAndBoundOptions o;
    o.kbest = 3;
    o.bound = all[1].cost;  // only the strictly cheaper ones
    std::vector<Enumerated> cheaper;
    for (const Enumerated& e : all) {
      if (e.cost < o.bound) cheaper.push_back(e);
    }
    absl::StatusOr<BranchAndBoundResult> r = BranchAndBoundDecode(scorer, o);
    if (cheaper.empty()) {
      EXPECT_TRUE(IsInfeasible(r.status()));
      continue;
    }
    ASSERT_TRUE(r.ok());
    ExpectKBest(*r, cheaper, 3, scorer);
  }
}

TEST(BranchAndBoundTest, BudgetStopsTheSearchAndTheFirstLeafIsGreedy) {
  RandomHistoryScorer scorer(7, 4, 42, 8.0);
  const std::vector<Enumerated> all = Enumerate(scorer);
  BranchAndBoundOptions o;
  o.max_nodes = 1;  // raised to the sentence length: the greedy descent only
  absl::StatusOr<BranchAndBoundResult> r = BranchAndBoundDecode(scorer, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->nodes, 7);
  // The greedy labeling: the highest score at each position given the previous choices.
  std::vector<int> greedy;
  std::vector<double> z(4);
  for (int t = 0; t < 7; ++t) {
    scorer.Scores(t, greedy, absl::MakeSpan(z));
    greedy.push_back(static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin()));
  }
  EXPECT_EQ(r->solutions[0].labels, greedy);
  absl::StatusOr<BranchAndBoundResult> full = BranchAndBoundDecode(scorer, {});
  ASSERT_TRUE(full.ok());
  EXPECT_TRUE(full->optimal);
  EXPECT_EQ(full->solutions[0].cost, all[0].cost);
  // A budget below what the full search needs stops it: not proved optimal.
  if (full->nodes > 8) {
    o.max_nodes = full->nodes - 1;
    absl::StatusOr<BranchAndBoundResult> cut = BranchAndBoundDecode(scorer, o);
    ASSERT_TRUE(cut.ok());
    EXPECT_FALSE(cut->optimal);
    EXPECT_LE(cut->nodes, o.max_nodes);
    EXPECT_GE(cut->solutions[0].cost, all[0].cost);
  }
}

TEST(BranchAndBoundTest, RefusesBadRequests) {
  RandomHistoryScorer scorer(3, 2, 1, 1.0);
  BranchAndBoundOptions o;
  o.kbest = 0;
  EXPECT_EQ(BranchAndBoundDecode(scorer, o).status().code(), absl::StatusCode::kInvalidArgument);
  o.kbest = 1;
  o.forced = {0, 1};
  EXPECT_EQ(BranchAndBoundDecode(scorer, o).status().code(), absl::StatusCode::kInvalidArgument);
  o.forced = {0, 5, -1};
  EXPECT_EQ(BranchAndBoundDecode(scorer, o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chaintag
