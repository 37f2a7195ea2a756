// Writers for CoNLL columns, CoNLL-U (lossless with ConlluExtras) and word_TAG lines.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"

namespace chaintag {
namespace {

absl::Status CheckShapes(const Sentence& s, const std::vector<std::string>& predicted) {
  const int n = s.size();
  for (int c = 0; c < s.num_columns(); ++c) {
    if (static_cast<int>(s.columns[c].size()) != n) {
      return ErrorAt(
          s, 0,
          absl::StrCat("expected ", n, " entries in column ", c, ", found ", s.columns[c].size()));
    }
  }
  if (s.has_labels() && static_cast<int>(s.labels.size()) != n) {
    return ErrorAt(s, 0, absl::StrCat("expected ", n, " gold labels, found ", s.labels.size()));
  }
  if (!predicted.empty() && static_cast<int>(predicted.size()) != n) {
    return ErrorAt(s, 0,
                   absl::StrCat("expected ", n, " predicted labels, found ", predicted.size()));
  }
  return absl::OkStatus();
}

absl::Status WriteConll(std::ostream& out, const Sentence& s,
                        const std::vector<std::string>& predicted) {
  std::string line;
  for (int t = 0; t < s.size(); ++t) {
    line.clear();
    bool has_space = false;
    auto add = [&](const std::string& field) {
      if (field.find(' ') != std::string::npos) has_space = true;
      line += field;
      line.push_back('\t');
    };
    for (const auto& column : s.columns) add(column[t]);
    if (s.has_labels()) add(s.labels[t]);
    if (!predicted.empty()) add(predicted[t]);
    line.pop_back();
    // Spaces separate fields (CoNLL-2000 style) unless a field holds one; then tabs do.
    if (!has_space) {
      for (char& c : line) {
        if (c == '\t') c = ' ';
      }
    }
    line.push_back('\n');
    out << line;
  }
  out << '\n';
  return absl::OkStatus();
}

absl::Status WriteConllu(std::ostream& out, const Sentence& s,
                         const std::vector<std::string>& predicted, std::string_view label_name) {
  int label_field;
  if (label_name == "upos") {
    label_field = 3;
  } else if (label_name == "xpos") {
    label_field = 4;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected CoNLL-U label \"upos\" or \"xpos\", found \"",
                     corpus_internal::ToAbsl(label_name), "\""));
  }
  const std::vector<std::string>& labels = predicted.empty() ? s.labels : predicted;
  const ConlluExtras* extras = s.conllu ? &*s.conllu : nullptr;
  if (extras != nullptr && static_cast<int>(extras->word_fields.size()) != s.size()) {
    return ErrorAt(s, 0,
                   absl::StrCat("expected CoNLL-U fields for ", s.size(), " words, found ",
                                extras->word_fields.size()));
  }
  std::string text;
  for (const std::string& comment : s.comments) absl::StrAppend(&text, comment, "\n");
  size_t other = 0;
  std::vector<std::string> fields(10);
  for (int t = 0; t < s.size(); ++t) {
    while (extras != nullptr && other < extras->other_lines.size() &&
           extras->other_lines[other].first <= t) {
      absl::StrAppend(&text, extras->other_lines[other++].second, "\n");
    }
    if (extras != nullptr) {
      if (extras->word_fields[t].size() != 10) {
        return ErrorAt(s, 0,
                       absl::StrCat("expected 10 CoNLL-U fields for word ", t + 1, ", found ",
                                    extras->word_fields[t].size()));
      }
      fields = extras->word_fields[t];
      fields[1] = s.word(t);
    } else {
      fields.assign(10, "_");
      fields[0] = absl::StrCat(t + 1);
      fields[1] = s.word(t);
    }
    if (!labels.empty()) fields[label_field] = labels[t];
    for (int f = 0; f < 10; ++f) {
      text += fields[f];
      text.push_back(f == 9 ? '\n' : '\t');
    }
  }
  while (extras != nullptr && other < extras->other_lines.size()) {
    absl::StrAppend(&text, extras->other_lines[other++].second, "\n");
  }
  text.push_back('\n');
  out << text;
  return absl::OkStatus();
}

void AppendEscaped(std::string* out, std::string_view text, char sep) {
  for (char c : text) {
    if (sep == '/' && c == '/') out->push_back('\\');
    out->push_back(c);
  }
}

absl::Status WriteTagged(std::ostream& out, const Sentence& s,
                         const std::vector<std::string>& predicted, char sep) {
  const std::vector<std::string>& labels = predicted.empty() ? s.labels : predicted;
  if (labels.empty() && s.size() > 0) {
    return ErrorAt(s, 0, absl::StrCat("expected a label per token for tagged output, found none"));
  }
  std::string line;
  for (int t = 0; t < s.size(); ++t) {
    if (t > 0) line.push_back(' ');
    AppendEscaped(&line, s.word(t), sep);
    line.push_back(sep);
    AppendEscaped(&line, labels[t], sep);
  }
  line.push_back('\n');
  out << line;
  return absl::OkStatus();
}

// CRFsuite's data format: the label (predicted, else gold), then the token's attribute fields.
absl::Status WriteAttributes(std::ostream& out, const Sentence& s,
                             const std::vector<std::string>& predicted) {
  const std::vector<std::string>& labels = predicted.empty() ? s.labels : predicted;
  std::string text;
  for (int t = 0; t < s.size(); ++t) {
    if (!labels.empty()) {
      for (char c : labels[t]) {
        if (c == '\\' || c == ':') text.push_back('\\');
        text.push_back(c);
      }
    }
    if (!s.columns[0][t].empty() || labels.empty()) {
      text.push_back('\t');
      text += s.columns[0][t];
    }
    text.push_back('\n');
  }
  text.push_back('\n');
  out << text;
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSentence(std::ostream& out, const Sentence& sentence,
                           const std::vector<std::string>& predicted,
                           const WriterOptions& options) {
  if (absl::Status s = CheckShapes(sentence, predicted); !s.ok()) return s;
  absl::Status status;
  switch (options.format) {
    case CorpusFormat::kConll:
      status = WriteConll(out, sentence, predicted);
      break;
    case CorpusFormat::kConllu:
      status = WriteConllu(out, sentence, predicted, options.conllu_label);
      break;
    case CorpusFormat::kTagged:
      status = WriteTagged(out, sentence, predicted, options.tagged_separator);
      break;
    case CorpusFormat::kAttributes:
      status = WriteAttributes(out, sentence, predicted);
      break;
    case CorpusFormat::kPtb:
      return absl::UnimplementedError(
          "expected an output format conll, conllu or tagged, found "
          "ptb (there is no tree writer)");
  }
  if (!status.ok()) return status;
  if (!out) return absl::DataLossError(absl::StrCat(Location(sentence), ": write failed"));
  return absl::OkStatus();
}

}  // namespace chaintag
