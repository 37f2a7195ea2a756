// Latent decoding against brute-force enumeration of every hidden path on small random latent
// lattices (M <= 6, 2-3 labels, 2-3 hidden states each).
#include "decode/latent.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "support/brute_force.h"

namespace chaintag {
namespace {

using testing::RandomLattice;

struct Problem {
  LatentLayout layout;
  Lattice lattice;
};

Problem RandomProblem(std::mt19937& rng, double p_masked, int64_t max_paths) {
  for (;;) {
    std::uniform_int_distribution<int> labels(2, 3), states(2, 3), length(1, 6);
    std::vector<int> counts(labels(rng));
    for (int& k : counts) k = states(rng);
    absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts(counts);
    EXPECT_TRUE(layout.ok());
    const int m = length(rng);
    if (std::pow(layout->num_states(), m) > max_paths) continue;
    return {*layout, RandomLattice(rng, m, layout->num_states(), false, p_masked)};
  }
}

// Every labeling with its log score (log sum over its hidden paths), and log Z.
struct Enumerated {
  std::map<std::vector<int>, double> log_score;
  double log_z = kNegInf;
  std::vector<int> best_hidden;
  double best_hidden_score = kNegInf;
};

Enumerated Enumerate(const Problem& p, const std::vector<int>& forced = {}) {
  Enumerated out;
  std::map<std::vector<int>, std::vector<double>> scores;
  std::vector<double> all;
  const int m = p.lattice.size();
  testing::ForEachLabeling(m, p.layout.num_states(), [&](const std::vector<int>& h) {
    std::vector<int> y = ProjectHiddenPath(h, p.layout);
    for (size_t t = 0; t < forced.size(); ++t) {
      if (forced[t] >= 0 && y[t] != forced[t]) return;
    }
    const double f = p.lattice.Score(h);
    if (f == kNegInf) return;
    scores[y].push_back(f);
    all.push_back(f);
    if (f > out.best_hidden_score) {
      out.best_hidden_score = f;
      out.best_hidden = h;
    }
  });
  for (const auto& [y, fs] : scores) out.log_score[y] = testing::LogSumExp(fs);
  out.log_z = testing::LogSumExp(all);
  return out;
}

std::vector<double> SortedProbabilities(const Enumerated& e) {
  std::vector<double> p;
  for (const auto& [y, s] : e.log_score) p.push_back(std::exp(s - e.log_z));
  std::sort(p.begin(), p.end(), std::greater<>());
  return p;
}

TEST(LatentLayoutTest, CreateChecksBlocks) {
  EXPECT_TRUE(LatentLayout::Create(2, {0, 0, 1}).ok());
  EXPECT_FALSE(LatentLayout::Create(2, {0, 1, 0}).ok());  // not contiguous
  EXPECT_FALSE(LatentLayout::Create(2, {0, 0}).ok());     // label 1 owns nothing
  EXPECT_FALSE(LatentLayout::Create(2, {1, 1}).ok());     // label 0 owns nothing
  EXPECT_FALSE(LatentLayout::Create(2, {0, 2}).ok());     // out of range
  EXPECT_FALSE(LatentLayout::FromCounts({2, 0}).ok());
  EXPECT_FALSE(LatentLayout::FromCounts({LatentLayout::kMaxStatesPerLabel + 1}).ok());
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts({2, 1, 3});
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->num_states(), 6);
  EXPECT_EQ(layout->first_state(2), 3);
  EXPECT_EQ(layout->end_state(2), 6);
  EXPECT_EQ(layout->label_of(4), 2);
}

TEST(LatentLayoutTest, ExpandedMaskFollowsLabels) {
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts({2, 2});
  ASSERT_TRUE(layout.ok());
  TransitionMask mask;
  mask.num_labels = 2;
  mask.allowed = {1, 0, 1, 1};  // 0 -> 1 forbidden
  mask.allowed_start = {1, 0};
  mask.allowed_end = {1, 1};
  TransitionMask hidden = ExpandTransitionMask(mask, *layout);
  ASSERT_EQ(hidden.num_labels, 4);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      EXPECT_EQ(hidden.allowed[a * 4 + b], mask.allowed[(a / 2) * 2 + b / 2]);
    }
    EXPECT_EQ(hidden.allowed_start[a], a < 2 ? 1 : 0);
  }
}

TEST(LatentDecodeTest, LabelingLogScoreMatchesEnumeration) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Problem p = RandomProblem(rng, trial % 2 ? 0.15 : 0.0, 20000);
    const Enumerated e = Enumerate(p);
    for (const auto& [y, s] : e.log_score) {
      EXPECT_NEAR(LabelingLogScore(p.lattice, p.layout, y), s, 1e-9);
    }
  }
}

TEST(LatentDecodeTest, LdiEqualsEnumeratedArgmaxAndKBest) {
  std::mt19937 rng(7);
  int certified_early = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Problem p = RandomProblem(rng, trial % 3 == 0 ? 0.15 : 0.0, 20000);
    const Enumerated e = Enumerate(p);
    const int64_t all_paths =
        static_cast<int64_t>(std::pow(p.layout.num_states(), p.lattice.size()));
    LdiOptions options;
    options.max_paths = all_paths;
    for (int k : {1, 2, 5}) {
      options.k = k;
      absl::StatusOr<LatentDecodeResult> r = LdiDecode(p.lattice, p.layout, options);
      if (e.log_score.empty()) {
        EXPECT_TRUE(IsInfeasible(r.status())) << r.status();
        break;
      }
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(r->exact);  // the budget covers every hidden path
      EXPECT_NEAR(r->log_z, e.log_z, 1e-9);
      const std::vector<double> sorted = SortedProbabilities(e);
      ASSERT_EQ(r->solutions.size(), std::min<size_t>(k, sorted.size()));
      for (size_t i = 0; i < r->solutions.size(); ++i) {
        const LatentSolution& s = r->solutions[i];
        EXPECT_NEAR(s.probability, sorted[i], 1e-9) << "rank " << i;
        ASSERT_TRUE(e.log_score.count(s.labels));
        EXPECT_NEAR(s.probability, std::exp(e.log_score.at(s.labels) - e.log_z), 1e-9);
      }
      if (k == 1 && r->hidden_paths < all_paths) ++certified_early;
    }
    // Bounded: whatever is certified is the argmax.
    for (int64_t bound : {1, 2, 4}) {
      options.k = 1;
      options.max_paths = bound;
      absl::StatusOr<LatentDecodeResult> r = LdiDecode(p.lattice, p.layout, options);
      if (e.log_score.empty()) break;
      ASSERT_TRUE(r.ok());
      EXPECT_LE(r->hidden_paths, bound);
      const std::vector<double> sorted = SortedProbabilities(e);
      if (r->exact) {
        EXPECT_NEAR(r->solutions[0].probability, sorted[0], 1e-9);
      }
      // LDI-Bounded never returns less than the best hidden path's labeling.
      const double bhp =
          std::exp(e.log_score.at(ProjectHiddenPath(e.best_hidden, p.layout)) - e.log_z);
      EXPECT_GE(r->solutions[0].probability, bhp - 1e-9);
    }
  }
  EXPECT_GT(certified_early, 0);  // the stopping rule fires before exhaustion
}

TEST(LatentDecodeTest, BhpAndMarginalEqualDefinitions) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const Problem p = RandomProblem(rng, trial % 2 ? 0.1 : 0.0, 20000);
    const Enumerated e = Enumerate(p);
    absl::StatusOr<LatentDecodeResult> bhp = BestHiddenPathDecode(p.lattice, p.layout);
    std::vector<double> marginals;
    absl::StatusOr<LatentDecodeResult> marginal =
        MarginalLatentDecode(p.lattice, p.layout, nullptr, &marginals);
    if (e.log_score.empty()) {
      EXPECT_TRUE(IsInfeasible(bhp.status()));
      EXPECT_FALSE(marginal.ok());
      continue;
    }
    ASSERT_TRUE(bhp.ok());
    ASSERT_TRUE(marginal.ok());
    EXPECT_EQ(bhp->solutions[0].labels, ProjectHiddenPath(e.best_hidden, p.layout));
    EXPECT_NEAR(bhp->solutions[0].probability,
                std::exp(e.log_score.at(bhp->solutions[0].labels) - e.log_z), 1e-9);
    EXPECT_EQ(bhp->exact, bhp->solutions[0].probability >= 0.5 + 1e-12);
    // Marginals: P(y_t = y) summed over the enumerated labelings.
    const int m = p.lattice.size();
    const int n = p.layout.num_labels();
    std::vector<double> expected(static_cast<size_t>(m) * n, 0.0);
    for (const auto& [y, s] : e.log_score) {
      for (int t = 0; t < m; ++t) expected[t * n + y[t]] += std::exp(s - e.log_z);
    }
    ASSERT_EQ(marginals.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(marginals[i], expected[i], 1e-9);
    for (int t = 0; t < m; ++t) {
      const int y = marginal->solutions[0].labels[t];
      for (int z = 0; z < n; ++z) EXPECT_GE(expected[t * n + y], expected[t * n + z] - 1e-9);
    }
    auto it = e.log_score.find(marginal->solutions[0].labels);
    const double p_marginal = it == e.log_score.end() ? 0.0 : std::exp(it->second - e.log_z);
    EXPECT_NEAR(marginal->solutions[0].probability, p_marginal, 1e-9);
  }
}

TEST(LatentDecodeTest, ForcedLabelsWorkWithEveryDecoder) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 150; ++trial) {
    Problem p = RandomProblem(rng, 0.0, 20000);
    const int m = p.lattice.size();
    std::vector<int> forced(m, -1);
    std::uniform_int_distribution<int> label(-1, p.layout.num_labels() - 1);
    for (int& f : forced) f = label(rng);
    const Enumerated e = Enumerate(p, forced);  // conditional on the forced labels
    ApplyLatentForcedLabels(forced, p.layout, &p.lattice);
    LdiOptions options;
    options.k = 3;
    options.max_paths = static_cast<int64_t>(std::pow(p.layout.num_states(), m));
    absl::StatusOr<LatentDecodeResult> ldi = LdiDecode(p.lattice, p.layout, options);
    ASSERT_TRUE(ldi.ok());
    const std::vector<double> sorted = SortedProbabilities(e);
    ASSERT_EQ(ldi->solutions.size(), std::min<size_t>(3, sorted.size()));
    for (size_t i = 0; i < ldi->solutions.size(); ++i) {
      EXPECT_NEAR(ldi->solutions[i].probability, sorted[i], 1e-9);
      for (int t = 0; t < m; ++t) {
        if (forced[t] >= 0) {
          EXPECT_EQ(ldi->solutions[i].labels[t], forced[t]);
        }
      }
    }
    absl::StatusOr<LatentDecodeResult> bhp = BestHiddenPathDecode(p.lattice, p.layout);
    ASSERT_TRUE(bhp.ok());
    EXPECT_EQ(bhp->solutions[0].labels, ProjectHiddenPath(e.best_hidden, p.layout));
    absl::StatusOr<LatentDecodeResult> marginal = MarginalLatentDecode(p.lattice, p.layout);
    ASSERT_TRUE(marginal.ok());
    for (int t = 0; t < m; ++t) {
      if (forced[t] >= 0) {
        EXPECT_EQ(marginal->solutions[0].labels[t], forced[t]);
      }
    }
  }
}

TEST(LatentDecodeTest, EmptySentenceAndBadArguments) {
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts({2, 2});
  ASSERT_TRUE(layout.ok());
  Lattice empty(0, 4);
  absl::StatusOr<LatentDecodeResult> r = LdiDecode(empty, *layout, LdiOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exact);
  ASSERT_EQ(r->solutions.size(), 1u);
  EXPECT_TRUE(r->solutions[0].labels.empty());
  Lattice wrong(2, 3);
  EXPECT_FALSE(LdiDecode(wrong, *layout, LdiOptions()).ok());
  // A memory bound that stops the search at once still answers (the best hidden path's labeling),
  // not certified.
  std::mt19937 rng(3);
  const Problem p = RandomProblem(rng, 0.0, 20000);
  LdiOptions tiny;
  tiny.max_bytes = 1;
  absl::StatusOr<LatentDecodeResult> bounded = LdiDecode(p.lattice, p.layout, tiny);
  ASSERT_TRUE(bounded.ok());
  EXPECT_FALSE(bounded->exact);
  ASSERT_EQ(bounded->solutions.size(), 1u);
  EXPECT_EQ(bounded->solutions[0].labels,
            BestHiddenPathDecode(p.lattice, p.layout)->solutions[0].labels);
  LdiOptions bad;
  bad.max_paths = 0;
  EXPECT_FALSE(LdiDecode(Lattice(2, 4), *layout, bad).ok());
}

}  // namespace
}  // namespace chaintag
