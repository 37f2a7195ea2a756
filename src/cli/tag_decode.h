// Decoding side of `chaintag tag`: the model pipeline and the constrained / k-best requests of the
// last model (label counts, score range, exclusions, k-best, diverse k-best).
#ifndef CHAINTAG_CLI_TAG_DECODE_H_
#define CHAINTAG_CLI_TAG_DECODE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/aux_dp.h"
#include "chaintag/chunks.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"

namespace chaintag::cli {

// One --count constraint: a set of labels (or chunk types) and inclusive bounds.
struct CountSpec {
  bool chunks = false;      // count chunk starts of the given types (chunk:NP=..2)
  std::vector<int> ids;     // label ids, or chunk type ids of the model's ChunkTable
  int lower = 0;
  int upper = -1;           // -1: no upper bound
};

// Parses 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..', 'chunk:NP=3' against the model's labels.
absl::StatusOr<CountSpec> ParseCountSpec(const std::string& text, const Model& model,
                                         const ChunkTable& chunks);
// Parses 'A..B' (either end may be omitted) into [lower, upper].
absl::Status ParseRange(const std::string& text, double* lower, double* upper);

// What the user asked of the last model.
struct DecodeRequest {
  std::vector<CountSpec> counts;
  bool score_range = false;
  double score_lower = 0, score_upper = 0, score_resolution = 0.001;
  int score_max_states = 256;  // quantised states per position; the resolution coarsens to fit
  int kbest = 0;            // > 0: exact k-best
  int diverse = 0;          // > 0: diverse k-best with min_distance
  int min_distance = 1;
  bool chunk_diversity = false;
  bool exclusions = false;  // --exclude given (per-sentence labelings in Result::excluded)
  bool probability = false; // compute P(y|x) per solution
  bool marginals = false;   // per-token marginals of the last model
  // Anything beyond plain Viterbi.
  bool Constrained() const {
    return !counts.empty() || score_range || kbest > 0 || diverse > 0 || exclusions;
  }
};

struct Solution {
  std::vector<int> labels;
  double score = 0.0;
  double probability = 0.0;
};

// What the pipeline produced for one sentence.
struct Result {
  Sentence sentence;
  std::vector<std::vector<std::string>> excluded;   // --exclude: labelings (label names) to avoid
  int64_t exclude_line = 0;                         // where they came from, for messages
  std::vector<std::vector<int>> layers;             // best labels of every model but the last
  std::vector<Solution> solutions;                  // last model, best first
  bool infeasible = false;
  double score_resolution = 0.0;                    // --score-range: the resolution actually used
  std::vector<double> marginals;                    // last model, M x N
  absl::Status status;
};

// Runs the models over a sentence. One per thread; the models are shared read-only.
class Pipeline {
 public:
  Pipeline(const std::vector<const Model*>& models, const DecodeRequest& request,
           std::string exclude_file);
  void Run(Result* r);

 private:
  absl::Status RunLast(const Sentence& input, Result* r);
  std::vector<const Model*> models_;
  DecodeRequest request_;
  std::string exclude_file_;
  std::vector<Tagger> taggers_;
  ChunkTable chunk_table_;
  std::vector<std::unique_ptr<Statistic>> count_statistics_;
  Sentence stage_;
  Lattice lattice_;
  AuxDpDecoder decoder_;
  ViterbiScratch viterbi_;
  ForwardBackwardScratch forward_backward_;
};

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_TAG_DECODE_H_
