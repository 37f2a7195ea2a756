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
#include "chaintag/decode.h"
#include "chaintag/eval.h"
#include "train/crf_objective.h"
#include "train/lbfgs_optimizer.h"
#include "train/perceptron.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

using train_internal::TrainingData;

// This Abseil build has its own string_view, which does not convert from std::string_view.
absl::string_view Sv(std::string_view v) { return absl::string_view(v.data(), v.size()); }

template <typename T>
absl::Status ParseNumber(std::string_view name, std::string_view text, T* out) {
  bool ok = false;
  if constexpr (std::is_same_v<T, double>) {
    ok = absl::SimpleAtod(Sv(text), out) && std::isfinite(*out);
  } else {
    ok = absl::SimpleAtoi(Sv(text), out);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option ", Sv(name), ": expected ", std::is_same_v<T, double> ? "a number" : "an integer",
        ", found \"", Sv(text), "\""));
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

std::vector<TrainOptionDef> MakeTable() {
  std::vector<TrainOptionDef> table;
  TrainOptionDef algorithm;
  algorithm.name = "algorithm";
  algorithm.help = "lbfgs (L2-regularised CRF), owlqn (L1 / elastic net CRF, needs c1 > 0) or "
                   "perceptron (averaged perceptron)";
  algorithm.set = [](TrainOptions* o, std::string_view v) {
    if (v != "lbfgs" && v != "owlqn" && v != "perceptron") {
      return absl::InvalidArgumentError(absl::StrCat(
          "option algorithm: expected lbfgs, owlqn or perceptron, found \"", Sv(v), "\""));
    }
    o->algorithm = std::string(v);
    return absl::OkStatus();
  };
  algorithm.get = [](const TrainOptions& o) { return o.algorithm; };
  algorithm.default_value = algorithm.get(TrainOptions());
  table.push_back(std::move(algorithm));
  table.push_back(NumberOption("c1", "L1 coefficient: objective += c1 * sum |w| (owlqn only)", &TrainOptions::c1));
  table.push_back(NumberOption("c2", "L2 coefficient: objective += c2 * sum w^2 (CRFsuite convention)", &TrainOptions::c2));
  table.push_back(NumberOption("max_iterations", "maximum L-BFGS iterations or perceptron epochs", &TrainOptions::max_iterations));
  table.push_back(NumberOption("min_feature_count", "drop attributes seen fewer times in training", &TrainOptions::min_feature_count));
  table.push_back(NumberOption("threads", "threads for the objective (0 = all cores); results do not depend on it", &TrainOptions::threads));
  table.push_back(NumberOption("epsilon", "stop when the objective improves by less than this (relative) over `period` iterations", &TrainOptions::epsilon));
  table.push_back(NumberOption("period", "iterations over which the stopping test measures improvement", &TrainOptions::period));
  table.push_back(NumberOption("early_stopping", "with --dev: stop after this many iterations without dev improvement (0 = off); the best weights are kept", &TrainOptions::early_stopping));
  table.push_back(NumberOption("lbfgs_memory", "L-BFGS corrections kept (memory: about (2m + 4) * 8 bytes per weight)", &TrainOptions::lbfgs_memory));
  table.push_back(NumberOption("seed", "random seed for the perceptron's shuffling", &TrainOptions::seed));
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
    std::vector<std::thread> pool;
    for (int k = 1; k < num_workers; ++k) pool.emplace_back(run, k);
    run(0);
    for (std::thread& thread : pool) thread.join();
    for (const absl::Status& s : status) {
      if (!s.ok()) return s;
    }
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

// Picks a few short training sentences (deterministically) to store as the model's self-tests.
std::vector<Sentence> SelfTestSentences(const std::vector<Sentence>& train) {
  constexpr int kCount = 5;
  constexpr int kMaxLength = 15;
  std::vector<Sentence> chosen;
  for (const Sentence& s : train) {
    if (s.size() > 0 && s.size() <= kMaxLength) chosen.push_back(s);
    if (static_cast<int>(chosen.size()) == kCount) break;
  }
  if (chosen.empty()) {
    for (const Sentence& s : train) {
      if (s.size() > 0) {
        chosen.push_back(s);
        break;
      }
    }
  }
  for (Sentence& s : chosen) {
    s.conllu.reset();  // the self-test needs the input columns only
    s.offsets.clear();
  }
  return chosen;
}

}  // namespace

const std::vector<TrainOptionDef>& TrainOptionTable() {
  static const std::vector<TrainOptionDef>* const table = new std::vector<TrainOptionDef>(MakeTable());
  return *table;
}

absl::Status SetTrainOption(TrainOptions* options, std::string_view name, std::string_view value) {
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (def.name == name) return def.set(options, value);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown training option \"", Sv(name), "\""));
}

absl::Status ValidateTrainOptions(const TrainOptions& o) {
  auto bad = [](std::string_view what, auto value) {
    return absl::InvalidArgumentError(absl::StrCat("option ", Sv(what), ", found ", value));
  };
  if (o.algorithm != "lbfgs" && o.algorithm != "owlqn" && o.algorithm != "perceptron") {
    return bad("algorithm: expected lbfgs, owlqn or perceptron", o.algorithm);
  }
  if (!(o.c1 >= 0)) return bad("c1: expected >= 0", o.c1);
  if (!(o.c2 >= 0)) return bad("c2: expected >= 0", o.c2);
  if (o.algorithm == "owlqn" && o.c1 <= 0) return bad("c1: owlqn expects c1 > 0", o.c1);
  if (o.algorithm == "lbfgs" && o.c1 != 0) {
    return bad("c1: lbfgs expects c1 = 0 (use --algorithm owlqn for L1)", o.c1);
  }
  if (o.max_iterations < 1) return bad("max_iterations: expected >= 1", o.max_iterations);
  if (o.min_feature_count < 1) return bad("min_feature_count: expected >= 1", o.min_feature_count);
  if (o.threads < 0) return bad("threads: expected >= 0", o.threads);
  if (!(o.epsilon >= 0)) return bad("epsilon: expected >= 0", o.epsilon);
  if (o.period < 0) return bad("period: expected >= 0", o.period);
  if (o.early_stopping < 0) return bad("early_stopping: expected >= 0", o.early_stopping);
  if (o.lbfgs_memory < 1) return bad("lbfgs_memory: expected >= 1", o.lbfgs_memory);
  return absl::OkStatus();
}

absl::StatusOr<Model> TrainCrf(const TrainOptions& options, const FeatureSpec& spec,
                               const std::vector<Sentence>& train,
                               const std::vector<Sentence>* dev,
                               const std::function<void(const TrainProgress&)>& progress) {
  if (absl::Status s = ValidateTrainOptions(options); !s.ok()) return s;
  const auto start_time = std::chrono::steady_clock::now();
  absl::StatusOr<TrainingData> data_or =
      train_internal::BuildTrainingData(spec, train, options.min_feature_count);
  if (!data_or.ok()) return data_or.status();
  TrainingData& data = *data_or;
  TransitionMask mask = InferChunkTransitionMask(data.labels, data.observed_transitions);

  std::unique_ptr<DevScorer> dev_scorer;
  if (dev != nullptr && !dev->empty()) {
    const int threads = options.threads > 0
                            ? options.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    dev_scorer = std::make_unique<DevScorer>(data, mask, threads);
    if (absl::Status s = dev_scorer->Prepare(spec, *dev); !s.ok()) return s;
  }

  // Dev scoring and early stopping shared by every algorithm; returns false to stop.
  std::optional<double> best_score;
  std::string dev_metric;
  std::vector<double> best_weights;
  int since_best = 0;
  int iterations = 0;
  double final_objective = 0;
  absl::Status callback_status;
  auto on_iteration = [&](int iteration, double objective, double gnorm,
                          absl::Span<const double> w) -> bool {
    iterations = iteration;
    final_objective = objective;
    TrainProgress p;
    p.iteration = iteration;
    p.objective = objective;
    p.gradient_norm = gnorm;
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
      } else if (options.early_stopping > 0 && ++since_best >= options.early_stopping) {
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
  std::string objective_name = "crf";
  if (options.algorithm == "perceptron") {
    objective_name = "perceptron";
    absl::StatusOr<int> epochs = train_internal::TrainAveragedPerceptron(
        data, options.max_iterations, options.seed, &weights,
        [&](const train_internal::PerceptronEpoch& e) {
          return on_iteration(e.epoch, static_cast<double>(e.mistakes), 0.0, e.averaged_weights);
        });
    if (!epochs.ok()) return epochs.status();
    stop_reason = *epochs < options.max_iterations ? "early stopping" : "maximum epochs";
  } else {
    // The objective turns the attribute ids into feature offsets in place (saves a copy).
    train_internal::CrfObjective objective(data, options.c2, options.threads,
                                           &data.position_attributes);
    train_internal::LbfgsSettings settings;
    settings.memory = options.lbfgs_memory;
    settings.c1 = options.algorithm == "owlqn" ? options.c1 : 0.0;
    settings.max_iterations = options.max_iterations;
    settings.epsilon = options.epsilon;
    settings.period = options.period;
    absl::StatusOr<train_internal::LbfgsResult> result = train_internal::MinimizeLbfgs(
        objective, settings, &weights, [&](const train_internal::LbfgsIteration& it) {
          return on_iteration(it.iteration, it.objective, it.gradient_norm, it.weights);
        });
    if (!result.ok()) return result.status();
    stop_reason = result->code == 1 /* LBFGS_STOP: our callback stopped it */ ? "early stopping" : result->reason;
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

  Model model(std::move(labels), spec, std::move(attributes), std::move(params), std::move(mask));
  model.Prune();
  model.AddMetadata("objective", objective_name);
  for (const TrainOptionDef& def : TrainOptionTable()) model.AddMetadata(def.name, def.get(options));
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
  if (absl::Status s = model.SetSelfTests(SelfTestSentences(train)); !s.ok()) return s;
  return model;
}

}  // namespace chaintag
