#include "chaintag/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "chaintag/decode.h"
#include "chaintag/eval.h"
#include "string_view_compat.h"
#include "train/crf_objective.h"
#include "train/lbfgs_optimizer.h"
#include "train/losses.h"
#include "train/parallel.h"
#include "train/perceptron.h"
#include "train/ssvm.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

using train_internal::TrainingData;


template <typename T>
absl::Status ParseNumber(std::string_view name, std::string_view text, T* out) {
  bool ok = false;
  if constexpr (std::is_same_v<T, double>) {
    ok = absl::SimpleAtod(ToAbsl(text), out) && std::isfinite(*out);
  } else {
    ok = absl::SimpleAtoi(ToAbsl(text), out);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option ", ToAbsl(name), ": expected ", std::is_same_v<T, double> ? "a number" : "an integer",
        ", found \"", ToAbsl(text), "\""));
  }
  return absl::OkStatus();
}

template <typename T>
TrainOptionDef NumberOption(std::string name, std::string help, T TrainOptions::*field) {
  TrainOptionDef def;
  def.name = name;
  def.help = std::move(help);
  def.set = [name, field](TrainOptions* o, std::string_view v) {
    return ParseNumber(name, v, &(o->*field));
  };
  def.get = [field](const TrainOptions& o) { return absl::StrCat(o.*field); };
  def.default_value = def.get(TrainOptions());
  return def;
}

// A string option whose value is one of `choices` (empty: any text).
TrainOptionDef ChoiceOption(std::string name, std::string help, std::string TrainOptions::*field,
                            std::vector<std::string> choices) {
  TrainOptionDef def;
  def.name = name;
  def.help = std::move(help);
  def.set = [name, field, choices](TrainOptions* o, std::string_view v) {
    if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end()) {
      return absl::InvalidArgumentError(absl::StrCat("option ", name, ": expected ",
                                                     absl::StrJoin(choices, ", "), "; found \"",
                                                     ToAbsl(v), "\""));
    }
    o->*field = std::string(v);
    return absl::OkStatus();
  };
  def.get = [field](const TrainOptions& o) { return o.*field; };
  def.default_value = def.get(TrainOptions());
  return def;
}

const std::vector<std::string>& Objectives() {
  static const auto* const kObjectives = new std::vector<std::string>{
      "crf", "softmax-margin", "ssvm-margin", "ssvm-slack", "perceptron"};
  return *kObjectives;
}

std::vector<TrainOptionDef> MakeTable() {
  std::vector<TrainOptionDef> table;
  table.push_back(ChoiceOption(
      "objective",
      "crf (log-loss), softmax-margin (the epsilon-objective from CRF to SSVM, decomposable "
      "losses), ssvm-margin, ssvm-slack (structural SVM, margin or slack scaling, any loss) or "
      "perceptron",
      &TrainOptions::objective, Objectives()));
  table.push_back(ChoiceOption(
      "algorithm",
      "auto (by objective), lbfgs (L2), owlqn (L1 / elastic net, needs c1 > 0), bcfw "
      "(block-coordinate Frank-Wolfe, ssvm-margin), sgd (averaged stochastic subgradient, "
      "ssvm-margin or ssvm-slack) or perceptron",
      &TrainOptions::algorithm, {"auto", "lbfgs", "owlqn", "bcfw", "sgd", "perceptron"}));
  TrainOptionDef loss = ChoiceOption(
      "loss",
      "auto (none for crf and perceptron, hamming otherwise), none, hamming, normalized-hamming, "
      "weighted-hamming, zero-one, fp, precision, recall, f1, fbeta:B, iou or label-count",
      &TrainOptions::loss, {});
  loss.set = [](TrainOptions* o, std::string_view v) {
    if (v != "auto") {
      if (absl::StatusOr<LossSpec> spec = ParseLossSpec(v); !spec.ok()) return spec.status();
    }
    o->loss = std::string(v);
    return absl::OkStatus();
  };
  table.push_back(std::move(loss));
  table.push_back(ChoiceOption("loss_level", "token or chunk: where fp, precision, recall, f1, fbeta, iou and label-count count positives", &TrainOptions::loss_level, {"token", "chunk"}));
  table.push_back(ChoiceOption("loss_weights", "weighted-hamming weights: a file of \"GOLD PREDICTED WEIGHT\" lines (unlisted mismatches weigh 1; without a file every mismatch weighs 1)", &TrainOptions::loss_weights, {}));
  table.push_back(ChoiceOption("positives", "comma-separated positive labels (token level; default all but O) or chunk types (chunk level; default all)", &TrainOptions::positives, {}));
  table.push_back(NumberOption("epsilon", "softmax-margin temperature (1: softmax-margin; towards 0: margin-scaled SSVM)", &TrainOptions::epsilon));
  table.push_back(NumberOption("p", "regulariser (2 c2 / p) sum |w|^p for softmax-margin, p in (1, 2]", &TrainOptions::p));
  table.push_back(NumberOption("c1", "L1 coefficient: objective += c1 * sum |w| (owlqn only)", &TrainOptions::c1));
  table.push_back(NumberOption("c2", "L2 coefficient: objective += c2 * sum w^2 (CRFsuite convention)", &TrainOptions::c2));
  table.push_back(NumberOption("max_iterations", "maximum L-BFGS iterations, or passes of bcfw, sgd and the perceptron", &TrainOptions::max_iterations));
  table.push_back(NumberOption("min_feature_count", "drop attributes seen fewer times in training", &TrainOptions::min_feature_count));
  table.push_back(NumberOption("threads", "threads for the objective and evaluation (0 = all cores); results do not depend on it", &TrainOptions::threads));
  table.push_back(NumberOption("tolerance", "L-BFGS: stop when the objective improves by less than this (relative) over `period` iterations", &TrainOptions::tolerance));
  table.push_back(NumberOption("period", "iterations over which the stopping test measures improvement", &TrainOptions::period));
  table.push_back(NumberOption("duality_gap", "bcfw: stop when the duality gap is at most this fraction of the primal objective", &TrainOptions::duality_gap));
  table.push_back(NumberOption("learning_rate", "sgd: initial step size eta_0 (0 = calibrate on a sample of 500 sentences)", &TrainOptions::learning_rate));
  table.push_back(NumberOption("early_stopping", "with --dev: stop after this many iterations without dev improvement (0 = off); the best weights are kept", &TrainOptions::early_stopping));
  table.push_back(NumberOption("max_labels", "refuse training data with more distinct labels (transition memory grows with the square of the count)", &TrainOptions::max_labels));
  table.push_back(NumberOption("lbfgs_memory", "L-BFGS corrections kept (memory: about (2m + 4) * 8 bytes per weight)", &TrainOptions::lbfgs_memory));
  table.push_back(NumberOption("seed", "random seed for the order of sentences (perceptron, bcfw, sgd)", &TrainOptions::seed));
  return table;
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int64_t CountNonZero(absl::Span<const double> w) {
  return std::count_if(w.begin(), w.end(), [](double x) { return x != 0.0; });
}

// Scores dev data the way tagging will: model scores, transition mask, Viterbi, then conlleval.
class DevScorer {
 public:
  DevScorer(const TrainingData& data, const TransitionMask& mask, int threads)
      : data_(data), mask_(mask), workers_(std::max(1, threads)) {}

  absl::Status Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev) {
    Featurizer featurizer(spec);
    for (const Sentence& sentence : dev) {
      if (sentence.size() == 0) continue;
      const int64_t line = sentence.token_lines.empty() ? 0 : sentence.token_lines[0];
      if (static_cast<int>(sentence.labels.size()) != sentence.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            sentence.file, ":", line, ": dev data: expected a gold label for each of the ",
            sentence.size(), " tokens, found ", sentence.labels.size(), " labels"));
      }
      if (absl::Status status = featurizer.CheckColumns(sentence); !status.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(sentence.file, ":", line, ": ", status.message()));
      }
      featurized_.emplace_back();
      featurizer.Featurize(sentence, data_.attributes, &featurized_.back());
      gold_.push_back(&sentence.labels);
    }
    return absl::OkStatus();
  }

  // Returns (score, metric name): chunk F1 when the labels are chunk tags, else accuracy.
  absl::StatusOr<std::pair<double, std::string>> Score(absl::Span<const double> w) {
    const int num_sentences = static_cast<int>(featurized_.size());
    predicted_ids_.resize(num_sentences);
    // Decoding runs on contiguous slices in parallel; counting stays sequential and ordered.
    const int num_workers = std::min<int>(workers_.size(), std::max(1, num_sentences));
    std::vector<absl::Status> status(num_workers);
    auto run = [&](int k) {
      Worker& worker = workers_[k];
      const int begin = static_cast<int>(int64_t{num_sentences} * k / num_workers);
      const int end = static_cast<int>(int64_t{num_sentences} * (k + 1) / num_workers);
      for (int i = begin; i < end; ++i) {
        data_.parameters.Score(featurized_[i], w, &worker.lattice);
        ApplyTransitionMask(mask_, &worker.lattice);
        absl::StatusOr<Labeling> best = ViterbiDecode(worker.lattice, &worker.scratch);
        if (!best.ok()) {
          status[k] = best.status();
          return;
        }
        predicted_ids_[i] = std::move(best->labels);
      }
    };
    train_internal::RunOnThreads(num_workers, run);
    if (absl::Status s = train_internal::FirstError(status); !s.ok()) return s;
    Evaluator evaluator;
    std::vector<std::string> predicted;
    for (int i = 0; i < num_sentences; ++i) {
      predicted.clear();
      for (int y : predicted_ids_[i]) predicted.push_back(data_.labels[y]);
      if (absl::Status s = evaluator.Add(*gold_[i], predicted); !s.ok()) return s;
    }
    const EvalReport report = evaluator.Report();
    if (report.has_chunks) return std::make_pair(report.overall.f1, std::string("F1"));
    return std::make_pair(report.accuracy, std::string("accuracy"));
  }

 private:
  struct Worker {
    Lattice lattice;
    ViterbiScratch scratch;
  };
  const TrainingData& data_;
  const TransitionMask& mask_;
  std::vector<FeaturizedSentence> featurized_;
  std::vector<const std::vector<std::string>*> gold_;
  std::vector<std::vector<int>> predicted_ids_;
  std::vector<Worker> workers_;
};

// Picks a few short training sentences (deterministically) to store as the model's self-tests:
// the first kCount of at most kMaxLength tokens, else the first non-empty one. Sentences are
// offered as they stream past, so the corpus need not be kept.
class SelfTestPicker {
 public:
  void Offer(const Sentence& s) {
    if (s.size() == 0 || static_cast<int>(chosen_.size()) == kCount) return;
    if (s.size() <= kMaxLength) {
      chosen_.push_back(Stripped(s));
    } else if (chosen_.empty() && !fallback_.has_value()) {
      fallback_ = Stripped(s);
    }
  }
  std::vector<Sentence> Take() {
    if (chosen_.empty() && fallback_.has_value()) chosen_.push_back(std::move(*fallback_));
    fallback_.reset();
    return std::move(chosen_);
  }

 private:
  static constexpr int kCount = 5;
  static constexpr int kMaxLength = 15;
  static Sentence Stripped(const Sentence& s) {
    Sentence copy = s;
    copy.conllu.reset();  // the self-test needs the input columns only
    copy.offsets.clear();
    return copy;
  }
  std::vector<Sentence> chosen_;
  std::optional<Sentence> fallback_;
};

}  // namespace

const std::vector<TrainOptionDef>& TrainOptionTable() {
  static const std::vector<TrainOptionDef>* const table = new std::vector<TrainOptionDef>(MakeTable());
  return *table;
}

absl::Status SetTrainOption(TrainOptions* options, std::string_view name, std::string_view value) {
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (def.name == name) return def.set(options, value);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown training option \"", ToAbsl(name), "\""));
}

absl::Status ValidateTrainOptions(const TrainOptions& o) {
  return ResolveTrainOptions(o).status();
}

absl::StatusOr<TrainOptions> ResolveTrainOptions(const TrainOptions& options) {
  TrainOptions o = options;
  auto bad = [](std::string_view what, auto value) {
    return absl::InvalidArgumentError(absl::StrCat("option ", ToAbsl(what), ", found ", value));
  };
  if (std::find(Objectives().begin(), Objectives().end(), o.objective) == Objectives().end()) {
    return bad("objective: expected crf, softmax-margin, ssvm-margin, ssvm-slack or perceptron",
               o.objective);
  }
  if (o.algorithm == "perceptron" && o.objective == "crf") o.objective = "perceptron";  // legacy
  if (o.algorithm == "auto") {
    if (o.objective == "crf" || o.objective == "softmax-margin") o.algorithm = "lbfgs";
    if (o.objective == "ssvm-margin") o.algorithm = "bcfw";
    if (o.objective == "ssvm-slack") o.algorithm = "sgd";
    if (o.objective == "perceptron") o.algorithm = "perceptron";
  }
  const bool smooth = o.objective == "crf" || o.objective == "softmax-margin";
  const bool fits = smooth ? (o.algorithm == "lbfgs" || o.algorithm == "owlqn")
                    : o.objective == "ssvm-margin" ? (o.algorithm == "bcfw" || o.algorithm == "sgd")
                    : o.objective == "ssvm-slack"  ? o.algorithm == "sgd"
                                                   : o.algorithm == "perceptron";
  if (!fits) {
    return bad(absl::StrCat("algorithm: objective ", o.objective, " expects ",
                            smooth                            ? "lbfgs or owlqn"
                            : o.objective == "ssvm-margin"    ? "bcfw or sgd"
                            : o.objective == "ssvm-slack"     ? "sgd"
                                                              : "perceptron"),
               o.algorithm);
  }
  if (o.loss == "auto") {
    o.loss = o.objective == "crf" || o.objective == "perceptron" ? "none" : "hamming";
  }
  absl::StatusOr<LossSpec> spec = ParseLossSpec(o.loss, o.loss_level);
  if (!spec.ok()) return spec.status();
  if (o.objective == "crf" && spec->kind != LossKind::kNone) {
    return bad("loss: the crf objective has no loss (use --objective softmax-margin)", o.loss);
  }
  if (o.objective == "softmax-margin" && !IsDecomposable(*spec)) {
    return bad("loss: softmax-margin expects a decomposable loss (none, hamming, "
               "normalized-hamming or weighted-hamming)", o.loss);
  }
  if (!o.loss_weights.empty() && spec->kind != LossKind::kWeightedHamming) {
    return bad("loss_weights: weights apply to --loss weighted-hamming only", o.loss);
  }
  if (o.objective != "crf" && o.objective != "softmax-margin" && o.epsilon != 1.0) {
    return bad("epsilon: the temperature applies to softmax-margin only", o.epsilon);
  }
  if (!(o.epsilon > 0)) return bad("epsilon: expected > 0", o.epsilon);
  if (!(o.p > 1 && o.p <= 2)) return bad("p: expected a number in (1, 2]", o.p);
  if (o.p != 2 && !smooth) return bad("p: p != 2 applies to crf and softmax-margin only", o.p);
  if (!(o.c1 >= 0)) return bad("c1: expected >= 0", o.c1);
  if (!(o.c2 >= 0)) return bad("c2: expected >= 0", o.c2);
  if (o.algorithm == "owlqn" && o.c1 <= 0) return bad("c1: owlqn expects c1 > 0", o.c1);
  if (o.algorithm != "owlqn" && o.c1 != 0) {
    return bad("c1: only owlqn has an L1 term (use --algorithm owlqn)", o.c1);
  }
  if ((o.objective == "ssvm-margin" || o.objective == "ssvm-slack") && !(o.c2 > 0)) {
    return bad("c2: structural SVM training expects c2 > 0", o.c2);
  }
  if (o.max_iterations < 1) return bad("max_iterations: expected >= 1", o.max_iterations);
  if (o.min_feature_count < 1) return bad("min_feature_count: expected >= 1", o.min_feature_count);
  if (o.threads < 0) return bad("threads: expected >= 0", o.threads);
  if (!(o.tolerance >= 0)) return bad("tolerance: expected >= 0", o.tolerance);
  if (o.period < 0) return bad("period: expected >= 0", o.period);
  if (!(o.duality_gap >= 0)) return bad("duality_gap: expected >= 0", o.duality_gap);
  if (!(o.learning_rate >= 0)) return bad("learning_rate: expected >= 0", o.learning_rate);
  if (o.early_stopping < 0) return bad("early_stopping: expected >= 0", o.early_stopping);
  if (o.lbfgs_memory < 1 || o.lbfgs_memory > 100) {
    return bad("lbfgs_memory: expected 1 to 100 corrections", o.lbfgs_memory);
  }
  if (o.max_labels < 2) return bad("max_labels: expected >= 2", o.max_labels);
  return o;
}

namespace {

// The loss spec of resolved options, positives and weights included.
absl::StatusOr<LossSpec> LossSpecOf(const TrainOptions& o) {
  absl::StatusOr<LossSpec> spec = ParseLossSpec(o.loss, o.loss_level);
  if (!spec.ok()) return spec.status();
  if (!o.positives.empty()) {
    for (absl::string_view p : absl::StrSplit(o.positives, ',', absl::SkipEmpty())) {
      spec->positives.emplace_back(p);
    }
  }
  // Without a weights file every mismatch weighs 1 (the loss equals Hamming until weights are given).
  if (spec->kind == LossKind::kWeightedHamming && !o.loss_weights.empty()) {
    if (absl::Status s = ReadLossWeights(o.loss_weights, &*spec); !s.ok()) return s;
  }
  return spec;
}

}  // namespace

// The body of both TrainCrf overloads: sentences are pulled once and featurized as they come.
static absl::StatusOr<Model> TrainCrfOnStream(const TrainOptions& options, const FeatureSpec& spec,
                                              train_internal::SentencePull next_sentence,
                                              const std::vector<Sentence>* dev,
                                              const std::function<void(const TrainProgress&)>& progress) {
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(options);
  if (!resolved.ok()) return resolved.status();
  const TrainOptions& o = *resolved;
  absl::StatusOr<LossSpec> loss_spec = LossSpecOf(o);
  if (!loss_spec.ok()) return loss_spec.status();
  const auto start_time = std::chrono::steady_clock::now();
  SelfTestPicker self_tests;
  absl::StatusOr<TrainingData> data_or = train_internal::BuildTrainingDataStreaming(
      spec,
      [&]() -> absl::StatusOr<const Sentence*> {
        absl::StatusOr<const Sentence*> sentence = next_sentence();
        if (sentence.ok() && *sentence != nullptr) self_tests.Offer(**sentence);
        return sentence;
      },
      o.min_feature_count, o.max_labels);
  if (!data_or.ok()) return data_or.status();
  TrainingData& data = *data_or;
  TransitionMask mask = InferChunkTransitionMask(data.labels, data.observed_transitions);

  std::unique_ptr<DevScorer> dev_scorer;
  if (dev != nullptr && !dev->empty()) {
    const int threads = o.threads > 0
                            ? o.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    dev_scorer = std::make_unique<DevScorer>(data, mask, threads);
    if (absl::Status s = dev_scorer->Prepare(spec, *dev); !s.ok()) return s;
  }
  // Ids and names are all the optimisers need; the lookup index comes back for the model.
  data.attributes.ReleaseIndex();

  // Dev scoring and early stopping shared by every algorithm; returns false to stop.
  std::optional<double> best_score;
  std::string dev_metric;
  std::vector<double> best_weights;
  int since_best = 0;
  int iterations = 0;
  double final_objective = 0;
  absl::Status callback_status;
  auto on_iteration = [&](TrainProgress p, absl::Span<const double> w) -> bool {
    iterations = p.iteration;
    final_objective = p.objective;
    p.active_features = CountNonZero(w);
    bool keep_going = true;
    if (dev_scorer != nullptr) {
      absl::StatusOr<std::pair<double, std::string>> score = dev_scorer->Score(w);
      if (!score.ok()) {
        callback_status = score.status();
        return false;
      }
      p.dev_score = score->first;
      p.dev_metric = dev_metric = score->second;
      if (!best_score.has_value() || score->first > *best_score) {
        best_score = score->first;
        best_weights.assign(w.begin(), w.end());
        since_best = 0;
      } else if (o.early_stopping > 0 && ++since_best >= o.early_stopping) {
        keep_going = false;
      }
    }
    p.elapsed_seconds = Seconds(start_time);
    if (progress) progress(p);
    return keep_going;
  };

  std::vector<double>().swap(data.parameters.weights);  // the optimisers own the weights
  std::vector<double> weights(data.parameters.size(), 0.0);
  std::string stop_reason;
  const int threads = o.threads > 0 ? o.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(*loss_spec, data.labels);
  if (!loss.ok()) return loss.status();
  if (o.objective == "perceptron") {
    absl::StatusOr<int> epochs = train_internal::TrainAveragedPerceptron(
        data, **loss, o.max_iterations, o.seed, &weights,
        [&](const train_internal::PerceptronEpoch& e) {
          TrainProgress p;
          p.iteration = e.epoch;
          p.objective = static_cast<double>(e.mistakes);
          return on_iteration(p, e.averaged_weights);
        });
    if (!epochs.ok()) return epochs.status();
    stop_reason = *epochs < o.max_iterations ? "early stopping" : "maximum epochs";
  } else if (o.objective == "ssvm-margin" || o.objective == "ssvm-slack") {
    train_internal::SsvmSettings settings;
    settings.scaling = o.objective == "ssvm-margin" ? LossScaling::kMargin : LossScaling::kSlack;
    settings.c2 = o.c2;
    settings.max_passes = o.max_iterations;
    settings.duality_gap = o.duality_gap;
    settings.learning_rate = o.learning_rate;
    settings.seed = o.seed;
    settings.threads = threads;
    bool stopped = false;
    auto on_pass = [&](const train_internal::SsvmPass& pass) {
      TrainProgress p;
      p.iteration = pass.pass;
      p.objective = pass.primal;
      p.duality_gap = pass.duality_gap;
      p.mean_loss = pass.mean_loss;
      p.inference_seconds = pass.inference_seconds;
      p.pass_seconds = pass.pass_seconds;
      const bool keep_going = on_iteration(p, pass.weights);
      stopped = !keep_going;
      return keep_going;
    };
    absl::StatusOr<int> passes =
        o.algorithm == "bcfw"
            ? train_internal::TrainBcfw(data, **loss, settings, &weights, on_pass)
            : train_internal::TrainSubgradient(data, **loss, settings, &weights, on_pass);
    if (!passes.ok()) return passes.status();
    stop_reason = stopped                          ? "early stopping"
                  : *passes < o.max_iterations     ? "duality gap below the tolerance"
                                                   : "maximum passes";
  } else {
    train_internal::SmoothLoss smooth;
    smooth.epsilon = o.epsilon;
    smooth.p = o.p;
    if (loss_spec->kind != LossKind::kNone) {
      // The N x N cost table: the per-token costs of a one-token sentence with each gold label.
      const int n = data.num_labels();
      smooth.cost.resize(static_cast<size_t>(n) * n);
      std::vector<double> costs;
      for (int g = 0; g < n; ++g) {
        const int gold[] = {g};
        if (absl::Status s = DecomposedLossCosts(**loss, gold, &costs); !s.ok()) return s;
        std::copy(costs.begin(), costs.end(), smooth.cost.begin() + static_cast<size_t>(g) * n);
      }
      smooth.per_token_average = loss_spec->kind == LossKind::kNormalizedHamming;
    }
    // The objective turns the attribute ids into feature offsets in place (saves a copy).
    train_internal::CrfObjective objective(data, o.c2, o.threads, &data.position_attributes,
                                           std::move(smooth));
    train_internal::LbfgsSettings settings;
    settings.memory = o.lbfgs_memory;
    settings.c1 = o.algorithm == "owlqn" ? o.c1 : 0.0;
    settings.max_iterations = o.max_iterations;
    settings.epsilon = o.tolerance;
    settings.period = o.period;
    absl::StatusOr<train_internal::LbfgsResult> result = train_internal::MinimizeLbfgs(
        objective, settings, &weights, [&](const train_internal::LbfgsIteration& it) {
          TrainProgress p;
          p.iteration = it.iteration;
          p.objective = it.objective;
          p.gradient_norm = it.gradient_norm;
          return on_iteration(p, it.weights);
        });
    if (!result.ok()) return result.status();
    stop_reason = result->stopped_by_caller ? "early stopping" : result->reason;
  }
  if (!callback_status.ok()) return callback_status;
  if (best_score.has_value()) weights.swap(best_weights);
  std::vector<double>().swap(best_weights);

  // Weights are stored as float32, so round now and let the self-tests see the stored model.
  for (double& w : weights) w = static_cast<double>(static_cast<float>(w));
  const int64_t num_features = data.parameters.num_state_features();
  const int64_t num_attributes = data.attributes.size();
  ModelParameters params = std::move(data.parameters);
  params.weights = std::move(weights);
  const int num_sentences = data.num_sentences();
  const int64_t num_tokens = data.num_positions();
  std::vector<std::string> labels = data.labels;
  AttributeDictionary attributes = std::move(data.attributes);
  dev_scorer.reset();
  data_or = absl::InternalError("released");  // frees the featurized corpus before the model is built

  attributes.RestoreIndex();
  Model model(std::move(labels), spec, std::move(attributes), std::move(params), std::move(mask));
  model.Prune();
  for (const TrainOptionDef& def : TrainOptionTable()) model.AddMetadata(def.name, def.get(o));
  model.AddMetadata("training_sentences", absl::StrCat(num_sentences));
  model.AddMetadata("training_tokens", absl::StrCat(num_tokens));
  model.AddMetadata("attributes_before_pruning", absl::StrCat(num_attributes));
  model.AddMetadata("features_before_pruning", absl::StrCat(num_features));
  model.AddMetadata("features", absl::StrCat(model.parameters().num_state_features()));
  model.AddMetadata("iterations", absl::StrCat(iterations));
  model.AddMetadata("final_objective", absl::StrCat(final_objective));
  model.AddMetadata("stop_reason", stop_reason);
  if (best_score.has_value()) {
    model.AddMetadata("dev_metric", dev_metric);
    model.AddMetadata("dev_score", absl::StrCat(*best_score));
  }
  if (absl::Status s = model.SetSelfTests(self_tests.Take()); !s.ok()) return s;
  return model;
}

absl::StatusOr<Model> TrainCrf(const TrainOptions& options, const FeatureSpec& spec,
                               const std::vector<Sentence>& train,
                               const std::vector<Sentence>* dev,
                               const std::function<void(const TrainProgress&)>& progress) {
  size_t i = 0;
  return TrainCrfOnStream(
      options, spec,
      [&]() -> absl::StatusOr<const Sentence*> { return i < train.size() ? &train[i++] : nullptr; },
      dev, progress);
}

absl::StatusOr<Model> TrainCrf(const TrainOptions& options, const FeatureSpec& spec,
                               const SentenceSource& train, const std::vector<Sentence>* dev,
                               const std::function<void(const TrainProgress&)>& progress) {
  if (!train) return absl::InvalidArgumentError("training data: expected a sentence source, found none");
  std::optional<Sentence> current;  // only the sentence being featurized is alive
  return TrainCrfOnStream(
      options, spec,
      [&]() -> absl::StatusOr<const Sentence*> {
        absl::StatusOr<std::optional<Sentence>> next = train();
        if (!next.ok()) return next.status();
        current = std::move(*next);
        return current.has_value() ? &*current : nullptr;
      },
      dev, progress);
}

}  // namespace chaintag
