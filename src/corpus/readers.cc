// Streaming readers for CoNLL columns, CoNLL-U and word_TAG lines, and the reader factories.
#include <algorithm>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"
#include "corpus/reader_base.h"

namespace chaintag::corpus_internal {

LineSentenceReader::LineSentenceReader(std::istream& in, std::unique_ptr<std::istream> owned,
                                       std::string name, const ReaderOptions& options)
    : owned_(std::move(owned)),
      lines_(in, std::move(name), options.max_line_bytes),
      options_(options) {
  if (options.max_line_bytes < 1) {
    init_error_ = absl::InvalidArgumentError(absl::StrCat(
        lines_.name(), ": expected max_line_bytes >= 1, found ", options.max_line_bytes));
  } else if (options.max_sentence_tokens < 1) {
    init_error_ = absl::InvalidArgumentError(absl::StrCat(
        lines_.name(), ": expected max_sentence_tokens >= 1, found ", options.max_sentence_tokens));
  }
}

std::vector<std::string> LineSentenceReader::TakeWarnings() {
  std::vector<std::string> taken;
  taken.swap(warnings_);
  return taken;
}

absl::Status LineSentenceReader::TooManyTokens(int64_t line, bool can_split) {
  const int n = options_.max_sentence_tokens;
  if (can_split && options_.split_long_sentences) {
    warnings_.push_back(absl::StrCat(Location(lines_.name(), line), ": a sentence longer than ", n,
                                     " tokens was split"));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Location(lines_.name(), line), ": expected at most ", n,
                   " tokens in a sentence (--max-sentence-tokens), found more",
                   can_split ? "" : " (a tree is never split)"));
}

absl::StatusOr<std::optional<Sentence>> LineSentenceReader::Next() {
  if (!init_error_.ok()) return init_error_;
  if (!error_.ok()) return error_;
  if (done_) return std::optional<Sentence>();
  Sentence sentence;
  sentence.file = lines_.name();
  absl::StatusOr<bool> got = ReadSentence(&sentence);
  if (!got.ok()) {
    error_ = got.status();
    return error_;
  }
  if (!*got) {
    done_ = true;
    if (sentences_ == 0 && !options_.allow_empty) {
      error_ = absl::InvalidArgumentError(
          absl::StrCat(lines_.name(), ": no sentences found (empty input)"));
      return error_;
    }
    return std::optional<Sentence>();
  }
  ++sentences_;
  return std::optional<Sentence>(std::move(sentence));
}

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

void SplitWhitespace(std::string_view line, std::vector<std::string_view>* fields) {
  fields->clear();
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == n) break;
    size_t j = i;
    while (j < n && line[j] != ' ' && line[j] != '\t') ++j;
    fields->push_back(line.substr(i, j - i));
    i = j;
  }
}

void SplitColumns(std::string_view line, std::vector<std::string_view>* fields) {
  if (line.find('\t') == std::string_view::npos) {
    SplitWhitespace(line, fields);
    return;
  }
  fields->clear();
  // Tab mode keeps spaces inside fields; surrounding whitespace of the line is dropped.
  while (!line.empty() && (line.back() == '\t' || line.back() == ' ')) line.remove_suffix(1);
  while (!line.empty() && (line.front() == '\t' || line.front() == ' ')) line.remove_prefix(1);
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields->push_back(line.substr(start));
      break;
    }
    fields->push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

namespace {

class ConllReader : public LineSentenceReader {
 public:
  ConllReader(std::istream& in, std::unique_ptr<std::istream> owned, std::string name,
              const ReaderOptions& options)
      : LineSentenceReader(in, std::move(owned), std::move(name), options) {
    const int column = options.label_column;
    if (init_error_.ok() &&
        (column > ReaderOptions::kMaxLabelColumn || column < -ReaderOptions::kMaxLabelColumn)) {
      init_error_ = absl::InvalidArgumentError(absl::StrCat(
          lines_.name(), ": expected a label column from -", ReaderOptions::kMaxLabelColumn, " to ",
          ReaderOptions::kMaxLabelColumn, " (--label-column), found ", column));
    }
  }

 protected:
  absl::StatusOr<bool> ReadSentence(Sentence* s) override {
    std::string_view line;
    int num_fields = -1;
    int label_index = -1;
    int64_t first_line = 0;
    while (true) {
      if (has_carry_) {
        // The token that did not fit in the previous piece of a split sentence.
        has_carry_ = false;
        line = carry_;
      } else {
        absl::StatusOr<bool> got = lines_.Next(&line);
        if (!got.ok()) return got.status();
        if (!*got) return num_fields >= 0;
      }
      if (IsBlank(line)) {
        if (num_fields >= 0) return true;
        continue;
      }
      SplitColumns(line, &fields_);
      if (fields_[0] == "-DOCSTART-") {
        pending_document_ = true;
        if (num_fields >= 0) return true;  // a document boundary also ends a sentence
        continue;
      }
      if (s->token_lines.size() == max_tokens()) {
        if (absl::Status st = TooManyTokens(lines_.line_number()); !st.ok()) return st;
        carry_.assign(line);
        has_carry_ = true;
        return true;
      }
      const int n = static_cast<int>(fields_.size());
      if (num_fields < 0) {
        num_fields = n;
        first_line = lines_.line_number();
        s->new_document = pending_document_;
        pending_document_ = false;
        absl::StatusOr<int> index = LabelIndex(n);
        if (!index.ok()) return index.status();
        label_index = *index;
        s->columns.resize(label_index < 0 ? n : n - 1);
        for (auto& column : s->columns) column.reserve(reserve_);
        if (label_index >= 0) s->labels.reserve(reserve_);
        s->token_lines.reserve(reserve_);
      } else if (n != num_fields) {
        return lines_.Error(absl::StrCat("expected ", num_fields, " columns as on line ",
                                         first_line, " (same sentence), found ", n));
      }
      int c = 0;
      for (int f = 0; f < n; ++f) {
        if (f == label_index) {
          s->labels.emplace_back(fields_[f]);
        } else {
          s->columns[c++].emplace_back(fields_[f]);
        }
      }
      s->token_lines.push_back(lines_.line_number());
      if (static_cast<int>(s->token_lines.size()) > reserve_) {
        reserve_ = std::min(2 * reserve_, options_.max_sentence_tokens);
      }
    }
  }

 private:
  // Resolves the 1-based/negative label column against the first line of a sentence.
  absl::StatusOr<int> LabelIndex(int n) const {
    const int column = options_.label_column;  // |column| <= kMaxLabelColumn (constructor)
    if (column == 0) return -1;
    const int index = column > 0 ? column - 1 : n + column;
    if (index < 0 || index >= n) {
      return lines_.Error(absl::StrCat("expected at least ", column > 0 ? column : -column,
                                       " columns for label column ", column,
                                       column < 0 ? " (counted from the end)" : "", ", found ", n));
    }
    if (n < 2) {
      return lines_.Error(
          absl::StrCat("expected at least 2 columns (a word and a label), found ", n));
    }
    return index;
  }

  std::vector<std::string_view> fields_;
  int reserve_ = 32;
  std::string carry_;
  bool has_carry_ = false;
  bool pending_document_ = false;  // a -DOCSTART- line was read; the next sentence opens a document
};

class ConlluReader : public LineSentenceReader {
 public:
  ConlluReader(std::istream& in, std::unique_ptr<std::istream> owned, std::string name,
               const ReaderOptions& options)
      : LineSentenceReader(in, std::move(owned), std::move(name), options) {
    if (options.conllu_label == "upos") {
      label_field_ = 3;
    } else if (options.conllu_label == "xpos") {
      label_field_ = 4;
    } else {
      init_error_ = absl::InvalidArgumentError(
          absl::StrCat(lines_.name(), ": expected CoNLL-U label \"upos\" or \"xpos\", found \"",
                       options.conllu_label, "\""));
    }
  }

 protected:
  absl::StatusOr<bool> ReadSentence(Sentence* s) override {
    std::string_view line;
    ConlluExtras extras;
    int words = 0;
    bool started = false;
    while (true) {
      absl::StatusOr<bool> got = true;
      if (has_carry_) {
        has_carry_ = false;
        line = carry_;
      } else {
        got = lines_.Next(&line);
        if (!got.ok()) return got.status();
      }
      if (!*got || IsBlank(line)) {
        if (words > 0) {
          s->conllu = std::move(extras);
          id_offset_ = 0;
          return true;
        }
        if (started) {
          return lines_.Error(
              absl::StrCat("expected word lines after the comments and multiword lines, found ",
                           *got ? "a blank line" : "end of input"));
        }
        if (!*got) return false;
        continue;
      }
      started = true;
      if (line[0] == '#') {
        // "# newdoc" or "# newdoc id = ..." (CoNLL-U v2) opens a document.
        if (absl::StartsWith(ToAbsl(line), "# newdoc") &&
            (line.size() == 8 || line[8] == ' ' || line[8] == '\t')) {
          s->new_document = true;
        }
        s->comments.emplace_back(line);
        continue;
      }
      fields_.clear();
      size_t start = 0;
      while (true) {
        const size_t tab = line.find('\t', start);
        fields_.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
        if (tab == std::string_view::npos) break;
        start = tab + 1;
      }
      if (fields_.size() != 10) {
        return lines_.Error(absl::StrCat("expected 10 tab-separated fields, found ", fields_.size(),
                                         " in line ", QuoteLine(line)));
      }
      const std::string_view id = fields_[0];
      if (id.find_first_of("-.") != std::string_view::npos) {
        extras.other_lines.emplace_back(words, std::string(line));
        continue;
      }
      if (static_cast<size_t>(words) == max_tokens()) {
        if (absl::Status st = TooManyTokens(lines_.line_number()); !st.ok()) return st;
        // The rest continues as the next sentence, keeping its word IDs.
        carry_.assign(line);
        has_carry_ = true;
        id_offset_ += words;
        s->conllu = std::move(extras);
        return true;
      }
      int id_value = 0;
      if (!absl::SimpleAtoi(ToAbsl(id), &id_value) || id_value != id_offset_ + words + 1) {
        return lines_.Error(absl::StrCat("expected word ID ", id_offset_ + words + 1, ", found \"",
                                         ToAbsl(id), "\""));
      }
      if (s->columns.empty()) s->columns.resize(1);
      s->columns[0].emplace_back(fields_[1]);
      s->labels.emplace_back(fields_[label_field_]);
      s->token_lines.push_back(lines_.line_number());
      std::vector<std::string>& stored = extras.word_fields.emplace_back();
      stored.reserve(10);
      for (std::string_view f : fields_) stored.emplace_back(f);
      ++words;
    }
  }

 private:
  int label_field_ = 4;
  std::vector<std::string_view> fields_;
  std::string carry_;
  bool has_carry_ = false;
  int id_offset_ = 0;  // words of a split sentence already returned
};

class TaggedReader : public LineSentenceReader {
 public:
  TaggedReader(std::istream& in, std::unique_ptr<std::istream> owned, std::string name,
               const ReaderOptions& options)
      : LineSentenceReader(in, std::move(owned), std::move(name), options) {
    const char sep = options.tagged_separator;
    if (sep == '\0' || sep == ' ' || sep == '\t' || sep == '\\' ||
        static_cast<unsigned char>(sep) >= 0x80) {
      init_error_ = absl::InvalidArgumentError(
          absl::StrCat(lines_.name(),
                       ": expected an ASCII word/tag separator such as '_' or "
                       "'/', found byte ",
                       static_cast<int>(sep)));
    }
  }

 protected:
  absl::StatusOr<bool> ReadSentence(Sentence* s) override {
    std::string_view line;
    if (has_carry_) {
      // The tokens of a split line that did not fit in the previous piece.
      has_carry_ = false;
      line = std::string_view(carry_).substr(carry_pos_);
    } else {
      while (true) {
        absl::StatusOr<bool> got = lines_.Next(&line);
        if (!got.ok()) return got.status();
        if (!*got) return false;
        if (!IsBlank(line)) break;
      }
    }
    SplitWhitespace(line, &fields_);
    if (fields_.size() > max_tokens()) {
      if (absl::Status st = TooManyTokens(lines_.line_number()); !st.ok()) return st;
      const size_t rest = static_cast<size_t>(fields_[max_tokens()].data() - line.data());
      if (line.data() >= carry_.data() && line.data() < carry_.data() + carry_.size()) {
        carry_pos_ += rest;
      } else {
        carry_.assign(line);
        carry_pos_ = rest;
      }
      has_carry_ = true;
      fields_.resize(max_tokens());
    }
    const char sep = options_.tagged_separator;
    s->columns.resize(1);
    s->columns[0].reserve(fields_.size());
    s->labels.reserve(fields_.size());
    s->token_lines.assign(fields_.size(), lines_.line_number());
    for (std::string_view token : fields_) {
      // The last unescaped separator splits word from tag ("1\/2/CD" -> "1/2", "CD").
      size_t pos = std::string_view::npos;
      for (size_t i = token.size(); i-- > 0;) {
        if (token[i] == sep && !(sep == '/' && i > 0 && token[i - 1] == '\\')) {
          pos = i;
          break;
        }
      }
      if (pos == std::string_view::npos || pos == 0 || pos + 1 == token.size()) {
        return lines_.Error(absl::StrCat("expected word", std::string(1, sep),
                                         "TAG tokens, found \"", ToAbsl(token), "\""));
      }
      s->columns[0].push_back(Unescape(token.substr(0, pos)));
      s->labels.push_back(Unescape(token.substr(pos + 1)));
    }
    return true;
  }

 private:
  static std::string Unescape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '/') continue;
      out.push_back(text[i]);
    }
    return out;
  }

  std::vector<std::string_view> fields_;
  std::string carry_;  // the line being split
  size_t carry_pos_ = 0;
  bool has_carry_ = false;
};

std::unique_ptr<SentenceReader> MakeReader(std::istream& in, std::unique_ptr<std::istream> owned,
                                           std::string name, const ReaderOptions& options) {
  switch (options.format) {
    case CorpusFormat::kConll:
      return std::make_unique<ConllReader>(in, std::move(owned), std::move(name), options);
    case CorpusFormat::kConllu:
      return std::make_unique<ConlluReader>(in, std::move(owned), std::move(name), options);
    case CorpusFormat::kTagged:
      return std::make_unique<TaggedReader>(in, std::move(owned), std::move(name), options);
    case CorpusFormat::kPtb:
      return MakePtbReader(in, std::move(owned), std::move(name), options);
    case CorpusFormat::kAttributes:
      return MakeAttributesReader(in, std::move(owned), std::move(name), options);
  }
  return std::make_unique<ConllReader>(in, std::move(owned), std::move(name), options);
}

}  // namespace
}  // namespace chaintag::corpus_internal

namespace chaintag {

absl::StatusOr<std::unique_ptr<SentenceReader>> OpenSentenceReader(const std::string& path,
                                                                   const ReaderOptions& options) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  std::istream& stream = **in;
  return corpus_internal::MakeReader(stream, *std::move(in), path == "-" ? "<stdin>" : path,
                                     options);
}

std::unique_ptr<SentenceReader> MakeSentenceReader(std::istream& in, std::string name,
                                                   const ReaderOptions& options) {
  return corpus_internal::MakeReader(in, nullptr, std::move(name), options);
}

absl::StatusOr<std::vector<Sentence>> ReadCorpus(const std::vector<std::string>& paths,
                                                 const ReaderOptions& options,
                                                 std::vector<std::string>* warnings) {
  if (paths.empty()) {
    return absl::InvalidArgumentError("expected at least one input file, found none");
  }
  std::vector<Sentence> sentences;
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<SentenceReader>> reader = OpenSentenceReader(path, options);
    if (!reader.ok()) return reader.status();
    while (true) {
      absl::StatusOr<std::optional<Sentence>> next = (*reader)->Next();
      if (warnings != nullptr) {
        for (std::string& w : (*reader)->TakeWarnings()) warnings->push_back(std::move(w));
      }
      if (!next.ok()) return next.status();
      if (!next->has_value()) break;
      // Readers reserve generously for speed; a corpus kept in memory should not pay for it.
      Sentence& kept = **next;
      for (auto& column : kept.columns) column.shrink_to_fit();
      kept.labels.shrink_to_fit();
      kept.token_lines.shrink_to_fit();
      sentences.push_back(std::move(kept));
    }
  }
  if (sentences.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(absl::StrJoin(paths, ", "), ": no sentences found (empty input)"));
  }
  return sentences;
}

}  // namespace chaintag
