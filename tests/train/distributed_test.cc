// Data-parallel training (issue 29): ranks simulated by threads (ThreadCommunicator) must train
// the byte-identical model of one process for every objective that trains over ranks, and the
// exact sums must not depend on how values are split.
#include "train/distributed.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "gtest/gtest.h"
#include "support/thread_communicator.h"
#include "support/toy_corpus.h"
#include "train/dev_scorer.h"
#include "train/training_data.h"

namespace chaintag::train_internal {
namespace {

using ::chaintag::testing::RunRanks;

// Noun phrases, verbs and prepositions over a small vocabulary, with rare words.
std::vector<Sentence> ToyChunks(int sentences, uint64_t seed) {
  chaintag::testing::ToyCorpusBuilder b(seed);
  const std::vector<std::string> det = {"the", "a", "this"}, adj = {"big", "red", "old", "new"},
                                 noun = {"dog", "cat", "car", "house", "tree", "idea"},
                                 verb = {"sees", "likes", "has", "wants"}, prep = {"in", "on"};
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), "B-VP");
    if (b.Random() % 3 == 0) b.Add(absl::StrCat("rare", i), "B-NP");
    b.Add(b.Pick(det), "B-NP");
    b.Add(b.Pick(noun), "I-NP");
    if (b.Random() % 2) {
      b.Add(b.Pick(prep), "B-PP");
      b.Add(b.Pick(noun), "B-NP");
    }
  }
  return b.Take();
}

FeatureSpec Spec() {
  absl::StatusOr<FeatureSpec> spec =
      FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nU03:%x[-1,0]/%x[0,0]\nB\n");
  EXPECT_TRUE(spec.ok());
  return *spec;
}

// The model bytes of training `options` on `ranks` ranks (0: no communicator at all).
std::string TrainBytes(const TrainOptions& options, const std::vector<Sentence>& train,
                       const std::vector<Sentence>* dev, int ranks) {
  if (ranks == 0) {
    absl::StatusOr<Model> model = Train(options, Spec(), train, dev, nullptr);
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? model->ToBytes() : "";
  }
  std::vector<std::string> bytes(ranks);
  RunRanks(ranks, [&](Communicator* c) {
    TrainDataInfo info;
    info.ranks = c;
    absl::StatusOr<Model> model = Train(options, Spec(), train, dev, nullptr, info);
    EXPECT_TRUE(model.ok()) << model.status();
    if (model.ok()) bytes[c->rank()] = model->ToBytes();
  });
  for (int r = 1; r < ranks; ++r) EXPECT_EQ(bytes[r], bytes[0]) << "rank " << r;
  return bytes[0];
}

void ExpectSameForRanks(const TrainOptions& options, const std::vector<Sentence>* dev = nullptr,
                        std::vector<Sentence> train = ToyChunks(70, 5)) {
  const std::string single = TrainBytes(options, train, dev, 0);
  ASSERT_FALSE(single.empty());
  for (int ranks : {1, 2, 3, 5}) {
    EXPECT_TRUE(TrainBytes(options, train, dev, ranks) == single) << ranks << " ranks";
  }
}

TEST(DistributedTrainTest, CrfModelIsByteIdenticalForAnyRanks) {
  TrainOptions options;
  options.max_iterations = 25;
  options.threads = 2;
  ExpectSameForRanks(options);
}

TEST(DistributedTrainTest, DroppedRareAttributesAndDevScoringAgree) {
  TrainOptions options;
  options.max_iterations = 20;
  options.min_feature_count = 2;
  options.threads = 1;
  const std::vector<Sentence> dev = ToyChunks(15, 9);
  ExpectSameForRanks(options, &dev);
}

TEST(DistributedTrainTest, OwlqnSecondOrderSoftmaxMarginAndLdcrfAgree) {
  TrainOptions owlqn;
  owlqn.max_iterations = 15;
  owlqn.algorithm = Algorithm::kOwlqn;
  owlqn.c1 = 0.1;
  owlqn.order = 2;
  ExpectSameForRanks(owlqn);
  TrainOptions margin;
  margin.max_iterations = 15;
  margin.objective = ::chaintag::Objective::kSoftmaxMargin;
  ExpectSameForRanks(margin);
  TrainOptions ldcrf;
  ldcrf.max_iterations = 10;
  ldcrf.objective = ::chaintag::Objective::kLdcrf;
  ldcrf.latent = "2";
  ExpectSameForRanks(ldcrf);
}

// Dev scoring over ranks: each rank decodes only its share of the dev sentences, and every rank
// gets the single-process score for the same weights (random ones, so errors show).
TEST(DistributedDevScorerTest, RanksDecodeTheirShareAndAgreeWithOneProcess) {
  const std::vector<Sentence> train = ToyChunks(40, 3);
  const std::vector<Sentence> dev = ToyChunks(23, 4);
  // The score, and how many sentences this rank decoded, for `ranks` ranks (0: none).
  auto score = [&](Communicator* c, std::mt19937_64* random) {
    size_t sentence = 0;
    absl::StatusOr<TrainingData> data = BuildTrainingDataStreaming(
        Spec(),
        [&]() -> absl::StatusOr<const Sentence*> {
          return sentence < train.size() ? &train[sentence++] : nullptr;
        },
        1, kDefaultMaxLabels, false, c);
    EXPECT_TRUE(data.ok()) << data.status();
    const TransitionMask mask = InferChunkTransitionMask(data->labels, data->observed_transitions);
    DevScorer scorer(*data, mask, /*threads=*/2);
    EXPECT_TRUE(scorer.Prepare(Spec(), dev).ok());
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> w(data->parameters.size());
    for (double& x : w) x = uniform(*random);
    absl::StatusOr<std::pair<double, std::string>> result = scorer.Score(w);
    EXPECT_TRUE(result.ok()) << result.status();
    return std::make_pair(result.ok() ? result->first : -1.0, scorer.sentences_decoded());
  };
  std::mt19937_64 random(7);
  const auto [single, all] = score(nullptr, &random);
  ASSERT_EQ(all, dev.size());
  ASSERT_GT(single, 0);
  ASSERT_LT(single, 100);
  for (int ranks : {2, 3, 5}) {
    std::mutex mu;
    std::vector<double> scores(ranks);
    size_t decoded = 0;
    RunRanks(ranks, [&](Communicator* c) {
      std::mt19937_64 same(7);  // every rank draws the same weights
      const auto [s, n] = score(c, &same);
      std::lock_guard<std::mutex> lock(mu);
      scores[c->rank()] = s;
      EXPECT_EQ(n, (dev.size() - c->rank() + ranks - 1) / ranks) << "rank " << c->rank();
      decoded += n;
    });
    EXPECT_EQ(decoded, dev.size());
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(scores[r], single) << ranks << " ranks, rank " << r;
  }
}

TEST(DistributedTrainTest, LdcrfWithDevAndEarlyStoppingAgrees) {
  TrainOptions options;
  options.max_iterations = 40;
  options.early_stopping = 3;
  options.objective = ::chaintag::Objective::kLdcrf;
  options.latent = "2";
  const std::vector<Sentence> dev = ToyChunks(17, 12);
  ExpectSameForRanks(options, &dev);
}

// The labels that end a sentence (the mask's allowed ends, --transitions observed's end weights)
// come from every rank's sentences: here one sentence alone ends with its label, so only one rank
// holds it.
TEST(DistributedTrainTest, EndLabelsOfOneRanksSentencesReachEveryRank) {
  chaintag::testing::ToyCorpusBuilder b(21);
  b.Begin();
  b.Add("the", "B-NP");
  b.Add("dog", "I-NP");
  b.Add("barks", "B-VP");
  b.Add(".", "O");
  std::vector<Sentence> extra = b.Take();
  std::vector<Sentence> iob = ToyChunks(70, 5);
  iob.insert(iob.begin() + 4, extra.front());
  TrainOptions observed;
  observed.max_iterations = 15;
  observed.transitions = ::chaintag::Transitions::kObserved;
  ExpectSameForRanks(observed, nullptr, iob);
  // IOBES: a chunk of one token is S-X and one that ends is E-X, so B-X may not end a sentence
  // unless the training data does it (one sentence here).
  std::vector<Sentence> iobes = ToyChunks(70, 5);
  for (Sentence& sentence : iobes) {
    std::vector<std::string>& labels = sentence.labels;
    for (size_t i = 0; i < labels.size(); ++i) {
      const bool continues = i + 1 < labels.size() && labels[i + 1][0] == 'I';
      if (labels[i][0] == 'B' && !continues) labels[i][0] = 'S';
      if (labels[i][0] == 'I' && !continues) labels[i][0] = 'E';
    }
  }
  iobes[4].labels.back()[0] = 'B';
  iobes[4].labels.back().replace(2, std::string::npos, "PP");
  TrainOptions iob_mask;
  iob_mask.max_iterations = 15;
  ExpectSameForRanks(iob_mask, nullptr, iobes);
}

TEST(DistributedTrainTest, SsvmSgdModelIsByteIdenticalForAnyRanks) {
  TrainOptions margin;
  margin.objective = ::chaintag::Objective::kSsvmMargin;
  margin.algorithm = ::chaintag::Algorithm::kSgd;
  margin.max_iterations = 4;
  margin.threads = 2;
  ExpectSameForRanks(margin);
  TrainOptions slack;
  slack.objective = ::chaintag::Objective::kSsvmSlack;
  slack.max_iterations = 3;
  const std::vector<Sentence> dev = ToyChunks(15, 9);
  ExpectSameForRanks(slack, &dev);
}

TEST(DistributedTrainTest, PerceptronByParameterMixingIsDeterministicAndLearns) {
  TrainOptions options;
  options.objective = ::chaintag::Objective::kPerceptron;
  options.max_iterations = 6;
  const std::vector<Sentence> train = ToyChunks(90, 3);
  const std::vector<Sentence> dev = ToyChunks(30, 4);
  for (int ranks : {2, 3}) {
    // Every rank returns the same model (TrainBytes checks), and a second run the same bytes.
    const std::string first = TrainBytes(options, train, &dev, ranks);
    EXPECT_EQ(TrainBytes(options, train, &dev, ranks), first) << ranks << " ranks";
    absl::StatusOr<Model> model = Model::FromBytes(first, "ipm");
    ASSERT_TRUE(model.ok()) << model.status();
    // The mixed model tags the (regular) dev language nearly perfectly, as one process does.
    double score = 0;
    ASSERT_TRUE(absl::SimpleAtod(model->Metadata("dev_score"), &score));
    EXPECT_GT(score, 95.0) << ranks << " ranks";
  }
}

TEST(DistributedTrainTest, UndistributedTrainersAreRefusedOnEveryRank) {
  TrainOptions ssvm;
  ssvm.objective = ::chaintag::Objective::kSsvmMargin;
  TrainOptions neural;
  neural.encoder = ::chaintag::EncoderKind::kHybrid;
  const std::vector<Sentence> train = ToyChunks(10, 1);
  for (const TrainOptions& options : {ssvm, neural}) {
    std::mutex mu;
    int refused = 0;
    RunRanks(2, [&](Communicator* c) {
      TrainDataInfo info;
      info.ranks = c;
      absl::StatusOr<Model> model = Train(options, Spec(), train, nullptr, nullptr, info);
      std::lock_guard<std::mutex> lock(mu);
      refused += !model.ok() && absl::IsUnimplemented(model.status());
    });
    EXPECT_EQ(refused, 2);
  }
}

TEST(ExactTotalTest, SplitsDoNotChangeTheTotal) {
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i) values.push_back(std::ldexp(1.0 + i % 7, (i * 37) % 60 - 30));
  values.push_back(-1e10);
  values.push_back(0.1);
  const double whole = ExactTotal(values, nullptr);
  double naive = 0;
  for (double x : values) naive += x;
  EXPECT_NEAR(whole, naive, std::abs(naive) * 1e-12);
  for (int ranks : {2, 3, 7}) {
    std::vector<double> totals(ranks);
    RunRanks(ranks, [&](Communicator* c) {
      std::vector<double> mine;
      for (size_t i = c->rank(); i < values.size(); i += ranks) mine.push_back(values[i]);
      totals[c->rank()] = ExactTotal(mine, c);
    });
    for (double t : totals) EXPECT_EQ(t, whole) << ranks << " ranks";
  }
}

TEST(ExactTotalTest, HugeAndNanValuesGiveInfinityOrNan) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ExactTotal(std::vector<double>{1.0, inf}, nullptr), inf);
  EXPECT_EQ(ExactTotal(std::vector<double>{1e300, 2.0}, nullptr), inf);
  EXPECT_EQ(ExactTotal(std::vector<double>{-1e20, 2.0}, nullptr), -inf);
  EXPECT_TRUE(std::isnan(ExactTotal(std::vector<double>{inf, -inf}, nullptr)));
  EXPECT_TRUE(std::isnan(ExactTotal(std::vector<double>{std::nan(""), 1.0}, nullptr)));
  EXPECT_EQ(ExactTotal(std::vector<double>{}, nullptr), 0.0);
  EXPECT_EQ(ExactTotal(std::vector<double>{-2.5, 0.75}, nullptr), -1.75);
}

}  // namespace
}  // namespace chaintag::train_internal
