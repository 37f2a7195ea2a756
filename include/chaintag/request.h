// What a user asks of the last model of a pipeline for each sentence (DecodeRequest), and what
// comes back (TagResult: solutions, status, search report, marginals). The families of
// src/model decode it; tagging.h runs it over a pipeline and parses its textual forms.
#ifndef CHAINTAG_REQUEST_H_
#define CHAINTAG_REQUEST_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "chaintag/corpus.h"

namespace chaintag {

// One --count constraint: a set of labels (or chunk types) and inclusive bounds.
struct CountConstraint {
  bool chunks = false;   // count chunk starts of the given types (chunk:NP=..2)
  std::vector<int> ids;  // label ids, or chunk type ids of ChunkTable(labels)
  int lower = 0;
  int upper = -1;  // -1: no upper bound
};

// How a latent model's labeling is found (see latent.h): LDI (exact when certified, bounded by
// DecodeRequest::ldi_max_paths), the best hidden path's labeling, or per-token label marginals.
enum class LatentDecoder { kLdi, kBhp, kMarginal };
// What tagging joins and how (tag --collective).
enum class CollectivePotentialKind {
  kPotts,     // lambda / n * sum_y n_y^2 (the paper's CoNLL setting, lambda = c / n)
  kMajority,  // lambda * sum_y W[a][y] n_y, a = majority label, W estimated from training data
};
// "potts", "majority".
absl::StatusOr<CollectivePotentialKind> ParseCollectivePotentialKind(std::string_view name);
std::string_view CollectivePotentialKindName(CollectivePotentialKind kind);
// How occurrences are matched: the word form as written, or its lower-case form.
enum class CollectiveKey { kForm, kLower };
// "form", "lower".
absl::StatusOr<CollectiveKey> ParseCollectiveKey(std::string_view name);
std::string_view CollectiveKeyName(CollectiveKey key);

// Collective tagging of documents (tag --collective; src/collective/collective.h): the sentences of
// a document are decoded jointly, every word key repeated in the document (after the filters)
// joining its occurrences in a clique with a Potts or MAJORITY potential.
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
  static constexpr int64_t kDefaultBbMaxNodes = 100000;  // BranchAndBoundOptions::kDefaultMaxNodes
  int64_t bb_max_nodes = kDefaultBbMaxNodes;
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

}  // namespace chaintag

#endif  // CHAINTAG_REQUEST_H_
