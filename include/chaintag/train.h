// Training linear-chain models (chaintag_train): CRF, softmax-margin, structural SVM and
// perceptron objectives behind one entry point (Train), one option table that drives CLI
// parsing, --help and the model's metadata, and the ModelBuilder that makes models.
#ifndef CHAINTAG_TRAIN_H_
#define CHAINTAG_TRAIN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/chunks.h"
#include "chaintag/communicator.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"

namespace chaintag {

// ---------------------------------------------------------------------------------------------
// Losses Delta(y*, y) between a gold labeling y* and a labeling y, for loss-augmented inference
// (structural SVM training), the epsilon-objective and the PAC-Bayes bound term. Each loss is a
// function of a small integer statistic of y that the auxiliary-variable engine (aux_dp.h) tracks.

enum class LossKind {
  kNone,               // Delta = 0 (plain decoding; the perceptron and the CRF)
  kHamming,            // number of wrongly labelled tokens
  kNormalizedHamming,  // Hamming / M
  kWeightedHamming,    // sum over tokens of weight(gold label, predicted label)
  kZeroOne,            // 1 if y != y*
  kFalsePositives,     // FP
  kPrecision,          // 1 - TP / (TP + FP)
  kRecall,             // 1 - TP / (TP + FN)
  kFBeta,              // 1 - F_beta
  kIou,                // 1 - TP / (TP + FP + FN)
  kLabelCount,         // |#positives(y) - #positives(y*)|
};
enum class LossLevel { kToken, kChunk };

// What the user asked for (`--loss`, `--loss-level`, ...), before it is bound to a label set.
struct LossSpec {
  LossKind kind = LossKind::kNone;
  LossLevel level = LossLevel::kToken;
  double beta = 1.0;  // kFBeta ("f1" is fbeta with beta 1)
  // Token level: labels counted as positives (empty: every label except "O"). Chunk level: chunk
  // types counted (empty: every type).
  std::vector<std::string> positives;
  // kWeightedHamming: (gold, predicted, weight) entries; unlisted mismatches weigh 1, matches 0.
  struct Weight {
    std::string gold, predicted;
    double weight = 1.0;
  };
  std::vector<Weight> weights;
};

// Parses a `--loss` value: none, hamming, normalized-hamming, weighted-hamming, zero-one, fp,
// precision, recall, f1, fbeta:B, iou, label-count; and a `--loss-level` value: token or chunk.
absl::StatusOr<LossSpec> ParseLossSpec(std::string_view loss, std::string_view level = "token");
// Canonical text of a spec ("f1", "fbeta:0.5", "hamming"), as stored in model metadata; with the
// level appended for the levelled losses ("f1/chunk").
std::string LossSpecName(const LossSpec& spec);
// Reads weighted-Hamming weights from a file of lines "GOLD PREDICTED WEIGHT" (weights >= 0).
absl::Status ReadLossWeights(const std::string& path, LossSpec* spec);
// True for the losses that decompose over tokens (none, Hamming, normalised and weighted Hamming):
// they fold into the lattice's unary scores.
bool IsDecomposable(const LossSpec& spec);

// ---------------------------------------------------------------------------------------------
// Training. Objective, algorithm and loss level are enums; their names are parsed and printed in
// one place (the functions below), which the option table, the CLI and the metadata all use.

enum class Objective {
  kCrf,            // sum_i -log P(y_i | x_i) (log-loss)
  kSoftmaxMargin,  // sum_i eps log sum_y exp((Delta + F(y)) / eps) - F(y_i) (decomposable Delta;
                   // eps = 1: softmax-margin, eps -> 0: margin-scaled SSVM; Hazan & Urtasun 2010)
  kSsvmMargin,     // sum_i max_y Delta + F(y) - F(y_i) (structural SVM)
  kSsvmSlack,      // sum_i max_y Delta (1 + F(y) - F(y_i))
  kPerceptron,     // averaged structured perceptron (loss-augmented when a loss is given)
  kLdcrf,  // latent-dynamic CRF: sum_i -log sum_{h -> y_i} P(h | x_i) over hidden states (--latent)
  kLmsbn,  // sum over tokens of the multiclass hinge with gold label history + c2 |w|^2
           // (left-to-right large-margin model, Miao and Rao; decoded by branch-and-bound)
  kLmbm,   // sum over tokens and wrong labels of the hinge of the label against both gold
           // neighbours + c2 (|w|^2 + eta0 |w_transitions|^2) (large-margin Boltzmann machine,
           // Miao and Rao; a chain decoded by Viterbi)
};
// Which label transitions a model has (CRFsuite's feature.possible_transitions, sklearn-crfsuite's
// all_possible_transitions), chosen in TrainingTransitionMask.
enum class Transitions {
  kIob,       // a weight for every pair; IOB-invalid pairs never seen in training (O -> I-X) are
              // forbidden in training and tagging (the model's transition mask)
  kAll,       // a weight for every pair, no mask (CRFsuite's possible_transitions=1)
  kObserved,  // weights only for pairs (and start, end labels) seen in training; the others stay
              // 0, no mask (CRFsuite's possible_transitions=0)
};
enum class Algorithm {
  kAuto,  // lbfgs for crf and softmax-margin, bcfw for ssvm-margin, sgd for ssvm-slack
  kLbfgs,
  kOwlqn,  // L-BFGS with an L1 term (crf, softmax-margin)
  kBcfw,   // block-coordinate Frank-Wolfe (ssvm-margin)
  kSgd,    // averaged stochastic subgradient (ssvm-margin, ssvm-slack)
  kPerceptron,
  kDcd,  // dual coordinate descent for the Crammer-Singer multiclass SVM (lmsbn)
};

// Where a chain model's emissions come from (ARCHITECTURE.md, "Model families and encoders").
enum class EncoderKind {
  kSparse,  // feature templates or attributes (every objective and algorithm)
  kNeural,  // word embeddings, a character CNN and BiLSTM layers (docs/neural.md)
  kHybrid,  // both, summed, trained together
};
// How a neural or hybrid model represents a word's characters.
enum class CharEncoderKind {
  kCnn,     // convolution and max-pooling (Ma and Hovy 2016)
  kBiLstm,  // a BiLSTM's final states (Lample et al. 2016)
};
// "sparse", "neural", "hybrid".
absl::StatusOr<EncoderKind> ParseEncoderKind(std::string_view name);
std::string_view EncoderKindName(EncoderKind encoder);

// "crf", "softmax-margin", "ssvm-margin", "ssvm-slack", "perceptron", "ldcrf", "lmsbn".
absl::StatusOr<Objective> ParseObjective(std::string_view name);
std::string_view ObjectiveName(Objective objective);
// "auto", "lbfgs", "owlqn", "bcfw", "sgd", "perceptron", "dcd".
absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name);
std::string_view AlgorithmName(Algorithm algorithm);
// "iob", "all", "observed".
absl::StatusOr<Transitions> ParseTransitions(std::string_view name);
std::string_view TransitionsName(Transitions transitions);
// "token", "chunk".
absl::StatusOr<LossLevel> ParseLossLevel(std::string_view name);
std::string_view LossLevelName(LossLevel level);
// The loss kind as --loss spells it ("hamming", "f1", "fbeta:0.5"), without the level.
std::string LossKindName(LossKind kind, double beta = 1.0);

struct TrainOptions {
  // What is minimised; every objective adds the same regulariser, c2 |w|^2 unless p != 2.
  Objective objective = Objective::kCrf;
  Algorithm algorithm = Algorithm::kAuto;
  // The loss kind (nullopt: auto, none for crf and perceptron, hamming otherwise); `fbeta` is B of
  // fbeta:B. Level, positives and weights have options of their own.
  std::optional<LossKind> loss;
  double fbeta = 1.0;
  LossLevel loss_level = LossLevel::kToken;  // where fp, precision, recall, f1, ... count
  std::string loss_weights;  // weighted-hamming: file of "GOLD PREDICTED WEIGHT" lines
  std::string positives;     // comma-separated positive labels (token level) or chunk types
  double epsilon = 1.0;      // softmax-margin temperature
  double p = 2.0;            // regulariser (2 c2 / p) |w|_p^p, p in (1, 2]
  // CRF convention (no 1/2): objective += c1 * |w|_1 + c2 * |w|^2.
  double c1 = 0.0;
  double c2 = 1.0;
  double eta0 = 1.0;  // lmbm: extra L2 on the label-label weights, c2 * eta0 |w_transitions|^2
  int max_iterations = 1000;   // L-BFGS iterations, or passes (epochs) of the other algorithms
  int min_feature_count = 1;   // attributes seen fewer times in training are dropped
  int threads = 0;             // 0 = all cores; the result is identical for every value
  double tolerance = 1e-5;     // L-BFGS: stop when the objective improves < tolerance (relative)
  int period = 10;             // ... over this many iterations
  double duality_gap = 0.01;   // bcfw: stop when the duality gap <= duality_gap * primal
  double learning_rate = 0.0;  // sgd: initial step eta_0 (0 = calibrate on a sample)
  int early_stopping = 0;      // > 0: stop after this many dev evaluations without improvement
  int max_labels = 1000;       // more distinct training labels is refused (memory grows as N^2)
  int lbfgs_memory = 5;  // L-BFGS corrections m; memory is about (2m + 5) * 8 bytes per weight
  // Exact loss-augmented decoding (ssvm, perceptron) of one sentence on one thread may use this
  // much for its tables; a sentence needing more gets the Hamming-loss maximiser and a warning.
  int loss_memory_mb = 512;
  uint64_t seed = 1;  // shuffling (perceptron, bcfw, sgd); initial weights (ldcrf)
  // ldcrf: hidden states per label, "K" or "B-NP=4,I-NP=4,O=2" (unnamed labels: 1, or a bare
  // number in the list); empty means 2 per label.
  std::string latent;
  // Label order of the chain: 1 (bigram transitions) or 2 (also trigram weights; crf and
  // softmax-margin objectives, at most kMaxSecondOrderLabels labels).
  int order = 1;
  Transitions transitions = Transitions::kIob;

  // Neural and hybrid models (docs/neural.md): trained with Adam on mini-batches (--algorithm
  // does not apply; learning_rate 0 means 0.002), crf, softmax-margin or ssvm-margin with the
  // Hamming loss. The result does not depend on `threads`.
  EncoderKind encoder = EncoderKind::kSparse;
  std::string embeddings;     // word vectors written by `chaintag embeddings` (optional)
  int epochs = 20;            // passes over the training data
  int patience = 3;           // with dev data: epochs without a better dev score before stopping
  int batch_size = 16;        // sentences per update
  int word_dim = 100;         // word embedding size without --embeddings (else the vectors')
  int freeze_embeddings = 0;  // 1: the word embeddings stay as the vectors give them
  int char_filters = 50;      // character CNN filters (0: no character CNN)
  // cnn, or bilstm: then char_filters is the BiLSTM's output size (char_filters / 2 per direction)
  CharEncoderKind char_encoder = CharEncoderKind::kCnn;
  int hidden = 100;            // BiLSTM units per direction
  int layers = 1;              // BiLSTM layers, 1 or 2
  double dropout = 0.33;       // dropout on the token representations and BiLSTM outputs
  int average_epochs = 1;      // with dev: also score the mean of the last k epochs' parameters
  int max_vocabulary = 50000;  // words with their own embedding (training words first)
  // Hybrid: the sparse features kept (those of largest |weight|), so the model stays within the
  // issue's 20 MB budget; dev is scored again after the cut.
  int max_sparse_features = 200000;
  // Epoch e (from 1) steps with learning_rate / (1 + learning_rate_decay * (e - 1)).
  double learning_rate_decay = 0.05;
  // Hybrid: the sparse weights' Adam step as a multiple of the learning rate; their L2 term is
  // c2 |w_sparse|^2 as in sparse models.
  double sparse_rate = 1;
};
inline constexpr int kMaxSecondOrderLabels = 100;

// One row of the option table (CRFsuite style): name, default, help, parse and print. The table
// drives CLI parsing and --help, and every row is recorded in the model's metadata; the default
// is printed from a default-constructed TrainOptions, so it is never written by hand.
struct TrainOptionDef {
  std::string name;
  std::string default_value;
  std::string help;
  std::function<absl::Status(TrainOptions*, std::string_view)> set;
  std::function<std::string(const TrainOptions&)> get;
  // Recorded in the model metadata only when this returns true (null: always). An option added
  // for one objective is recorded only for it, so models of the other objectives stay
  // byte-identical to those trained before the option existed (tools/train-models.sh).
  std::function<bool(const TrainOptions&)> recorded;
};
const std::vector<TrainOptionDef>& TrainOptionTable();
// Sets option `name` from text (errors name the option and the expected values).
absl::Status SetTrainOption(TrainOptions* options, std::string_view name, std::string_view value);
// Checks ranges and combinations (e.g. owlqn needs c1 > 0, lbfgs needs c1 == 0).
absl::Status ValidateTrainOptions(const TrainOptions& options);
// Validates and fills in the automatic choices (algorithm, loss) from the objective; the legacy
// `--algorithm perceptron` alone selects the perceptron objective.
absl::StatusOr<TrainOptions> ResolveTrainOptions(const TrainOptions& options);

struct TrainProgress {
  int iteration = 0;
  // The regularised objective of the weights reported with it (SSVM: exact primal; BCFW and
  // SGD: of the averaged weights); perceptron: wrongly labelled tokens.
  double objective = 0.0;
  double gradient_norm = 0.0;  // L-BFGS only
  // BCFW only: objective - duality_gap is a lower bound on the optimum.
  std::optional<double> duality_gap;
  std::optional<double> mean_loss;  // ssvm: mean Delta of the pass's loss-augmented maximisers
  double inference_seconds = 0.0;   // ssvm: the pass's time in loss-augmented inference
  double pass_seconds = 0.0;        // ssvm: the pass's wall time
  int64_t active_features = 0;      // non-zero weights
  std::optional<double> dev_score;
  std::string dev_metric;  // "F1" for chunk labels, otherwise "accuracy"; percentages
  // Sentences first found in this iteration to be over --loss-memory-mb, each decoded with the
  // Hamming-loss maximiser instead of the exact one: one message per sentence, naming it.
  std::vector<std::string> warnings;
  double elapsed_seconds = 0.0;
  // Neural and hybrid models: `iteration` is an epoch and `objective` the epoch's summed loss.
  bool epoch = false;
};

// Receives one report per iteration (L-BFGS iteration, SSVM pass, perceptron epoch) from every
// trainer, dev score included.
class TrainObserver {
 public:
  virtual ~TrainObserver() = default;
  virtual void OnIteration(const TrainProgress& progress) = 0;
  // Asked after each report: an error stops training there and Train returns it (the Python
  // module stops on Ctrl-C or a progress callback's exception this way).
  virtual absl::Status Interrupted() { return absl::OkStatus(); }
};

// What the caller knows about the training data, stored in the model: how it was read (`tag`
// reads input the same way) and free-form provenance (template and file names), appended to the
// metadata after the trainer's own entries.
struct TrainDataInfo {
  ModelInputOptions input;
  std::vector<std::pair<std::string, std::string>> metadata;
  // Data-parallel training (docs/distributed.md): every rank calls Train with the same arguments
  // and sentences; rank r featurizes sentences i = r (mod size) and the ranks sum their shares,
  // so every rank returns the model one process would train. Null: this process alone.
  Communicator* ranks = nullptr;
  // Checkpoints (docs/distributed.md): with checkpoint_every > 0 the optimiser state and the dev
  // tracking are written atomically to `checkpoint` (by rank 0) every that many iterations; a
  // non-empty `resume` continues from such a file, which must come from the same options and
  // data. Either runs chaintag's own restartable L-BFGS/OWL-QN instead of libLBFGS (crf,
  // softmax-margin, ldcrf), so the model differs slightly from one trained without them; a run
  // stopped and resumed writes the same bytes as one that ran straight through.
  std::string checkpoint;
  int checkpoint_every = 0;
  std::string resume;
};

// Supplies training sentences one at a time (e.g. SentenceReader::Next over the training files):
// the next sentence, std::nullopt at the end, or an error (which Train returns).
using SentenceSource = std::function<absl::StatusOr<std::optional<Sentence>>()>;

// Trains a model under options.objective with the trainer options.algorithm selects (every
// gold-labelled sentence of `train` is featurized as it streams in and dropped, a few are kept as
// self-tests, so peak memory does not include the corpus). `dev` may be null; when given, it is
// scored every iteration (chunk F1 or accuracy) and the best weights are kept; the metadata
// records `iterations` (run) and `selected_iteration` (the weights kept). `observer` may be null.
// Training runs without the chunk transition mask; the model carries the mask inferred from the
// training labels and applies it when tagging (and when scoring dev).
absl::StatusOr<Model> Train(const TrainOptions& options, const FeatureSpec& spec,
                            const SentenceSource& train, const std::vector<Sentence>* dev,
                            TrainObserver* observer, const TrainDataInfo& info = {});
// The same on sentences held in memory.
absl::StatusOr<Model> Train(const TrainOptions& options, const FeatureSpec& spec,
                            const std::vector<Sentence>& train, const std::vector<Sentence>* dev,
                            TrainObserver* observer, const TrainDataInfo& info = {});

}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_H_
