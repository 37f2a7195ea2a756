// Streaming raw text -> sentences: UTF-8 validation, paragraph buffering, bounded flushing.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chaintag/text.h"
#include "text/tokenizer.h"
#include "utf8.h"

namespace chaintag {
namespace {

using text_internal::RawToken;
using text_internal::TokenKind;

// A paragraph buffer this large is flushed up to its last complete sentence.
constexpr size_t kFlushBytes = 64 * 1024;
// A run without whitespace this long is cut (a "token" of 1 MiB is not text).
constexpr size_t kMaxChunkBytes = 1024 * 1024;
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Besides blanks, control characters other than LF: the tokeniser drops them like spaces.
bool IsAsciiSpace(unsigned char c) { return (c <= ' ' && c != '\n') || c == 0x7F; }
// The UTF-8 byte order mark, skipped at the start of a document.
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Length of the valid sequence at p[0..n) (1-4); 0 if invalid, with *bad = bytes of the maximal
// invalid subpart; -1 if valid so far but truncated (utf8.h).
int SequenceLength(const unsigned char* p, size_t n, int* bad) {
  return utf8::SequenceLength(p, n, bad);
}

}  // namespace

class TextSegmenter::Impl {
 public:
  explicit Impl(TextOptions options)
      : options_(std::move(options)), tokenizer_(options_), splitter_(&tokenizer_.abbreviations()) {
    if (options_.max_sentence_tokens < 1) options_.max_sentence_tokens = 1;
    Reset("<text>");
  }

  void Reset(std::string name) {
    name_ = std::move(name);
    status_ = absl::OkStatus();
    ClearDocument();
  }

  absl::Status Feed(std::string_view data, std::vector<Sentence>* out) {
    if (!status_.ok()) return status_;
    // Complete a character split across calls by scanning it from a small side buffer.
    while (!pending_.empty() && !data.empty()) {
      while (pending_.size() < 4 && !data.empty()) {
        pending_ += data[0];
        data.remove_prefix(1);
      }
      std::string chunk = std::move(pending_);
      pending_.clear();
      absl::Status s = ScanAll(chunk, /*at_end=*/false, out);
      if (!s.ok()) return s;
    }
    return ScanAll(data, /*at_end=*/false, out);
  }

  absl::Status Finish(std::vector<Sentence>* out) {
    if (!status_.ok()) return status_;
    if (!pending_.empty()) {
      std::string chunk = std::move(pending_);
      pending_.clear();
      absl::Status s = ScanAll(chunk, /*at_end=*/true, out);
      if (!s.ok()) return s;
    }
    ProcessBuffer(/*final=*/true, out);
    ClearDocument();
    return absl::OkStatus();
  }

  std::vector<std::string> warnings_;
  int64_t scan_offset_ = 0;

 private:
  void ClearDocument() {
    para_.clear();
    pending_.clear();
    scan_offset_ = 0;
    line_start_ = 0;
    input_line_ = 1;
    line_blank_ = true;
    para_has_content_ = false;
    cursor_byte_ = 0;
    cursor_cp_ = 0;
    cursor_line_ = 1;
    flush_threshold_ = kFlushBytes;
  }

  // Scans `data` in blocks so the paragraph buffer never grows far past the flush threshold.
  absl::Status ScanAll(std::string_view data, bool at_end, std::vector<Sentence>* out) {
    while (!data.empty()) {
      const size_t block = std::min(data.size(), kFlushBytes);
      const bool last = block == data.size();
      absl::StatusOr<size_t> used = Scan(data.substr(0, block), at_end && last, out);
      if (!used.ok()) return used.status();
      if (*used < block && last) {
        // Only a truncated character is left over; keep it for the next Feed.
        pending_.assign(data.data() + *used, block - *used);
        used = block;
      }
      data.remove_prefix(*used);
      if (para_.size() >= flush_threshold_) ProcessBuffer(/*final=*/false, out);
    }
    return absl::OkStatus();
  }

  // Validates and appends bytes to the paragraph buffer, ending paragraphs at blank lines.
  // Returns the number of bytes consumed (less than data.size() only for a truncated character).
  absl::StatusOr<size_t> Scan(std::string_view data, bool at_end, std::vector<Sentence>* out) {
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    const size_t n = data.size();
    size_t run = 0, i = 0;
    while (i < n) {
      const unsigned char c = p[i];
      if (c < 0x80) {
        if (c == '\n') {
          if (absl::Status s = CheckLineLength(i); !s.ok()) return s;
          line_start_ = scan_offset_ + static_cast<int64_t>(i) + 1;
          if (line_blank_ || !para_has_content_) {
            para_.append(data.data() + run, i + 1 - run);
            run = i + 1;
            ProcessBuffer(/*final=*/true, out);
          }
          ++input_line_;
          line_blank_ = true;
        } else if (c == 0) {
          // Not text (a binary file, or UTF-16): refused, as by the corpus readers.
          status_ = absl::InvalidArgumentError(absl::StrFormat(
              "%s: expected text, found a NUL byte at byte offset %d", Location(name_, input_line_),
              scan_offset_ + static_cast<int64_t>(i)));
          return status_;
        } else if (!IsAsciiSpace(c)) {
          line_blank_ = false;
          para_has_content_ = true;
        }
        ++i;
        continue;
      }
      int bad = 0;
      const int len = SequenceLength(p + i, n - i, &bad);
      if (len == 3 && scan_offset_ + static_cast<int64_t>(i) == 0 &&
          data.substr(i, 3) == kByteOrderMark) {
        // Not text: dropped, but counted, so offsets still point into the original text.
        run = i += 3;
        cursor_cp_ = 1;
        continue;
      }
      if (len > 0) {
        line_blank_ = false;
        para_has_content_ = true;
        i += len;
        continue;
      }
      if (len < 0 && !at_end) break;
      if (len < 0) bad = static_cast<int>(n - i);
      if (options_.on_invalid == InvalidUtf8Policy::kError) {
        std::string found;
        for (int k = 0; k < std::max(bad, 1); ++k)
          absl::StrAppendFormat(&found, " 0x%02X", p[i + k]);
        status_ = absl::InvalidArgumentError(absl::StrFormat(
            "%s: invalid UTF-8 at byte offset %d: expected a valid UTF-8 sequence, found "
            "bytes%s%s",
            Location(name_, input_line_), scan_offset_ + static_cast<int64_t>(i), found,
            len < 0 ? " (truncated at end of input)" : ""));
        return status_;
      }
      para_.append(data.data() + run, i - run);
      para_.append(kReplacement);
      line_blank_ = false;
      para_has_content_ = true;
      i += bad;
      run = i;
    }
    if (absl::Status s = CheckLineLength(i); !s.ok()) return s;
    para_.append(data.data() + run, i - run);
    scan_offset_ += static_cast<int64_t>(i);
    return i;
  }

  // The current line, up to byte `i` of the block being scanned, is no longer than the limit.
  absl::Status CheckLineLength(size_t i) {
    const int64_t length = scan_offset_ + static_cast<int64_t>(i) - line_start_;
    if (length <= options_.max_line_bytes) return absl::OkStatus();
    status_ = absl::InvalidArgumentError(
        absl::StrCat(Location(name_, input_line_), ": expected a line of at most ",
                     options_.max_line_bytes, " bytes (--max-line-bytes), found a longer one"));
    return status_;
  }

  // Moves the offset cursor to byte `to` of the paragraph buffer (never backwards).
  void Advance(size_t to) {
    for (size_t i = cursor_byte_; i < to; ++i) {
      const unsigned char c = para_[i];
      cursor_cp_ += (c & 0xC0) != 0x80;
      cursor_line_ += c == '\n';
    }
    cursor_byte_ = std::max(cursor_byte_, to);
  }

  void Warn(int64_t line, std::string message) {
    warnings_.push_back(absl::StrCat(Location(name_, line), ": ", message));
  }

  // Emits tokens [s, e) of tokens_ as one sentence (or several when longer than the limit).
  // `complete`: the sentence really ends here (so a final abbreviation gets its PTB period).
  void EmitSentence(std::string_view text, size_t s, size_t e, bool complete,
                    std::vector<Sentence>* out) {
    if (s >= e) return;
    size_t last = e - 1;
    while (last > s && text_internal::IsCloser(tokens_[last].kind)) --last;
    const bool extra_period = complete && tokens_[last].kind == TokenKind::kAbbrev;
    const size_t total = e - s + (extra_period ? 1 : 0);
    const size_t max = static_cast<size_t>(options_.max_sentence_tokens);
    Sentence* sentence = nullptr;
    size_t count = 0;
    auto add = [&](std::string form, int64_t b, int64_t x, int64_t line) {
      if (sentence == nullptr || count == max) {
        if (sentence != nullptr) {
          Warn(line,
               absl::StrCat("sentence longer than ", max, " tokens cut (max_sentence_tokens)"));
        }
        out->emplace_back();
        sentence = &out->back();
        sentence->file = name_;
        sentence->columns.resize(1);
        const size_t reserve = std::min(total, max);
        sentence->columns[0].reserve(reserve);
        sentence->offsets.reserve(reserve);
        sentence->token_lines.reserve(reserve);
        count = 0;
      }
      sentence->columns[0].push_back(std::move(form));
      sentence->offsets.emplace_back(b, x);
      sentence->token_lines.push_back(line);
      ++count;
    };
    for (size_t t = s; t < e; ++t) {
      const RawToken& tok = tokens_[t];
      Advance(tok.begin);
      const int64_t b = cursor_cp_, line = cursor_line_;
      Advance(tok.end);
      add(tokenizer_.Form(text, tok), b, cursor_cp_, line);
      if (extra_period && t == last) add(".", cursor_cp_ - 1, cursor_cp_, line);
    }
  }

  // Tokenises the buffer and emits its sentences. Not `final`: the last (possibly unfinished)
  // sentence stays buffered unless it is already longer than max_sentence_tokens.
  void ProcessBuffer(bool final, std::vector<Sentence>* out) {
    size_t region = para_.size();
    bool forced = false;  // cutting a whitespace-free run: emit everything tokenised
    if (!final) {
      size_t w = region;
      while (w > 0 && !IsAsciiSpace(para_[w - 1]) && para_[w - 1] != '\n') --w;
      if (w == 0) {
        if (para_.size() <= kMaxChunkBytes) {  // exactly 1 MiB is not longer than 1 MiB
          flush_threshold_ = para_.size() + kFlushBytes;
          return;
        }
        Warn(cursor_line_,
             absl::StrCat("text without whitespace longer than ", kMaxChunkBytes, " bytes cut"));
        forced = true;
        while (region > 0 && (static_cast<unsigned char>(para_[region]) & 0xC0) == 0x80) {
          --region;
        }
      } else {
        region = w;
      }
    }
    const std::string_view text(para_.data(), region);
    tokens_.clear();
    ends_.clear();
    tokenizer_.Tokenize(text, &tokens_);
    bool use_icu = options_.always_use_icu;
    if (!use_icu) {
      for (unsigned char c : text) {
        if (c >= 0x80) {
          use_icu = true;
          break;
        }
      }
    }
    splitter_.Split(text, tokens_, use_icu, &ends_);
    size_t start = 0;
    for (uint32_t e : ends_) {
      EmitSentence(text, start, e, /*complete=*/true, out);
      start = e;
    }
    size_t keep = region;
    if (final) {
      EmitSentence(text, start, tokens_.size(), /*complete=*/true, out);
      keep = para_.size();
      para_has_content_ = false;
    } else if (forced) {
      EmitSentence(text, start, tokens_.size(), /*complete=*/false, out);
    } else {
      const size_t max = static_cast<size_t>(options_.max_sentence_tokens);
      const size_t rest = tokens_.size() - start;
      if (rest > max) {
        const size_t cut = start + rest / max * max - (rest % max == 0 ? max : 0);
        EmitSentence(text, start, cut, /*complete=*/false, out);
        Warn(cursor_line_,
             absl::StrCat("sentence longer than ", max, " tokens cut (max_sentence_tokens)"));
        start = cut;
      }
      if (start < tokens_.size()) keep = tokens_[start].begin;
    }
    Advance(keep);
    para_.erase(0, keep);
    cursor_byte_ -= keep;
    flush_threshold_ = para_.size() + kFlushBytes;
  }

  TextOptions options_;
  text_internal::Tokenizer tokenizer_;
  text_internal::SentenceSplitter splitter_;
  std::string name_;
  absl::Status status_;
  std::string para_;     // current paragraph (valid UTF-8), from the first unemitted byte
  std::string pending_;  // bytes of a character split across Feed calls
  int64_t input_line_ = 1;
  int64_t line_start_ = 0;  // scan offset of the current line's first byte
  bool line_blank_ = true;
  bool para_has_content_ = false;
  size_t cursor_byte_ = 0;
  int64_t cursor_cp_ = 0;
  int64_t cursor_line_ = 1;
  size_t flush_threshold_ = kFlushBytes;
  std::vector<RawToken> tokens_;
  std::vector<uint32_t> ends_;
};

TextSegmenter::TextSegmenter(TextOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
TextSegmenter::~TextSegmenter() = default;

void TextSegmenter::Reset(std::string name) { impl_->Reset(std::move(name)); }

absl::Status TextSegmenter::Feed(std::string_view utf8_bytes, std::vector<Sentence>* out) {
  return impl_->Feed(utf8_bytes, out);
}

absl::Status TextSegmenter::Finish(std::vector<Sentence>* out) { return impl_->Finish(out); }

const std::vector<std::string>& TextSegmenter::warnings() const { return impl_->warnings_; }

std::vector<std::string> TextSegmenter::TakeWarnings() {
  std::vector<std::string> w;
  w.swap(impl_->warnings_);
  return w;
}

int64_t TextSegmenter::bytes_consumed() const { return impl_->scan_offset_; }

absl::StatusOr<std::vector<Sentence>> SegmentText(std::string_view utf8_text,
                                                  const TextOptions& options, std::string name) {
  TextSegmenter segmenter(options);
  segmenter.Reset(std::move(name));
  std::vector<Sentence> out;
  absl::Status status = segmenter.Feed(utf8_text, &out);
  if (status.ok()) status = segmenter.Finish(&out);
  if (!status.ok()) return status;
  return out;
}

}  // namespace chaintag
