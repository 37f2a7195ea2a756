// The neural encoder: vocabularies, initialisation, forward and backward passes, and the
// thread-count-independent batch gradient.
#include "neural/encoder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "string_view_compat.h"
#include "utf8.h"
#include "worker_threads.h"

namespace chaintag::neural {

namespace {

// Uniform in [0, 1) from 53 random bits (portable, unlike std::uniform_real_distribution).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Sentences per block of BatchGradient: fixed, so blocks do not depend on the thread count.
constexpr int kBlockSentences = 4;

}  // namespace

absl::Status ValidateEncoderConfig(const EncoderConfig& c) {
  auto bad = [](std::string_view what, double v, std::string_view range) {
    return absl::InvalidArgumentError(
        absl::StrCat("encoder ", ToAbsl(what), ": expected ", ToAbsl(range), ", found ", v));
  };
  if (c.num_labels < 1) return bad("labels", c.num_labels, "at least 1");
  if (c.word_dim < 1 || c.word_dim > 1024) return bad("word dimension", c.word_dim, "1 to 1024");
  if (c.char_dim < 0 || c.char_dim > 256) return bad("character dimension", c.char_dim, "0 to 256");
  if (c.char_filters < 0 || c.char_filters > 1024) {
    return bad("character filters", c.char_filters, "0 to 1024");
  }
  if (c.char_width < 1 || c.char_width > 9) return bad("filter width", c.char_width, "1 to 9");
  if (c.char_encoder != CharEncoder::kCnn && c.char_encoder != CharEncoder::kBiLstm) {
    return bad("character encoder", static_cast<int>(c.char_encoder), "0 (CNN) or 1 (BiLSTM)");
  }
  if (c.char_encoder == CharEncoder::kBiLstm && c.char_filters % 2 != 0) {
    return bad("character BiLSTM outputs", c.char_filters, "an even number (2 x units)");
  }
  if (c.hidden < 1 || c.hidden > 2048) return bad("hidden size", c.hidden, "1 to 2048");
  if (c.layers < 1 || c.layers > 2) return bad("layers", c.layers, "1 or 2");
  if (!(c.dropout >= 0 && c.dropout < 1)) return bad("dropout", c.dropout, "0 <= p < 1");
  if (!(c.word_dropout >= 0 && c.word_dropout < 1)) {
    return bad("word dropout", c.word_dropout, "0 <= p < 1");
  }
  if (c.max_word_chars < 2 || c.max_word_chars > 256) {
    return bad("characters per word", c.max_word_chars, "2 to 256");
  }
  return absl::OkStatus();
}

Vocabulary::Vocabulary() { words_.push_back(""); }

int32_t Vocabulary::AddWord(std::string_view word) {
  auto [it, inserted] = word_ids_.try_emplace(ToAbsl(word), static_cast<int32_t>(words_.size()));
  if (inserted) words_.emplace_back(word);
  return it->second;
}

void Vocabulary::AddChars(std::string_view word) {
  for (size_t i = 0; i < word.size();) {
    int bad = 0;
    const int len = utf8::SequenceLength(reinterpret_cast<const unsigned char*>(word.data() + i),
                                         word.size() - i, &bad);
    if (len <= 0) {
      i += std::max(bad, 1);
      continue;
    }
    int decoded = 0;
    const uint32_t cp = utf8::Decode(word, i, &decoded);
    if (char_ids_.try_emplace(cp, static_cast<int32_t>(chars_.size()) + 4).second) {
      chars_.push_back(cp);
    }
    i += len;
  }
}

int32_t Vocabulary::WordId(std::string_view word) const {
  auto it = word_ids_.find(ToAbsl(word));
  return it == word_ids_.end() ? 0 : it->second;
}

void Vocabulary::CharIds(std::string_view word, int max_chars, std::vector<int32_t>* out) const {
  out->clear();
  for (size_t i = 0; i < word.size();) {
    int bad = 0;
    const int len = utf8::SequenceLength(reinterpret_cast<const unsigned char*>(word.data() + i),
                                         word.size() - i, &bad);
    if (len <= 0) {
      out->push_back(CharCnn::kUnknown);
      i += std::max(bad, 1);
      continue;
    }
    int decoded = 0;
    auto it = char_ids_.find(utf8::Decode(word, i, &decoded));
    out->push_back(it == char_ids_.end() ? CharCnn::kUnknown : it->second);
    i += len;
  }
  if (static_cast<int>(out->size()) > max_chars) {
    const int half = max_chars / 2;
    out->erase(out->begin() + half, out->end() - (max_chars - half));
  }
}

absl::StatusOr<Vocabulary> Vocabulary::FromLists(std::vector<std::string> words,
                                                 std::vector<uint32_t> chars) {
  Vocabulary v;
  if (words.empty() || !words[0].empty()) {
    return absl::InvalidArgumentError("encoder vocabulary: expected the unknown word first");
  }
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i].empty() || v.AddWord(words[i]) != static_cast<int32_t>(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("encoder vocabulary: word ", i, " is empty or repeats an earlier word"));
    }
  }
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i] > 0x10FFFF ||
        !v.char_ids_.try_emplace(chars[i], static_cast<int32_t>(i) + 4).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "encoder vocabulary: character ", i, " is not a code point or repeats an earlier one"));
    }
    v.chars_.push_back(chars[i]);
  }
  return v;
}

template <typename T>
void Encoder<T>::BuildLayers(const EncoderConfig& config, int num_chars, ParameterLayout* layout,
                             CharCnn* chars, CharBiLstm* char_lstm, std::vector<Lstm>* forward,
                             std::vector<Lstm>* backward, Linear* output) {
  int in = config.word_dim;
  if (config.char_dim > 0 && config.char_filters > 0) {
    if (config.char_encoder == CharEncoder::kBiLstm) {
      *char_lstm = CharBiLstm(layout, "char", num_chars, config.char_dim, config.char_filters / 2);
    } else {
      *chars = CharCnn(layout, "char", num_chars, config.char_dim, config.char_filters,
                       config.char_width);
    }
    in += config.char_filters;
  }
  for (int l = 0; l < config.layers; ++l) {
    forward->emplace_back(layout, absl::StrCat("lstm", l, ".fw"), in, config.hidden, false);
    backward->emplace_back(layout, absl::StrCat("lstm", l, ".bw"), in, config.hidden, true);
    in = 2 * config.hidden;
  }
  *output = Linear(layout, "output", in, config.num_labels);
}

template <typename T>
int64_t Encoder<T>::DenseSize(const EncoderConfig& config, int num_chars) {
  ParameterLayout layout;
  CharCnn chars;
  CharBiLstm char_lstm;
  std::vector<Lstm> forward, backward;
  Linear output;
  BuildLayers(config, num_chars, &layout, &chars, &char_lstm, &forward, &backward, &output);
  return layout.size();
}

template <typename T>
Encoder<T>::Encoder(const EncoderConfig& config, Vocabulary vocabulary)
    : config_(config), vocabulary_(std::move(vocabulary)) {
  BuildLayers(config_, vocabulary_.num_chars(), &layout_, &chars_, &char_lstm_, &forward_,
              &backward_, &output_);
  params_.assign(layout_.size(), T(0));
  word_embeddings_ = Mat<T>::Zero(config_.word_dim, vocabulary_.num_words());
}

template <typename T>
void Encoder<T>::Initialize(uint64_t seed, const WordVectors* vectors) {
  std::mt19937_64 rng(seed);
  for (const ParameterLayout::Block& b : layout_.blocks()) {
    T* p = params_.data() + b.offset;
    const int64_t n = int64_t{b.rows} * b.cols;
    if (b.cols == 1) {
      std::fill(p, p + n, T(0));  // biases
      continue;
    }
    // Glorot and Bengio (2010); embeddings (".E") by their dimension alone.
    const bool embedding = b.name.size() >= 2 && b.name.compare(b.name.size() - 2, 2, ".E") == 0;
    const double a = embedding ? std::sqrt(3.0 / b.rows) : std::sqrt(6.0 / (b.rows + b.cols));
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>((2 * Uniform(rng) - 1) * a);
  }
  std::vector<const Lstm*> lstms;
  for (const Lstm& lstm : forward_) lstms.push_back(&lstm);
  for (const Lstm& lstm : backward_) lstms.push_back(&lstm);
  if (has_char_lstm()) {
    lstms.push_back(&char_lstm_.forward());
    lstms.push_back(&char_lstm_.backward());
  }
  for (const Lstm* lstm : lstms) {
    layout_.View(params_.data(), lstm->bias_block())
        .middleRows(lstm->hidden(), lstm->hidden())
        .setOnes();
  }
  const double a = std::sqrt(3.0 / config_.word_dim);
  std::vector<float> v(config_.word_dim);
  for (int w = 0; w < vocabulary_.num_words(); ++w) {
    for (int d = 0; d < config_.word_dim; ++d) {
      word_embeddings_(d, w) = static_cast<T>((2 * Uniform(rng) - 1) * a);
    }
    if (w > 0 && vectors != nullptr && vectors->dim() == config_.word_dim &&
        vectors->Lookup(vocabulary_.words()[w], absl::MakeSpan(v))) {
      for (int d = 0; d < config_.word_dim; ++d) word_embeddings_(d, w) = static_cast<T>(v[d]);
    }
  }
}

template <typename T>
EncodedSentence Encoder<T>::Encode(absl::Span<const std::string> tokens) const {
  EncodedSentence s;
  s.words.reserve(tokens.size());
  s.chars.resize(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    s.words.push_back(vocabulary_.WordId(tokens[i]));
    if (has_chars()) vocabulary_.CharIds(tokens[i], config_.max_word_chars, &s.chars[i]);
  }
  return s;
}

template <typename T>
void Encoder<T>::Forward(const EncodedSentence& sentence, std::mt19937_64* rng, Tape* tape,
                         Mat<T>* emissions) const {
  Tape local;
  Tape& t = tape != nullptr ? *tape : local;
  const int n = static_cast<int>(sentence.words.size());
  const bool train = rng != nullptr;
  t.words = sentence.words;
  if (train && config_.word_dropout > 0) {
    for (int32_t& w : t.words) {
      if (Uniform(*rng) < config_.word_dropout) w = 0;
    }
  }
  t.input.resize(InputDim(), n);
  t.chars.resize(has_chars() && !has_char_lstm() ? n : 0);
  t.char_lstms.resize(has_char_lstm() ? n : 0);
  for (int i = 0; i < n; ++i) {
    t.input.col(i).head(config_.word_dim) = word_embeddings_.col(t.words[i]);
    T* char_out = t.input.col(i).data() + config_.word_dim;
    if (has_char_lstm()) {
      char_lstm_.Forward(layout_, params_.data(), sentence.chars[i], &t.char_lstms[i], char_out);
    } else if (has_chars()) {
      chars_.Forward(layout_, params_.data(), sentence.chars[i], &t.chars[i], char_out);
    }
  }
  const bool drop = train && config_.dropout > 0;
  t.layer_inputs.resize(config_.layers);
  t.forward.resize(config_.layers);
  t.backward.resize(config_.layers);
  t.layer_masks.resize(config_.layers);
  if (drop) {
    t.input_mask = DropoutMask<T>(InputDim(), n, config_.dropout, *rng);
    t.layer_inputs[0] = t.input.cwiseProduct(t.input_mask);
  } else {
    t.input_mask.resize(0, 0);
    t.layer_inputs[0] = t.input;
  }
  const int h = config_.hidden;
  for (int l = 0; l < config_.layers; ++l) {
    forward_[l].Forward(layout_, params_.data(), t.layer_inputs[l], &t.forward[l]);
    backward_[l].Forward(layout_, params_.data(), t.layer_inputs[l], &t.backward[l]);
    Mat<T>& out = l + 1 < config_.layers ? t.layer_inputs[l + 1] : t.top;
    out.resize(2 * h, n);
    out.topRows(h) = t.forward[l].h;
    out.bottomRows(h) = t.backward[l].h;
    if (drop) {
      t.layer_masks[l] = DropoutMask<T>(2 * h, n, config_.dropout, *rng);
      out = out.cwiseProduct(t.layer_masks[l]);
    } else {
      t.layer_masks[l].resize(0, 0);
    }
  }
  output_.Forward(layout_, params_.data(), t.top, emissions);
}

template <typename T>
void Encoder<T>::Backward(const EncodedSentence& sentence, const Tape& t, const Mat<T>& d_emissions,
                          Gradients<T>* grads) const {
  const int n = static_cast<int>(sentence.words.size());
  const int h = config_.hidden;
  T* g = grads->dense.data();
  Mat<T> d;
  output_.Backward(layout_, params_.data(), t.top, d_emissions, g, &d);
  for (int l = config_.layers - 1; l >= 0; --l) {
    if (t.layer_masks[l].size() > 0) d = d.cwiseProduct(t.layer_masks[l]);
    const Mat<T> dh_forward = d.topRows(h), dh_backward = d.bottomRows(h);
    Mat<T> dx_forward, dx_backward;
    forward_[l].Backward(layout_, params_.data(), t.layer_inputs[l], t.forward[l], dh_forward, g,
                         &dx_forward);
    backward_[l].Backward(layout_, params_.data(), t.layer_inputs[l], t.backward[l], dh_backward, g,
                          &dx_backward);
    d = dx_forward + dx_backward;
  }
  if (t.input_mask.size() > 0) d = d.cwiseProduct(t.input_mask);
  for (int i = 0; i < n; ++i) {
    if (config_.fine_tune) {
      auto [it, inserted] = grads->word_vectors.try_emplace(t.words[i]);
      if (inserted) it->second = Vec<T>::Zero(config_.word_dim);
      it->second += d.col(i).head(config_.word_dim);
    }
    const T* d_chars = d.col(i).data() + config_.word_dim;
    if (has_char_lstm()) {
      char_lstm_.Backward(layout_, params_.data(), t.char_lstms[i], d_chars, g);
    } else if (has_chars()) {
      chars_.Backward(layout_, params_.data(), t.chars[i], d_chars, g);
    }
  }
}

template <typename T>
T BatchGradient(int count, int threads, int64_t dense_size,
                const std::function<T(int, Gradients<T>*)>& sentence, Gradients<T>* out) {
  const int blocks = (count + kBlockSentences - 1) / kBlockSentences;
  std::vector<Gradients<T>> partial(blocks);
  std::vector<T> losses(blocks, T(0));
  std::atomic<int> next{0};
  RunOnThreads(std::max(1, std::min(threads, blocks)), [&](int) {
    for (int b = next++; b < blocks; b = next++) {
      partial[b].Reset(dense_size);
      for (int i = b * kBlockSentences; i < std::min(count, (b + 1) * kBlockSentences); ++i) {
        losses[b] += sentence(i, &partial[b]);
      }
    }
  });
  out->Reset(dense_size);
  T loss = T(0);
  for (int b = 0; b < blocks; ++b) {
    out->Add(partial[b]);
    loss += losses[b];
  }
  return loss;
}

template class Encoder<float>;
template class Encoder<double>;
template float BatchGradient<float>(int, int, int64_t,
                                    const std::function<float(int, Gradients<float>*)>&,
                                    Gradients<float>*);
template double BatchGradient<double>(int, int, int64_t,
                                      const std::function<double(int, Gradients<double>*)>&,
                                      Gradients<double>*);

}  // namespace chaintag::neural
