#include "train/perceptron.h"

#include <memory>
#include <vector>

#include "chaintag/decode.h"
#include "gtest/gtest.h"
#include "support/random_problem.h"
#include "train/losses.h"

namespace chaintag::train_internal {
namespace {

std::shared_ptr<const BoundLoss> NoLoss(const TrainingData& data) {
  absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(LossSpec(), data.labels);
  EXPECT_TRUE(loss.ok()) << loss.status();
  return *loss;
}

int64_t Errors(const TrainingData& data, const std::vector<double>& w) {
  Lattice lattice;
  int64_t errors = 0;
  for (int s = 0; s < data.num_sentences(); ++s) {
    ScoreTrainingSentence(data, s, w.data(), &lattice);
    absl::StatusOr<Labeling> best = ViterbiDecode(lattice);
    EXPECT_TRUE(best.ok());
    for (int t = 0; t < data.sentence_size(s); ++t) {
      errors += best->labels[t] != data.gold[data.sentence_offsets[s] + t];
    }
  }
  return errors;
}

TEST(PerceptronTest, LearnsSeparableDataAndReportsEveryEpoch) {
  TrainingData data = SeparableProblem();
  std::vector<double> w;
  std::vector<int64_t> mistakes;
  absl::StatusOr<int> epochs = TrainAveragedPerceptron(
      data, *NoLoss(data), 10, 1, &w, [&](const TrainProgress& e, absl::Span<const double>) {
        EXPECT_EQ(e.iteration, static_cast<int>(mistakes.size()) + 1);
        mistakes.push_back(static_cast<int64_t>(e.objective));
        return true;
      });
  ASSERT_TRUE(epochs.ok()) << epochs.status();
  EXPECT_EQ(*epochs, 10);
  ASSERT_EQ(mistakes.size(), 10u);
  EXPECT_GT(mistakes.front(), 0);
  EXPECT_EQ(mistakes.back(), 0);
  EXPECT_EQ(Errors(data, w), 0);
}

TEST(PerceptronTest, SameSeedSameWeightsAndCallbackStops) {
  TrainingData data = RandomProblem(9, 40, 6, 3, 10);
  std::vector<double> w1, w2, w3;
  ASSERT_TRUE(TrainAveragedPerceptron(data, *NoLoss(data), 3, 5, &w1, nullptr).ok());
  ASSERT_TRUE(TrainAveragedPerceptron(data, *NoLoss(data), 3, 5, &w2, nullptr).ok());
  EXPECT_EQ(w1, w2);
  absl::StatusOr<int> epochs = TrainAveragedPerceptron(
      data, *NoLoss(data), 10, 5, &w3,
      [](const TrainProgress& e, absl::Span<const double>) { return e.iteration < 2; });
  ASSERT_TRUE(epochs.ok());
  EXPECT_EQ(*epochs, 2);
}

}  // namespace
}  // namespace chaintag::train_internal
