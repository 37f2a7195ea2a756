// The neural encoder's model-file section: SerializeEncoder and ParseEncoder.
#include "neural/serialize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "string_view_compat.h"

namespace chaintag::neural {

namespace {

// Upper bounds that keep a corrupt section from asking for huge tables (the 20 MB model
// budget is far below them).
constexpr uint32_t kMaxWords = 2'000'000;
constexpr uint32_t kMaxChars = 1'200'000;
constexpr uint32_t kMaxLabels = 100'000;

uint16_t HalfBits(float f) { return std::bit_cast<uint16_t>(Eigen::half(f)); }
float FromHalfBits(uint16_t bits) { return static_cast<float>(std::bit_cast<Eigen::half>(bits)); }

class Writer {
 public:
  void U16(uint16_t v) {
    for (int i = 0; i < 2; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void F32(float v) { U32(std::bit_cast<uint32_t>(v)); }
  void I8(int v) { out_.push_back(static_cast<char>(static_cast<int8_t>(v))); }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view data, const std::string& name) : data_(data), name_(name) {}
  absl::Status Error(std::string_view what) const {
    return absl::DataLossError(
        absl::StrCat(name_, ": section 'neural' at byte ", pos_, ": ", ToAbsl(what)));
  }
  size_t remaining() const { return data_.size() - pos_; }
  absl::Status Need(uint64_t n, std::string_view what) const {
    if (n <= remaining()) return absl::OkStatus();
    return Error(
        absl::StrCat("expected ", n, " bytes for ", ToAbsl(what), ", found ", remaining()));
  }
  absl::Status U16(uint16_t* v, std::string_view what) {
    if (absl::Status s = Need(2, what); !s.ok()) return s;
    *v = static_cast<uint16_t>(static_cast<unsigned char>(data_[pos_]) |
                               static_cast<unsigned char>(data_[pos_ + 1]) << 8);
    pos_ += 2;
    return absl::OkStatus();
  }
  absl::Status I8(int* v, std::string_view what) {
    if (absl::Status s = Need(1, what); !s.ok()) return s;
    *v = static_cast<int8_t>(static_cast<unsigned char>(data_[pos_]));
    ++pos_;
    return absl::OkStatus();
  }
  absl::Status U32(uint32_t* v, std::string_view what) {
    if (absl::Status s = Need(4, what); !s.ok()) return s;
    *v = 0;
    for (int i = 0; i < 4; ++i)
      *v |= uint32_t{static_cast<unsigned char>(data_[pos_ + i])} << (8 * i);
    pos_ += 4;
    return absl::OkStatus();
  }
  absl::Status Int(int* v, int lo, int hi, std::string_view what) {
    uint32_t u = 0;
    if (absl::Status s = U32(&u, what); !s.ok()) return s;
    if (u < static_cast<uint32_t>(lo) || u > static_cast<uint32_t>(hi)) {
      return Error(
          absl::StrCat("expected ", ToAbsl(what), " from ", lo, " to ", hi, ", found ", u));
    }
    *v = static_cast<int>(u);
    return absl::OkStatus();
  }
  absl::Status F32(float* v, std::string_view what) {
    uint32_t u = 0;
    if (absl::Status s = U32(&u, what); !s.ok()) return s;
    *v = std::bit_cast<float>(u);
    if (!std::isfinite(*v)) return Error(absl::StrCat("expected a finite ", ToAbsl(what)));
    return absl::OkStatus();
  }
  absl::Status String(std::string* v, std::string_view what) {
    uint32_t n = 0;
    if (absl::Status s = U32(&n, what); !s.ok()) return s;
    if (absl::Status s = Need(n, what); !s.ok()) return s;
    v->assign(data_.substr(pos_, n));
    pos_ += n;
    return absl::OkStatus();
  }
  absl::Status Finish() const {
    if (remaining() == 0) return absl::OkStatus();
    return Error(absl::StrCat(remaining(), " unexpected bytes at the end"));
  }

 private:
  std::string_view data_;
  const std::string& name_;
  size_t pos_ = 0;
};

#define CT_RETURN_IF_ERROR(expr)              \
  do {                                        \
    if (absl::Status s_ = (expr); !s_.ok()) { \
      return s_;                              \
    }                                         \
  } while (0)

// One stored int8 value: x / scale rounded (half away from zero), within +-127.
int QuantizedValue(float x, float scale) {
  if (scale == 0) return 0;
  return static_cast<int>(std::clamp(std::lround(x / scale), -127L, 127L));
}

}  // namespace

void QuantizeEmbeddings(Encoder<float>* encoder) {
  Mat<float>& e = encoder->word_embeddings();
  std::vector<float>& scales = encoder->embedding_scales();
  scales.assign(e.cols(), 0.0f);
  for (Eigen::Index w = 0; w < e.cols(); ++w) {
    const float scale = e.col(w).cwiseAbs().maxCoeff() / 127.0f;
    scales[w] = scale;
    for (Eigen::Index d = 0; d < e.rows(); ++d) {
      e(d, w) = static_cast<float>(QuantizedValue(e(d, w), scale)) * scale;
    }
  }
}

std::string SerializeEncoder(const Encoder<float>& encoder) {
  const EncoderConfig& c = encoder.config();
  const Mat<float>& e = encoder.word_embeddings();
  const std::vector<float>& scales = encoder.embedding_scales();
  const bool int8 = static_cast<Eigen::Index>(scales.size()) == e.cols();
  const bool char_encoder = c.char_encoder != CharEncoder::kCnn;
  Writer w;
  w.U32(int8 ? (char_encoder ? kEncoderSectionInt8Chars : kEncoderSectionInt8)
             : (char_encoder ? kEncoderSectionHalfChars : kEncoderSectionHalf));
  for (int v : {c.num_labels, c.word_dim, c.char_dim, c.char_filters, c.char_width, c.hidden,
                c.layers, c.max_word_chars}) {
    w.U32(static_cast<uint32_t>(v));
  }
  if (char_encoder) w.U32(static_cast<uint32_t>(c.char_encoder));
  const Vocabulary& vocabulary = encoder.vocabulary();
  w.U32(static_cast<uint32_t>(vocabulary.num_words()));
  for (int i = 1; i < vocabulary.num_words(); ++i) w.String(vocabulary.words()[i]);
  w.U32(static_cast<uint32_t>(vocabulary.chars().size()));
  for (uint32_t cp : vocabulary.chars()) w.U32(cp);
  w.U32(static_cast<uint32_t>(encoder.params().size()));
  for (float p : encoder.params()) w.F32(p);
  if (int8) {
    for (Eigen::Index col = 0; col < e.cols(); ++col) {
      w.F32(scales[col]);
      for (Eigen::Index d = 0; d < e.rows(); ++d) w.I8(QuantizedValue(e(d, col), scales[col]));
    }
  } else {
    for (Eigen::Index i = 0; i < e.size(); ++i) w.U16(HalfBits(e.data()[i]));
  }
  return w.Take();
}

absl::StatusOr<Encoder<float>> ParseEncoder(std::string_view bytes, const std::string& name) {
  Reader r(bytes, name);
  uint32_t version = 0;
  CT_RETURN_IF_ERROR(r.U32(&version, "version"));
  if (version < kEncoderSectionHalf || version > kEncoderSectionInt8Chars) {
    return r.Error(absl::StrCat("expected encoder section version ", kEncoderSectionHalf, " to ",
                                kEncoderSectionInt8Chars, ", found ", version,
                                " (written by a newer chaintag?)"));
  }
  const bool int8 = version == kEncoderSectionInt8 || version == kEncoderSectionInt8Chars;
  const bool char_encoder =
      version == kEncoderSectionHalfChars || version == kEncoderSectionInt8Chars;
  EncoderConfig c;
  CT_RETURN_IF_ERROR(r.Int(&c.num_labels, 1, kMaxLabels, "label count"));
  CT_RETURN_IF_ERROR(r.Int(&c.word_dim, 1, 1024, "word dimension"));
  CT_RETURN_IF_ERROR(r.Int(&c.char_dim, 0, 256, "character dimension"));
  CT_RETURN_IF_ERROR(r.Int(&c.char_filters, 0, 1024, "character filters"));
  CT_RETURN_IF_ERROR(r.Int(&c.char_width, 1, 9, "filter width"));
  CT_RETURN_IF_ERROR(r.Int(&c.hidden, 1, 2048, "hidden size"));
  CT_RETURN_IF_ERROR(r.Int(&c.layers, 1, 2, "layers"));
  CT_RETURN_IF_ERROR(r.Int(&c.max_word_chars, 2, 256, "characters per word"));
  if (char_encoder) {
    // Only written for a BiLSTM (the CNN is versions 1 and 2), so a stored 0 is not canonical.
    int kind = 0;
    CT_RETURN_IF_ERROR(r.Int(&kind, 1, 1, "character encoder (1: BiLSTM)"));
    c.char_encoder = static_cast<CharEncoder>(kind);
  }
  if (absl::Status s = ValidateEncoderConfig(c); !s.ok()) return r.Error(std::string(s.message()));
  int num_words = 0, num_chars = 0;
  CT_RETURN_IF_ERROR(r.Int(&num_words, 1, kMaxWords, "word count"));
  // Each word is at least a 4-byte length.
  CT_RETURN_IF_ERROR(r.Need(uint64_t{4} * (num_words - 1), "words"));
  std::vector<std::string> words(num_words);
  for (int i = 1; i < num_words; ++i) CT_RETURN_IF_ERROR(r.String(&words[i], "word"));
  CT_RETURN_IF_ERROR(r.Int(&num_chars, 0, kMaxChars, "character count"));
  CT_RETURN_IF_ERROR(r.Need(uint64_t{4} * num_chars, "characters"));
  std::vector<uint32_t> chars(num_chars);
  for (uint32_t& cp : chars) CT_RETURN_IF_ERROR(r.U32(&cp, "character"));
  absl::StatusOr<Vocabulary> vocabulary = Vocabulary::FromLists(std::move(words), std::move(chars));
  if (!vocabulary.ok()) return r.Error(std::string(vocabulary.status().message()));
  uint32_t num_params = 0;
  CT_RETURN_IF_ERROR(r.U32(&num_params, "parameter count"));
  // Sizes are checked before the encoder allocates anything, so a corrupt configuration cannot
  // ask for more memory than the section's bytes justify.
  const int64_t expected_params = Encoder<float>::DenseSize(c, vocabulary->num_chars());
  if (num_params != expected_params) {
    return r.Error(absl::StrCat("expected ", expected_params,
                                " parameters for the stored sizes, found ", num_params));
  }
  // Versions 2 and 4: per word a float32 scale and word_dim int8 values; 1 and 3: float16 values.
  const uint64_t embedding_bytes =
      int8 ? (uint64_t{4} + c.word_dim) * num_words : uint64_t{2} * c.word_dim * num_words;
  if (r.remaining() != uint64_t{4} * num_params + embedding_bytes) {
    return r.Error(absl::StrCat("expected ", uint64_t{4} * num_params + embedding_bytes,
                                " bytes of parameters and word embeddings, found ", r.remaining()));
  }
  Encoder<float> encoder(c, *std::move(vocabulary));
  if (encoder.params().size() != num_params) return r.Error("inconsistent parameter layout");
  for (float& p : encoder.params()) CT_RETURN_IF_ERROR(r.F32(&p, "parameter"));
  Mat<float>& e = encoder.word_embeddings();
  if (int8) {
    std::vector<float>& scales = encoder.embedding_scales();
    scales.assign(num_words, 0.0f);
    for (int col = 0; col < num_words; ++col) {
      CT_RETURN_IF_ERROR(r.F32(&scales[col], "embedding scale"));
      if (!(scales[col] >= 0)) return r.Error("expected a non-negative embedding scale");
      for (int d = 0; d < c.word_dim; ++d) {
        int q = 0;
        CT_RETURN_IF_ERROR(r.I8(&q, "word embedding"));
        if (q < -127) return r.Error("expected int8 word embeddings from -127 to 127, found -128");
        e(d, col) = static_cast<float>(q) * scales[col];
      }
    }
    CT_RETURN_IF_ERROR(r.Finish());
    return encoder;
  }
  for (Eigen::Index i = 0; i < e.size(); ++i) {
    uint16_t bits = 0;
    CT_RETURN_IF_ERROR(r.U16(&bits, "word embedding"));
    e.data()[i] = FromHalfBits(bits);
    if (!std::isfinite(e.data()[i])) return r.Error("expected finite word embeddings");
  }
  CT_RETURN_IF_ERROR(r.Finish());
  return encoder;
}

#undef CT_RETURN_IF_ERROR

}  // namespace chaintag::neural
