// Model families behind one interface: one class per way a model scores and decodes (linear
// chain of order 1 or 2, LMBM included; latent-dynamic chain; left-to-right LMSBN), made by
// MakeFamily from the model's family section. A Tagger owns one; Pipeline decodes requests with
// it. Adding a family means a class here and a case in MakeFamily and CapabilitiesOf.
#ifndef CHAINTAG_MODEL_FAMILY_H_
#define CHAINTAG_MODEL_FAMILY_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "chaintag/request.h"
#include "decode/aux_dp.h"
#include "decode/branch_and_bound.h"
#include "features/featurizer.h"

namespace chaintag {

// What the caller resolved of a request for one prepared sentence.
struct SentenceConstraints {
  std::vector<const Statistic*> counts;    // count statistics, bounds clamped to the sentence
  bool infeasible = false;                 // a count's lower bound exceeds the sentence length
  std::vector<std::vector<int>> excluded;  // labelings (label ids) to avoid
  std::vector<int> forced;                 // per token a label id or -1 (free); empty: none
  const ChunkTable* chunks = nullptr;      // the last model's chunks (chunk diversity)
};

class Family {
 public:
  explicit Family(const Model& model);
  virtual ~Family();
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const Model& model() const { return *model_; }
  // Featurizes and scores `sentence` into `lattice` (needs the model's input columns); applies
  // the transition mask and adds a neural encoder's emissions. Latent models: hidden states.
  absl::Status BuildLattice(const Sentence& sentence, Lattice* lattice);
  // Featurizes `sentence` once for Decode (its tokens: size()).
  virtual absl::Status Prepare(const Sentence& sentence);
  int size() const { return lattice_.size(); }
  // Decodes the prepared sentence under `request` and `constraints` into r: solutions best first
  // (labels, names, score, probability or cost), status, search report, marginals.
  virtual absl::Status Decode(const DecodeRequest& request, SentenceConstraints constraints,
                              TagResult* r) = 0;
  // The best labeling of `sentence` under no request (Tagger::Tag), and with log Z and marginals
  // (Tagger::Analyze).
  virtual absl::StatusOr<Labeling> Best(const Sentence& sentence) = 0;
  virtual absl::StatusOr<Tagger::Analysis> Analyze(const Sentence& sentence) = 0;

 protected:
  // Appends a solution of the model's labels to r->solutions with the next rank.
  void AddSolution(std::vector<int> labels, double score, double probability, double cost,
                   TagResult* r) const;

  const Model* model_;
  Lattice lattice_;  // the prepared sentence's scores

 private:
  // Fills `lattice` from featurized_ with the model's TaggingScores (same values as Score + mask).
  void ScoreFeaturized(Lattice* lattice) const;
  // Adds the model's encoder emissions of the sentence's words (column 0) to the unaries.
  void AddEmissions(const Sentence& sentence, Lattice* lattice) const;

  Featurizer featurizer_;
  FeaturizedSentence featurized_;
};

// The family implementation of `model`.
std::unique_ptr<Family> MakeFamily(const Model& model);

// Branch-and-bound search of an LMSBN model's tagger (tests; pipelines use Decode); a
// FailedPrecondition error for other families.
absl::StatusOr<BranchAndBoundResult> SearchLeftToRight(Family& family, const Sentence& sentence,
                                                       const BranchAndBoundOptions& options);

}  // namespace chaintag

#endif  // CHAINTAG_MODEL_FAMILY_H_
