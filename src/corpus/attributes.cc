// CRFsuite's data format (--format attributes): "LABEL<TAB>ATTR<TAB>ATTR:WEIGHT..." per token, a
// blank line between sequences, '\' making the next character literal.
#include <charconv>
#include <cmath>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"
#include "corpus/reader_base.h"

namespace chaintag {
namespace {

// Shortens what an error quotes.
std::string Quote(std::string_view text) {
  constexpr size_t kMax = 60;
  if (text.size() <= kMax) return std::string(text);
  return absl::StrCat(corpus_internal::ToAbsl(text.substr(0, kMax)), "...");
}

// Parses one field into its unescaped name and weight.
absl::Status ParseField(std::string_view field, std::string_view file, int64_t line,
                        std::string* name, float* weight) {
  name->clear();
  size_t i = 0;
  bool has_weight = false;
  for (; i < field.size(); ++i) {
    const char c = field[i];
    if (c == '\\') {
      if (i + 1 == field.size()) {
        return ErrorAt(file, line,
                       absl::StrCat("expected a character after '\\' at the end of attribute '",
                                    Quote(field), "' (write \\\\ for a backslash)"));
      }
      name->push_back(field[++i]);
    } else if (c == ':') {
      has_weight = true;
      break;
    } else {
      name->push_back(c);
    }
  }
  if (name->empty()) {
    return ErrorAt(file, line,
                   field.empty()
                       ? std::string("expected an attribute, found an empty field (two tabs in a "
                                     "row or a tab at the end of the line)")
                       : absl::StrCat("expected an attribute name before ':', found '",
                                      Quote(field), "' (write \\: for a colon in a name)"));
  }
  *weight = 1.0f;
  if (!has_weight) return absl::OkStatus();
  const std::string_view text = field.substr(i + 1);
  double value = 0;
  if (text.empty() || !absl::SimpleAtod(corpus_internal::ToAbsl(text), &value)) {
    return ErrorAt(file, line,
                   absl::StrCat("expected a number as the weight of attribute '", Quote(*name),
                                "', found '", Quote(text), "' (write \\: for a colon in a name)"));
  }
  if (!std::isfinite(value) || std::abs(value) > kMaxAttributeWeight) {
    return ErrorAt(file, line,
                   absl::StrCat("expected a finite weight between -", kMaxAttributeWeight, " and ",
                                kMaxAttributeWeight, " for attribute '", Quote(*name), "', found '",
                                Quote(text), "'"));
  }
  *weight = static_cast<float>(value);
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendAttributeToken(std::string_view fields, std::string_view file, int64_t line,
                                  Sentence* sentence) {
  if (sentence->columns.empty()) sentence->columns.resize(1);
  if (sentence->attribute_offsets.empty()) sentence->attribute_offsets.push_back(0);
  std::string name;
  float weight = 1.0f;
  if (!fields.empty()) {
    size_t start = 0;
    while (true) {
      const size_t tab = fields.find('\t', start);
      const std::string_view field = fields.substr(
          start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
      if (absl::Status s = ParseField(field, file, line, &name, &weight); !s.ok()) return s;
      sentence->attribute_names.push_back(name);
      sentence->attribute_values.push_back(weight);
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
  }
  sentence->attribute_offsets.push_back(static_cast<int32_t>(sentence->attribute_names.size()));
  sentence->columns[0].emplace_back(fields);
  return absl::OkStatus();
}

absl::Status ParseAttributeColumn(Sentence* sentence) {
  if (sentence->columns.empty()) {
    return ErrorAt(*sentence, 0, "expected a column of attribute fields, found no columns");
  }
  std::vector<std::string> fields = std::move(sentence->columns[0]);
  sentence->columns[0].clear();
  sentence->attribute_offsets.clear();
  sentence->attribute_names.clear();
  sentence->attribute_values.clear();
  for (size_t t = 0; t < fields.size(); ++t) {
    const int64_t line =
        t < sentence->token_lines.size() ? sentence->token_lines[t] : static_cast<int64_t>(0);
    if (absl::Status s = AppendAttributeToken(fields[t], sentence->file, line, sentence); !s.ok())
      return s;
  }
  if (fields.empty()) sentence->attribute_offsets.assign(1, 0);
  return absl::OkStatus();
}

std::string FormatAttributeField(std::string_view name, float weight) {
  std::string out;
  out.reserve(name.size() + 8);
  for (char c : name) {
    if (c == ':' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  if (weight != 1.0f) {
    char buffer[32];
    const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), weight);
    out.push_back(':');
    out.append(buffer, r.ptr);
  }
  return out;
}

namespace corpus_internal {
namespace {

class AttributesReader : public LineSentenceReader {
 public:
  using LineSentenceReader::LineSentenceReader;

 protected:
  absl::StatusOr<bool> ReadSentence(Sentence* s) override {
    std::string_view line;
    int labelled = 0;
    while (true) {
      if (has_carry_) {
        has_carry_ = false;
        line = carry_;
      } else {
        absl::StatusOr<bool> got = lines_.Next(&line);
        if (!got.ok()) return got.status();
        if (!*got) return !s->token_lines.empty();
      }
      if (IsBlank(line)) {
        if (!s->token_lines.empty()) return true;
        continue;
      }
      if (s->token_lines.size() == max_tokens()) {
        if (absl::Status st = TooManyTokens(lines_.line_number()); !st.ok()) return st;
        carry_.assign(line);
        has_carry_ = true;
        carry_line_ = lines_.line_number();
        return !s->token_lines.empty();
      }
      const int64_t line_number = carry_line_ > 0 ? carry_line_ : lines_.line_number();
      carry_line_ = 0;
      const size_t tab = line.find('\t');
      const std::string_view label = line.substr(0, tab);
      const std::string_view fields =
          tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
      std::string unescaped;
      for (size_t i = 0; i < label.size(); ++i) {
        if (label[i] == '\\' && i + 1 < label.size()) ++i;
        unescaped.push_back(label[i]);
      }
      const bool has_label = !unescaped.empty();
      if (!s->token_lines.empty() && has_label != (labelled > 0)) {
        return ErrorAt(lines_.name(), line_number,
                       has_label ? "expected no label (as on the sentence's first line), found one"
                                 : "expected a label before the first tab (as on the sentence's "
                                   "first line), found none");
      }
      if (has_label) {
        ++labelled;
        s->labels.push_back(std::move(unescaped));
      }
      if (absl::Status st = AppendAttributeToken(fields, lines_.name(), line_number, s); !st.ok())
        return st;
      s->token_lines.push_back(line_number);
    }
  }

 private:
  std::string carry_;
  bool has_carry_ = false;
  int64_t carry_line_ = 0;
};

}  // namespace

std::unique_ptr<SentenceReader> MakeAttributesReader(std::istream& in,
                                                     std::unique_ptr<std::istream> owned,
                                                     std::string name,
                                                     const ReaderOptions& options) {
  return std::make_unique<AttributesReader>(in, std::move(owned), std::move(name), options);
}

}  // namespace corpus_internal
}  // namespace chaintag
