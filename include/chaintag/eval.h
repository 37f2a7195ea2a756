// Evaluation of predicted labels against gold labels: token accuracy, per-label
// precision/recall/F1, the confusion matrix, and phrase scores counted exactly as the CoNLL-2000
// conlleval script does.
#ifndef CHAINTAG_EVAL_H_
#define CHAINTAG_EVAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace chaintag {

// Token-level scores of one label; precision/recall/f1 are percentages 0..100 (0 when undefined).
struct LabelScore {
  std::string label;
  int64_t gold = 0, predicted = 0, correct = 0;
  double precision = 0, recall = 0, f1 = 0;
};

// Phrase-level scores; percentages 0..100 (0 when undefined, as conlleval prints them).
struct PhraseScore {
  std::string type;
  int64_t gold = 0, predicted = 0, correct = 0;
  double precision = 0, recall = 0, f1 = 0;
};

struct EvalReport {
  int64_t sentences = 0, tokens = 0, correct_tokens = 0;
  double accuracy = 0;                        // percentage 0..100
  std::vector<LabelScore> labels;             // per gold/predicted label, sorted by label
  std::vector<std::string> confusion_labels;  // row/column order of the confusion matrix
  std::vector<int64_t> confusion;             // gold-major: confusion[g * L + p]
  bool has_chunks = false;                    // labels look like chunk tags (B-/I-/E-/S- prefixes)
  PhraseScore overall;                        // phrase scores over all types (conlleval's F1 line)
  std::vector<PhraseScore> chunks;            // per phrase type, sorted by type
};

// Accumulates sentences; phrase boundaries follow ChunkStarts/ChunkEnds (chunks.h), and a phrase
// is correct only when gold and prediction start together with the same type and end together.
class Evaluator {
 public:
  Evaluator() = default;
  // Label ids 0..labels.size()-1 of AddIds are these labels (e.g. a model's label set plus the
  // gold labels it does not know); names must be distinct.
  explicit Evaluator(const std::vector<std::string>& labels);
  // One sentence; sizes must match (error otherwise, and nothing is counted).
  absl::Status Add(absl::Span<const std::string> gold, absl::Span<const std::string> predicted);
  // The same on label ids (the constructor's labels, then any label Add met, in order of first
  // appearance): no string is looked up, as dev scoring during training needs.
  absl::Status AddIds(absl::Span<const int> gold, absl::Span<const int> predicted);
  int num_labels() const { return static_cast<int>(label_names_.size()); }
  EvalReport Report() const;

 private:
  int LabelId(const std::string& label);
  // Counts the sentence in gold_ids_ / predicted_ids_.
  void CountSentence();
  void CountPhrases(int n);

  absl::flat_hash_map<std::string, int> label_ids_;
  std::vector<std::string> label_names_;
  std::vector<char> label_prefix_;    // B I O E S per label id
  std::vector<int> label_type_;       // phrase type id per label id, -1 for O
  std::vector<char> label_is_chunk_;  // "O" or a B-/I-/E-/S- prefixed label
  absl::flat_hash_map<std::string, int> type_ids_;
  std::vector<std::string> type_names_;

  int64_t sentences_ = 0, tokens_ = 0, correct_tokens_ = 0;
  std::vector<int64_t> gold_count_, predicted_count_, correct_count_;  // per label id
  int confusion_dim_ = 0;           // allocated side of confusion_ (>= number of labels)
  std::vector<int64_t> confusion_;  // confusion_dim_^2, gold-major, by label id
  std::vector<int64_t> phrase_gold_, phrase_predicted_, phrase_correct_;  // per type id
  std::vector<int> gold_ids_, predicted_ids_;  // scratch for one sentence
};

// Human-readable text: conlleval's lines first, then per-label scores and (for at most 60 labels)
// the confusion matrix.
std::string FormatEvalReport(const EvalReport& report);
// One JSON object on one line (newline-terminated).
std::string FormatEvalReportJson(const EvalReport& report);

}  // namespace chaintag

#endif  // CHAINTAG_EVAL_H_
