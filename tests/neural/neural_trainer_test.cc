// Neural chain training: every objective learns a toy task whose labels need the chain (a label
// that depends on the previous token's label), the model bytes do not depend on the thread
// count, and the chain gradient matches finite differences of the CRF objective.
#include "neural_train/neural_trainer.h"

#include <algorithm>
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

TEST(NeuralTrainerTest, CharacterBiLstmLearnsAToyTask) {
  const NeuralData train = MakeToyTask(160, 1), dev = MakeToyTask(40, 2), test = MakeToyTask(60, 3);
  NeuralTrainOptions o = Small(2);
  o.encoder.char_encoder = neural::CharEncoder::kBiLstm;
  absl::StatusOr<NeuralChain> chain = TrainNeuralChain(train, &dev, 3, o, nullptr);
  ASSERT_TRUE(chain.ok()) << chain.status();
  EXPECT_EQ(chain->encoder.config().char_encoder, neural::CharEncoder::kBiLstm);
  EXPECT_GT(NeuralAccuracy(*chain, test, {}, 1), 0.97);
}

TEST(NeuralTrainerTest, ModelBytesDoNotDependOnTheThreadCountWithACharacterBiLstm) {
  const NeuralData train = MakeToyTask(50, 4), dev = MakeToyTask(10, 5);
  NeuralTrainOptions one = Small(1), two = Small(2);
  one.epochs = two.epochs = 2;
  one.encoder.char_encoder = two.encoder.char_encoder = neural::CharEncoder::kBiLstm;
  absl::StatusOr<NeuralChain> a = TrainNeuralChain(train, &dev, 3, one, nullptr);
  absl::StatusOr<NeuralChain> b = TrainNeuralChain(train, &dev, 3, two, nullptr);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->ParameterBytes(), b->ParameterBytes());
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

TEST(NeuralTrainerTest, AveragingScoresTheMeanOfRecentEpochsAndKeepsTheBetter) {
  const NeuralData train = MakeToyTask(60, 7), dev = MakeToyTask(30, 8);
  NeuralTrainOptions plain = Small(1);
  plain.epochs = plain.patience = 5;
  NeuralTrainOptions averaged = plain;
  averaged.average_epochs = 2;
  std::vector<NeuralProgress> with, without;
  absl::StatusOr<NeuralChain> a =
      TrainNeuralChain(train, &dev, 3, averaged, nullptr, [&](const NeuralProgress& p) {
        with.push_back(p);
        return absl::OkStatus();
      });
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(TrainNeuralChain(train, &dev, 3, plain, nullptr, [&](const NeuralProgress& p) {
                without.push_back(p);
                return absl::OkStatus();
              }).ok());
  ASSERT_EQ(with.size(), 5u);
  ASSERT_EQ(without.size(), 5u);
  double best = -1;
  for (size_t e = 0; e < with.size(); ++e) {
    // Averaging does not change the trajectory, only what is scored and kept.
    EXPECT_EQ(with[e].raw_dev_accuracy, without[e].dev_accuracy);
    EXPECT_EQ(with[e].averaged_dev_accuracy < 0, e == 0);
    EXPECT_EQ(with[e].dev_accuracy,
              std::max(with[e].raw_dev_accuracy, with[e].averaged_dev_accuracy));
    best = std::max(best, with[e].dev_accuracy);
  }
  EXPECT_EQ(NeuralAccuracy(*a, dev, plain.mask, 1), best);
  // Epoch 2's average is the mean of epochs 1 and 2 (their parameters: runs without dev data
  // keep the last epoch).
  NeuralTrainOptions one = plain, two = plain;
  one.epochs = 1;
  two.epochs = 2;
  absl::StatusOr<NeuralChain> e1 = TrainNeuralChain(train, nullptr, 3, one, nullptr);
  absl::StatusOr<NeuralChain> e2 = TrainNeuralChain(train, nullptr, 3, two, nullptr);
  ASSERT_TRUE(e1.ok() && e2.ok());
  NeuralChain mean = *e2;
  for (size_t i = 0; i < mean.encoder.params().size(); ++i) {
    mean.encoder.params()[i] = (e1->encoder.params()[i] + e2->encoder.params()[i]) / 2.0f;
  }
  for (size_t i = 0; i < mean.chain.size(); ++i) {
    mean.chain[i] = (e1->chain[i] + e2->chain[i]) / 2.0f;
  }
  mean.encoder.word_embeddings() =
      (e1->encoder.word_embeddings() + e2->encoder.word_embeddings()) / 2.0f;
  EXPECT_EQ(NeuralAccuracy(mean, dev, plain.mask, 1), with[1].averaged_dev_accuracy);
  // Thread-count independent with averaging too.
  NeuralTrainOptions averaged2 = averaged;
  averaged2.threads = 2;
  absl::StatusOr<NeuralChain> b = TrainNeuralChain(train, &dev, 3, averaged2, nullptr);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->ParameterBytes(), b->ParameterBytes());
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
  o = Small(1);
  o.average_epochs = 0;
  EXPECT_FALSE(TrainNeuralChain(MakeToyTask(3, 6), nullptr, 3, o, nullptr).ok());
  EXPECT_FALSE(TrainNeuralChain(NeuralData(), nullptr, 3, Small(1), nullptr).ok());
}

}  // namespace
}  // namespace chaintag
