// Word vectors with subword n-grams and their file format (docs/embeddings.md).
#include "neural/word_vectors.h"

#include <cmath>
#include <cstring>
#include <istream>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "string_view_compat.h"
#include "utf8.h"

namespace chaintag::neural {

namespace {

constexpr std::string_view kMagic = "CTWORDVC";
constexpr uint32_t kVersion = 1;
// magic, version, dim, minn, maxn, bucket, words, file size.
constexpr uint64_t kHeaderBytes = 8 + 4 * 4 + 8 * 3;
constexpr uint64_t kMaxFileBytes = uint64_t{8} << 30;

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutFloats(std::string* out, const std::vector<float>& v) {
  for (float f : v) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    PutU32(out, bits);
  }
}

// Bounds-checked little-endian reads; errors name the file and the byte offset.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}
  absl::Status Need(uint64_t n, std::string_view what) const {
    if (bytes_.size() - pos_ < n) {
      return absl::InvalidArgumentError(absl::StrCat(name_,
                                                     ": truncated word-vector file: ", ToAbsl(what),
                                                     " at byte ", pos_, " runs past the end"));
    }
    return absl::OkStatus();
  }
  uint64_t U(int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i)
      v |= uint64_t{static_cast<unsigned char>(bytes_[pos_ + i])} << (8 * i);
    pos_ += width;
    return v;
  }
  std::string_view Bytes(uint64_t n) {
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  absl::Status Floats(uint64_t n, std::string_view what, std::vector<float>* out) {
    if (n > (bytes_.size() - pos_) / 4) return Need(n * 4, what);
    out->resize(n);
    std::memcpy(out->data(), bytes_.data() + pos_, n * 4);  // little-endian hosts only (x86, arm)
    pos_ += n * 4;
    return absl::OkStatus();
  }
  absl::Status Error(std::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": ", ToAbsl(message)));
  }
  uint64_t pos() const { return pos_; }

 private:
  std::string_view bytes_;
  const std::string& name_;
  uint64_t pos_ = 0;
};

absl::Status CheckShape(const WordVectors::Shape& s) {
  if (s.dim < 1 || s.dim > WordVectors::kMaxDim) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a dimension of 1 to ", WordVectors::kMaxDim, ", found ", s.dim));
  }
  const bool none = s.minn == 0 && s.maxn == 0 && s.bucket == 0;
  const bool some = s.minn >= 1 && s.minn <= s.maxn && s.maxn <= WordVectors::kMaxNgramLength &&
                    s.bucket >= 1 && s.bucket <= WordVectors::kMaxBuckets;
  if (!none && !some) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected n-gram lengths 1 <= minn <= maxn <= ", WordVectors::kMaxNgramLength,
        " with 1 to ", WordVectors::kMaxBuckets, " buckets (or all three 0), found minn ", s.minn,
        ", maxn ", s.maxn, ", bucket ", s.bucket));
  }
  return absl::OkStatus();
}

}  // namespace

void NgramBuckets(std::string_view word, int minn, int maxn, int64_t bucket,
                  std::vector<int64_t>* out) {
  if (maxn <= 0 || bucket <= 0) return;
  std::string w;
  w.reserve(word.size() + 2);
  w.push_back('<');
  w.append(word);
  w.push_back('>');
  auto continuation = [&](size_t j) { return (static_cast<unsigned char>(w[j]) & 0xC0) == 0x80; };
  for (size_t i = 0; i < w.size(); ++i) {
    if (continuation(i)) continue;
    uint32_t h = 2166136261u;
    size_t j = i;
    for (int n = 1; j < w.size() && n <= maxn; ++n) {
      // One code point more; its bytes enter the hash sign-extended (fastText's int8_t cast).
      do {
        h = (h ^ static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(w[j])))) *
            16777619u;
        ++j;
      } while (j < w.size() && continuation(j));
      if (n >= minn && !(n == 1 && (i == 0 || j == w.size()))) {
        out->push_back(static_cast<int64_t>(h % static_cast<uint64_t>(bucket)));
      }
    }
  }
}

absl::StatusOr<WordVectors> WordVectors::Create(Shape shape, std::vector<std::string> words,
                                                std::vector<int64_t> counts,
                                                std::vector<float> word_rows,
                                                std::vector<float> ngram_rows) {
  if (absl::Status s = CheckShape(shape); !s.ok()) return s;
  const int64_t n = static_cast<int64_t>(words.size());
  if (n > kMaxWords) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected at most ", kMaxWords, " words, found ", n));
  }
  if (counts.size() != words.size() || word_rows.size() != static_cast<size_t>(n * shape.dim) ||
      ngram_rows.size() != static_cast<size_t>(shape.bucket * shape.dim)) {
    return absl::InvalidArgumentError("word-vector parts of inconsistent sizes");
  }
  WordVectors v;
  v.index_.reserve(words.size());
  for (int64_t i = 0; i < n; ++i) {
    const std::string& w = words[i];
    bool is_nul = false, ascii = false;
    if (w.empty() || static_cast<int64_t>(w.size()) > kMaxWordBytes ||
        utf8::FindInvalid(w, &is_nul, &ascii) >= 0 ||
        w.find_first_of(" \t\n\r\v\f") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("word ", i, ": expected 1 to ", kMaxWordBytes,
                       " bytes of UTF-8 without whitespace or NUL, found ", w.size(), " bytes"));
    }
    if (counts[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("word ", i, ": expected a count of at least 1, found ", counts[i]));
    }
    if (!v.index_.try_emplace(w, i).second) {
      return absl::InvalidArgumentError(absl::StrCat("word ", i, " repeats an earlier word"));
    }
  }
  for (const std::vector<float>* rows : {&word_rows, &ngram_rows}) {
    for (size_t i = 0; i < rows->size(); ++i) {
      if (!std::isfinite((*rows)[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat(rows == &word_rows ? "word" : "n-gram", " vector ", i / shape.dim,
                         ": expected finite values, found ", (*rows)[i]));
      }
    }
  }
  v.shape_ = shape;
  v.words_ = std::move(words);
  v.counts_ = std::move(counts);
  v.word_rows_ = std::move(word_rows);
  v.ngram_rows_ = std::move(ngram_rows);
  return v;
}

int64_t WordVectors::Find(std::string_view word) const {
  auto it = index_.find(ToAbsl(word));
  return it == index_.end() ? -1 : it->second;
}

bool WordVectors::Lookup(std::string_view word, absl::Span<float> out) const {
  std::fill(out.begin(), out.end(), 0.0f);
  if (int64_t i = Find(word); i >= 0) {
    absl::Span<const float> row = word_row(i);
    std::copy(row.begin(), row.end(), out.begin());
    return true;
  }
  std::vector<int64_t> buckets;
  NgramBuckets(word, shape_.minn, shape_.maxn, shape_.bucket, &buckets);
  if (buckets.empty()) return false;
  for (int64_t b : buckets) {
    const float* row = ngram_rows_.data() + b * shape_.dim;
    for (int d = 0; d < shape_.dim; ++d) out[d] += row[d];
  }
  const float scale = 1.0f / static_cast<float>(buckets.size());
  for (float& x : out) x *= scale;
  return true;
}

std::string WordVectors::Serialize() const {
  std::string out(kMagic);
  PutU32(&out, kVersion);
  PutU32(&out, static_cast<uint32_t>(shape_.dim));
  PutU32(&out, static_cast<uint32_t>(shape_.minn));
  PutU32(&out, static_cast<uint32_t>(shape_.maxn));
  PutU64(&out, static_cast<uint64_t>(shape_.bucket));
  PutU64(&out, words_.size());
  const size_t size_pos = out.size();
  PutU64(&out, 0);
  for (size_t i = 0; i < words_.size(); ++i) {
    PutU32(&out, static_cast<uint32_t>(words_[i].size()));
    PutU64(&out, static_cast<uint64_t>(counts_[i]));
    out += words_[i];
  }
  PutFloats(&out, word_rows_);
  PutFloats(&out, ngram_rows_);
  const uint64_t total = out.size() + 8;
  for (int i = 0; i < 8; ++i) out[size_pos + i] = static_cast<char>((total >> (8 * i)) & 0xff);
  PutU64(&out, Fnv1a64(out));
  return out;
}

absl::StatusOr<WordVectors> WordVectors::Parse(std::string_view bytes, const std::string& name) {
  Reader r(bytes, name);
  if (bytes.size() < kHeaderBytes || bytes.substr(0, kMagic.size()) != kMagic) {
    return r.Error(
        "not a chaintag word-vector file (expected the magic bytes CTWORDVC written by "
        "`chaintag embeddings`)");
  }
  r.Bytes(kMagic.size());
  const uint64_t version = r.U(4);
  if (version != kVersion) {
    return r.Error(absl::StrCat("word-vector format version ", version,
                                " is not supported (this build reads version ", kVersion, ")"));
  }
  Shape shape;
  const uint64_t dim = r.U(4), minn = r.U(4), maxn = r.U(4), bucket = r.U(8), words = r.U(8);
  const uint64_t declared = r.U(8);
  if (declared != bytes.size()) {
    return r.Error(absl::StrCat("the header declares ", declared, " bytes but the file has ",
                                bytes.size(), " (truncated or extended)"));
  }
  if (dim > static_cast<uint64_t>(kMaxDim) || maxn > static_cast<uint64_t>(kMaxNgramLength) ||
      minn > maxn || bucket > static_cast<uint64_t>(kMaxBuckets) ||
      words > static_cast<uint64_t>(kMaxWords)) {
    return r.Error(absl::StrCat("header out of range: dim ", dim, ", minn ", minn, ", maxn ", maxn,
                                ", bucket ", bucket, ", words ", words));
  }
  shape.dim = static_cast<int>(dim);
  shape.minn = static_cast<int>(minn);
  shape.maxn = static_cast<int>(maxn);
  shape.bucket = static_cast<int64_t>(bucket);
  if (Fnv1a64(bytes.substr(0, bytes.size() - 8)) != [&] {
        Reader tail(bytes.substr(bytes.size() - 8), name);
        return tail.U(8);
      }()) {
    return r.Error("checksum mismatch: the file is corrupt");
  }
  std::vector<std::string> list;
  std::vector<int64_t> counts;
  for (uint64_t i = 0; i < words; ++i) {
    if (absl::Status s = r.Need(12, "a word entry"); !s.ok()) return s;
    const uint64_t len = r.U(4), count = r.U(8);
    if (len == 0 || len > static_cast<uint64_t>(kMaxWordBytes) || count > (uint64_t{1} << 62)) {
      return r.Error(
          absl::StrCat("word ", i, ": length ", len, " or count ", count, " out of range"));
    }
    if (absl::Status s = r.Need(len, "a word"); !s.ok()) return s;
    list.emplace_back(r.Bytes(len));
    counts.push_back(static_cast<int64_t>(count));
  }
  std::vector<float> word_rows, ngram_rows;
  if (absl::Status s = r.Floats(words * dim, "the word vectors", &word_rows); !s.ok()) return s;
  if (absl::Status s = r.Floats(bucket * dim, "the n-gram vectors", &ngram_rows); !s.ok()) {
    return s;
  }
  if (r.pos() + 8 != bytes.size()) {
    return r.Error(absl::StrCat("expected the checksum at byte ", r.pos(), ", found ",
                                bytes.size() - r.pos(), " bytes left"));
  }
  absl::StatusOr<WordVectors> v = Create(shape, std::move(list), std::move(counts),
                                         std::move(word_rows), std::move(ngram_rows));
  if (!v.ok()) return r.Error(std::string(v.status().message()));
  return v;
}

absl::StatusOr<WordVectors> WordVectors::Read(const std::string& path) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  const std::string name = path == "-" ? "<stdin>" : path;
  std::string bytes;
  char buffer[1 << 16];
  while (**in) {
    (*in)->read(buffer, sizeof buffer);
    bytes.append(buffer, static_cast<size_t>((*in)->gcount()));
    if (bytes.size() > kMaxFileBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          name, ": expected a word-vector file of at most ", kMaxFileBytes, " bytes, found more"));
    }
  }
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(name, ": read error"));
  return Parse(bytes, name);
}

}  // namespace chaintag::neural
