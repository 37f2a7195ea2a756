// The trainer options: enum names (parsed and printed only here), the option table that drives
// CLI parsing, --help and the model metadata, and the checks and automatic choices.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/train.h"
#include "string_view_compat.h"
#include "train/ldcrf_objective.h"
#include "train/trainer.h"

namespace chaintag {
namespace {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

constexpr EnumName<Objective> kObjectives[] = {
    {Objective::kCrf, "crf"},
    {Objective::kSoftmaxMargin, "softmax-margin"},
    {Objective::kSsvmMargin, "ssvm-margin"},
    {Objective::kSsvmSlack, "ssvm-slack"},
    {Objective::kPerceptron, "perceptron"},
    {Objective::kLdcrf, "ldcrf"},
    {Objective::kLmsbn, "lmsbn"},
    {Objective::kLmbm, "lmbm"},
};
constexpr EnumName<Algorithm> kAlgorithms[] = {
    {Algorithm::kAuto, "auto"},   {Algorithm::kLbfgs, "lbfgs"},
    {Algorithm::kOwlqn, "owlqn"}, {Algorithm::kBcfw, "bcfw"},
    {Algorithm::kSgd, "sgd"},     {Algorithm::kPerceptron, "perceptron"},
    {Algorithm::kDcd, "dcd"},
};
// The trainer factories of the rows (trainer.h).
using train_internal::Trainer;
using train_internal::TrainerInputs;
std::unique_ptr<Trainer> Lbfgs(const TrainOptions& o, TrainerInputs& in) {
  return train_internal::MakeLbfgsTrainer(o, std::move(in.loss));
}
std::unique_ptr<Trainer> Ssvm(const TrainOptions& o, TrainerInputs& in) {
  return train_internal::MakeSsvmTrainer(o, std::move(in.loss), in.threads);
}
std::unique_ptr<Trainer> Perceptron(const TrainOptions& o, TrainerInputs& in) {
  return train_internal::MakePerceptronTrainer(o, std::move(in.loss));
}
std::unique_ptr<Trainer> Ldcrf(const TrainOptions& o, TrainerInputs& in) {
  return train_internal::MakeLdcrfTrainer(o, std::move(in.latent), in.threads);
}
std::unique_ptr<Trainer> Lmsbn(const TrainOptions& o, TrainerInputs& in) {
  return train_internal::MakeLmsbnTrainer(o, in.threads);
}
std::unique_ptr<Trainer> Lmbm(const TrainOptions& o, TrainerInputs&) {
  return train_internal::MakeLmbmTrainer(o);
}

// One row per objective: how it trains and what it makes. Options are resolved from these rows;
// the objective's own checks (its loss, c2, eta0, latent) follow in ResolveTrainOptions.
struct ObjectiveRow {
  Objective objective;
  Algorithm algorithm;          // what --algorithm auto becomes
  Algorithm also;               // a second accepted algorithm (kAuto: none)
  std::string_view algorithms;  // the accepted ones, for messages
  LossKind loss;                // what --loss auto becomes
  bool order2;                  // second-order chains
  bool neural;                  // neural and hybrid encoders
  ModelFamily family;           // the family section of its models
  std::unique_ptr<Trainer> (*make)(const TrainOptions&, TrainerInputs&);  // MakeTrainer
};
constexpr ModelFamily kChain = ModelFamily::kLinearChain;
constexpr ObjectiveRow kObjectiveRows[] = {
    {Objective::kCrf, Algorithm::kLbfgs, Algorithm::kOwlqn, "lbfgs or owlqn", LossKind::kNone, true,
     true, kChain, Lbfgs},
    {Objective::kSoftmaxMargin, Algorithm::kLbfgs, Algorithm::kOwlqn, "lbfgs or owlqn",
     LossKind::kHamming, true, true, kChain, Lbfgs},
    {Objective::kSsvmMargin, Algorithm::kBcfw, Algorithm::kSgd, "bcfw or sgd", LossKind::kHamming,
     false, true, kChain, Ssvm},
    {Objective::kSsvmSlack, Algorithm::kSgd, Algorithm::kAuto, "sgd", LossKind::kHamming, false,
     false, kChain, Ssvm},
    {Objective::kPerceptron, Algorithm::kPerceptron, Algorithm::kAuto, "perceptron",
     LossKind::kNone, false, false, kChain, Perceptron},
    {Objective::kLdcrf, Algorithm::kLbfgs, Algorithm::kOwlqn, "lbfgs or owlqn", LossKind::kNone,
     false, false, kChain, Ldcrf},
    {Objective::kLmsbn, Algorithm::kDcd, Algorithm::kAuto, "dcd", LossKind::kNone, false, false,
     ModelFamily::kLmsbn, Lmsbn},
    {Objective::kLmbm, Algorithm::kDcd, Algorithm::kAuto, "dcd", LossKind::kNone, false, false,
     ModelFamily::kLmbm, Lmbm},
};

const ObjectiveRow& RowOf(Objective objective) {
  for (const ObjectiveRow& row : kObjectiveRows) {
    if (row.objective == objective) return row;
  }
  return kObjectiveRows[0];  // unreachable: ResolveTrainOptions checked the value first
}

constexpr EnumName<Transitions> kTransitions[] = {
    {Transitions::kIob, "iob"},
    {Transitions::kAll, "all"},
    {Transitions::kObserved, "observed"},
};
constexpr EnumName<CharEncoderKind> kCharEncoders[] = {
    {CharEncoderKind::kCnn, "cnn"},
    {CharEncoderKind::kBiLstm, "bilstm"},
};
constexpr EnumName<EncoderKind> kEncoders[] = {
    {EncoderKind::kSparse, "sparse"},
    {EncoderKind::kNeural, "neural"},
    {EncoderKind::kHybrid, "hybrid"},
};
constexpr EnumName<LossLevel> kLossLevels[] = {
    {LossLevel::kToken, "token"},
    {LossLevel::kChunk, "chunk"},
};

// "a, b or c", for error messages.
template <typename E, size_t N>
std::string Choices(const EnumName<E> (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : i + 1 == N ? " or " : ", ", ToAbsl(names[i].name));
  }
  return out;
}

template <typename E, size_t N>
absl::StatusOr<E> ParseEnum(const EnumName<E> (&names)[N], std::string_view what,
                            std::string_view text) {
  for (const EnumName<E>& n : names) {
    if (n.name == text) return n.value;
  }
  return absl::InvalidArgumentError(absl::StrCat("option ", ToAbsl(what), ": expected ",
                                                 Choices(names), ", found \"", ToAbsl(text), "\""));
}

template <typename E, size_t N>
std::string_view EnumToName(const EnumName<E> (&names)[N], E value) {
  for (const EnumName<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

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
        "option ", ToAbsl(name), ": expected ",
        std::is_same_v<T, double> ? "a number" : "an integer", ", found \"", ToAbsl(text), "\""));
  }
  return absl::OkStatus();
}

// Fills in default_value from a default-constructed TrainOptions, so no default is typed twice.
TrainOptionDef Row(std::string name, std::string help,
                   std::function<absl::Status(TrainOptions*, std::string_view)> set,
                   std::function<std::string(const TrainOptions&)> get) {
  TrainOptionDef def;
  def.name = std::move(name);
  def.help = std::move(help);
  def.set = std::move(set);
  def.get = std::move(get);
  def.default_value = def.get(TrainOptions());
  return def;
}

template <typename T>
TrainOptionDef NumberOption(std::string name, std::string help, T TrainOptions::*field) {
  return Row(
      name, std::move(help),
      [name, field](TrainOptions* o, std::string_view v) {
        return ParseNumber(name, v, &(o->*field));
      },
      [field](const TrainOptions& o) { return absl::StrCat(o.*field); });
}

TrainOptionDef TextOption(std::string name, std::string help, std::string TrainOptions::*field) {
  return Row(
      std::move(name), std::move(help),
      [field](TrainOptions* o, std::string_view v) {
        o->*field = std::string(v);
        return absl::OkStatus();
      },
      [field](const TrainOptions& o) { return o.*field; });
}

template <typename E, size_t N>
TrainOptionDef EnumOption(std::string name, std::string help, E TrainOptions::*field,
                          const EnumName<E> (&names)[N]) {
  return Row(
      name, std::move(help),
      [name, field, &names](TrainOptions* o, std::string_view v) -> absl::Status {
        absl::StatusOr<E> value = ParseEnum(names, name, v);
        if (!value.ok()) return value.status();
        o->*field = *value;
        return absl::OkStatus();
      },
      [field, &names](const TrainOptions& o) { return std::string(EnumToName(names, o.*field)); });
}

std::vector<TrainOptionDef> MakeTable() {
  std::vector<TrainOptionDef> table;
  table.push_back(EnumOption(
      "objective",
      "crf (log-loss), softmax-margin (the epsilon-objective from CRF to SSVM, decomposable "
      "losses), ssvm-margin, ssvm-slack (structural SVM, margin or slack scaling, any loss), "
      "perceptron, ldcrf (latent-dynamic CRF: hidden states per label, see latent), "
      "or lmsbn (left-to-right large-margin model: per-token multiclass hinge with "
      "gold label history, history templates, branch-and-bound decoding), or lmbm (large-margin "
      "Boltzmann machine: per-token hinge against both gold neighbours, eta0, Viterbi decoding)",
      &TrainOptions::objective, kObjectives));
  table.push_back(EnumOption(
      "algorithm",
      "auto (by objective), lbfgs (L2), owlqn (L1 / elastic net, needs c1 > 0), bcfw "
      "(block-coordinate Frank-Wolfe, ssvm-margin), sgd (averaged stochastic subgradient, "
      "ssvm-margin or ssvm-slack), perceptron or dcd (dual coordinate descent, lmsbn and lmbm)",
      &TrainOptions::algorithm, kAlgorithms));
  table.push_back(Row(
      "loss",
      "auto (none for crf, perceptron, lmsbn and lmbm, hamming otherwise), none, hamming, "
      "normalized-hamming, "
      "weighted-hamming, zero-one, fp, precision, recall, f1, fbeta:B, iou or label-count",
      [](TrainOptions* o, std::string_view v) -> absl::Status {
        if (v == "auto") {
          o->loss.reset();
          o->fbeta = 1.0;
          return absl::OkStatus();
        }
        if (v.find('/') != std::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "option loss: expected a loss name without a level (give it with loss_level), "
              "found \"",
              ToAbsl(v), "\""));
        }
        absl::StatusOr<LossSpec> spec = ParseLossSpec(v);
        if (!spec.ok()) return spec.status();
        o->loss = spec->kind;
        o->fbeta = spec->beta;
        return absl::OkStatus();
      },
      [](const TrainOptions& o) {
        return o.loss.has_value() ? LossKindName(*o.loss, o.fbeta) : std::string("auto");
      }));
  table.push_back(EnumOption(
      "loss_level",
      "token or chunk: where fp, precision, recall, f1, fbeta, iou and label-count count "
      "positives",
      &TrainOptions::loss_level, kLossLevels));
  table.push_back(TextOption("loss_weights",
                             "weighted-hamming weights: a file of \"GOLD PREDICTED WEIGHT\" lines "
                             "(unlisted mismatches weigh 1; without a file every mismatch weighs "
                             "1)",
                             &TrainOptions::loss_weights));
  table.push_back(TextOption("positives",
                             "comma-separated positive labels (token level; default all but O) or "
                             "chunk types (chunk level; default all)",
                             &TrainOptions::positives));
  table.push_back(NumberOption(
      "epsilon", "softmax-margin temperature (1: softmax-margin; towards 0: margin-scaled SSVM)",
      &TrainOptions::epsilon));
  table.push_back(NumberOption(
      "p", "regulariser (2 c2 / p) sum |w|^p for softmax-margin, p in (1, 2]", &TrainOptions::p));
  table.push_back(NumberOption("c1", "L1 coefficient: objective += c1 * sum |w| (owlqn only)",
                               &TrainOptions::c1));
  table.push_back(NumberOption(
      "c2", "L2 coefficient: objective += c2 * sum w^2 (CRFsuite convention)", &TrainOptions::c2));
  table.push_back(NumberOption(
      "eta0", "lmbm: extra L2 on the label-label weights, objective += c2 * eta0 * sum w_trans^2",
      &TrainOptions::eta0));
  // Recorded for lmbm models only, so other models stay byte-identical.
  table.back().recorded = [](const TrainOptions& o) { return o.objective == Objective::kLmbm; };
  table.push_back(NumberOption(
      "max_iterations", "maximum L-BFGS iterations, or passes of bcfw, sgd and the perceptron",
      &TrainOptions::max_iterations));
  table.push_back(NumberOption("min_feature_count", "drop attributes seen fewer times in training",
                               &TrainOptions::min_feature_count));
  table.push_back(NumberOption(
      "threads",
      "threads for the objective and evaluation (0 = all cores); results do not depend on it",
      &TrainOptions::threads));
  // Neural models leave it out, so their files are identical for every thread count.
  table.back().recorded = [](const TrainOptions& o) { return o.encoder == EncoderKind::kSparse; };
  table.push_back(NumberOption("tolerance",
                               "L-BFGS: stop when the objective improves by less than this "
                               "(relative) over `period` iterations",
                               &TrainOptions::tolerance));
  table.push_back(NumberOption("period",
                               "iterations over which the stopping test measures improvement",
                               &TrainOptions::period));
  table.push_back(NumberOption(
      "duality_gap",
      "bcfw and lmbm: stop when the duality gap is at most this fraction of the primal objective",
      &TrainOptions::duality_gap));
  table.push_back(NumberOption(
      "learning_rate", "sgd: initial step size eta_0 (0 = calibrate on a sample of 500 sentences)",
      &TrainOptions::learning_rate));
  table.push_back(NumberOption("early_stopping",
                               "with --dev: stop after this many iterations without dev "
                               "improvement (0 = off); the best weights are kept",
                               &TrainOptions::early_stopping));
  table.push_back(NumberOption("max_labels",
                               "refuse training data with more distinct labels (transition "
                               "memory grows with the square of the count)",
                               &TrainOptions::max_labels));
  table.push_back(NumberOption(
      "lbfgs_memory", "L-BFGS corrections kept (memory: about (2m + 4) * 8 bytes per weight)",
      &TrainOptions::lbfgs_memory));
  table.push_back(NumberOption(
      "loss_memory_mb",
      "ssvm, perceptron: memory (MB) exact loss-augmented decoding may use per sentence and "
      "thread; a sentence needing more is decoded with the Hamming-loss maximiser, with a warning",
      &TrainOptions::loss_memory_mb));
  // Recorded when changed only, so models trained before the option stay byte-identical.
  table.back().recorded = [](const TrainOptions& o) {
    return o.loss_memory_mb != TrainOptions().loss_memory_mb;
  };
  table.push_back(
      NumberOption("seed",
                   "random seed for the order of sentences (perceptron, bcfw, sgd) and the initial "
                   "weights (ldcrf)",
                   &TrainOptions::seed));
  table.push_back(TextOption(
      "latent",
      "ldcrf: hidden states per label, K or LABEL=K,... (labels not named get 1, or the bare "
      "number in the list: 'B-NP=4,I-NP=4,2'); empty: 2 per label",
      &TrainOptions::latent));
  table.back().recorded = [](const TrainOptions& o) { return o.objective == Objective::kLdcrf; };
  table.push_back(NumberOption(
      "order",
      "label order of the chain: 1, or 2 for label-trigram weights (crf and softmax-margin; "
      "decoding costs about N times more)",
      &TrainOptions::order));
  // Recorded for second-order models only, so first-order models stay byte-identical.
  table.back().recorded = [](const TrainOptions& o) { return o.order != 1; };
  table.push_back(EnumOption(
      "transitions",
      "iob (a weight for every label pair; IOB-invalid pairs never seen in training, O -> I-X, "
      "are forbidden when training and tagging), all (a weight for every pair, no mask: "
      "CRFsuite's feature.possible_transitions=1) or observed (weights only for the pairs, start "
      "and end labels seen in training, the others score 0: possible_transitions=0)",
      &TrainOptions::transitions, kTransitions));
  // Recorded when changed only, so models trained with the IOB mask stay byte-identical.
  table.back().recorded = [](const TrainOptions& o) { return o.transitions != Transitions::kIob; };
  // Neural options are recorded in neural and hybrid models only (sparse files are unchanged).
  const auto neural = [](const TrainOptions& o) { return o.encoder != EncoderKind::kSparse; };
  table.push_back(EnumOption(
      "encoder",
      "where emissions come from: sparse (feature templates), neural (word embeddings, character "
      "CNN, BiLSTM; see docs/neural.md) or hybrid (both summed, trained together)",
      &TrainOptions::encoder, kEncoders));
  table.back().recorded = neural;
  table.push_back(TextOption(
      "embeddings", "neural, hybrid: word vectors written by `chaintag embeddings` (optional)",
      &TrainOptions::embeddings));
  table.back().recorded = neural;
  const std::vector<std::tuple<std::string, std::string, int TrainOptions::*>> ints = {
      {"epochs", "neural, hybrid: passes over the training data", &TrainOptions::epochs},
      {"patience",
       "neural, hybrid with --dev: stop after this many epochs without a better dev "
       "score (the best epoch is kept)",
       &TrainOptions::patience},
      {"batch_size", "neural, hybrid: sentences per Adam update", &TrainOptions::batch_size},
      {"word_dim", "neural, hybrid: word embedding size without --embeddings",
       &TrainOptions::word_dim},
      {"freeze_embeddings",
       "neural, hybrid: 1 keeps the word embeddings as --embeddings gives them",
       &TrainOptions::freeze_embeddings},
      {"char_filters",
       "neural, hybrid: character CNN filters, or the character BiLSTM's output size (0: no "
       "character representation)",
       &TrainOptions::char_filters},
      {"hidden", "neural, hybrid: BiLSTM units per direction", &TrainOptions::hidden},
      {"layers", "neural, hybrid: BiLSTM layers (1 or 2)", &TrainOptions::layers},
      {"average_epochs",
       "neural, hybrid with --dev: also score the mean of the last k epochs' parameters on dev "
       "and keep it when better (1: off)",
       &TrainOptions::average_epochs},
      {"max_vocabulary",
       "neural, hybrid: words with an embedding of their own (training words "
       "first, then the vectors' most frequent)",
       &TrainOptions::max_vocabulary},
      {"max_sparse_features",
       "hybrid: sparse features kept, those of largest |weight| (the model stays within about "
       "20 MB); dev is scored again after the cut",
       &TrainOptions::max_sparse_features},
  };
  for (const auto& [name, help, field] : ints) {
    table.push_back(NumberOption(name, help, field));
    table.back().recorded = neural;
  }
  table.push_back(EnumOption(
      "char_encoder",
      "neural, hybrid: how a word's characters become a vector: cnn (convolution, max-pooling) "
      "or bilstm (a character BiLSTM with char_filters / 2 units per direction)",
      &TrainOptions::char_encoder, kCharEncoders));
  // Recorded for the BiLSTM only, so models with the character CNN stay byte-identical.
  table.back().recorded = [](const TrainOptions& o) {
    return o.encoder != EncoderKind::kSparse && o.char_encoder != CharEncoderKind::kCnn;
  };
  table.push_back(
      NumberOption("dropout", "neural, hybrid: dropout probability", &TrainOptions::dropout));
  table.back().recorded = neural;
  table.push_back(NumberOption("learning_rate_decay",
                               "neural, hybrid: epoch e steps with learning_rate / (1 + "
                               "learning_rate_decay * (e - 1))",
                               &TrainOptions::learning_rate_decay));
  table.back().recorded = neural;
  table.push_back(NumberOption("sparse_rate",
                               "hybrid: the sparse weights' step as a multiple of the learning "
                               "rate (their L2 term is c2 * sum w^2)",
                               &TrainOptions::sparse_rate));
  table.back().recorded = neural;
  return table;
}

bool IsSmooth(Objective objective) {
  return objective == Objective::kCrf || objective == Objective::kSoftmaxMargin ||
         objective == Objective::kLdcrf;
}

}  // namespace

absl::StatusOr<Objective> ParseObjective(std::string_view name) {
  return ParseEnum(kObjectives, "objective", name);
}
std::string_view ObjectiveName(Objective objective) { return EnumToName(kObjectives, objective); }
absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name) {
  return ParseEnum(kAlgorithms, "algorithm", name);
}
std::string_view AlgorithmName(Algorithm algorithm) { return EnumToName(kAlgorithms, algorithm); }
absl::StatusOr<Transitions> ParseTransitions(std::string_view name) {
  return ParseEnum(kTransitions, "transitions", name);
}
std::string_view TransitionsName(Transitions transitions) {
  return EnumToName(kTransitions, transitions);
}

absl::StatusOr<LossLevel> ParseLossLevel(std::string_view name) {
  return ParseEnum(kLossLevels, "loss_level", name);
}
std::string_view LossLevelName(LossLevel level) { return EnumToName(kLossLevels, level); }
absl::StatusOr<EncoderKind> ParseEncoderKind(std::string_view name) {
  return ParseEnum(kEncoders, "encoder", name);
}
std::string_view EncoderKindName(EncoderKind encoder) { return EnumToName(kEncoders, encoder); }

const std::vector<TrainOptionDef>& TrainOptionTable() {
  static const std::vector<TrainOptionDef>* const table =
      new std::vector<TrainOptionDef>(MakeTable());
  return *table;
}

absl::Status SetTrainOption(TrainOptions* options, std::string_view name, std::string_view value) {
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (def.name == name) return def.set(options, value);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown training option \"", ToAbsl(name), "\""));
}

absl::Status ValidateTrainOptions(const TrainOptions& o) { return ResolveTrainOptions(o).status(); }

absl::StatusOr<TrainOptions> ResolveTrainOptions(const TrainOptions& options) {
  TrainOptions o = options;
  auto bad = [](std::string_view what, auto value) {
    return absl::InvalidArgumentError(absl::StrCat("option ", ToAbsl(what), ", found ", value));
  };
  if (EnumToName(kObjectives, o.objective) == "?") {
    return bad("objective: expected one of the Objective values", static_cast<int>(o.objective));
  }
  if (EnumToName(kAlgorithms, o.algorithm) == "?") {
    return bad("algorithm: expected one of the Algorithm values", static_cast<int>(o.algorithm));
  }
  if (EnumToName(kTransitions, o.transitions) == "?") {
    return bad("transitions: expected one of the Transitions values",
               static_cast<int>(o.transitions));
  }
  // Legacy: `--algorithm perceptron` alone selects the perceptron objective.
  if (o.algorithm == Algorithm::kPerceptron && o.objective == Objective::kCrf) {
    o.objective = Objective::kPerceptron;
  }
  const ObjectiveRow& row = RowOf(o.objective);
  if (o.algorithm == Algorithm::kAuto) o.algorithm = row.algorithm;
  const bool smooth = IsSmooth(o.objective);
  const Algorithm a = o.algorithm;
  if (a != row.algorithm && (row.also == Algorithm::kAuto || a != row.also)) {
    return bad(absl::StrCat("algorithm: objective ", ToAbsl(ObjectiveName(o.objective)),
                            " expects ", ToAbsl(row.algorithms)),
               ToAbsl(AlgorithmName(a)));
  }
  if (!o.loss.has_value()) {
    o.loss = row.loss;
    o.fbeta = 1.0;
  }
  // The level applies to the levelled losses only; ParseLossSpec says which.
  absl::StatusOr<LossSpec> spec =
      ParseLossSpec(LossKindName(*o.loss, o.fbeta), LossLevelName(o.loss_level));
  if (!spec.ok()) return spec.status();
  const std::string loss_name = LossKindName(*o.loss, o.fbeta);
  if (o.objective == Objective::kLmsbn && spec->kind != LossKind::kNone) {
    return bad("loss: the lmsbn objective has its own per-token hinge (no --loss)", loss_name);
  }
  if (o.objective == Objective::kLmsbn && !(o.c2 > 0)) {
    return bad("c2: lmsbn expects c2 > 0", o.c2);
  }
  if (o.objective == Objective::kLmbm) {
    if (spec->kind != LossKind::kNone)
      return bad("loss: the lmbm objective has its own per-token hinge (no --loss)", loss_name);
    if (!(o.c2 > 0)) return bad("c2: lmbm expects c2 > 0", o.c2);
    if (!(o.eta0 >= 0) || !std::isfinite(o.eta0)) return bad("eta0: expected >= 0", o.eta0);
  }
  if (o.objective == Objective::kCrf && spec->kind != LossKind::kNone) {
    return bad("loss: the crf objective has no loss (use --objective softmax-margin)", loss_name);
  }
  if (o.objective == Objective::kLdcrf && spec->kind != LossKind::kNone) {
    return bad("loss: the ldcrf objective has no loss", loss_name);
  }
  if (o.objective == Objective::kLdcrf) {
    if (o.latent.empty()) o.latent = "2";
    // Before the data is read: a usage error (exit 2), not an hour into reading.
    if (absl::Status s = train_internal::CheckLatentSpec(o.latent); !s.ok()) return s;
    if (o.p != 2) return bad("p: ldcrf uses the L2 (and with owlqn L1) regulariser", o.p);
    if (o.epsilon != 1.0)
      return bad("epsilon: the temperature applies to softmax-margin only", o.epsilon);
  } else if (!o.latent.empty()) {
    return bad("latent: hidden states apply to --objective ldcrf only", o.latent);
  }
  if (o.objective == Objective::kSoftmaxMargin && !IsDecomposable(*spec)) {
    return bad(
        "loss: softmax-margin expects a decomposable loss (none, hamming, "
        "normalized-hamming or weighted-hamming)",
        loss_name);
  }
  if (!o.loss_weights.empty() && spec->kind != LossKind::kWeightedHamming) {
    return bad("loss_weights: weights apply to --loss weighted-hamming only", loss_name);
  }
  if (!smooth && o.epsilon != 1.0) {
    return bad("epsilon: the temperature applies to softmax-margin only", o.epsilon);
  }
  if (!(o.epsilon > 0)) return bad("epsilon: expected > 0", o.epsilon);
  if (!(o.p > 1 && o.p <= 2)) return bad("p: expected a number in (1, 2]", o.p);
  if (o.p != 2 && !smooth) return bad("p: p != 2 applies to crf and softmax-margin only", o.p);
  if (!(o.c1 >= 0)) return bad("c1: expected >= 0", o.c1);
  if (!(o.c2 >= 0)) return bad("c2: expected >= 0", o.c2);
  if (a == Algorithm::kOwlqn && o.c1 <= 0) return bad("c1: owlqn expects c1 > 0", o.c1);
  if (a != Algorithm::kOwlqn && o.c1 != 0) {
    return bad("c1: only owlqn has an L1 term (use --algorithm owlqn)", o.c1);
  }
  if ((o.objective == Objective::kSsvmMargin || o.objective == Objective::kSsvmSlack) &&
      !(o.c2 > 0)) {
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
  if (o.loss_memory_mb < 1 || o.loss_memory_mb > (1 << 20)) {
    return bad("loss_memory_mb: expected 1 to 1048576", o.loss_memory_mb);
  }
  if (o.order != 1 && o.order != 2) return bad("order: expected 1 or 2", o.order);
  if (o.order == 2 && !row.order2) {
    return bad("order: second-order chains are trained with --objective crf or softmax-margin",
               ToAbsl(ObjectiveName(o.objective)));
  }
  if (o.transitions == Transitions::kObserved &&
      (o.order != 1 || o.objective == Objective::kLdcrf || o.objective == Objective::kLmsbn)) {
    return bad(
        "transitions: observed applies to first-order chains of label transitions (not order 2, "
        "ldcrf or lmsbn)",
        ToAbsl(ObjectiveName(o.objective)));
  }
  if (EnumToName(kEncoders, o.encoder) == "?") {
    return bad("encoder: expected one of the EncoderKind values", static_cast<int>(o.encoder));
  }
  if (o.encoder == EncoderKind::kSparse) {
    if (!o.embeddings.empty()) {
      return bad("embeddings: word vectors apply to --encoder neural or hybrid", o.embeddings);
    }
    return o;
  }
  if (!row.neural) {
    return bad(
        "objective: neural and hybrid models are trained with crf, softmax-margin or "
        "ssvm-margin",
        ToAbsl(ObjectiveName(o.objective)));
  }
  if (spec->kind != LossKind::kNone && spec->kind != LossKind::kHamming) {
    return bad("loss: neural and hybrid models are trained with the Hamming loss", loss_name);
  }
  if (o.order != 1) return bad("order: neural and hybrid models are first-order chains", o.order);
  if (o.transitions == Transitions::kObserved) {
    return bad("transitions: neural and hybrid models train every transition (iob or all)",
               "observed");
  }
  if (o.c1 != 0) return bad("c1: neural and hybrid models have no L1 term", o.c1);
  const auto range = [&](std::string_view what, int v, int lo, int hi) -> absl::Status {
    if (v >= lo && v <= hi) return absl::OkStatus();
    return bad(absl::StrCat(ToAbsl(what), ": expected ", lo, " to ", hi), v);
  };
  for (const auto& [what, v, lo, hi] : std::vector<std::tuple<std::string, int, int, int>>{
           {"epochs", o.epochs, 1, 1000},
           {"patience", o.patience, 1, 1000},
           {"batch_size", o.batch_size, 1, 4096},
           {"word_dim", o.word_dim, 1, 1024},
           {"freeze_embeddings", o.freeze_embeddings, 0, 1},
           {"char_filters", o.char_filters, 0, 1024},
           {"hidden", o.hidden, 1, 1024},
           {"layers", o.layers, 1, 2},
           {"max_vocabulary", o.max_vocabulary, 1, 1000000},
           {"average_epochs", o.average_epochs, 1, 100},
           {"max_sparse_features", o.max_sparse_features, 0, 100000000}}) {
    if (absl::Status s = range(what, v, lo, hi); !s.ok()) return s;
  }
  if (EnumToName(kCharEncoders, o.char_encoder) == "?") {
    return bad("char_encoder: expected cnn or bilstm", static_cast<int>(o.char_encoder));
  }
  if (o.char_encoder == CharEncoderKind::kBiLstm && o.char_filters % 2 != 0) {
    return bad("char_filters: the character BiLSTM's output size must be even (2 x units)",
               o.char_filters);
  }
  if (!(o.dropout >= 0 && o.dropout < 1)) return bad("dropout: expected 0 <= p < 1", o.dropout);
  if (!(o.learning_rate_decay >= 0 && o.learning_rate_decay <= 100)) {
    return bad("learning_rate_decay: expected 0 to 100", o.learning_rate_decay);
  }
  if (!(o.sparse_rate > 0 && o.sparse_rate <= 1000)) {
    return bad("sparse_rate: expected > 0 and <= 1000", o.sparse_rate);
  }
  return o;
}

namespace train_internal {

absl::StatusOr<std::unique_ptr<Trainer>> MakeTrainer(const TrainOptions& resolved,
                                                     TrainerInputs inputs) {
  if (resolved.algorithm == Algorithm::kAuto) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm ", ToAbsl(AlgorithmName(resolved.algorithm)),
                     ": expected options resolved by ResolveTrainOptions"));
  }
  return RowOf(resolved.objective).make(resolved, inputs);
}

ModelFamily FamilyOf(chaintag::Objective objective) { return RowOf(objective).family; }

}  // namespace train_internal

}  // namespace chaintag
