// Token accuracy, per-label scores, confusion counts and conlleval-compatible phrase counts.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/chunks.h"
#include "chaintag/eval.h"

namespace chaintag {
namespace {

double Percent(int64_t num, int64_t den) { return den > 0 ? 100.0 * num / den : 0.0; }

double F1(double precision, double recall) {
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

// Precision, recall and F1 (percentages) from a score's correct/predicted/gold counts.
template <typename Score>
void SetRates(Score* score) {
  score->precision = Percent(score->correct, score->predicted);
  score->recall = Percent(score->correct, score->gold);
  score->f1 = F1(score->precision, score->recall);
}

}  // namespace

Evaluator::Evaluator(const std::vector<std::string>& labels) {
  for (const std::string& label : labels) LabelId(label);
}

int Evaluator::LabelId(const std::string& label) {
  auto [it, inserted] = label_ids_.try_emplace(label, static_cast<int>(label_names_.size()));
  if (!inserted) return it->second;
  const int id = it->second;
  label_names_.push_back(label);
  const ChunkTag tag = ParseChunkTag(label);
  label_prefix_.push_back(tag.prefix);
  int type = -1;
  if (tag.prefix != 'O') {
    auto [tit, tinserted] = type_ids_.try_emplace(tag.type, static_cast<int>(type_names_.size()));
    if (tinserted) {
      type_names_.push_back(tag.type);
      phrase_gold_.push_back(0);
      phrase_predicted_.push_back(0);
      phrase_correct_.push_back(0);
    }
    type = tit->second;
  }
  label_type_.push_back(type);
  label_is_chunk_.push_back(tag.in_scheme);
  gold_count_.push_back(0);
  predicted_count_.push_back(0);
  correct_count_.push_back(0);
  if (id >= confusion_dim_) {
    // Grow the dense matrix geometrically so label discovery stays amortised O(1).
    const int dim = std::max(16, 2 * confusion_dim_);
    std::vector<int64_t> grown(static_cast<size_t>(dim) * dim, 0);
    for (int g = 0; g < confusion_dim_; ++g) {
      std::copy_n(confusion_.begin() + static_cast<size_t>(g) * confusion_dim_, confusion_dim_,
                  grown.begin() + static_cast<size_t>(g) * dim);
    }
    confusion_.swap(grown);
    confusion_dim_ = dim;
  }
  return id;
}

absl::Status Evaluator::Add(absl::Span<const std::string> gold,
                            absl::Span<const std::string> predicted) {
  if (gold.size() != predicted.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sentence ", sentences_ + 1, ": expected as many predicted labels as gold labels (",
        gold.size(), "), found ", predicted.size()));
  }
  const int n = static_cast<int>(gold.size());
  gold_ids_.resize(n);
  predicted_ids_.resize(n);
  for (int t = 0; t < n; ++t) {
    gold_ids_[t] = LabelId(gold[t]);
    predicted_ids_[t] = LabelId(predicted[t]);
  }
  CountSentence();
  return absl::OkStatus();
}

absl::Status Evaluator::AddIds(absl::Span<const int> gold, absl::Span<const int> predicted) {
  if (gold.size() != predicted.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sentence ", sentences_ + 1, ": expected as many predicted labels as gold labels (",
        gold.size(), "), found ", predicted.size()));
  }
  const int num_labels = this->num_labels();
  for (size_t t = 0; t < gold.size(); ++t) {
    for (int id : {gold[t], predicted[t]}) {
      if (id < 0 || id >= num_labels) {
        return absl::InvalidArgumentError(absl::StrCat("sentence ", sentences_ + 1, ", token ",
                                                       t + 1, ": expected a label id below ",
                                                       num_labels, ", found ", id));
      }
    }
  }
  gold_ids_.assign(gold.begin(), gold.end());
  predicted_ids_.assign(predicted.begin(), predicted.end());
  CountSentence();
  return absl::OkStatus();
}

void Evaluator::CountSentence() {
  const int n = static_cast<int>(gold_ids_.size());
  for (int t = 0; t < n; ++t) {
    const int g = gold_ids_[t];
    const int p = predicted_ids_[t];
    ++gold_count_[g];
    ++predicted_count_[p];
    if (g == p) {
      ++correct_count_[g];
      ++correct_tokens_;
    }
    ++confusion_[static_cast<size_t>(g) * confusion_dim_ + p];
  }
  tokens_ += n;
  ++sentences_;
  CountPhrases(n);
}

// The conlleval main loop (Tjong Kim Sang, CoNLL-2000 evaluation script, version 2004-01-26):
// `in_correct` tracks a gold and a predicted phrase that started together with the same type;
// it is counted when both end together, and dropped when only one ends or the types differ.
// Position n is the sentence boundary, which conlleval reads as an "O O" line.
void Evaluator::CountPhrases(int n) {
  // Label id -1 is the sentence boundary, read as "O".
  auto Prefix = [this](int label) { return label < 0 ? 'O' : label_prefix_[label]; };
  bool in_correct = false;
  int last_gold = -1, last_pred = -1;
  for (int t = 0; t <= n; ++t) {
    const int g = t < n ? gold_ids_[t] : -1;
    const int p = t < n ? predicted_ids_[t] : -1;
    const int g_type = g < 0 ? -1 : label_type_[g];
    const int p_type = p < 0 ? -1 : label_type_[p];
    const int last_g_type = last_gold < 0 ? -1 : label_type_[last_gold];
    const int last_p_type = last_pred < 0 ? -1 : label_type_[last_pred];
    if (in_correct) {
      const bool gold_ends = ChunkEnds(Prefix(last_gold), Prefix(g), last_g_type == g_type);
      const bool pred_ends = ChunkEnds(Prefix(last_pred), Prefix(p), last_p_type == p_type);
      if (gold_ends && pred_ends && last_g_type == last_p_type) {
        in_correct = false;
        if (last_g_type >= 0) ++phrase_correct_[last_g_type];
      } else if (gold_ends != pred_ends || g_type != p_type) {
        in_correct = false;
      }
    }
    const bool gold_starts = ChunkStarts(Prefix(last_gold), Prefix(g), last_g_type == g_type);
    const bool pred_starts = ChunkStarts(Prefix(last_pred), Prefix(p), last_p_type == p_type);
    if (gold_starts && pred_starts && g_type == p_type) in_correct = true;
    if (gold_starts) ++phrase_gold_[g_type];
    if (pred_starts) ++phrase_predicted_[p_type];
    last_gold = g;
    last_pred = p;
  }
}

EvalReport Evaluator::Report() const {
  EvalReport report;
  report.sentences = sentences_;
  report.tokens = tokens_;
  report.correct_tokens = correct_tokens_;
  report.accuracy = Percent(correct_tokens_, tokens_);

  // Labels neither in gold nor predicted (given to the constructor but unused) are not listed.
  std::vector<int> order;
  for (int id = 0; id < static_cast<int>(label_names_.size()); ++id) {
    if (gold_count_[id] > 0 || predicted_count_[id] > 0) order.push_back(id);
  }
  const int num_labels = static_cast<int>(order.size());
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return label_names_[a] < label_names_[b]; });
  bool any_chunk_prefix = false, all_chunk_like = true;
  for (int id : order) {
    LabelScore score;
    score.label = label_names_[id];
    score.gold = gold_count_[id];
    score.predicted = predicted_count_[id];
    score.correct = correct_count_[id];
    SetRates(&score);
    report.labels.push_back(std::move(score));
    report.confusion_labels.push_back(label_names_[id]);
    if (!label_is_chunk_[id]) all_chunk_like = false;
    if (label_is_chunk_[id] && label_prefix_[id] != 'O') any_chunk_prefix = true;
  }
  report.confusion.assign(static_cast<size_t>(num_labels) * num_labels, 0);
  for (int gi = 0; gi < num_labels; ++gi) {
    for (int pi = 0; pi < num_labels; ++pi) {
      report.confusion[static_cast<size_t>(gi) * num_labels + pi] =
          confusion_[static_cast<size_t>(order[gi]) * confusion_dim_ + order[pi]];
    }
  }

  report.has_chunks = any_chunk_prefix && all_chunk_like;
  if (!report.has_chunks) return report;
  std::vector<int> types(type_names_.size());
  std::iota(types.begin(), types.end(), 0);
  std::sort(types.begin(), types.end(),
            [&](int a, int b) { return type_names_[a] < type_names_[b]; });
  report.overall.type = "overall";
  for (int type : types) {
    // conlleval lists the types found in gold or prediction.
    if (phrase_gold_[type] == 0 && phrase_predicted_[type] == 0) continue;
    PhraseScore score;
    score.type = type_names_[type];
    score.gold = phrase_gold_[type];
    score.predicted = phrase_predicted_[type];
    score.correct = phrase_correct_[type];
    SetRates(&score);
    report.overall.gold += score.gold;
    report.overall.predicted += score.predicted;
    report.overall.correct += score.correct;
    report.chunks.push_back(std::move(score));
  }
  SetRates(&report.overall);
  return report;
}

}  // namespace chaintag
