// Train: the one entry point. Featurizes the training stream, prepares dev scoring, runs the
// trainer the options select, keeps the best dev weights and hands the result to ModelBuilder.
#include "chaintag/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "chaintag/decode.h"
#include "model/model_file.h"
#include "string_view_compat.h"
#include "train/checkpoint.h"
#include "train/dev_scorer.h"
#include "train/distributed.h"
#include "train/ldcrf_objective.h"
#include "train/lmsbn.h"
#include "train/losses.h"
#include "train/model_builder.h"
#include "train/neural_model.h"
#include "train/self_test_picker.h"
#include "train/trainer.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

using train_internal::TrainingData;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int64_t CountNonZero(absl::Span<const double> w) {
  return std::count_if(w.begin(), w.end(), [](double x) { return x != 0.0; });
}

// The loss of resolved options, positives and weights included.
absl::StatusOr<LossSpec> LossSpecOf(const TrainOptions& o) {
  absl::StatusOr<LossSpec> spec =
      ParseLossSpec(LossKindName(*o.loss, o.fbeta), LossLevelName(o.loss_level));
  if (!spec.ok()) return spec.status();
  if (!o.positives.empty()) {
    for (absl::string_view p : absl::StrSplit(o.positives, ',', absl::SkipEmpty())) {
      spec->positives.emplace_back(p);
    }
  }
  // Without a weights file every mismatch weighs 1 (the loss equals Hamming until weights are
  // given).
  if (spec->kind == LossKind::kWeightedHamming && !o.loss_weights.empty()) {
    if (absl::Status s = ReadLossWeights(o.loss_weights, &*spec); !s.ok()) return s;
  }
  return spec;
}

// Dev scoring, best-weight selection and early stopping, shared by every trainer.
class IterationTracker {
 public:
  using DevScore =
      std::function<absl::StatusOr<std::pair<double, std::string>>(absl::Span<const double>)>;
  IterationTracker(const TrainOptions& o, DevScore dev, TrainObserver* observer)
      : early_stopping_(o.early_stopping), dev_(std::move(dev)), observer_(observer) {}

  // Returns false to stop.
  bool OnIteration(const TrainProgress& progress, absl::Span<const double> w) {
    TrainProgress p = progress;
    iterations_ = p.iteration;
    last_objective_ = p.objective;
    p.active_features = CountNonZero(w);
    bool keep_going = true;
    if (dev_ != nullptr) {
      absl::StatusOr<std::pair<double, std::string>> score = dev_(w);
      if (!score.ok()) {
        status_ = score.status();
        return false;
      }
      p.dev_score = score->first;
      p.dev_metric = dev_metric_ = score->second;
      if (!best_score_.has_value() || score->first > *best_score_) {
        best_score_ = score->first;
        best_weights_.assign(w.begin(), w.end());
        best_iteration_ = p.iteration;
        best_objective_ = p.objective;
        since_best_ = 0;
      } else if (early_stopping_ > 0 && ++since_best_ >= early_stopping_) {
        keep_going = false;
      }
    }
    p.elapsed_seconds = Seconds(start_);
    if (observer_ != nullptr) {
      observer_->OnIteration(p);
      if (absl::Status s = observer_->Interrupted(); !s.ok()) {
        status_ = std::move(s);
        return false;
      }
    }
    return keep_going;
  }

  const absl::Status& status() const { return status_; }
  int iterations() const { return iterations_; }
  // The iteration whose weights the model gets: the best on dev, else the last one run.
  int selected_iteration() const { return best_score_.has_value() ? best_iteration_ : iterations_; }
  // The objective of the weights the model gets (those of selected_iteration()).
  double final_objective() const {
    return best_score_.has_value() ? best_objective_ : last_objective_;
  }
  const std::optional<double>& best_score() const { return best_score_; }
  const std::string& dev_metric() const { return dev_metric_; }
  std::vector<double>& best_weights() { return best_weights_; }

  // What a checkpoint keeps, and restoring it on resume.
  train_internal::TrackerState Save() const {
    return {iterations_,
            last_objective_,
            best_score_.has_value(),
            best_score_.value_or(0),
            best_iteration_,
            best_objective_,
            since_best_,
            dev_metric_,
            best_weights_};
  }
  void Restore(train_internal::TrackerState t) {
    iterations_ = t.iterations;
    last_objective_ = t.last_objective;
    if (t.has_best) best_score_ = t.best_score;
    best_iteration_ = t.best_iteration;
    best_objective_ = t.best_objective;
    since_best_ = t.since_best;
    dev_metric_ = std::move(t.dev_metric);
    best_weights_ = std::move(t.best_weights);
  }

 private:
  const int early_stopping_;
  const DevScore dev_;
  TrainObserver* const observer_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  absl::Status status_;
  std::optional<double> best_score_;
  std::string dev_metric_;
  std::vector<double> best_weights_;
  int best_iteration_ = 0;
  int since_best_ = 0;
  int iterations_ = 0;
  double last_objective_ = 0;
  double best_objective_ = 0;
};

// The allowed transitions of the model being trained, where the mask's choice is made
// (--transitions): iob, the IOB validity of the label names (InferChunkTransitionMask), with every
// transition, start and end of the training data allowed so each gold labeling stays in the
// normalisation; all and observed, no mask (CRFsuite's possible_transitions 1 and 0: observed
// leaves the unseen transitions without a weight, FixUnseenTransitions). The LMSBN learns label
// validity from its history features; no mask.
// Which labels end a training sentence (over every rank's sentences).
std::vector<char> ObservedEnds(const TrainingData& data) {
  std::vector<char> ends(data.num_labels(), 0);
  for (int s = 0; s < data.num_sentences(); ++s) {
    if (data.sentence_size(s) > 0) ends[data.gold[data.sentence_offsets[s + 1] - 1]] = 1;
  }
  train_internal::OrOverRanks(data.ranks, absl::MakeSpan(ends));
  return ends;
}

TransitionMask TrainingTransitionMask(const TrainOptions& o, const TrainingData& data) {
  if (o.objective == Objective::kLmsbn || o.transitions != Transitions::kIob) {
    return TransitionMask();
  }
  TransitionMask mask = InferChunkTransitionMask(data.labels, data.observed_transitions);
  const std::vector<char> ends = ObservedEnds(data);
  for (int y = 0; y < data.num_labels(); ++y) {
    if (ends[y]) mask.allowed_end[y] = 1;
  }
  return mask;
}

// --transitions observed: marks the transition, start and end weights never seen in training,
// which keep weight 0 (as CRFsuite has no feature for them).
void FixUnseenTransitions(TrainingData* data) {
  const int n = data->num_labels();
  std::vector<char>& fixed = data->fixed_transitions;
  fixed.assign(static_cast<size_t>(n) * n + 2 * n, 1);
  for (int prev = 0; prev < n; ++prev) {
    for (int y = 0; y < n; ++y) {
      if (data->observed_transitions[static_cast<size_t>(prev + 1) * n + y]) {
        fixed[static_cast<size_t>(prev) * n + y] = 0;
      }
    }
  }
  for (int y = 0; y < n; ++y) {
    if (data->observed_transitions[y]) fixed[static_cast<size_t>(n) * n + y] = 0;
  }
  const std::vector<char> ends = ObservedEnds(*data);
  for (int y = 0; y < n; ++y) {
    if (ends[y]) fixed[static_cast<size_t>(n) * n + n + y] = 0;
  }
}

// The options a checkpoint must be resumed with: every trainer option but the thread count.
std::string CheckpointOptions(const TrainOptions& o) {
  std::string out;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (def.name != "threads") absl::StrAppend(&out, def.name, "=", def.get(o), "\n");
  }
  return out;
}

// The training data of every rank, as a checkpoint identifies it.
train_internal::DataFingerprint FingerprintOf(const TrainingData& data) {
  int64_t totals[] = {data.num_sentences(), data.num_positions()};
  train_internal::SumOverRanks(data.ranks, absl::MakeSpan(totals));
  std::string bytes = absl::StrJoin(data.labels, "\n");
  bytes.append(reinterpret_cast<const char*>(data.empirical.data()),
               data.empirical.size() * sizeof(int32_t));
  bytes.append(reinterpret_cast<const char*>(data.weighted_empirical.data()),
               data.weighted_empirical.size() * sizeof(double));
  return {totals[0], totals[1], data.num_labels(), static_cast<int64_t>(data.parameters.size()),
          model_file::Crc32c(bytes)};
}

// The body of both Train overloads: sentences are pulled once and featurized as they come.
absl::StatusOr<Model> TrainOnStream(const TrainOptions& options, const FeatureSpec& spec,
                                    train_internal::SentencePull next_sentence,
                                    const std::vector<Sentence>* dev, TrainObserver* observer,
                                    const TrainDataInfo& info) {
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(options);
  if (!resolved.ok()) return resolved.status();
  const TrainOptions& o = *resolved;
  const bool lmsbn = o.objective == Objective::kLmsbn;
  if (spec.reads_attributes() != (info.input.format == CorpusFormat::kAttributes)) {
    return absl::InvalidArgumentError(
        spec.reads_attributes()
            ? "attribute input: expected the training data's format to be attributes"
            : "templates: attribute input (--format attributes) takes no templates or preset");
  }
  if (lmsbn && spec.reads_attributes()) {
    return absl::InvalidArgumentError(
        "attribute input: the lmsbn objective needs label-history templates; train attribute "
        "input with another objective");
  }
  if (lmsbn && spec.has_label_bigram()) {
    return absl::InvalidArgumentError(
        "templates: the lmsbn objective has no label-bigram template 'B' (the history templates "
        "%y[-1], ... take its place)");
  }
  if (!lmsbn && spec.num_history_templates() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "templates: label-history templates (%y[-k], %h[...]) need --objective lmsbn, found "
        "objective ",
        ToAbsl(ObjectiveName(o.objective))));
  }
  const bool neural = o.encoder != EncoderKind::kSparse;
  if (neural && spec.reads_attributes()) {
    return absl::InvalidArgumentError(
        "encoder: neural and hybrid models read words; attribute input has none");
  }
  absl::StatusOr<LossSpec> loss_spec = LossSpecOf(o);
  if (!loss_spec.ok()) return loss_spec.status();
  const bool checkpointing = info.checkpoint_every > 0 || !info.resume.empty();
  if (checkpointing &&
      (lmsbn || neural || (o.algorithm != Algorithm::kLbfgs && o.algorithm != Algorithm::kOwlqn))) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoints: objective ", ToAbsl(ObjectiveName(o.objective)), " with algorithm ",
        ToAbsl(AlgorithmName(o.algorithm)), neural ? " and a neural encoder" : "",
        " cannot be saved or resumed (crf, softmax-margin and ldcrf with lbfgs or owlqn can)"));
  }
  if (info.checkpoint_every > 0 && info.checkpoint.empty()) {
    return absl::InvalidArgumentError("checkpoints: an interval was given without a file");
  }
  if (IsDistributed(info.ranks) &&
      (lmsbn || neural ||
       (o.algorithm != Algorithm::kLbfgs && o.algorithm != Algorithm::kOwlqn &&
        o.algorithm != Algorithm::kPerceptron && o.algorithm != Algorithm::kSgd))) {
    return absl::UnimplementedError(absl::StrCat(
        "training over ", info.ranks->size(), " MPI ranks: objective ",
        ToAbsl(ObjectiveName(o.objective)), " with algorithm ", ToAbsl(AlgorithmName(o.algorithm)),
        neural ? " and a neural encoder" : "",
        " is not distributed yet (crf, softmax-margin and ldcrf with lbfgs or owlqn, the "
        "perceptron, and ssvm-margin or ssvm-slack with sgd are); run it in one process"));
  }
  // Neural and hybrid models also need the words and labels (the featurized corpus has neither).
  std::vector<std::vector<std::string>> words, word_labels;
  train_internal::SelfTestPicker self_tests;
  absl::StatusOr<TrainingData> data_or = train_internal::BuildTrainingDataStreaming(
      spec,
      [&]() -> absl::StatusOr<const Sentence*> {
        absl::StatusOr<const Sentence*> sentence = next_sentence();
        if (sentence.ok() && *sentence != nullptr) {
          self_tests.Offer(**sentence);
          if (neural && (*sentence)->size() > 0) {
            words.push_back((*sentence)->columns[0]);
            word_labels.push_back((*sentence)->labels);
          }
        }
        return sentence;
      },
      o.min_feature_count, o.max_labels, /*label_history=*/lmsbn, info.ranks);
  if (!data_or.ok()) return data_or.status();
  TrainingData& data = *data_or;
  // The one mask both training and tagging apply (stored in the model).
  TransitionMask mask = TrainingTransitionMask(o, data);
  data.mask = mask;
  if (o.transitions == Transitions::kObserved) FixUnseenTransitions(&data);
  data.loss_max_bytes = int64_t{o.loss_memory_mb} << 20;
  if (neural) {
    return train_internal::TrainNeuralModel(o, spec, std::move(data), std::move(words), word_labels,
                                            dev, observer, info, self_tests.Take());
  }
  if (o.order == 2) {
    if (data.num_labels() > kMaxSecondOrderLabels) {
      return absl::InvalidArgumentError(
          absl::StrCat("order: a second-order chain of ", data.num_labels(), " labels would need ",
                       int64_t{data.num_labels() + 1} * data.num_labels() * data.num_labels(),
                       " trigram weights; expected at most ", kMaxSecondOrderLabels, " labels"));
    }
    train_internal::EnableSecondOrder(&data);
  }
  // A latent-dynamic CRF: every (attribute, label) feature becomes one per hidden state.
  LatentLayout latent;
  if (o.objective == Objective::kLdcrf) {
    absl::StatusOr<LatentLayout> layout = train_internal::ParseLatentSpec(o.latent, data.labels);
    if (!layout.ok()) return layout.status();
    latent = *std::move(layout);
    train_internal::ExpandToHiddenStates(latent, &data);
  }

  const int threads = o.threads > 0
                          ? o.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::unique_ptr<train_internal::DevScorer> dev_scorer;
  std::unique_ptr<train_internal::LmsbnDevScorer> lmsbn_dev_scorer;
  IterationTracker::DevScore dev_score;
  if (dev != nullptr && !dev->empty()) {
    if (lmsbn) {
      lmsbn_dev_scorer = std::make_unique<train_internal::LmsbnDevScorer>(data, threads);
      if (absl::Status s = lmsbn_dev_scorer->Prepare(spec, *dev); !s.ok()) return s;
      dev_score = [&](absl::Span<const double> w) { return lmsbn_dev_scorer->Score(w); };
    } else {
      dev_scorer = std::make_unique<train_internal::DevScorer>(data, mask, threads, &latent);
      if (absl::Status s = dev_scorer->Prepare(spec, *dev); !s.ok()) return s;
      dev_score = [&](absl::Span<const double> w) { return dev_scorer->Score(w); };
    }
  }
  // Ids and names are all the optimisers need; the lookup index comes back for the model. (LMSBN
  // dev scoring looks history attributes up while training.)
  if (!lmsbn) data.attributes.ReleaseIndex();

  absl::StatusOr<std::shared_ptr<const BoundLoss>> loss = BindLoss(*loss_spec, data.labels);
  if (!loss.ok()) return loss.status();
  IterationTracker tracker(o, dev_score, observer);
  std::vector<double>().swap(data.parameters.weights);  // the trainer owns the weights
  std::vector<double> weights(data.parameters.size(), 0.0);
  absl::StatusOr<train_internal::TrainerRun> run;
  absl::StatusOr<std::unique_ptr<train_internal::Trainer>> trainer =
      train_internal::MakeTrainer(o, {.loss = *loss, .threads = threads, .latent = latent});
  if (!trainer.ok()) return trainer.status();
  std::optional<train_internal::Checkpoint> resumed;
  if (checkpointing) {
    const std::string options_text = CheckpointOptions(o);
    const train_internal::DataFingerprint fingerprint = FingerprintOf(data);
    train_internal::LbfgsCheckpoints checkpoints;
    if (!info.resume.empty()) {
      // The optimiser keeps 2m + 2 vectors, the tracker one more; the rest is small.
      const int64_t max_bytes = (2 * int64_t{o.lbfgs_memory} + 4) * fingerprint.weights * 8 +
                                static_cast<int64_t>(options_text.size()) + (1 << 20);
      absl::StatusOr<train_internal::Checkpoint> read =
          train_internal::ReadCheckpoint(info.resume, options_text, fingerprint, max_bytes);
      if (!read.ok()) return read.status();
      resumed = *std::move(read);
      tracker.Restore(std::move(resumed->tracker));
      checkpoints.resume = &resumed->optimizer;
    }
    checkpoints.every = info.checkpoint_every;
    const bool lead = !IsDistributed(info.ranks) || info.ranks->rank() == 0;
    checkpoints.save = [&, options_text, fingerprint,
                        lead](const train_internal::LbfgsState& state) -> absl::Status {
      if (!lead) return absl::OkStatus();
      return train_internal::WriteCheckpoint(info.checkpoint, options_text, fingerprint,
                                             tracker.Save(), state);
    };
    if (absl::Status s = (*trainer)->SetCheckpoints(checkpoints); !s.ok()) return s;
  }
  run = (*trainer)->Run(&data, &weights, [&](const TrainProgress& p, absl::Span<const double> w) {
    return tracker.OnIteration(p, w);
  });
  if (!run.ok()) return run.status();
  if (!tracker.status().ok()) return tracker.status();
  if (tracker.best_score().has_value()) weights.swap(tracker.best_weights());
  std::vector<double>().swap(tracker.best_weights());

  const int64_t num_features = data.parameters.num_state_features();
  const int64_t num_attributes = data.attributes.size();
  ModelParameters params = std::move(data.parameters);
  params.weights = std::move(weights);
  // Over ranks: the whole corpus's counts.
  int64_t totals[] = {data.num_sentences(), data.num_positions()};
  train_internal::SumOverRanks(info.ranks, absl::MakeSpan(totals));
  const int64_t num_sentences = totals[0];
  const int64_t num_tokens = totals[1];
  std::vector<std::string> labels = data.labels;
  AttributeDictionary attributes = std::move(data.attributes);
  dev_scorer.reset();
  lmsbn_dev_scorer.reset();
  data_or = absl::InternalError("released");  // frees the featurized corpus before the model

  attributes.RestoreIndex();
  ModelBuilder builder(std::move(labels), spec, std::move(attributes), std::move(params),
                       std::move(mask));
  builder.SetFamily(train_internal::FamilyOf(o.objective));
  builder.Prune();
  builder.SetInputOptions(info.input);
  if (!latent.empty()) builder.SetLatentLayout(latent);
  train_internal::AddTrainingMetadata(o,
                                      {.sentences = num_sentences,
                                       .tokens = num_tokens,
                                       .attributes_before_pruning = num_attributes,
                                       .features_before_pruning = num_features,
                                       .iterations = tracker.iterations(),
                                       .selected_iteration = tracker.selected_iteration(),
                                       .final_objective = tracker.final_objective(),
                                       .stop_reason = run->stop_reason},
                                      &builder);
  if (checkpointing) builder.AddMetadata("optimizer", "chaintag restartable L-BFGS/OWL-QN");
  if (tracker.best_score().has_value()) {
    builder.AddMetadata("dev_metric", tracker.dev_metric());
    builder.AddMetadata("dev_score", absl::StrCat(*tracker.best_score()));
  }
  for (const auto& [key, value] : info.metadata) builder.AddMetadata(key, value);
  builder.SetSelfTestSentences(self_tests.Take());
  return std::move(builder).Build();
}

}  // namespace

absl::StatusOr<Model> Train(const TrainOptions& options, const FeatureSpec& spec,
                            const std::vector<Sentence>& train, const std::vector<Sentence>* dev,
                            TrainObserver* observer, const TrainDataInfo& info) {
  size_t i = 0;
  return TrainOnStream(
      options, spec,
      [&]() -> absl::StatusOr<const Sentence*> { return i < train.size() ? &train[i++] : nullptr; },
      dev, observer, info);
}

absl::StatusOr<Model> Train(const TrainOptions& options, const FeatureSpec& spec,
                            const SentenceSource& train, const std::vector<Sentence>* dev,
                            TrainObserver* observer, const TrainDataInfo& info) {
  if (!train) {
    return absl::InvalidArgumentError("training data: expected a sentence source, found none");
  }
  std::optional<Sentence> current;  // only the sentence being featurized is alive
  return TrainOnStream(
      options, spec,
      [&]() -> absl::StatusOr<const Sentence*> {
        absl::StatusOr<std::optional<Sentence>> next = train();
        if (!next.ok()) return next.status();
        current = std::move(*next);
        return current.has_value() ? &*current : nullptr;
      },
      dev, observer, info);
}

}  // namespace chaintag
