// The model: labels, feature templates, attribute dictionary, weights and metadata; the versioned
// binary model file; and the per-thread Tagger that turns a Sentence into a Lattice.
#ifndef CHAINTAG_MODEL_H_
#define CHAINTAG_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"

namespace chaintag {

namespace neural {
template <typename T>
class Encoder;
}  // namespace neural

// The trainers' double weight layout (src/model/parameters.h); Model::Parameters() builds it.
struct ModelParameters;

// Reader options that change what a model's input and labels are; recorded at training time so
// `tag` reads input the way the model was trained unless the user overrides them.
struct ModelInputOptions {
  CorpusFormat format = CorpusFormat::kConll;
  int label_column = -1;              // conll: 1-based label column, -1 = last
  std::string conllu_label = "xpos";  // conllu: "upos" or "xpos"
  bool np_chunks = false;             // ptb: IOB2 base-NP chunks as labels

  // Copies the four fields into `options`, leaving every other reader option as it is.
  void ApplyTo(ReaderOptions* options) const;
  bool operator==(const ModelInputOptions& other) const = default;
};
ModelInputOptions InputOptionsOf(const ReaderOptions& options);

enum class ModelFileCompression { kNone, kGzip };

// How a model scores and decodes: a first-order linear chain (Viterbi over a Lattice) or the
// left-to-right large-margin model (LMSBN: every position scored from the input and the whole
// label history, decoded by branch-and-bound; branch_and_bound.h).
// LMBM (Miao and Rao's large-margin Boltzmann machine) is a first-order chain trained by dual
// coordinate descent: it scores and decodes as kLinearChain.
enum class ModelFamily { kLinearChain, kLmsbn, kLmbm };
// "linear-chain", "lmsbn" or "lmbm" (the name `chaintag info` shows and the model file stores).
std::string_view ModelFamilyName(ModelFamily family);

// What decoding a model supports. The request builder, the pipeline, collective decoding,
// `eval` and Python ask this instead of testing the model's family.
struct ModelCapabilities {
  bool kbest = true;          // the K best labelings
  bool counts = true;         // label and chunk count constraints
  bool score_range = true;    // best labeling in a score range
  bool diverse = true;        // diverse k-best
  bool exclusions = true;     // labelings to avoid
  bool forced_labels = true;  // labels fixed per token
  bool marginals = true;      // per-token label marginals
  bool probabilities = true;  // P(y|x) per solution
  // Scores a given labeling on a lattice over labels (Python probability/marginal, eval
  // --bound-term); false for hidden-state lattices and for label-history models.
  bool label_lattice = true;
  bool collective = true;       // document-level collective decoding (a first-order label chain)
  bool latent_decoder = false;  // DecodeRequest::latent_decoder chooses the search (k-best: ldi)
  bool weights = true;          // state and transition weights (Python state_features etc.)
  // How refusals name the model: "a latent-dynamic model (objective ldcrf)".
  const char* description = "a linear-chain model";
};

class ModelBuilder;
class Family;

// A model is immutable (ModelBuilder in the training library makes new ones) and safe to share
// across threads. It keeps its weights once, in the tagging layout (TaggingScores, float32 as in
// the file); Parameters() rebuilds the trainers' double layout when one is wanted.
class Model {
 public:
  // Loads and fully validates a model file: magic, format version, section table, checksums, every
  // offset and index bounds-checked, then runs the stored self-test sentences. Errors name the
  // file.
  static absl::StatusOr<Model> Load(const std::string& path);
  // Loads the models of a pipeline at once, one thread per file up to the number of cores (a word
  // clustering the files share is parsed once). The models, and the error (that of the first
  // failing file in `paths` order), are those of calling Load on each in turn.
  static absl::StatusOr<std::vector<Model>> LoadAll(const std::vector<std::string>& paths);
  // Parses an in-memory model file image (Load uses this; tests feed it truncations). A
  // gzip-compressed image (Save with kGzip) is recognised by its magic and decompressed first.
  static absl::StatusOr<Model> FromBytes(std::string_view bytes, const std::string& name);
  // Writes through AtomicOutputFile (corpus.h): a temporary name then a rename, through symbolic
  // links to their target; devices and FIFOs in place. kGzip wraps the file in gzip (models are
  // about 3x smaller; loading detects it).
  absl::Status Save(const std::string& path,
                    ModelFileCompression compression = ModelFileCompression::kNone) const;
  std::string ToBytes() const;

  ModelFamily family() const { return family_; }
  ModelCapabilities Capabilities() const;
  const std::vector<std::string>& labels() const { return labels_; }
  int num_labels() const { return static_cast<int>(labels_.size()); }
  int LabelId(std::string_view label) const;  // -1 if unknown
  const FeatureSpec& spec() const { return spec_; }
  const AttributeDictionary& attributes() const { return attributes_; }
  // How the training data was read (format, label column, CoNLL-U label field, NP chunks).
  const ModelInputOptions& input_options() const { return input_options_; }
  // Allowed transitions (chunk validity); empty allowed vectors mean everything is allowed.
  const TransitionMask& transition_mask() const { return mask_; }
  // Latent-dynamic models (trained with --objective ldcrf) score hidden states: each label owns a
  // block of them (latent_layout()), lattices and weights are over num_states() hidden states,
  // and Tagger::Tag decodes with LDI. Other models have an empty layout and num_states() ==
  // num_labels().
  bool latent() const { return !latent_.empty(); }
  const LatentLayout& latent_layout() const { return latent_; }
  int num_states() const { return latent() ? latent_.num_states() : num_labels(); }
  // The neural encoder of models trained with `--encoder neural` or `hybrid` (null for sparse
  // models): its emissions (one score per token and label, from the word column) are added to
  // the lattice's unaries by Tagger::BuildLattice, so every decoder works on them unchanged.
  const neural::Encoder<float>* encoder() const { return encoder_.get(); }
  // 2 for second-order chains (trigram label weights), 1 otherwise.
  int order() const { return order_; }
  // Free-form metadata recorded at training time, in insertion order: every trainer option,
  // "iterations", "selected_iteration", "training_files", "dev_score", ... `info` prints them all.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  std::string Metadata(std::string_view key) const;  // "" if absent

  // Self-test sentences stored in the model with their expected labels, checked on load.
  struct SelfTest {
    Sentence sentence;
    std::vector<std::string> expected;
  };
  const std::vector<SelfTest>& self_tests() const { return self_tests_; }

  int64_t num_state_features() const;
  // The weights in the trainers' layout (double values equal to the stored float32 ones), built
  // on each call: for a warm start, `info` and tests. Tagging never needs it.
  ModelParameters Parameters() const;

  // The weights laid out for tagging (src/model/parameters.h), shared by copies of the model.
  struct TaggingScores;
  const TaggingScores& tagging_scores() const { return *tagging_; }

  Model();

 private:
  friend class ModelBuilder;
  // `parameters` must be consistent (model_file::CheckParameters); weights are rounded to float32.
  Model(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
        const ModelParameters& parameters, TransitionMask mask, LatentLayout latent = {});
  // The loader's way in, without a ModelParameters copy: checked state scores (entries and
  // ranges) and `chain`, the N*N + 2N transition, start and end weights then any trigram weights.
  Model(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
        TaggingScores state, std::vector<double> chain, int num_states, int order,
        TransitionMask mask, LatentLayout latent);
  static TaggingScores StateScoresOf(const ModelParameters& parameters);

  ModelFamily family_ = ModelFamily::kLinearChain;
  std::vector<std::string> labels_;
  FeatureSpec spec_;
  AttributeDictionary attributes_;
  ModelInputOptions input_options_;
  TransitionMask mask_;
  LatentLayout latent_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<SelfTest> self_tests_;
  std::shared_ptr<TaggingScores> tagging_;
  int order_ = 1;
  // Unmasked transition (N*N), start (N) and end (N) weights: what the file stores.
  std::vector<double> chain_weights_;
  std::shared_ptr<const neural::Encoder<float>> encoder_;
};

// Per-thread tagging state (CRF++ style): cheap to create, holds scratch space. Not thread-safe;
// use one per thread over a shared Model.
class Tagger {
 public:
  explicit Tagger(const Model& model);
  ~Tagger();
  Tagger(Tagger&&) noexcept;
  Tagger& operator=(Tagger&&) noexcept;
  // Featurizes and scores `sentence` (needs the model's input columns), applies the transition
  // mask. A latent model's lattice is over its hidden states (Model::num_states()).
  absl::Status BuildLattice(const Sentence& sentence, Lattice* lattice);
  // Best labeling (label ids) and its score. Latent models: the LDI labeling (at most
  // LdiOptions().max_paths hidden paths) and its score log sum_h exp(F(h)) over its hidden paths.
  absl::StatusOr<Labeling> Tag(const Sentence& sentence);
  // Best labeling plus log Z and per-token marginals (latent models: label marginals only).
  struct Analysis {
    Labeling best;
    double log_z = 0.0;
    Marginals marginals;
  };
  absl::StatusOr<Analysis> Analyze(const Sentence& sentence);
  const Model& model() const { return *model_; }
  // The model's family implementation (src/model/family.h), which the pipeline decodes with.
  Family& family() { return *family_; }

 private:
  const Model* model_;
  std::unique_ptr<Family> family_;
};

// The highest-weighted state features, for `chaintag info`: (attribute, label, weight).
struct WeightedFeature {
  std::string attribute;
  std::string label;  // latent models: the label and its hidden state, "B-NP[1]"
  double weight = 0.0;
};
std::vector<WeightedFeature> TopFeatures(const Model& model, int k);

// What a model is, for `chaintag info` (text and --json) and Python's Model.info(): the one
// place that asks a model about itself; the three front ends only format it.
struct ModelInfo {
  struct WordClasses {
    int64_t words = 0;
    int64_t classes = 0;  // class sets of a lexicon, clusters of a clustering
  };
  std::string family;              // ModelFamilyName
  std::string family_description;  // a sentence on how it searches ("" for plain chains)
  std::vector<std::string> labels;
  std::optional<std::vector<std::string>> history_templates;  // left-to-right models
  int num_history_templates = 0;
  // Latent-dynamic models: hidden states per label, in label order, and their total.
  std::optional<std::vector<std::pair<std::string, int>>> hidden_states;
  int num_hidden_states = 0;
  int order = 1;
  int input_columns = 0;
  int64_t attributes = 0;
  int64_t state_features = 0;
  int64_t self_tests = 0;
  std::optional<WordClasses> lexicon, lexicon2, clusters;
  std::string templates;
  ModelInputOptions input;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<WeightedFeature> top_features;
};
ModelInfo DescribeModel(const Model& model, int top_features = 0);

}  // namespace chaintag

#endif  // CHAINTAG_MODEL_H_
