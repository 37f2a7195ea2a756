// The restartable L-BFGS/OWL-QN (--checkpoint, --resume) and checkpoint files.
#include "train/checkpoint.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "train/lbfgs_optimizer.h"

namespace chaintag::train_internal {
namespace {

// f(w) = sum_i a_i (w_i - b_i)^2 + (w_i - b_i)^4 / 10: ill-conditioned and not quadratic, so
// the line search and the correction pairs matter; minimum at b.
class Quartic : public Objective {
 public:
  explicit Quartic(int n) {
    for (int i = 0; i < n; ++i) {
      a_.push_back(std::pow(10.0, -1 + 2.0 * i / (n - 1)));
      b_.push_back(std::sin(i + 1.0));
    }
  }
  int64_t size() const override { return static_cast<int64_t>(a_.size()); }
  double Evaluate(absl::Span<const double> w, absl::Span<double> g) override {
    double f = 0;
    for (size_t i = 0; i < a_.size(); ++i) {
      const double d = w[i] - b_[i];
      f += a_[i] * d * d + d * d * d * d / 10;
      g[i] = 2 * a_[i] * d + 0.4 * d * d * d;
    }
    return f;
  }
  const std::vector<double>& b() const { return b_; }

 private:
  std::vector<double> a_, b_;
};

struct OptimiserRun {
  std::vector<double> w;
  LbfgsResult result;
  std::vector<LbfgsState> saved;
};

OptimiserRun Minimize(double c1, const LbfgsState* resume, int every) {
  Quartic q(40);
  OptimiserRun run;
  run.w.assign(40, 0.0);
  LbfgsSettings settings;
  settings.c1 = c1;
  settings.epsilon = 1e-9;
  settings.max_iterations = 300;
  settings.checkpoints.every = every;
  settings.checkpoints.resume = resume;
  settings.checkpoints.save = [&](const LbfgsState& s) {
    run.saved.push_back(s);
    return absl::OkStatus();
  };
  absl::StatusOr<LbfgsResult> r = MinimizeLbfgs(q, settings, &run.w, nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) run.result = *r;
  return run;
}

TEST(RestartableLbfgsTest, MinimisesAndResumesBitForBit) {
  for (double c1 : {0.0, 0.3}) {
    SCOPED_TRACE(c1);
    const OptimiserRun straight = Minimize(c1, nullptr, 3);
    ASSERT_GE(straight.saved.size(), 3u);
    EXPECT_GT(straight.result.iterations, 9) << straight.result.reason;
    if (c1 == 0) {
      Quartic q(40);
      for (int i = 0; i < 40; ++i) EXPECT_NEAR(straight.w[i], q.b()[i], 1e-4);
    } else {
      int zeros = 0;
      for (double v : straight.w) zeros += v == 0;
      EXPECT_GT(zeros, 0);  // OWL-QN puts weights exactly at 0
    }
    for (const LbfgsState& from : straight.saved) {
      const OptimiserRun resumed = Minimize(c1, &from, 0);
      EXPECT_EQ(resumed.result.iterations, straight.result.iterations);
      EXPECT_EQ(resumed.result.reason, straight.result.reason);
      ASSERT_EQ(resumed.w.size(), straight.w.size());
      for (size_t i = 0; i < resumed.w.size(); ++i) {
        EXPECT_EQ(std::memcmp(&resumed.w[i], &straight.w[i], sizeof(double)), 0) << i;
      }
    }
  }
}

TEST(CheckpointFileTest, RoundTripsAndRefusesMismatches) {
  const OptimiserRun run = Minimize(0.0, nullptr, 4);
  ASSERT_FALSE(run.saved.empty());
  const LbfgsState& state = run.saved.back();
  const std::string path = ::testing::TempDir() + "/checkpoint_test.ckpt";
  const DataFingerprint data{10, 100, 3, 40, 1234};
  TrackerState tracker;
  tracker.iterations = state.iteration;
  tracker.has_best = true;
  tracker.best_score = 91.5;
  tracker.best_weights.assign(40, 0.5);
  tracker.dev_metric = "F1";
  ASSERT_TRUE(WriteCheckpoint(path, "c2=1\n", data, tracker, state).ok());
  absl::StatusOr<Checkpoint> read = ReadCheckpoint(path, "c2=1\n", data, 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->optimizer.iteration, state.iteration);
  EXPECT_EQ(read->optimizer.x, state.x);
  EXPECT_EQ(read->optimizer.s, state.s);
  EXPECT_EQ(read->optimizer.past, state.past);
  EXPECT_EQ(read->tracker.best_weights, tracker.best_weights);
  EXPECT_EQ(read->tracker.dev_metric, "F1");

  auto message = [&](const std::string& options, DataFingerprint d, int64_t max_bytes) {
    absl::StatusOr<Checkpoint> r = ReadCheckpoint(path, options, d, max_bytes);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_NE(message("c2=2\n", data, 1 << 20).find("saved c2=1, now c2=2"), std::string::npos);
  DataFingerprint other = data;
  other.checksum = 99;
  EXPECT_NE(message("c2=1\n", other, 1 << 20).find("other training data"), std::string::npos);
  EXPECT_NE(message("c2=1\n", data, 100).find("other training data"), std::string::npos);

  // Damage: a flipped byte, a truncation, another version (its CRC made right).
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& b) { std::ofstream(path, std::ios::binary) << b; };
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 1;
  write(flipped);
  EXPECT_NE(message("c2=1\n", data, 1 << 20).find("checksum mismatch"), std::string::npos);
  write(bytes.substr(0, bytes.size() - 9));
  EXPECT_NE(message("c2=1\n", data, 1 << 20).find("checksum mismatch"), std::string::npos);
  write("chaintag check");
  EXPECT_NE(message("c2=1\n", data, 1 << 20).find("not a chaintag checkpoint"), std::string::npos);
  std::string v2 = bytes;
  v2[20] = 2;
  write(v2);
  EXPECT_NE(message("c2=1\n", data, 1 << 20).find("checkpoint version 2"), std::string::npos);
  std::remove(path.c_str());
  EXPECT_NE(message("c2=1\n", data, 1 << 20).find("cannot read checkpoint"), std::string::npos);
}

}  // namespace
}  // namespace chaintag::train_internal
