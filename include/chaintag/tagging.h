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
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"
#include "chaintag/request.h"

namespace chaintag {

// Parses 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..', 'chunk:NP=3' against a model's labels (chunk
// types are those of ChunkTable(labels)). Bounds are non-negative ints; errors name the spec.
absl::StatusOr<CountConstraint> ParseCountConstraint(std::string_view text,
                                                     const std::vector<std::string>& labels);
// Parses 'A..B' (either end may be omitted; finite numbers) into [lower, upper].
absl::Status ParseScoreRange(std::string_view text, double* lower, double* upper);
// Parses one line of an exclusion file: labelings separated by '|', labels by spaces or tabs; an
// empty line excludes nothing. Fails on invalid UTF-8 or control characters (a stray CR included).
absl::StatusOr<std::vector<std::vector<std::string>>> ParseExclusionLine(std::string_view line);

// "ldi", "bhp", "marginal".
absl::StatusOr<LatentDecoder> ParseLatentDecoder(std::string_view name);

// Runs the models over a sentence. One per thread; the models are shared read-only.
class Pipeline {
 public:
  // `exclude_file` names the exclusion file in messages.
  Pipeline(const std::vector<const Model*>& models, const DecodeRequest& request,
           std::string exclude_file = "");
  ~Pipeline();
  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;
  void Run(TagResult* r);
  // Collective tagging (request.collective): tags the sentences of one document jointly and
  // fills `report` (index and warning are the caller's). A data error goes to the first
  // sentence's TagResult::error.
  void RunDocument(absl::Span<TagResult> document, DocumentReport* report);

 private:
  // The taggers, decoder scratch and request state (src/tagging/pipeline.cc): kept out of this
  // header so it shows no decoder internals; one indirection per sentence.
  class Impl;
  std::unique_ptr<Impl> impl_;
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
// The shipped accurate pipeline: "en-pos-nn.model" then "en-chunk-nn.model" (the hybrid neural
// POS tagger and chunker, more accurate and slower; models/MODELS.md).
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
