// The runtime front door: a pipeline of models over a sentence, and the typed request of what to
// decode with the last model (label counts, score range, exclusions, k-best, diverse k-best,
// marginals), with the grammar of its textual forms ('B-NP=2..4', 'A..B', exclusion lines).
// Every request is bounded: a sentence whose request would exceed DecodeRequest::max_memory_bytes
// gets the status kTooLarge (with the reason) and the next sentence goes on; a request no labeling
// satisfies gets kInfeasible. Neither is an error of the run.
#ifndef CHAINTAG_TAGGING_H_
#define CHAINTAG_TAGGING_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/aux_dp.h"
#include "chaintag/branch_and_bound.h"
#include "chaintag/chunks.h"
#include "chaintag/collective.h"
#include "chaintag/corpus.h"
#include "chaintag/latent.h"
#include "chaintag/model.h"

namespace chaintag {

// One --count constraint: a set of labels (or chunk types) and inclusive bounds.
struct CountConstraint {
  bool chunks = false;   // count chunk starts of the given types (chunk:NP=..2)
  std::vector<int> ids;  // label ids, or chunk type ids of ChunkTable(labels)
  int lower = 0;
  int upper = -1;  // -1: no upper bound
};

// Parses 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..', 'chunk:NP=3' against a model's labels (chunk
// types are those of ChunkTable(labels)). Bounds are non-negative ints; errors name the spec.
absl::StatusOr<CountConstraint> ParseCountConstraint(std::string_view text,
                                                     const std::vector<std::string>& labels);
// Parses 'A..B' (either end may be omitted; finite numbers) into [lower, upper].
absl::Status ParseScoreRange(std::string_view text, double* lower, double* upper);
// Parses one line of an exclusion file: labelings separated by '|', labels by spaces or tabs; an
// empty line excludes nothing. Fails on invalid UTF-8 or control characters (a stray CR included).
absl::StatusOr<std::vector<std::vector<std::string>>> ParseExclusionLine(std::string_view line);

// How a latent model's labeling is found (see latent.h): LDI (exact when certified, bounded by
// DecodeRequest::ldi_max_paths), the best hidden path's labeling, or per-token label marginals.
enum class LatentDecoder { kLdi, kBhp, kMarginal };
// "ldi", "bhp", "marginal".
absl::StatusOr<LatentDecoder> ParseLatentDecoder(std::string_view name);

// Collective tagging of documents (tag --collective; collective.h): the sentences of a document
// are decoded jointly, every word key repeated in the document (after the filters) joining its
// occurrences in a clique with a Potts or MAJORITY potential.
struct CollectiveOptions {
  static constexpr int kMaxDocumentSentencesCap = 100000;
  static constexpr int64_t kMaxDocumentTokensCap = 1000000;
  CollectivePotentialKind potential = CollectivePotentialKind::kPotts;
  CollectiveKey key = CollectiveKey::kForm;
  bool capitalised_only = false;  // only tokens whose first character is upper or title case
  bool unseen_only = false;       // only words the model did not see in training
  int iterations = 10;            // message-passing rounds at most (stops earlier when stable)
  // Potts: lambda = c / n for a clique of n nodes (the paper's CoNLL setting); MAJORITY: the
  // potential is c * sum_y W[a][y] n_y.
  double c = 1.0;
  // MAJORITY: W[a][y] row-major over the last model's labels (EstimateMajorityWeights).
  std::vector<double> majority_weights;
  // Larger cliques are split into consecutive pieces of at most this many nodes (clique
  // max-marginals cost about n^2 m^3 steps).
  int max_clique_nodes = 200;
  // A document is held whole while it is tagged; one with more sentences or tokens is tagged
  // sentence by sentence instead, with a warning on each of its sentences.
  int max_document_sentences = 5000;
  int64_t max_document_tokens = 200000;
};

// What a user asks of the last model of a pipeline.
struct DecodeRequest {
  // Documented caps on what a request may ask (usage errors beyond them).
  static constexpr int kMaxScoreStates = 1 << 16;
  static constexpr int kMaxColumns = 1000;
  static constexpr int64_t kDefaultMaxMemoryBytes = int64_t{512} << 20;

  std::vector<CountConstraint> counts;
  bool score_range = false;
  double score_lower = 0, score_upper = 0, score_resolution = 0.001;
  int score_max_states = 256;  // quantised states per position; the resolution coarsens to fit
  int kbest = 0;               // > 0: exact k-best
  int diverse = 0;             // > 0: diverse k-best with min_distance
  int min_distance = 1;
  bool chunk_diversity = false;
  bool exclusions = false;      // labelings to avoid are given per sentence (TagResult::excluded)
  bool probability = false;     // compute P(y|x) per solution (given the forced labels, if any)
  bool marginals = false;       // per-token marginals of the last model
  double marginals_min = 1e-4;  // output omits marginals below this (0 keeps every label)
  // 0-based input column holding, per token, a label the last model must give it or "_" (free);
  // -1: none. Fills TagResult::forced.
  int forced_column = -1;
  // Memory one sentence's constrained decoding may use (per thread); beyond it the sentence's
  // status is kTooLarge.
  int64_t max_memory_bytes = kDefaultMaxMemoryBytes;
  // Latent models only: the decoder, and LDI's bound on hidden paths (1..LdiOptions::kMaxPaths).
  // --kbest K returns the K most probable labelings (LDI). Counts, score range, diverse k-best and
  // exclusions are refused on latent models (the run stops with an error naming them).
  LatentDecoder latent_decoder = LatentDecoder::kLdi;
  int64_t ldi_max_paths = 1000;
  // LMSBN models (branch-and-bound): nodes one sentence's search may expand (at least the sentence
  // length, so the greedy labeling is always reached; 1 = greedy), and the initial cost bound S
  // (only labelings costing less are returned; none: infeasible).
  static constexpr int64_t kMaxBbNodes = int64_t{1} << 40;
  int64_t bb_max_nodes = BranchAndBoundOptions::kDefaultMaxNodes;
  double bb_bound = std::numeric_limits<double>::infinity();
  // Collective tagging of documents (BatchTagger groups sentences by Sentence::new_document).
  // Not combined with counts, score ranges, k-best, diverse k-best, exclusions or forced labels,
  // and only on linear-chain models.
  std::optional<CollectiveOptions> collective;
  // Anything beyond plain Viterbi.
  bool Constrained() const {
    return !counts.empty() || score_range || kbest > 0 || diverse > 0 || exclusions ||
           forced_column >= 0;
  }
  // Checks the numbers of the request (ranges, caps); errors name the option.
  absl::Status Validate() const;
};

// One labeling of the last model. `names` are views of the model's own label strings: they stay
// valid as long as the Model does.
struct Solution {
  int rank = 1;                         // 1 = best
  std::vector<int> labels;              // label ids of the last model
  std::vector<std::string_view> names;  // the same labels by name
  double score = 0.0;
  double probability = 0.0;  // P(y|x) when DecodeRequest::probability is set, else 0
  double cost = 0.0;         // LMSBN: sum over tokens of the multiclass hinge (lower is better)
};

// How the request for one sentence ended.
enum class SentenceStatus {
  kOk,
  kInfeasible,  // no labeling satisfies the request
  kTooLarge,    // the request exceeds a limit for this sentence (reason in status_reason)
};
// "ok", "infeasible", "too_large".
const char* SentenceStatusName(SentenceStatus status);

// Collective tagging: what happened to one document (shared by its sentences' TagResults).
struct DocumentReport {
  int64_t index = 0;  // 0-based, in input order
  int sentences = 0;
  int64_t tokens = 0;
  std::vector<int> clique_sizes;  // one entry per clique
  int iterations = 0;             // message-passing rounds
  bool converged = false;         // stopped because a round changed no label
  double plain_objective = 0.0;  // joint objective (chains + cliques) of the sentence-wise labeling
  double objective = 0.0;        // joint objective of the labeling returned
  int64_t changed_tokens = 0;    // tokens whose label differs from the sentence-wise labeling
  std::string warning;           // why the document was tagged sentence by sentence, if it was
};

// What the last model's search reports for one sentence beyond its solutions. Each search sets
// the parts it has; writers print the parts that are set.
struct SearchReport {
  // LDI (latent-dynamic models): whether the answer is certified (one solution: the most
  // probable labeling; k-best: no labeling left out beats the last), and the hidden paths
  // enumerated.
  std::optional<bool> exact;
  int64_t hidden_paths = 0;
  // Branch-and-bound (lmsbn models): whether the search finished, i.e. the solutions are proved
  // to be the lowest-cost ones, and the nodes it expanded.
  std::optional<bool> optimal;
  int64_t nodes = 0;
  // The solutions carry Solution::cost (lower is better) instead of a probability.
  bool cost = false;
};

// What the pipeline produced for one sentence.
struct TagResult {
  Sentence sentence;
  std::vector<std::vector<std::string>> excluded;  // labelings (label names) to avoid
  int64_t exclude_line = 0;                        // where they came from, for messages
  std::vector<std::string> forced;       // per token a label of the last model or "_"; empty: none
  std::vector<std::vector<int>> layers;  // best labels of every model but the last
  std::vector<std::vector<std::string_view>> layer_names;  // the same by name (views into models)
  std::vector<Solution> solutions;                         // last model, best first
  SentenceStatus status = SentenceStatus::kOk;
  std::string status_reason;      // kTooLarge: which limit, in words
  double score_resolution = 0.0;  // score range: the resolution actually used
  SearchReport search;
  std::vector<double> marginals;  // last model, M x N: marginals[t * N + y]
  // The last model's label names (the columns of `marginals`); set by Pipeline::Run.
  const std::vector<std::string>* label_names = nullptr;
  absl::Status error;  // a data error (e.g. a bad exclusion line): stops the run
  // Collective tagging: the sentence's document (set on every sentence of it) and whether this is
  // its first sentence.
  std::shared_ptr<const DocumentReport> document;
  bool document_first = false;
};

// Runs the models over a sentence. One per thread; the models are shared read-only.
class Pipeline {
 public:
  // `exclude_file` names the exclusion file in messages.
  Pipeline(const std::vector<const Model*>& models, const DecodeRequest& request,
           std::string exclude_file = "");
  void Run(TagResult* r);
  // Collective tagging (request.collective): tags the sentences of one document jointly and
  // fills `report` (index and warning are the caller's). A data error goes to the first
  // sentence's TagResult::error.
  void RunDocument(absl::Span<TagResult> document, DocumentReport* report);

 private:
  // Runs every model but the last; the last one tags (RunLast) or, when `last_lattice` is given,
  // only builds its lattice there.
  void RunModels(TagResult* r, Lattice* last_lattice);
  absl::Status RunDocumentJointly(absl::Span<TagResult> document, DocumentReport* report);
  absl::Status RunLast(const Sentence& input, TagResult* r);
  // RunLast for a latent model, on the lattice with forced labels applied.
  absl::Status RunLatent(TagResult* r);
  // The last model is an LMSBN: branch-and-bound with the request's constraints inside.
  absl::Status RunLeftToRight(const Sentence& input, TagResult* r,
                              std::vector<const Statistic*> constraints,
                              std::vector<std::vector<int>> excluded, bool infeasible);
  // Restricts the last model's lattice to TagResult::forced (read from the forced column first).
  absl::Status ApplyForced(TagResult* r);
  std::vector<const Model*> models_;
  DecodeRequest request_;
  std::string exclude_file_;
  std::vector<Tagger> taggers_;
  ChunkTable chunk_table_;
  Sentence stage_;
  Lattice lattice_;
  std::vector<int> forced_ids_;
  // Per count constraint: the clamped upper bound and the statistic built for it.
  std::vector<std::pair<int, std::unique_ptr<Statistic>>> count_statistics_;
  AuxDpDecoder decoder_;
  ViterbiScratch viterbi_;
  ForwardBackwardScratch forward_backward_;
  LatentScratch latent_;
  std::vector<Lattice> document_lattices_;
};

class WorkerPool;

// Ordered multi-threaded tagging of a sentence stream: sentences are queued in batches, tagged by
// one Pipeline per thread and handed to the sink in input order, so the output does not depend on
// the thread count, and memory is bounded by two batches. With more than one thread a full batch
// is tagged in the background while the caller reads the next one; its results reach the sink
// (on the caller's thread) when the next batch is full, or at Flush.
class BatchTagger {
 public:
  // Receives every tagged sentence in input order; an error stops the stream.
  using Sink = std::function<absl::Status(const TagResult&)>;
  BatchTagger(const std::vector<const Model*>& models, const DecodeRequest& request, int threads,
              Sink sink, std::string exclude_file = "", size_t batch_size = 256);
  ~BatchTagger();
  BatchTagger(const BatchTagger&) = delete;
  BatchTagger& operator=(const BatchTagger&) = delete;
  // Queues a sentence (with its exclusions or forced labels, if any); tags the batch when it is
  // full. Returns the first data error of a sentence (TagResult::error) or of the sink; with
  // several threads, possibly of the batch before (sentences reach the sink one batch late).
  absl::Status Add(TagResult result);
  // Tags and passes on everything queued or in flight.
  absl::Status Flush();
  int64_t sentences() const { return sentences_; }
  int64_t tokens() const { return tokens_; }
  int64_t too_large() const { return too_large_; }
  // Collective tagging: documents tagged, and those tagged sentence by sentence (too large).
  int64_t documents() const { return documents_; }
  int64_t fallback_documents() const { return fallback_documents_; }

 private:
  // Closes the open document (collective tagging) into a unit of the batch.
  void CloseDocument();
  // Passes on the batch in flight, then tags the queued one: in the background with several
  // threads, else at once (and passes it on).
  absl::Status TagBatch();
  struct Unit {
    size_t begin = 0, end = 0;
    std::shared_ptr<DocumentReport> document;  // collective unit, else one sentence
  };
  // Tags units of results with pipeline `worker`, taking the next untagged unit until none is
  // left (every worker runs this on the same batch).
  void TagUnits(std::vector<TagResult>* results, const std::vector<Unit>& units, int worker);
  std::atomic<size_t> next_unit_{0};
  // Waits for the batch in flight (rethrowing what tagging threw) and passes its results on.
  absl::Status Drain();
  std::vector<TagResult> inflight_;
  std::vector<Unit> inflight_units_;
  std::unique_ptr<WorkerPool> pool_;  // with more than one thread
  bool tagging_ = false;              // the pool is tagging inflight_
  std::vector<std::unique_ptr<Pipeline>> pipelines_;
  Sink sink_;
  size_t batch_size_;
  std::optional<CollectiveOptions> collective_;
  std::vector<TagResult> batch_;
  std::vector<Unit> units_;
  bool open_ = false;      // batch_[open_begin_..] is an open document
  bool overflow_ = false;  // the current document is tagged sentence by sentence
  size_t open_begin_ = 0;
  int64_t open_tokens_ = 0;
  int64_t documents_ = 0;
  int64_t fallback_documents_ = 0;
  int64_t sentences_ = 0;
  int64_t tokens_ = 0;
  int64_t too_large_ = 0;
};

// Collective tagging helpers.
// Checks a collective request against the last model (linear chain, MAJORITY weights of the
// right size, a template that tells seen words when unseen_only is set).
absl::Status CheckCollectiveRequest(const Model& model, const DecodeRequest& request);
// Whether `word` was seen in training: the model's current-word attribute ("NAME:" + word of a
// template "NAME:%x[0,0]", or its lower-case form for "NAME:lower(%x[0,0])") is in its attribute
// dictionary. NotFound when the model has neither template.
class SeenWordTest {
 public:
  static absl::StatusOr<SeenWordTest> ForModel(const Model& model);
  bool Seen(std::string_view word) const;

 private:
  const Model* model_ = nullptr;
  std::string prefix_;
  bool lower_ = false;
};
// The clique key of a word under `key` ("form": as written; "lower": ICU root lower case).
std::string CollectiveWordKey(std::string_view word, CollectiveKey key);
// Whether the first character of `word` is an upper- or title-case letter.
bool IsCapitalised(std::string_view word);

// MAJORITY weights from labelled documents (Sentence::new_document separates them): every word
// key repeated in a document (same key and capitalisation filter as tagging) is a clique; with
// a its gold majority label, each occurrence labelled y counts (a, y). Then
//   W[a][y] = P(y | a) / max_y' P(y' | a) - 1   (add-one smoothed counts), in (-1, 0],
// so every row's commonest label costs nothing and a clique's potential sum_y W[a][y] n_y
// charges each occurrence by how much rarer its label is, next to a majority a, than the
// commonest one (at most 1 per occurrence, times c); no majority label is favoured by itself.
// (Log-ratios were tried first: their near-infinite penalties under an 'O' majority wiped out
// entity labels on held-out data.) Streams: only the
// current document is held (at most max_document_tokens tokens; a longer one is cut there).
class MajorityWeightEstimator {
 public:
  MajorityWeightEstimator(const Model& model, const CollectiveOptions& options);
  // Errors name the file and line: sentences without labels, labels the model does not know.
  absl::Status Add(const Sentence& sentence);
  int64_t cliques() const { return cliques_; }
  // W (m x m, row-major). FailedPrecondition when no clique was seen.
  absl::StatusOr<std::vector<double>> Finish();

 private:
  void EndDocument();
  const Model* model_;
  CollectiveOptions options_;
  std::vector<std::pair<std::string, int>> document_;  // (key, gold label id) of the open document
  std::vector<double> counts_;                         // m x m
  int64_t cliques_ = 0;
};

// The shipped default pipeline: "en-pos.model" then "en-chunk.model".
const std::vector<std::string>& DefaultModelFiles();
// The shipped accurate pipeline: "en-pos-nn.model" (the hybrid neural POS tagger, more accurate
// and slower; models/MODELS.md) then "en-chunk.model".
const std::vector<std::string>& AccurateModelFiles();
// Finds a shipped model file by name: in $CHAINTAG_MODELS if set, then in each of `extra_dirs`
// (e.g. a Python package's share/chaintag/models), then relative to the running executable:
// share/chaintag/models beside it (a build tree) or ../share/chaintag/models (an installation).
// No path is compiled in. NotFound names every directory tried.
absl::StatusOr<std::string> ShippedModelPath(const std::string& file,
                                             const std::vector<std::string>& extra_dirs = {});
// A pipeline's model files: `given` (the -m options) if any, else the shipped default pipeline
// (DefaultModelFiles, or AccurateModelFiles if `accurate`, found by ShippedModelPath).
absl::StatusOr<std::vector<std::string>> PipelineModelPaths(const std::vector<std::string>& given,
                                                            bool accurate = false);

}  // namespace chaintag

#endif  // CHAINTAG_TAGGING_H_
