#include "features/template.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"

namespace chaintag {
namespace features {
namespace {

bool IsIdentStart(char c) { return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Quotes what the parser found at `pos` for error messages.
std::string Found(std::string_view line, size_t pos) {
  if (pos >= line.size()) return "end of line";
  constexpr size_t kShown = 16;
  return absl::StrCat("'", ToAbsl(line.substr(pos, kShown)),
                      pos + kShown < line.size() ? "...'" : "'");
}

// Longest |row| accepted; keeps marker tables small and catches typos.
constexpr int kMaxOffset = 64;

// Parses one unigram template line into pieces, registering the sources it reads.
class LineParser {
 public:
  LineParser(std::string_view line, int line_number, std::vector<CellSource>* sources,
             std::vector<HistoryRef>* history_refs)
      : line_(line), line_number_(line_number), sources_(sources), history_refs_(history_refs) {}

  absl::StatusOr<std::vector<TemplatePiece>> Parse() {
    std::vector<TemplatePiece> pieces;
    std::string literal;
    auto flush = [&] {
      if (!literal.empty()) {
        pieces.push_back(TemplatePiece{std::move(literal), -1, 0});
        literal.clear();
      }
    };
    // A cell expression (%x[...] or a function call over one) becomes one piece.
    auto cell_piece = [&](size_t* at) -> absl::Status {
      flush();
      CellSource source;
      int row = 0;
      if (absl::Status s = ParseExpression(at, &source, &row); !s.ok()) return s;
      pieces.push_back(TemplatePiece{"", Register(std::move(source)), row});
      return absl::OkStatus();
    };
    size_t pos = 0;
    while (pos < line_.size()) {
      if (line_.substr(pos).starts_with("%x[")) {
        if (absl::Status s = cell_piece(&pos); !s.ok()) return s;
        continue;
      }
      if (line_.substr(pos).starts_with("%y[") || line_.substr(pos).starts_with("%h[")) {
        flush();
        HistoryRef ref;
        if (absl::Status s = ParseHistory(&pos, &ref); !s.ok()) return s;
        TemplatePiece piece;
        piece.history = RegisterHistory(std::move(ref));
        pieces.push_back(std::move(piece));
        continue;
      }
      if (IsIdentStart(line_[pos]) && (pos == 0 || !IsIdentChar(line_[pos - 1]))) {
        size_t end = pos;
        while (end < line_.size() && IsIdentChar(line_[end])) ++end;
        const std::string_view ident = line_.substr(pos, end - pos);
        if (end < line_.size() && line_[end] == '(' && LooksLikeCall(end + 1, ident)) {
          if (absl::Status s = cell_piece(&pos); !s.ok()) return s;
          continue;
        }
        literal.append(ident);
        pos = end;
        continue;
      }
      if (line_[pos] == '%') {
        return Error(
            "'%x[', '%y[' or '%h[' (a cell or history reference; write other text without '%')",
            pos);
      }
      literal.push_back(line_[pos++]);
    }
    flush();
    return pieces;
  }

 private:
  absl::Status Error(std::string_view expected, size_t pos) const {
    return absl::InvalidArgumentError(absl::StrCat("template line ", line_number_, ": expected ",
                                                   ToAbsl(expected), ", found ",
                                                   Found(line_, pos)));
  }

  // A known function name followed by '(' is a call; an unknown name is one when its argument
  // is a cell reference or another call (so typos are reported, not kept as text).
  bool LooksLikeCall(size_t arg, std::string_view ident) const {
    if (CellFunctionFromName(ident).has_value()) return true;
    if (line_.substr(arg).starts_with("%x[")) return true;
    size_t end = arg;
    while (end < line_.size() && IsIdentChar(line_[end])) ++end;
    return end > arg && end < line_.size() && line_[end] == '(' &&
           CellFunctionFromName(line_.substr(arg, end - arg)).has_value();
  }

  // expression := '%x[' row ',' col ']' | function '(' expression ')'
  // Calls nest at most FeatureSpec::kMaxCallDepth deep, which bounds this recursion (a template or
  // a model's templates section nested 100,000 deep would otherwise overflow the stack).
  absl::Status ParseExpression(size_t* pos, CellSource* source, int* row, int depth = 0) {
    if (line_.substr(*pos).starts_with("%x[")) return ParseCell(pos, source, row);
    if (depth >= FeatureSpec::kMaxCallDepth) {
      return Error(absl::StrCat("function calls nested at most ", FeatureSpec::kMaxCallDepth,
                                " deep, or '%x['"),
                   *pos);
    }
    size_t end = *pos;
    while (end < line_.size() && IsIdentChar(line_[end])) ++end;
    const std::string_view ident = line_.substr(*pos, end - *pos);
    if (ident.empty() || end >= line_.size() || line_[end] != '(') {
      return Error("'%x[' or a function call", *pos);
    }
    std::optional<CellFunction> f = CellFunctionFromName(ident);
    if (!f.has_value()) {
      return Error(absl::StrCat("a function name (", ToAbsl(CellFunctionNameList()), ")"), *pos);
    }
    *pos = end + 1;
    absl::Status s = ParseExpression(pos, source, row, depth + 1);
    if (!s.ok()) return s;
    int arg = -1;
    if (*f == CellFunction::kCluster && *pos < line_.size() && line_[*pos] == ',') {
      // cluster(EXPR, P): the first P bits of the path.
      size_t p = *pos + 1;
      while (p < line_.size() && line_[p] == ' ') ++p;
      const size_t begin = p;
      while (p < line_.size() && IsDigit(line_[p])) ++p;
      if (p == begin || !absl::SimpleAtoi(ToAbsl(line_.substr(begin, p - begin)), &arg) ||
          arg < 1 || arg > WordClusters::kMaxPathBits) {
        return Error(absl::StrCat("a prefix length from 1 to ", WordClusters::kMaxPathBits,
                                  " in cluster(EXPR, P)"),
                     begin);
      }
      *pos = p;
    }
    if (*pos >= line_.size() || line_[*pos] != ')') {
      return Error(absl::StrCat("')' closing ", ToAbsl(ident), "(",
                                *f == CellFunction::kCluster && arg < 0 ? " (or ', P')" : ""),
                   *pos);
    }
    ++*pos;
    source->functions.push_back(CellCall(*f, arg));
    return absl::OkStatus();
  }

  absl::Status ParseCell(size_t* pos, CellSource* source, int* row) {
    size_t p = *pos + 3;  // after "%x["
    size_t begin = p;
    if (p < line_.size() && (line_[p] == '-' || line_[p] == '+')) ++p;
    while (p < line_.size() && IsDigit(line_[p])) ++p;
    int value = 0;
    std::string_view digits = line_.substr(begin, p - begin);
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    if (!absl::SimpleAtoi(ToAbsl(digits), &value))
      return Error("a row offset (an integer) in %x[row,col]", begin);
    if (value < -kMaxOffset || value > kMaxOffset) {
      return Error(absl::StrCat("a row offset between -", kMaxOffset, " and ", kMaxOffset), begin);
    }
    *row = value;
    if (p >= line_.size() || line_[p] != ',')
      return Error("',' after the row offset in %x[row,col]", p);
    begin = ++p;
    while (p < line_.size() && IsDigit(line_[p])) ++p;
    int column = 0;
    if (p == begin || !absl::SimpleAtoi(ToAbsl(line_.substr(begin, p - begin)), &column) ||
        column > 4096) {
      return Error("a column index (0-based, non-negative) in %x[row,col]", begin);
    }
    source->column = column;
    if (p >= line_.size() || line_[p] != ']') return Error("']' closing %x[row,col]", p);
    *pos = p + 1;
    return absl::OkStatus();
  }

  // %y[-k] (k = 1..kMaxHistoryBack) or %h[NAME] / %h[NAME:ARG].
  absl::Status ParseHistory(size_t* pos, HistoryRef* ref) {
    const size_t begin = *pos + 3;
    const size_t close = line_.find(']', begin);
    if (close == std::string_view::npos) return Error("']' closing the history reference", *pos);
    const std::string_view body = line_.substr(begin, close - begin);
    if (line_[*pos + 1] == 'y') {
      int k = 0;
      if (!body.starts_with("-") || !absl::SimpleAtoi(ToAbsl(body.substr(1)), &k) || k < 1 ||
          k > kMaxHistoryBack) {
        return Error(absl::StrCat("a label offset -1 .. -", kMaxHistoryBack, " in %y[-k]"), begin);
      }
      ref->kind = HistoryKind::kLabel;
      ref->back = k;
    } else {
      const size_t colon = body.find(':');
      const std::string_view name = body.substr(0, colon);
      const std::string_view arg =
          colon == std::string_view::npos ? std::string_view() : body.substr(colon + 1);
      const bool needs_arg = name == "count" || name == "chunks";
      if (name == "chunk") {
        ref->kind = HistoryKind::kChunkType;
      } else if (name == "chunklen") {
        ref->kind = HistoryKind::kChunkLength;
      } else if (name == "prevchunk") {
        ref->kind = HistoryKind::kPrevChunkType;
      } else if (name == "count") {
        ref->kind = HistoryKind::kLabelCount;
      } else if (name == "chunks") {
        ref->kind = HistoryKind::kChunkCount;
      } else if (name == "same") {
        ref->kind = HistoryKind::kSameWord;
      } else {
        return Error(
            "a history function (chunk, chunklen, prevchunk, count:LABEL, chunks:TYPE, same) in "
            "%h[...]",
            begin);
      }
      if (needs_arg != (colon != std::string_view::npos) ||
          (needs_arg && (arg.empty() || arg.find_first_of(" \t") != std::string_view::npos))) {
        return Error(needs_arg ? absl::StrCat("%h[", ToAbsl(name), ":ARG] with a non-empty ARG")
                               : absl::StrCat("%h[", ToAbsl(name), "] without an argument"),
                     begin);
      }
      ref->arg = std::string(arg);
    }
    *pos = close + 1;
    return absl::OkStatus();
  }

  int RegisterHistory(HistoryRef ref) {
    auto it = std::find(history_refs_->begin(), history_refs_->end(), ref);
    if (it != history_refs_->end()) return static_cast<int>(it - history_refs_->begin());
    history_refs_->push_back(std::move(ref));
    return static_cast<int>(history_refs_->size()) - 1;
  }

  int Register(CellSource source) {
    auto it = std::find(sources_->begin(), sources_->end(), source);
    if (it != sources_->end()) return static_cast<int>(it - sources_->begin());
    sources_->push_back(std::move(source));
    return static_cast<int>(sources_->size()) - 1;
  }

  std::string_view line_;
  int line_number_;
  std::vector<CellSource>* sources_;
  std::vector<HistoryRef>* history_refs_;
};

}  // namespace

namespace {

// The first character a model file would refuse in template text (C0 controls other than tab
// and line feed, a CR not ending a line, DEL, C1 controls; model_file::StringRule::kText), as
// "template line N: ..." so it stops training before any work, not at the save afterwards.
absl::Status CheckTemplateCharacters(std::string_view text) {
  bool is_nul = false, all_ascii = true;
  const int64_t invalid = corpus_internal::FindInvalidUtf8(text, &is_nul, &all_ascii);
  const size_t end = invalid >= 0 ? static_cast<size_t>(invalid) : text.size();
  auto line_of = [&](size_t offset) {
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  };
  for (size_t i = 0; i < end; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    uint32_t refused = 0x110000;  // none
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      refused = c;
    } else if (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) {
      refused = c;
    } else if (c == 0xC2 && i + 1 < end && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      refused = static_cast<unsigned char>(text[i + 1]);  // U+0080..U+009F
    }
    if (refused != 0x110000) {
      return absl::InvalidArgumentError(
          absl::StrFormat("template line %d: expected text without control characters (other "
                          "than tab), found U+%04X",
                          line_of(i), refused));
    }
  }
  if (invalid >= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "template line %d: expected UTF-8 text, found %s", line_of(invalid),
        is_nul
            ? std::string("a NUL byte")
            : absl::StrFormat("invalid byte 0x%02X", static_cast<unsigned char>(text[invalid]))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FeatureSpec::Impl> ParseTemplates(std::string_view text) {
  if (absl::Status s = CheckTemplateCharacters(text); !s.ok()) return s;
  FeatureSpec::Impl impl;
  impl.text = std::string(text);
  absl::flat_hash_map<std::string, int> name_lines;
  int line_number = 0;
  int max_before = 0, max_after = 0;
  for (absl::string_view raw : absl::StrSplit(ToAbsl(text), '\n')) {
    ++line_number;
    std::string_view line = FromAbsl(absl::StripAsciiWhitespace(raw));
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == 'B') {
      // CRF++ writes the label bigram as "B" or "B<name>:"; cell-conditioned bigrams are not
      // supported.
      if (line.find("%x[") != std::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "template line ", line_number,
            ": expected a label-bigram template without cell references ('B'), found '",
            ToAbsl(line), "'"));
      }
      impl.has_label_bigram = true;
      continue;
    }
    features::UnigramTemplate tmpl;
    tmpl.line = line_number;
    LineParser parser(line, line_number, &impl.sources, &impl.history_refs);
    absl::StatusOr<std::vector<TemplatePiece>> pieces = parser.Parse();
    if (!pieces.ok()) return pieces.status();
    tmpl.pieces = *std::move(pieces);
    // The name is the literal text before ':' when it precedes any cell reference.
    if (!tmpl.pieces.empty() && tmpl.pieces[0].source < 0) {
      const size_t colon = tmpl.pieces[0].literal.find(':');
      if (colon != std::string::npos) tmpl.name = tmpl.pieces[0].literal.substr(0, colon);
    }
    if (!tmpl.name.empty()) {
      auto [it, inserted] = name_lines.try_emplace(tmpl.name, line_number);
      if (!inserted) {
        return absl::InvalidArgumentError(absl::StrCat(
            "template line ", line_number, ": expected a template name not used before, found '",
            tmpl.name, "' (already used on line ", it->second, ")"));
      }
    }
    int num_history = 0;
    for (const TemplatePiece& p : tmpl.pieces) {
      if (p.history >= 0) ++num_history;
      if (p.source < 0) continue;
      max_before = std::max(max_before, -p.row);
      max_after = std::max(max_after, p.row);
      for (const CellCall& call : impl.sources[p.source].functions) {
        int* first = call.function == CellFunction::kLex       ? &impl.lex_line
                     : call.function == CellFunction::kLex2    ? &impl.lex2_line
                     : call.function == CellFunction::kCluster ? &impl.cluster_line
                                                               : nullptr;
        if (first != nullptr && *first == 0) *first = line_number;
      }
    }
    if (num_history > kMaxHistoryRefs) {
      return absl::InvalidArgumentError(
          absl::StrCat("template line ", line_number, ": expected at most ", kMaxHistoryRefs,
                       " history references in one template, found ", num_history));
    }
    (num_history > 0 ? impl.history_templates : impl.templates).push_back(std::move(tmpl));
  }
  if (impl.templates.empty() && impl.history_templates.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "template line ", line_number, ": expected at least one unigram template, found none"));
  }
  for (const CellSource& s : impl.sources) {
    impl.num_input_columns = std::max(impl.num_input_columns, s.column + 1);
  }
  for (int k = 1; k <= max_before; ++k) impl.before_markers.push_back(absl::StrCat("_B-", k));
  for (int k = 1; k <= max_after; ++k) impl.after_markers.push_back(absl::StrCat("_B+", k));
  for (const auto& markers : {impl.before_markers, impl.after_markers}) {
    for (const std::string& m : markers)
      impl.longest_marker = std::max(impl.longest_marker, m.size());
  }
  for (const features::UnigramTemplate& t : impl.templates) {
    for (const TemplatePiece& p : t.pieces) {
      if (p.source < 0) impl.literal_bytes += p.literal.size();
    }
  }
  return impl;
}

}  // namespace features

namespace {
const std::shared_ptr<const FeatureSpec::Impl>& EmptyImpl() {
  static const auto* empty =
      new std::shared_ptr<const FeatureSpec::Impl>(std::make_shared<const FeatureSpec::Impl>());
  return *empty;
}
}  // namespace

absl::StatusOr<FeatureSpec> FeatureSpec::Parse(std::string_view text,
                                               std::shared_ptr<const Lexicon> lexicon) {
  FeatureResources resources;
  resources.lexicon = std::move(lexicon);
  return Parse(text, std::move(resources));
}

absl::StatusOr<FeatureSpec> FeatureSpec::Parse(std::string_view text, FeatureResources resources) {
  absl::StatusOr<Impl> impl = features::ParseTemplates(text);
  if (!impl.ok()) return impl.status();
  if (impl->lex_line > 0 && resources.lexicon == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "template line ", impl->lex_line,
        ": lex() reads a word-class lexicon, but none was given (train --lexicon FILE)"));
  }
  if (impl->lex2_line > 0 && resources.lexicon2 == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "template line ", impl->lex2_line,
        ": lex2() reads a second word-class lexicon, but none was given (train --lexicon2 FILE)"));
  }
  if (impl->cluster_line > 0 && resources.clusters == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("template line ", impl->cluster_line,
                     ": cluster() reads word clusters, but none were given (train --clusters "
                     "FILE)"));
  }
  impl->lexicon = std::move(resources.lexicon);
  impl->lexicon2 = std::move(resources.lexicon2);
  impl->clusters = std::move(resources.clusters);
  impl->resources = {impl->lexicon.get(), impl->lexicon2.get(), impl->clusters.get()};
  FeatureSpec spec;
  spec.impl_ = std::make_shared<const Impl>(*std::move(impl));
  return spec;
}

absl::StatusOr<FeatureSpec> FeatureSpec::ReadFile(const std::string& path,
                                                  std::shared_ptr<const Lexicon> lexicon) {
  FeatureResources resources;
  resources.lexicon = std::move(lexicon);
  return ReadFile(path, std::move(resources));
}

absl::StatusOr<FeatureSpec> FeatureSpec::ReadFile(const std::string& path,
                                                  FeatureResources resources) {
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected a template file, found a directory"));
  }
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  std::string text;
  char buffer[1 << 14];
  while (**in) {
    (*in)->read(buffer, sizeof(buffer));
    text.append(buffer, static_cast<size_t>((*in)->gcount()));
    if (static_cast<int64_t>(text.size()) > kMaxTemplateFileBytes) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": expected a template file of at most ",
                                                     kMaxTemplateFileBytes,
                                                     " bytes, found a longer one"));
    }
  }
  if ((*in)->bad()) {
    return absl::DataLossError(absl::StrCat(path, ": read error (corrupt compressed data?)"));
  }
  if (text.starts_with(corpus_internal::kByteOrderMark)) {
    text.erase(0, corpus_internal::kByteOrderMark.size());
  }
  auto line_of = [&](size_t offset) {
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  };
  for (size_t cr = text.find('\r'); cr != std::string::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 == text.size() || text[cr + 1] != '\n') {
      return absl::InvalidArgumentError(absl::StrCat(
          Location(path, line_of(cr)),
          ": expected LF or CRLF line endings, found a bare CR (old Mac line endings)"));
    }
  }
  bool is_nul = false, all_ascii = true;
  if (const int64_t bad = corpus_internal::FindInvalidUtf8(text, &is_nul, &all_ascii); bad >= 0) {
    return absl::InvalidArgumentError(
        is_nul
            ? absl::StrCat(Location(path, line_of(bad)), ": expected text, found a NUL byte")
            : absl::StrFormat("%s: expected UTF-8 text, found invalid byte 0x%02X",
                              Location(path, line_of(bad)), static_cast<unsigned char>(text[bad])));
  }
  absl::StatusOr<FeatureSpec> spec = Parse(text, std::move(resources));
  if (!spec.ok()) {
    return absl::Status(spec.status().code(), absl::StrCat(path, ": ", spec.status().message()));
  }
  return spec;
}

const std::string& FeatureSpec::text() const { return impl_->text; }
int FeatureSpec::num_input_columns() const { return impl_->num_input_columns; }
bool FeatureSpec::has_label_bigram() const { return impl_->has_label_bigram; }
bool FeatureSpec::reads_attributes() const { return impl_->attribute_input; }
FeatureSpec FeatureSpec::AttributeInput() {
  static const auto* impl = [] {
    auto made = std::make_shared<Impl>();
    made->attribute_input = true;
    made->has_label_bigram = true;
    return new std::shared_ptr<const Impl>(std::move(made));
  }();
  FeatureSpec spec;
  spec.impl_ = *impl;
  return spec;
}
int FeatureSpec::num_templates() const { return static_cast<int>(impl_->templates.size()); }
bool FeatureSpec::uses_lexicon() const { return impl_->lex_line > 0; }
int FeatureSpec::num_history_templates() const {
  return static_cast<int>(impl_->history_templates.size());
}
std::vector<std::string> FeatureSpec::HistoryTemplateLines() const {
  std::vector<std::string> lines;
  const std::vector<absl::string_view> text = absl::StrSplit(ToAbsl(impl_->text), '\n');
  for (const features::UnigramTemplate& t : impl_->history_templates) {
    if (t.line >= 1 && t.line <= static_cast<int>(text.size())) {
      lines.emplace_back(absl::StripAsciiWhitespace(text[t.line - 1]));
    }
  }
  return lines;
}
const std::shared_ptr<const Lexicon>& FeatureSpec::lexicon() const { return impl_->lexicon; }
bool FeatureSpec::uses_lexicon2() const { return impl_->lex2_line > 0; }
bool FeatureSpec::uses_clusters() const { return impl_->cluster_line > 0; }
const std::shared_ptr<const Lexicon>& FeatureSpec::lexicon2() const { return impl_->lexicon2; }
const std::shared_ptr<const WordClusters>& FeatureSpec::clusters() const { return impl_->clusters; }

FeatureSpec::FeatureSpec() : impl_(EmptyImpl()) {}
FeatureSpec::~FeatureSpec() = default;
FeatureSpec::FeatureSpec(const FeatureSpec&) = default;
FeatureSpec& FeatureSpec::operator=(const FeatureSpec&) = default;
// Moves share the immutable Impl so a moved-from spec stays valid (empty impl never dangles).
FeatureSpec::FeatureSpec(FeatureSpec&& other) noexcept : impl_(other.impl_) {}
FeatureSpec& FeatureSpec::operator=(FeatureSpec&& other) noexcept {
  impl_ = other.impl_;
  return *this;
}

}  // namespace chaintag
