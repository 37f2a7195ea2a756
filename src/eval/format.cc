// Text and JSON renderings of an EvalReport.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chaintag/eval.h"
#include "json_string.h"

namespace chaintag {
namespace {

// Above this many labels a confusion matrix is too wide to read as text.
constexpr int kMaxConfusionLabels = 60;

// Percentages with four decimals: enough to recompute conlleval's two-decimal figures.
void AppendJsonNumber(double value, std::string* out) { absl::StrAppendFormat(out, "%.4f", value); }

template <typename Score>
void AppendJsonScore(const Score& score, std::string* out) {
  out->append("{\"precision\":");
  AppendJsonNumber(score.precision, out);
  out->append(",\"recall\":");
  AppendJsonNumber(score.recall, out);
  out->append(",\"f1\":");
  AppendJsonNumber(score.f1, out);
  absl::StrAppend(out, ",\"gold\":", score.gold, ",\"predicted\":", score.predicted,
                  ",\"correct\":", score.correct, "}");
}

}  // namespace

std::string FormatEvalReport(const EvalReport& report) {
  std::string out;
  // conlleval's own lines and number formats, so scripts that parse its output keep working.
  absl::StrAppend(&out, "processed ", report.tokens, " tokens with ", report.overall.gold,
                  " phrases; found: ", report.overall.predicted,
                  " phrases; correct: ", report.overall.correct, ".\n");
  if (report.tokens > 0) {
    absl::StrAppendFormat(
        &out, "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n",
        report.accuracy, report.overall.precision, report.overall.recall, report.overall.f1);
  }
  for (const PhraseScore& chunk : report.chunks) {
    absl::StrAppendFormat(&out, "%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d\n",
                          chunk.type, chunk.precision, chunk.recall, chunk.f1, chunk.predicted);
  }

  absl::StrAppend(&out, "\nsentences: ", report.sentences, "; tokens: ", report.tokens,
                  "; correct tokens: ", report.correct_tokens, "\n");
  int width = 5;
  for (const LabelScore& label : report.labels) {
    width = std::max(width, static_cast<int>(label.label.size()));
  }
  absl::StrAppendFormat(&out, "\n%-*s %9s %9s %9s %9s %9s %9s\n", width, "label", "gold",
                        "predicted", "correct", "precision", "recall", "F1");
  for (const LabelScore& label : report.labels) {
    absl::StrAppendFormat(&out, "%-*s %9d %9d %9d %9.2f %9.2f %9.2f\n", width, label.label,
                          label.gold, label.predicted, label.correct, label.precision, label.recall,
                          label.f1);
  }

  const int num_labels = static_cast<int>(report.confusion_labels.size());
  if (num_labels > kMaxConfusionLabels) {
    absl::StrAppend(&out, "\nconfusion matrix omitted: ", num_labels, " labels (more than ",
                    kMaxConfusionLabels, ")\n");
    return out;
  }
  if (num_labels == 0 || report.confusion.size() != static_cast<size_t>(num_labels) * num_labels) {
    return out;
  }
  int cell = 1;
  for (const std::string& label : report.confusion_labels) {
    cell = std::max(cell, static_cast<int>(label.size()));
  }
  for (int64_t count : report.confusion) {
    cell = std::max(cell, static_cast<int>(absl::StrCat(count).size()));
  }
  absl::StrAppend(&out, "\nconfusion matrix (rows: gold, columns: predicted)\n");
  absl::StrAppendFormat(&out, "%-*s", width, "");
  for (const std::string& label : report.confusion_labels) {
    absl::StrAppendFormat(&out, " %*s", cell, label);
  }
  out.push_back('\n');
  for (int g = 0; g < num_labels; ++g) {
    absl::StrAppendFormat(&out, "%-*s", width, report.confusion_labels[g]);
    for (int p = 0; p < num_labels; ++p) {
      absl::StrAppendFormat(&out, " %*d", cell,
                            report.confusion[static_cast<size_t>(g) * num_labels + p]);
    }
    out.push_back('\n');
  }
  return out;
}

std::string FormatEvalReportJson(const EvalReport& report) {
  std::string out;
  absl::StrAppend(&out, "{\"sentences\":", report.sentences, ",\"tokens\":", report.tokens,
                  ",\"correct_tokens\":", report.correct_tokens, ",\"accuracy\":");
  AppendJsonNumber(report.accuracy, &out);
  out.append(",\"labels\":{");
  for (size_t i = 0; i < report.labels.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(report.labels[i].label, &out);
    out.push_back(':');
    AppendJsonScore(report.labels[i], &out);
  }
  out.append("},\"confusion\":{\"labels\":[");
  const size_t num_labels = report.confusion_labels.size();
  for (size_t i = 0; i < num_labels; ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(report.confusion_labels[i], &out);
  }
  out.append("],\"matrix\":[");
  if (report.confusion.size() == num_labels * num_labels) {
    for (size_t g = 0; g < num_labels; ++g) {
      if (g > 0) out.push_back(',');
      out.push_back('[');
      for (size_t p = 0; p < num_labels; ++p) {
        if (p > 0) out.push_back(',');
        absl::StrAppend(&out, report.confusion[g * num_labels + p]);
      }
      out.push_back(']');
    }
  }
  out.append("]}");
  if (report.has_chunks) {
    out.append(",\"chunks\":{\"overall\":");
    AppendJsonScore(report.overall, &out);
    out.append(",\"types\":{");
    for (size_t i = 0; i < report.chunks.size(); ++i) {
      if (i > 0) out.push_back(',');
      AppendJsonString(report.chunks[i].type, &out);
      out.push_back(':');
      AppendJsonScore(report.chunks[i], &out);
    }
    out.append("}}");
  }
  out.append("}\n");
  return out;
}

}  // namespace chaintag
