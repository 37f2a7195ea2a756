#include "train/lbfgs_optimizer.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "support/random_problem.h"
#include "train/crf_objective.h"

namespace chaintag::train_internal {
namespace {

// f(w) = sum_i a_i (w_i - b_i)^2, minimum at b; with L1 c the minimiser is the soft threshold.
class Quadratic : public Objective {
 public:
  Quadratic(std::vector<double> a, std::vector<double> b) : a_(std::move(a)), b_(std::move(b)) {}
  int64_t size() const override { return static_cast<int64_t>(a_.size()); }
  double Evaluate(absl::Span<const double> w, absl::Span<double> g) override {
    double f = 0;
    for (size_t i = 0; i < a_.size(); ++i) {
      f += a_[i] * (w[i] - b_[i]) * (w[i] - b_[i]);
      g[i] = 2 * a_[i] * (w[i] - b_[i]);
    }
    return f;
  }

 private:
  std::vector<double> a_, b_;
};

TEST(LbfgsOptimizerTest, FindsMinimumOfQuadratic) {
  Quadratic q({1, 2, 3, 0.5}, {1, -2, 0.25, 4});
  std::vector<double> w(4, 0.0);
  LbfgsSettings settings;
  settings.epsilon = 1e-10;
  int calls = 0;
  absl::StatusOr<LbfgsResult> r =
      MinimizeLbfgs(q, settings, &w, [&](const TrainProgress& it, absl::Span<const double>) {
        EXPECT_EQ(it.iteration, ++calls);
        return true;
      });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->iterations, calls);
  EXPECT_GT(calls, 0);
  EXPECT_NEAR(w[0], 1, 1e-6);
  EXPECT_NEAR(w[1], -2, 1e-6);
  EXPECT_NEAR(w[2], 0.25, 1e-6);
  EXPECT_NEAR(w[3], 4, 1e-6);
}

TEST(LbfgsOptimizerTest, OwlqnGivesSoftThresholdedSparseSolution) {
  // Minimiser of a (w - b)^2 + c |w| is sign(b) max(0, |b| - c / (2a)).
  const std::vector<double> a = {1, 1, 2, 1, 0.5};
  const std::vector<double> b = {1, -0.2, 0.1, -3, 0.4};
  const double c = 0.6;
  Quadratic q(a, b);
  std::vector<double> w(a.size(), 0.0);
  LbfgsSettings settings;
  settings.c1 = c;
  settings.epsilon = 1e-10;
  absl::StatusOr<LbfgsResult> r = MinimizeLbfgs(q, settings, &w, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  int zeros = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double expected = (b[i] > 0 ? 1 : -1) * std::max(0.0, std::abs(b[i]) - c / (2 * a[i]));
    EXPECT_NEAR(w[i], expected, 1e-5) << i;
    if (expected == 0) {
      EXPECT_EQ(w[i], 0.0) << "OWL-QN keeps thresholded weights at exactly zero: " << i;
      ++zeros;
    }
  }
  EXPECT_EQ(zeros, 3);
}

TEST(LbfgsOptimizerTest, CallbackCanStop) {
  TrainingData data = RandomProblem(5, 30, 6, 3, 10);
  CrfObjective objective(data, 0.1, 1);
  std::vector<double> w(data.parameters.size(), 0.0);
  LbfgsSettings settings;
  absl::StatusOr<LbfgsResult> r = MinimizeLbfgs(
      objective, settings, &w,
      [](const TrainProgress& it, absl::Span<const double>) { return it.iteration < 3; });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->iterations, 3);
  EXPECT_EQ(r->reason, "stopped by the caller");
  EXPECT_TRUE(r->stopped_by_caller);
}

// libLBFGS's own improvement test also returns LBFGS_STOP; that is not the caller stopping it.
TEST(LbfgsOptimizerTest, ImprovementTestIsNotACallerStop) {
  TrainingData data = RandomProblem(6, 30, 6, 3, 10);
  CrfObjective objective(data, 0.1, 1);
  std::vector<double> w(data.parameters.size(), 0.0);
  LbfgsSettings settings;
  settings.epsilon = 1e-3;  // loose, so the improvement test fires first
  absl::StatusOr<LbfgsResult> r = MinimizeLbfgs(objective, settings, &w, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->stopped_by_caller);
  EXPECT_NE(r->reason, "stopped by the caller");
}

TEST(LbfgsOptimizerTest, RejectsWrongSize) {
  Quadratic q({1}, {1});
  std::vector<double> w(2, 0.0);
  EXPECT_FALSE(MinimizeLbfgs(q, LbfgsSettings(), &w, nullptr).ok());
}

// libLBFGS's out-of-memory code (LBFGSERR_OUTOFMEMORY, -1022) is said as such, with the memory
// the run needs and what to change (issue 27 item 11: it was "libLBFGS code -1022").
TEST(LbfgsOptimizerTest, OutOfMemoryIsSaidAsSuch) {
  const absl::Status oom = LbfgsStartFailure(-1022, int64_t{1} << 30, 6);
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.message(),
            "L-BFGS: out of memory allocating its state for 1073741824 weights (about 147457 MB "
            "with --lbfgs-memory 6); free memory, lower --lbfgs-memory or drop rare features "
            "(--min-feature-count)");
  EXPECT_EQ(LbfgsStartFailure(-1021, 10, 6).message(), "L-BFGS failed: libLBFGS code -1021");
}

}  // namespace
}  // namespace chaintag::train_internal
