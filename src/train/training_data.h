// The training corpus in compact form: attribute ids of every position in one flat CSR for the
// whole corpus, gold label ids, and the sparse (attribute, label) feature set in ModelParameters
// layout. Shared by every objective and optimiser in src/train.
#ifndef CHAINTAG_TRAIN_TRAINING_DATA_H_
#define CHAINTAG_TRAIN_TRAINING_DATA_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/communicator.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/labels.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "features/featurizer.h"
#include "model/parameters.h"

namespace chaintag {
namespace train_internal {

// Sentences whose exact loss-augmented decoding was over its memory limit (thread-safe): each is
// reported once, when first seen.
class FallbackLog {
 public:
  void Note(int sentence) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (seen_.insert(sentence).second) fresh_.push_back(sentence);
  }
  // The sentences noted since the last call, in increasing order.
  std::vector<int> TakeFresh() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int> out;
    out.swap(fresh_);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::mutex mutex_;
  std::set<int> seen_;
  std::vector<int> fresh_;
};

struct TrainingData {
  std::vector<std::string> labels;  // label inventory, sorted
  AttributeDictionary attributes;
  std::vector<int64_t> sentence_offsets;     // S + 1 entries: positions of sentence s
  std::vector<int64_t> position_offsets;     // P + 1 entries: attributes of position p
  std::vector<int32_t> position_attributes;  // attribute ids
  // Attribute input with real values: one per entry of position_attributes. Empty when every
  // value is 1 (template features), which every trainer takes as its fast path.
  std::vector<float> position_values;
  std::vector<int32_t> gold;       // P entries: gold label ids
  ModelParameters parameters;      // feature structure; weights zero
  std::vector<int32_t> empirical;  // parameters.size() entries: gold feature counts
  // Instead of `empirical` when weighted(): gold feature values (sums of attribute values).
  std::vector<double> weighted_empirical;
  std::vector<char> observed_transitions;  // (N + 1) x N, row 0 = sentence start
  // The ranks sharing the corpus (this one holds sentences i = rank (mod size)); null for one
  // process. Labels, attributes, the feature set, empirical counts and observed transitions are
  // the whole corpus's on every rank; the sentences and positions are this rank's.
  Communicator* ranks = nullptr;
  // The allowed transitions every trainer applies, over parameters.num_labels states (hidden
  // states after ExpandToHiddenStates): the mask the model tags with, so training normalises over
  // the labelings tagging can produce. num_labels == 0: every transition is allowed.
  TransitionMask mask;
  // --transitions observed: N*N + 2N flags over the transition, start and end weights (in the
  // parameters' order); 1 = never seen in training, so it has no weight and stays 0. Empty: every
  // transition has a weight.
  std::vector<char> fixed_transitions;
  // Where each sentence starts: files[sentence_file[s]], line sentence_line[s] (for messages).
  std::vector<std::string> files;
  std::vector<int32_t> sentence_file;
  std::vector<int64_t> sentence_line;
  // Loss-augmented decoding (ssvm, perceptron): the memory the exact engine may use per sentence
  // (--loss-memory-mb), and the sentences that needed more and got the Hamming-loss maximiser.
  int64_t loss_max_bytes = int64_t{512} << 20;
  std::shared_ptr<FallbackLog> fallbacks = std::make_shared<FallbackLog>();

  int num_labels() const { return static_cast<int>(labels.size()); }
  int num_sentences() const { return static_cast<int>(sentence_offsets.size()) - 1; }
  int64_t num_positions() const { return static_cast<int64_t>(gold.size()); }
  int sentence_size(int s) const {
    return static_cast<int>(sentence_offsets[s + 1] - sentence_offsets[s]);
  }
  bool weighted() const { return !position_values.empty(); }
  // The value of attribute occurrence k (an index into position_attributes).
  double value(int64_t k) const { return position_values.empty() ? 1.0 : position_values[k]; }
  absl::Span<const int32_t> attributes_at(int64_t p) const {
    return absl::MakeConstSpan(position_attributes.data() + position_offsets[p],
                               position_offsets[p + 1] - position_offsets[p]);
  }
  // "FILE:LINE (sentence S, M tokens)" of sentence s, for messages.
  std::string SentenceName(int s) const;
  // The warnings of the sentences data.fallbacks noted since the last call (one each).
  std::vector<std::string> TakeFallbackWarnings() const;
  // Whether parameter f is a transition, start or end weight without a weight (stays 0).
  bool IsFixedWeight(int64_t f) const {
    const int64_t i = f - parameters.transition_offset();
    return !fixed_transitions.empty() && i >= 0 &&
           i < static_cast<int64_t>(fixed_transitions.size()) && fixed_transitions[i];
  }
  // The parameter indices of those weights.
  std::vector<int64_t> FixedTransitionWeights() const;
  // State feature of (attribute, label), or -1 when the pair was never observed.
  int64_t FindFeature(int32_t attribute, int label) const;
};

// Builds the feature set, empirical counts and observed transitions from sentence_offsets,
// position_offsets, position_attributes, gold and labels (which the caller fills), over all
// data->ranks.
void BuildFeatureSet(TrainingData* data);

// Supplies training sentences one at a time: the next sentence (valid until the following call),
// nullptr at the end, or an error.
using SentencePull = absl::FunctionRef<absl::StatusOr<const Sentence*>()>;

inline constexpr int kDefaultMaxLabels = 1000;
// Attribute input: most a single attribute's absolute values may sum to over the corpus.
inline constexpr double kMaxAttributeWeightSum = double{int64_t{1} << 24};

// Featurizes a labelled corpus in one streaming pass and builds the feature set (attributes seen
// fewer than `min_feature_count` times are dropped). Each sentence is read once and not kept, so
// the caller may free it as soon as the next one is pulled. Errors name the file and line of the
// bad sentence. Attribute ids follow first occurrence, as in BuildAttributeDictionary.
// More than `max_labels` distinct labels is refused at the sentence that brings one too many,
// before any table of labels x labels is allocated.
// With `label_history`, each position also gets the LMSBN history attributes (HistoryFeaturizer:
// bias and history templates) under the gold labels of the positions before it.
// With `ranks` (every rank pulls the same sentences), this rank featurizes and keeps sentences
// i = rank (mod size) only, and the dictionary, labels, features and counts are agreed across
// ranks to equal the single-process ones.
absl::StatusOr<TrainingData> BuildTrainingDataStreaming(const FeatureSpec& spec, SentencePull next,
                                                        int min_feature_count,
                                                        int max_labels = kDefaultMaxLabels,
                                                        bool label_history = false,
                                                        Communicator* ranks = nullptr);
// The same on a corpus held in memory.
absl::StatusOr<TrainingData> BuildTrainingData(const FeatureSpec& spec,
                                               const std::vector<Sentence>& corpus,
                                               int min_feature_count);

// Makes the parameters second order: (N+1) x N x N trigram weights (zero) and their empirical
// counts from the gold labels.
void EnableSecondOrder(TrainingData* data);
// Fills `lattice` with the scores of training sentence `s` under weights `w`, data.mask applied.
void ScoreTrainingSentence(const TrainingData& data, int s, const double* w, Lattice* lattice);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_TRAINING_DATA_H_
