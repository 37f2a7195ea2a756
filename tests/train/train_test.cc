#include "chaintag/train.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/toy_corpus.h"
#include "train/model_builder.h"

namespace chaintag {
namespace {

// A toy chunking corpus: determiners and adjectives open or continue NPs before nouns; verbs
// form VPs. Separable from the word and its left neighbour.
std::vector<Sentence> ToyCorpus(int sentences, uint64_t seed) {
  const std::vector<std::string> det = {"the", "a", "this"}, adj = {"big", "red", "old"},
                                 noun = {"dog", "cat", "house", "car"},
                                 verb = {"saw", "likes", "ran"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    auto np = [&]() {
      b.Add(b.Pick(det), "B-NP");
      if (b.Random() % 2) b.Add(b.Pick(adj), "I-NP");
      b.Add(b.Pick(noun), "I-NP");
    };
    np();
    b.Add(b.Pick(verb), "B-VP");
    if (b.Random() % 2) np();
    if (b.Random() % 3 == 0) b.Add(".", "O");
  }
  return b.Take();
}

FeatureSpec ToySpec() {
  absl::StatusOr<FeatureSpec> spec =
      FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nB\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

// Collects every progress report.
class Recorder : public TrainObserver {
 public:
  void OnIteration(const TrainProgress& p) override { seen.push_back(p); }
  std::vector<TrainProgress> seen;
};

double TrainAccuracy(const Model& model, const std::vector<Sentence>& corpus) {
  Tagger tagger(model);
  int64_t correct = 0, total = 0;
  for (const Sentence& s : corpus) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    EXPECT_TRUE(best.ok()) << best.status();
    if (!best.ok()) continue;
    for (int t = 0; t < s.size(); ++t) {
      correct += model.labels()[best->labels[t]] == s.labels[t];
      ++total;
    }
  }
  return static_cast<double>(correct) / total;
}

TEST(TrainTest, LbfgsFitsSeparableDataAndReportsProgress) {
  const std::vector<Sentence> train = ToyCorpus(80, 1), dev = ToyCorpus(20, 2);
  TrainOptions options;
  options.c2 = 0.01;
  options.threads = 2;
  Recorder recorder;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, &dev, &recorder);
  const std::vector<TrainProgress>& seen = recorder.seen;
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(TrainAccuracy(*model, train), 1.0);
  ASSERT_FALSE(seen.empty());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].iteration, static_cast<int>(i) + 1);
    EXPECT_TRUE(seen[i].dev_score.has_value());
    EXPECT_EQ(seen[i].dev_metric, "F1");
    EXPECT_GT(seen[i].active_features, 0);
  }
  EXPECT_LT(seen.back().objective, seen.front().objective);
  EXPECT_EQ(*seen.back().dev_score, 100.0);
  EXPECT_EQ(model->Metadata("objective"), "crf");
  EXPECT_EQ(model->Metadata("algorithm"), "lbfgs");
  EXPECT_EQ(model->Metadata("c2"), "0.01");
  EXPECT_EQ(model->Metadata("training_sentences"), "80");
  EXPECT_EQ(model->Metadata("dev_metric"), "F1");
  EXPECT_EQ(model->Metadata("iterations"), absl::StrCat(seen.size()));
  EXPECT_FALSE(model->self_tests().empty());
  EXPECT_LE(model->self_tests().size(), 5u);
  // Weights are stored as float32.
  for (double w : model->Parameters().weights) {
    EXPECT_EQ(w, static_cast<double>(static_cast<float>(w)));
  }
}

TEST(TrainTest, ThreadCountDoesNotChangeWeights) {
  const std::vector<Sentence> train = ToyCorpus(120, 3);
  TrainOptions options;
  options.max_iterations = 30;
  std::vector<std::vector<double>> weights;
  for (int threads : {1, 2, 5}) {
    options.threads = threads;
    absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
    ASSERT_TRUE(model.ok()) << model.status();
    weights.push_back(model->Parameters().weights);
  }
  for (size_t i = 1; i < weights.size(); ++i) {
    ASSERT_EQ(weights[i].size(), weights[0].size());
    EXPECT_EQ(std::memcmp(weights[i].data(), weights[0].data(), weights[0].size() * sizeof(double)),
              0);
  }
}

TEST(TrainTest, OwlqnYieldsSparseModel) {
  const std::vector<Sentence> train = ToyCorpus(80, 4);
  TrainOptions l2;
  absl::StatusOr<Model> dense = Train(l2, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(dense.ok()) << dense.status();
  TrainOptions l1;
  l1.algorithm = Algorithm::kOwlqn;
  l1.c1 = 1.0;
  l1.c2 = 0.0;
  absl::StatusOr<Model> sparse = Train(l1, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  // Prune() removed zero-weight state features.
  EXPECT_LT(sparse->num_state_features(), dense->num_state_features() / 2);
  EXPECT_GT(TrainAccuracy(*sparse, train), 0.9);
}

TEST(TrainTest, PerceptronFitsSeparableData) {
  const std::vector<Sentence> train = ToyCorpus(80, 5);
  TrainOptions options;
  options.algorithm = Algorithm::kPerceptron;
  options.max_iterations = 8;
  Recorder recorder;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, &recorder);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(recorder.seen.size(), 8u);
  EXPECT_EQ(model->Metadata("objective"), "perceptron");
  EXPECT_EQ(TrainAccuracy(*model, train), 1.0);
}

TEST(TrainTest, EarlyStoppingKeepsBestDevWeights) {
  const std::vector<Sentence> train = ToyCorpus(60, 6), dev = ToyCorpus(20, 7);
  TrainOptions options;
  options.early_stopping = 2;
  Recorder recorder;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, &dev, &recorder);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<double> scores;
  for (const TrainProgress& p : recorder.seen) scores.push_back(*p.dev_score);
  ASSERT_GE(scores.size(), 3u);
  // Stops once two evaluations in a row fail to beat the best one.
  const double best = *std::max_element(scores.begin(), scores.end());
  EXPECT_LT(scores[scores.size() - 1], best + 1e-12);
  EXPECT_LE(scores[scores.size() - 2], best);
  EXPECT_EQ(model->Metadata("dev_score"), absl::StrCat(best));
  EXPECT_EQ(model->Metadata("stop_reason"), "early stopping");
  // The weights kept are those of the first best iteration, which is not the last one run.
  const int selected =
      static_cast<int>(std::find(scores.begin(), scores.end(), best) - scores.begin()) + 1;
  EXPECT_EQ(model->Metadata("iterations"), absl::StrCat(scores.size()));
  EXPECT_EQ(model->Metadata("selected_iteration"), absl::StrCat(selected));
  EXPECT_LT(selected, static_cast<int>(scores.size()));
  // The recorded objective is that of the weights kept, not of the last iteration's.
  EXPECT_EQ(model->Metadata("final_objective"),
            absl::StrCat(recorder.seen[selected - 1].objective));
  EXPECT_NE(model->Metadata("final_objective"), absl::StrCat(recorder.seen.back().objective));
}

TEST(TrainTest, RejectsUnlabelledDataAndBadOptions) {
  std::vector<Sentence> train = ToyCorpus(3, 8);
  train[1].labels.clear();
  EXPECT_FALSE(Train(TrainOptions(), ToySpec(), train, nullptr, nullptr).ok());
  TrainOptions bad;
  bad.algorithm = Algorithm::kOwlqn;  // needs c1 > 0
  EXPECT_FALSE(Train(bad, ToySpec(), ToyCorpus(3, 8), nullptr, nullptr).ok());
}

TEST(TrainOptionTableTest, DefaultsRoundTripAndSettersValidate) {
  const TrainOptions defaults;
  std::set<std::string> names;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    EXPECT_TRUE(names.insert(def.name).second) << def.name;
    EXPECT_FALSE(def.help.empty()) << def.name;
    EXPECT_EQ(def.get(defaults), def.default_value) << def.name;
    TrainOptions o;
    ASSERT_TRUE(def.set(&o, def.default_value).ok()) << def.name;
    EXPECT_EQ(def.get(o), def.default_value) << def.name;
  }
  EXPECT_TRUE(names.count("c2"));
  EXPECT_TRUE(names.count("max_iterations"));
  TrainOptions o;
  ASSERT_TRUE(SetTrainOption(&o, "c2", "0.25").ok());
  EXPECT_EQ(o.c2, 0.25);
  ASSERT_TRUE(SetTrainOption(&o, "max_iterations", "7").ok());
  EXPECT_EQ(o.max_iterations, 7);
  EXPECT_FALSE(SetTrainOption(&o, "c2", "abc").ok());
  EXPECT_FALSE(SetTrainOption(&o, "max_iterations", "1.5").ok());
  EXPECT_FALSE(SetTrainOption(&o, "algorithm", "newton").ok());
  EXPECT_FALSE(SetTrainOption(&o, "objective", "hinge").ok());
  EXPECT_FALSE(SetTrainOption(&o, "loss", "fbeta:").ok());
  ASSERT_TRUE(SetTrainOption(&o, "loss", "fbeta:0.5").ok());
  EXPECT_FALSE(SetTrainOption(&o, "no_such_option", "1").ok());
  EXPECT_TRUE(ValidateTrainOptions(TrainOptions()).ok());
  TrainOptions l1;
  l1.c1 = 1;
  EXPECT_FALSE(ValidateTrainOptions(l1).ok());  // lbfgs with c1 > 0
  l1.algorithm = Algorithm::kOwlqn;
  EXPECT_TRUE(ValidateTrainOptions(l1).ok());
}

TEST(TrainOptionTableTest, ResolveFillsTheAutoChoicesPerObjective) {
  struct Case {
    Objective objective;
    Algorithm algorithm;
    LossKind loss;
  };
  for (const Case& c : {Case{Objective::kCrf, Algorithm::kLbfgs, LossKind::kNone},
                        Case{Objective::kSoftmaxMargin, Algorithm::kLbfgs, LossKind::kHamming},
                        Case{Objective::kSsvmMargin, Algorithm::kBcfw, LossKind::kHamming},
                        Case{Objective::kSsvmSlack, Algorithm::kSgd, LossKind::kHamming},
                        Case{Objective::kPerceptron, Algorithm::kPerceptron, LossKind::kNone}}) {
    TrainOptions o;
    o.objective = c.objective;
    absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(o);
    ASSERT_TRUE(resolved.ok()) << ObjectiveName(c.objective) << ": " << resolved.status();
    EXPECT_EQ(resolved->algorithm, c.algorithm) << ObjectiveName(c.objective);
    EXPECT_EQ(resolved->loss, c.loss) << ObjectiveName(c.objective);
  }
  TrainOptions legacy;
  legacy.algorithm = Algorithm::kPerceptron;
  EXPECT_EQ(ResolveTrainOptions(legacy)->objective, Objective::kPerceptron);
  TrainOptions slack;
  slack.objective = Objective::kSsvmSlack;
  slack.algorithm = Algorithm::kBcfw;  // Frank-Wolfe does not solve slack scaling
  EXPECT_FALSE(ResolveTrainOptions(slack).ok());
  TrainOptions smooth;
  smooth.objective = Objective::kSoftmaxMargin;
  smooth.loss = LossKind::kFBeta;  // f1: not decomposable
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.loss = LossKind::kHamming;
  smooth.p = 1.0;
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.p = 1.5;
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
  smooth.loss_weights = "weights.txt";  // weights belong to weighted-hamming only
  EXPECT_FALSE(ResolveTrainOptions(smooth).ok());
  smooth.loss = LossKind::kWeightedHamming;
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
  smooth.loss_weights.clear();  // no file: every mismatch weighs 1
  EXPECT_TRUE(ResolveTrainOptions(smooth).ok());
}

// Every enum name parses to its value and prints back; anything else is refused with the list.
TEST(TrainEnumTest, EveryNameRoundTripsAndBadNamesFail) {
  const std::vector<std::pair<std::string, Objective>> objectives = {
      {"crf", Objective::kCrf},
      {"softmax-margin", Objective::kSoftmaxMargin},
      {"ssvm-margin", Objective::kSsvmMargin},
      {"ssvm-slack", Objective::kSsvmSlack},
      {"perceptron", Objective::kPerceptron},
      {"ldcrf", Objective::kLdcrf},
      {"lmsbn", Objective::kLmsbn},
      {"lmbm", Objective::kLmbm}};
  for (const auto& [name, value] : objectives) {
    absl::StatusOr<Objective> parsed = ParseObjective(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, value);
    EXPECT_EQ(ObjectiveName(value), name);
  }
  const std::vector<std::pair<std::string, Algorithm>> algorithms = {
      {"auto", Algorithm::kAuto},   {"lbfgs", Algorithm::kLbfgs},
      {"owlqn", Algorithm::kOwlqn}, {"bcfw", Algorithm::kBcfw},
      {"sgd", Algorithm::kSgd},     {"perceptron", Algorithm::kPerceptron},
      {"dcd", Algorithm::kDcd}};
  for (const auto& [name, value] : algorithms) {
    absl::StatusOr<Algorithm> parsed = ParseAlgorithm(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, value);
    EXPECT_EQ(AlgorithmName(value), name);
  }
  for (const auto& [name, value] : std::vector<std::pair<std::string, LossLevel>>{
           {"token", LossLevel::kToken}, {"chunk", LossLevel::kChunk}}) {
    absl::StatusOr<LossLevel> parsed = ParseLossLevel(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, value);
    EXPECT_EQ(LossLevelName(value), name);
  }
  for (const std::string bad : {"", "CRF", "crf ", "svm", "ssvm", "hinge", "auto"}) {
    absl::StatusOr<Objective> parsed = ParseObjective(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().message(),
              absl::StrCat("option objective: expected crf, softmax-margin, ssvm-margin, "
                           "ssvm-slack, perceptron, ldcrf, lmsbn or lmbm, found \"",
                           bad, "\""));
  }
  for (const std::string bad : {"", "LBFGS", "newton", "owl-qn", "crf"}) {
    absl::StatusOr<Algorithm> parsed = ParseAlgorithm(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().message(),
              absl::StrCat("option algorithm: expected auto, lbfgs, owlqn, bcfw, sgd, "
                           "perceptron or dcd, found \"",
                           bad, "\""));
  }
  for (const std::string bad : {"", "phrase", "Token", "chunks"}) {
    absl::StatusOr<LossLevel> parsed = ParseLossLevel(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().message(),
              absl::StrCat("option loss_level: expected token or chunk, found \"", bad, "\""));
  }
  // The option table uses the same parsers.
  TrainOptions o;
  ASSERT_TRUE(SetTrainOption(&o, "objective", "ssvm-slack").ok());
  EXPECT_EQ(o.objective, Objective::kSsvmSlack);
  ASSERT_TRUE(SetTrainOption(&o, "algorithm", "sgd").ok());
  EXPECT_EQ(o.algorithm, Algorithm::kSgd);
  ASSERT_TRUE(SetTrainOption(&o, "loss_level", "chunk").ok());
  EXPECT_EQ(o.loss_level, LossLevel::kChunk);
  EXPECT_EQ(SetTrainOption(&o, "algorithm", "newton").message(),
            "option algorithm: expected auto, lbfgs, owlqn, bcfw, sgd, perceptron or dcd, found "
            "\"newton\"");
}

TEST(TrainEnumTest, LossOptionKeepsKindAndBeta) {
  TrainOptions o;
  EXPECT_EQ(TrainOptionTable()[2].name, "loss");
  EXPECT_EQ(TrainOptionTable()[2].get(o), "auto");
  for (const std::string name :
       {"none", "hamming", "normalized-hamming", "weighted-hamming", "zero-one", "fp", "precision",
        "recall", "f1", "fbeta:0.5", "iou", "label-count", "auto"}) {
    ASSERT_TRUE(SetTrainOption(&o, "loss", name).ok()) << name;
    EXPECT_EQ(TrainOptionTable()[2].get(o), name);
  }
  ASSERT_TRUE(SetTrainOption(&o, "loss", "fbeta:2").ok());
  EXPECT_EQ(o.loss, LossKind::kFBeta);
  EXPECT_EQ(o.fbeta, 2.0);
  for (const std::string bad : {"", "f2", "fbeta:", "fbeta:0", "f1/chunk", "Hamming"}) {
    EXPECT_FALSE(SetTrainOption(&o, "loss", bad).ok()) << bad;
  }
}

// Every row of the option table is recorded in the model with the value training used (the
// automatic choices resolved), and the input options and caller's metadata come after.
TEST(TrainTest, MetadataListsEveryOptionAndTheSelectedIteration) {
  const std::vector<Sentence> train = ToyCorpus(40, 11);
  TrainOptions options;
  options.objective = Objective::kSoftmaxMargin;
  options.max_iterations = 6;
  options.c2 = 0.25;
  TrainDataInfo info;
  info.input.format = CorpusFormat::kConllu;
  info.input.conllu_label = "upos";
  info.metadata = {{"templates", "toy"}, {"training_files", "a.conllu b.conllu"}};
  Recorder recorder;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, &recorder, info);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(options);
  ASSERT_TRUE(resolved.ok());
  std::set<std::string> keys;
  for (const auto& [key, value] : model->metadata()) EXPECT_TRUE(keys.insert(key).second) << key;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (def.recorded && !def.recorded(*resolved)) {
      // An option of another objective: absent, so older models' metadata is reproduced.
      EXPECT_FALSE(keys.count(def.name)) << def.name;
      continue;
    }
    EXPECT_TRUE(keys.count(def.name)) << def.name;
    EXPECT_EQ(model->Metadata(def.name), def.get(*resolved)) << def.name;
  }
  EXPECT_FALSE(keys.count("latent"));  // softmax-margin: no ldcrf option recorded
  EXPECT_EQ(model->Metadata("algorithm"), "lbfgs");
  EXPECT_EQ(model->Metadata("loss"), "hamming");
  EXPECT_EQ(model->Metadata("c2"), "0.25");
  // Without dev the last iteration's weights are kept.
  EXPECT_EQ(model->Metadata("iterations"), absl::StrCat(recorder.seen.size()));
  EXPECT_EQ(model->Metadata("selected_iteration"), model->Metadata("iterations"));
  EXPECT_EQ(model->input_options(), info.input);
  EXPECT_EQ(model->metadata().back(), info.metadata.back());
  EXPECT_EQ(model->Metadata("templates"), "toy");
}

// Every objective and algorithm runs behind the same Trainer interface and reports iterations
// 1, 2, ... to the observer.
TEST(TrainTest, EveryTrainerReportsThroughTheObserver) {
  const std::vector<Sentence> train = ToyCorpus(30, 12), dev = ToyCorpus(10, 13);
  struct Case {
    Objective objective;
    Algorithm algorithm;
    double c1;
  };
  for (const Case& c :
       {Case{Objective::kCrf, Algorithm::kLbfgs, 0}, Case{Objective::kCrf, Algorithm::kOwlqn, 0.1},
        Case{Objective::kSoftmaxMargin, Algorithm::kLbfgs, 0},
        Case{Objective::kSsvmMargin, Algorithm::kBcfw, 0},
        Case{Objective::kSsvmMargin, Algorithm::kSgd, 0},
        Case{Objective::kSsvmSlack, Algorithm::kSgd, 0},
        Case{Objective::kPerceptron, Algorithm::kPerceptron, 0}}) {
    const std::string what =
        std::string(ObjectiveName(c.objective)) + "/" + std::string(AlgorithmName(c.algorithm));
    TrainOptions options;
    options.objective = c.objective;
    options.algorithm = c.algorithm;
    options.c1 = c.c1;
    options.max_iterations = 4;
    options.duality_gap = 0;
    Recorder recorder;
    absl::StatusOr<Model> model = Train(options, ToySpec(), train, &dev, &recorder);
    ASSERT_TRUE(model.ok()) << what << ": " << model.status();
    ASSERT_FALSE(recorder.seen.empty()) << what;
    for (size_t i = 0; i < recorder.seen.size(); ++i) {
      EXPECT_EQ(recorder.seen[i].iteration, static_cast<int>(i) + 1) << what;
      EXPECT_TRUE(recorder.seen[i].dev_score.has_value()) << what;
    }
    EXPECT_EQ(model->Metadata("objective"), ObjectiveName(c.objective)) << what;
    EXPECT_EQ(model->Metadata("algorithm"), AlgorithmName(c.algorithm)) << what;
    EXPECT_EQ(model->Metadata("iterations"), absl::StrCat(recorder.seen.size())) << what;
    EXPECT_FALSE(model->Metadata("selected_iteration").empty()) << what;
  }
}

// Training applies the IOB mask tagging applies: a transition the mask forbids (O -> I-NP,
// B-VP -> I-NP, start -> I-NP) is in no labeling any objective sees, so its weight gets no
// gradient but the regulariser's and stays exactly 0 (unmasked training pushes it below 0).
TEST(TrainTest, EveryObjectiveTrainsWithTheTaggingMask) {
  const std::vector<Sentence> train = ToyCorpus(40, 16);
  struct Case {
    Objective objective;
    Algorithm algorithm;
    int order;
  };
  for (const Case& c :
       {Case{Objective::kCrf, Algorithm::kLbfgs, 1}, Case{Objective::kCrf, Algorithm::kLbfgs, 2},
        Case{Objective::kSoftmaxMargin, Algorithm::kOwlqn, 1},
        Case{Objective::kSsvmMargin, Algorithm::kBcfw, 1},
        Case{Objective::kSsvmSlack, Algorithm::kSgd, 1},
        Case{Objective::kPerceptron, Algorithm::kPerceptron, 1}}) {
    const std::string what = std::string(ObjectiveName(c.objective)) + "/" +
                             std::string(AlgorithmName(c.algorithm)) + " order " +
                             std::to_string(c.order);
    TrainOptions options;
    options.objective = c.objective;
    options.algorithm = c.algorithm;
    options.order = c.order;
    if (c.algorithm == Algorithm::kOwlqn) options.c1 = 0.1;
    options.max_iterations = 15;
    absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
    ASSERT_TRUE(model.ok()) << what << ": " << model.status();
    const TransitionMask& mask = model->transition_mask();
    const int n = model->num_labels();
    ASSERT_EQ(mask.num_labels, n) << what;
    const ModelParameters params = model->Parameters();
    const int i_np = model->LabelId("I-NP");
    EXPECT_FALSE(mask.allowed_start[i_np]) << what;
    EXPECT_EQ(params.weights[params.start_offset() + i_np], 0.0) << what;
    int forbidden = 0;
    for (int p = 0; p < n; ++p) {
      for (int y = 0; y < n; ++y) {
        if (mask.allowed[p * n + y]) continue;
        ++forbidden;
        EXPECT_EQ(params.weights[params.transition_offset() + p * n + y], 0.0)
            << what << ": " << model->labels()[p] << " -> " << model->labels()[y];
      }
    }
    EXPECT_EQ(forbidden, 2) << what;  // O -> I-NP, B-VP -> I-NP
  }
}

// --transitions (CRFsuite's feature.possible_transitions): `all` trains every label pair without
// a mask, so the never-seen O -> I-NP gets a negative weight and the model has no mask;
// `observed` gives the transitions, start and end labels never seen in training no weight (0 in
// every objective, no mask) while the seen ones are trained; both are recorded in the metadata.
TEST(TrainTest, TransitionsChoiceIsHonouredAndRecorded) {
  const std::vector<Sentence> train = ToyCorpus(40, 16);
  TrainOptions options;
  options.max_iterations = 30;
  options.transitions = Transitions::kAll;
  absl::StatusOr<Model> all = Train(options, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->transition_mask().num_labels, 0);
  EXPECT_EQ(all->Metadata("transitions"), "all");
  {
    const ModelParameters params = all->Parameters();
    const int n = all->num_labels();
    const int o = all->LabelId("O"), i_np = all->LabelId("I-NP");
    EXPECT_LT(params.weights[params.transition_offset() + o * n + i_np], 0.0);
    EXPECT_LT(params.weights[params.start_offset() + i_np], 0.0);
  }
  // The default keeps the IOB mask and records nothing (models stay byte-identical).
  options.transitions = Transitions::kIob;
  absl::StatusOr<Model> iob = Train(options, ToySpec(), train, nullptr, nullptr);
  ASSERT_TRUE(iob.ok()) << iob.status();
  EXPECT_GT(iob->transition_mask().num_labels, 0);
  EXPECT_EQ(iob->Metadata("transitions"), "");

  // Seen in the toy corpus: start -> B-NP; B-NP -> I-NP; I-NP -> I-NP, B-VP, O; B-VP -> B-NP, O;
  // ends in I-NP, B-VP or O.
  std::set<std::pair<std::string, std::string>> seen;
  for (const Sentence& s : train) {
    seen.insert({"<s>", s.labels.front()});
    seen.insert({s.labels.back(), "</s>"});
    for (int t = 1; t < s.size(); ++t) seen.insert({s.labels[t - 1], s.labels[t]});
  }
  struct Case {
    Objective objective;
    Algorithm algorithm;
  };
  for (const Case& c : {Case{Objective::kCrf, Algorithm::kLbfgs},
                        Case{Objective::kSoftmaxMargin, Algorithm::kOwlqn},
                        Case{Objective::kSsvmMargin, Algorithm::kBcfw},
                        Case{Objective::kSsvmSlack, Algorithm::kSgd},
                        Case{Objective::kPerceptron, Algorithm::kPerceptron}}) {
    const std::string what =
        std::string(ObjectiveName(c.objective)) + "/" + std::string(AlgorithmName(c.algorithm));
    options = TrainOptions();
    options.objective = c.objective;
    options.algorithm = c.algorithm;
    if (c.algorithm == Algorithm::kOwlqn) options.c1 = 0.01;
    options.max_iterations = 15;
    options.transitions = Transitions::kObserved;
    absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
    ASSERT_TRUE(model.ok()) << what << ": " << model.status();
    EXPECT_EQ(model->transition_mask().num_labels, 0) << what;
    EXPECT_EQ(model->Metadata("transitions"), "observed") << what;
    const ModelParameters params = model->Parameters();
    const int n = model->num_labels();
    int unseen = 0, seen_nonzero = 0;
    auto check = [&](const std::string& from, const std::string& to, double w) {
      if (seen.count({from, to})) {
        seen_nonzero += w != 0.0;
      } else {
        ++unseen;
        EXPECT_EQ(w, 0.0) << what << ": " << from << " -> " << to;
      }
    };
    for (int y = 0; y < n; ++y) {
      const std::string& label = model->labels()[y];
      check("<s>", label, params.weights[params.start_offset() + y]);
      check(label, "</s>", params.weights[params.end_offset() + y]);
      for (int p = 0; p < n; ++p) {
        check(model->labels()[p], label, params.weights[params.transition_offset() + p * n + y]);
      }
    }
    EXPECT_EQ(unseen, (n + 2) * n - static_cast<int>(seen.size())) << what;
    EXPECT_GT(seen_nonzero, 0) << what;
    EXPECT_GT(TrainAccuracy(*model, train), 0.9) << what;
  }

  options = TrainOptions();
  options.transitions = Transitions::kObserved;
  options.order = 2;
  absl::StatusOr<Model> refused = Train(options, ToySpec(), train, nullptr, nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("transitions: observed"), std::string::npos)
      << refused.status();
}

// Train (ModelBuilder) -> Save -> Load gives the same weights and the same tags.
TEST(TrainTest, BuiltModelSurvivesSaveAndLoad) {
  const std::vector<Sentence> train = ToyCorpus(60, 14), test = ToyCorpus(30, 15);
  TrainOptions options;
  options.algorithm = Algorithm::kOwlqn;
  options.c1 = 0.05;
  options.max_iterations = 20;
  TrainDataInfo info;
  info.input.label_column = 2;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr, info);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string path = ::testing::TempDir() + "/chaintag_train_roundtrip.model";
  for (const ModelFileCompression compression :
       {ModelFileCompression::kNone, ModelFileCompression::kGzip}) {
    ASSERT_TRUE(model->Save(path, compression).ok());
    absl::StatusOr<Model> loaded = Model::Load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->metadata(), model->metadata());
    EXPECT_EQ(loaded->input_options(), info.input);
    EXPECT_EQ(loaded->Parameters().weights, model->Parameters().weights);
    EXPECT_EQ(loaded->self_tests().size(), model->self_tests().size());
    Tagger before(*model), after(*loaded);
    for (const Sentence& s : test) {
      absl::StatusOr<Labeling> a = before.Tag(s), b = after.Tag(s);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->labels, b->labels);
      EXPECT_EQ(a->score, b->score);
    }
  }
  std::remove(path.c_str());
}

// Identical tokens labelled A B B A B B ...: the next label depends on the two before it, so a
// first-order chain cannot fit it and a second-order one can.
std::vector<Sentence> PeriodicCorpus(int sentences) {
  std::vector<Sentence> corpus;
  for (int i = 0; i < sentences; ++i) {
    Sentence s;
    s.columns.resize(1);
    s.file = "periodic";
    const int length = 4 + i % 6;
    for (int t = 0; t < length; ++t) {
      s.columns[0].push_back("a");
      s.labels.push_back(t % 3 == 0 ? "A" : "B");
      s.token_lines.push_back(static_cast<int64_t>(i) * 10 + t);
    }
    corpus.push_back(std::move(s));
  }
  return corpus;
}

TEST(TrainTest, SecondOrderFitsWhatFirstOrderCannotAndSurvivesSaveAndLoad) {
  const std::vector<Sentence> train = PeriodicCorpus(30);
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nB\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  TrainOptions options;
  options.c2 = 0.01;
  options.max_iterations = 100;
  absl::StatusOr<Model> first = Train(options, *spec, train, nullptr, nullptr);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->order(), 1);
  EXPECT_EQ(first->Metadata("order"), "");  // not recorded for first-order models
  options.order = 2;
  // With the training data as dev data: dev scoring decodes the second-order chain as well.
  absl::StatusOr<Model> second = Train(options, *spec, train, &train, nullptr);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->Metadata("dev_score"), "100");
  EXPECT_EQ(second->order(), 2);
  EXPECT_EQ(second->Metadata("order"), "2");
  EXPECT_LT(TrainAccuracy(*first, train), 0.95);
  EXPECT_EQ(TrainAccuracy(*second, train), 1.0);
  const std::string path = ::testing::TempDir() + "/chaintag_second_order.model";
  for (const ModelFileCompression compression :
       {ModelFileCompression::kNone, ModelFileCompression::kGzip}) {
    ASSERT_TRUE(second->Save(path, compression).ok());
    absl::StatusOr<Model> loaded = Model::Load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->order(), 2);
    EXPECT_EQ(loaded->Parameters().weights, second->Parameters().weights);
    EXPECT_EQ(TrainAccuracy(*loaded, train), 1.0);
  }
  std::remove(path.c_str());
}

TEST(TrainTest, SecondOrderIsRefusedWhereItIsNotSupported) {
  const std::vector<Sentence> train = PeriodicCorpus(5);
  TrainOptions options;
  options.order = 3;
  absl::StatusOr<Model> model = Train(options, ToySpec(), train, nullptr, nullptr);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("order: expected 1 or 2"), std::string::npos)
      << model.status();
  options.order = 2;
  options.objective = Objective::kPerceptron;
  model = Train(options, ToySpec(), train, nullptr, nullptr);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("second-order"), std::string::npos) << model.status();
  options.objective = Objective::kCrf;
  options.max_labels = 1000;
  EXPECT_TRUE(ResolveTrainOptions(options).ok());
}

}  // namespace
}  // namespace chaintag
