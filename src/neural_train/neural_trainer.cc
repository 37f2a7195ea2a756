// End-to-end training of a neural encoder under a linear chain: chaintag::TrainNeuralChain.
#include "neural_train/neural_trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/decode.h"
#include "string_view_compat.h"
#include "worker_threads.h"

namespace chaintag {

namespace {

using neural::Gradients;
using neural::Mat;

// A per-(epoch, sentence) random stream: the same whichever thread trains the sentence.
uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Adam {
  std::vector<float> m, v;
  int64_t step = 0;
};

// The first token of each sentence in corpus order (and the token count last).
std::vector<int64_t> FirstTokens(const NeuralData& data) {
  std::vector<int64_t> first(data.tokens.size() + 1, 0);
  for (size_t s = 0; s < data.tokens.size(); ++s) first[s + 1] = first[s] + data.tokens[s].size();
  return first;
}

// The sparse attributes of sentence s's tokens: offsets into data.token_attributes (size + 1
// entries from `first_token`), or null when the data has none.
const int64_t* SparseOffsets(const NeuralData& data, const std::vector<int64_t>& first_token,
                             int s) {
  return data.token_offsets.empty() ? nullptr : data.token_offsets.data() + first_token[s];
}

// The loss of one sentence; its gradient is added to `g` (encoder parameters, then the chain's;
// hybrid: the sparse features' as (feature, value) pairs).
float SentenceGradient(const NeuralChain& c, const neural::EncodedSentence& s,
                       const std::vector<int>& gold, const int64_t* offsets,
                       const int32_t* attributes, const NeuralTrainOptions& o, std::mt19937_64* rng,
                       Gradients<float>* g) {
  const int n = static_cast<int>(gold.size()), N = c.num_labels;
  if (n == 0) return 0.0f;
  neural::Encoder<float>::Tape tape;
  Mat<float> e;
  c.encoder.Forward(s, rng, &tape, &e);
  Lattice lattice(n, N);
  c.FillChain(e, offsets, attributes, o.mask, &lattice);
  if (o.objective != NeuralTrainOptions::Objective::kCrf) {
    for (int t = 0; t < n; ++t) {
      for (int y = 0; y < N; ++y) {
        if (y != gold[t]) lattice.unary(t, y) += o.cost;
      }
    }
  }
  const double gold_score = lattice.Score(gold);
  Mat<float> d = Mat<float>::Zero(N, n);
  float* chain = g->dense.data() + c.encoder.layout().size();
  float* d_start = chain + N * N;
  float* d_end = d_start + N;
  double loss = 0;
  if (o.objective == NeuralTrainOptions::Objective::kSsvmMargin) {
    absl::StatusOr<Labeling> best = ViterbiDecode(lattice);
    if (!best.ok()) return 0.0f;
    loss = best->score - gold_score;
    for (int t = 0; t < n; ++t) {
      d(best->labels[t], t) += 1;
      if (t > 0) chain[best->labels[t - 1] * N + best->labels[t]] += 1;
    }
    d_start[best->labels[0]] += 1;
    d_end[best->labels[n - 1]] += 1;
  } else {
    absl::StatusOr<Marginals> m = ForwardBackward(lattice);
    if (!m.ok()) return 0.0f;
    loss = m->log_z - gold_score;
    for (int t = 0; t < n; ++t) {
      for (int y = 0; y < N; ++y) d(y, t) = static_cast<float>(m->unary_at(t, y, N));
    }
    for (int i = 0; i < N * N; ++i) chain[i] += static_cast<float>(m->transition[i]);
    for (int y = 0; y < N; ++y) {
      d_start[y] += static_cast<float>(m->start[y]);
      d_end[y] += static_cast<float>(m->end[y]);
    }
  }
  for (int t = 0; t < n; ++t) {
    d(gold[t], t) -= 1;
    if (t > 0) chain[gold[t - 1] * N + gold[t]] -= 1;
  }
  d_start[gold[0]] -= 1;
  d_end[gold[n - 1]] -= 1;
  c.encoder.Backward(s, tape, d, g);
  if (offsets != nullptr && o.train_sparse) {
    const int32_t* ao = c.features.attribute_offsets.data();
    const int32_t* fl = c.features.feature_labels.data();
    for (int t = 0; t < n; ++t) {
      for (int64_t k = offsets[t]; k < offsets[t + 1]; ++k) {
        const int32_t a = attributes[k];
        for (int32_t f = ao[a]; f < ao[a + 1]; ++f) g->sparse.emplace_back(f, d(fl[f], t));
      }
    }
  }
  return static_cast<float>(loss);
}

neural::Vocabulary BuildVocabulary(const NeuralData& train, const NeuralTrainOptions& o,
                                   const neural::WordVectors* vectors) {
  absl::flat_hash_map<std::string, int> counts;
  std::vector<std::string> order;  // first occurrence order, so the vocabulary is reproducible
  neural::Vocabulary v;
  for (const auto& sentence : train.tokens) {
    for (const std::string& w : sentence) {
      if (counts[w]++ == 0) order.push_back(w);
      v.AddChars(w);
    }
  }
  for (const std::string& w : order) {
    if (counts[w] >= o.min_word_count && v.num_words() < o.max_vocabulary) v.AddWord(w);
  }
  if (vectors != nullptr) {
    std::vector<int64_t> ids(vectors->num_words());
    for (int64_t i = 0; i < vectors->num_words(); ++i) ids[i] = i;
    std::stable_sort(ids.begin(), ids.end(),
                     [&](int64_t a, int64_t b) { return vectors->count(a) > vectors->count(b); });
    for (int64_t i : ids) {
      if (v.num_words() >= o.max_vocabulary) break;
      if (vectors->word(i) != "</s>") v.AddWord(vectors->word(i));
    }
  }
  return v;
}

absl::Status CheckData(const NeuralData& data, int num_labels, bool allow_unknown,
                       int num_attributes, std::string_view what) {
  if (data.tokens.size() != data.labels.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), ": sentences and labels differ"));
  }
  for (size_t s = 0; s < data.tokens.size(); ++s) {
    if (data.tokens[s].size() != data.labels[s].size()) {
      return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), ": sentence ", s + 1,
                                                     " has tokens and labels of different "
                                                     "lengths"));
    }
    for (int y : data.labels[s]) {
      if (y < (allow_unknown ? -1 : 0) || y >= num_labels) {
        return absl::InvalidArgumentError(
            absl::StrCat(ToAbsl(what), ": sentence ", s + 1, " has a label out of range"));
      }
    }
  }
  if (data.token_offsets.empty()) return absl::OkStatus();
  const std::vector<int64_t> first = FirstTokens(data);
  bool ok = static_cast<int64_t>(data.token_offsets.size()) == first.back() + 1 &&
            data.token_offsets[0] == 0 &&
            data.token_offsets.back() == static_cast<int64_t>(data.token_attributes.size());
  for (size_t k = 1; ok && k < data.token_offsets.size(); ++k) {
    ok = data.token_offsets[k] >= data.token_offsets[k - 1];
  }
  for (size_t k = 0; ok && k < data.token_attributes.size(); ++k) {
    ok = data.token_attributes[k] >= 0 && data.token_attributes[k] < num_attributes;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(what), ": the sparse attributes do not match the tokens or the feature set"));
  }
  return absl::OkStatus();
}

// Sums the (index, value) pairs of a sparse gradient per index, in the pairs' order (so the
// result does not depend on the thread count); leaves them sorted by index.
void MergeSparse(std::vector<std::pair<int64_t, float>>* pairs) {
  std::stable_sort(pairs->begin(), pairs->end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t i = 0; i < pairs->size(); ++i) {
    if (out > 0 && (*pairs)[out - 1].first == (*pairs)[i].first) {
      (*pairs)[out - 1].second += (*pairs)[i].second;
    } else {
      (*pairs)[out++] = (*pairs)[i];
    }
  }
  pairs->resize(out);
}

}  // namespace

void NeuralChain::FillChain(const Mat<float>& emissions, const int64_t* offsets,
                            const int32_t* attributes, const TransitionMask& mask,
                            Lattice* lattice) const {
  const int n = static_cast<int>(emissions.cols()), N = num_labels;
  lattice->Reset(n, N);
  for (int t = 0; t < n; ++t) {
    for (int y = 0; y < N; ++y) lattice->unary(t, y) = emissions(y, t);
  }
  if (offsets != nullptr && !sparse.empty()) {
    const int32_t* ao = features.attribute_offsets.data();
    const int32_t* fl = features.feature_labels.data();
    for (int t = 0; t < n; ++t) {
      for (int64_t k = offsets[t]; k < offsets[t + 1]; ++k) {
        const int32_t a = attributes[k];
        for (int32_t f = ao[a]; f < ao[a + 1]; ++f) lattice->unary(t, fl[f]) += sparse[f];
      }
    }
  }
  for (int a = 0; a < N; ++a) {
    for (int b = 0; b < N; ++b) lattice->transition(a, b) = transition(a, b);
    lattice->start(a) = start(a);
    lattice->end(a) = end(a);
  }
  if (mask.num_labels == N) ApplyTransitionMask(mask, lattice);
}

void NeuralChain::FillLattice(const neural::EncodedSentence& sentence, const int64_t* offsets,
                              const int32_t* attributes, const TransitionMask& mask,
                              Lattice* lattice) const {
  Mat<float> e;
  encoder.Forward(sentence, nullptr, nullptr, &e);
  FillChain(e, offsets, attributes, mask, lattice);
}

std::string NeuralChain::ParameterBytes() const {
  std::string out;
  auto put = [&](const float* p, size_t n) {
    out.append(reinterpret_cast<const char*>(p), n * sizeof(float));
  };
  put(encoder.params().data(), encoder.params().size());
  put(encoder.word_embeddings().data(), encoder.word_embeddings().size());
  put(chain.data(), chain.size());
  put(sparse.data(), sparse.size());
  return out;
}

double NeuralAccuracy(const NeuralChain& chain, const NeuralData& data, const TransitionMask& mask,
                      int threads) {
  const int count = static_cast<int>(data.tokens.size());
  const std::vector<int64_t> first = FirstTokens(data);
  std::atomic<int> next{0};
  std::atomic<int64_t> right{0}, total{0};
  RunOnThreads(std::max(1, threads), [&](int) {
    Lattice lattice;
    int64_t r = 0, n = 0;
    for (int s = next++; s < count; s = next++) {
      if (data.tokens[s].empty()) continue;
      chain.FillLattice(chain.encoder.Encode(data.tokens[s]), SparseOffsets(data, first, s),
                        data.token_attributes.data(), mask, &lattice);
      absl::StatusOr<Labeling> best = ViterbiDecode(lattice);
      for (size_t t = 0; t < data.labels[s].size(); ++t) {
        r += best.ok() && best->labels[t] == data.labels[s][t];
        ++n;
      }
    }
    right += r;
    total += n;
  });
  return total > 0 ? static_cast<double>(right) / static_cast<double>(total) : 0.0;
}

absl::StatusOr<NeuralChain> TrainNeuralChain(
    const NeuralData& train, const NeuralData* dev, int num_labels,
    const NeuralTrainOptions& options, const neural::WordVectors* vectors,
    const std::function<absl::Status(const NeuralProgress&)>& progress,
    const NeuralSparseFeatures* features) {
  NeuralTrainOptions o = options;
  o.encoder.num_labels = num_labels;
  if (vectors != nullptr) o.encoder.word_dim = vectors->dim();
  if (absl::Status s = neural::ValidateEncoderConfig(o.encoder); !s.ok()) return s;
  if (o.batch_size < 1 || o.epochs < 1 || o.patience < 1 || !(o.learning_rate > 0) ||
      !(o.clip >= 0) || !(o.cost >= 0) || o.max_vocabulary < 1 || o.min_word_count < 1 ||
      o.average_epochs < 1 || !(o.sparse_l2 >= 0) || !(o.learning_rate_decay >= 0) ||
      !(o.sparse_learning_rate_scale > 0)) {
    return absl::InvalidArgumentError(
        "neural training: expected batch size, epochs, patience, vocabulary size and minimum "
        "word count >= 1, positive learning rates, and clipping, cost, sparse L2 and learning "
        "rate decay >= 0");
  }
  const int num_attributes = features != nullptr ? features->num_attributes() : 0;
  if (features != nullptr) {
    const auto& ao = features->attribute_offsets;
    bool ok = !ao.empty() && ao[0] == 0 &&
              ao.back() == static_cast<int32_t>(features->feature_labels.size());
    for (size_t a = 1; ok && a < ao.size(); ++a) ok = ao[a] >= ao[a - 1];
    for (int32_t y : features->feature_labels) ok = ok && y >= 0 && y < num_labels;
    if (!ok) return absl::InvalidArgumentError("neural training: inconsistent sparse features");
  }
  if ((features == nullptr) != train.token_offsets.empty() ||
      (dev != nullptr && !dev->tokens.empty() &&
       (features == nullptr) != dev->token_offsets.empty())) {
    return absl::InvalidArgumentError(
        "neural training: sparse attributes need sparse features and the other way round");
  }
  if (absl::Status s = CheckData(train, num_labels, false, num_attributes, "training data");
      !s.ok()) {
    return s;
  }
  if (dev != nullptr) {
    if (absl::Status s = CheckData(*dev, num_labels, true, num_attributes, "dev data"); !s.ok()) {
      return s;
    }
  }
  if (train.tokens.empty()) return absl::InvalidArgumentError("no training sentences");

  NeuralChain c;
  c.num_labels = num_labels;
  c.encoder = neural::Encoder<float>(o.encoder, BuildVocabulary(train, o, vectors));
  c.encoder.Initialize(o.seed, vectors);
  c.chain.assign(static_cast<size_t>(num_labels) * (num_labels + 2), 0.0f);
  if (features != nullptr) {
    c.features = *features;
    c.sparse.assign(c.features.feature_labels.size(), 0.0f);
  }
  Adam sparse_adam{std::vector<float>(c.sparse.size(), 0.0f),
                   std::vector<float>(c.sparse.size(), 0.0f), 0};
  // The Adam step at which each sparse feature last moved: its L2 gradient for the steps in
  // between (when the weight stood still) is added when the feature is next touched.
  std::vector<int64_t> sparse_last_step(c.sparse.size(), 0);
  int64_t updates = 0;
  const std::vector<int64_t> first_token = FirstTokens(train);
  std::vector<neural::EncodedSentence> encoded;
  encoded.reserve(train.tokens.size());
  for (const auto& s : train.tokens) encoded.push_back(c.encoder.Encode(s));

  const int64_t encoder_size = c.encoder.layout().size();
  const int64_t dense_size = encoder_size + static_cast<int64_t>(c.chain.size());
  auto dense_param = [&](int64_t i) -> float& {
    return i < encoder_size ? c.encoder.params()[i] : c.chain[i - encoder_size];
  };
  Adam dense_adam{std::vector<float>(dense_size, 0.0f), std::vector<float>(dense_size, 0.0f), 0};
  Mat<float> words_m =
      Mat<float>::Zero(c.encoder.word_embeddings().rows(), c.encoder.word_embeddings().cols());
  Mat<float> words_v = words_m;
  const double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-8;

  const int count = static_cast<int>(encoded.size());
  std::vector<int> order(count);
  for (int i = 0; i < count; ++i) order[i] = i;
  NeuralChain best = c;
  double best_dev = -1;
  // The last average_epochs epochs' final parameters, oldest first.
  struct Snapshot {
    std::vector<float> params, chain, sparse;
    Mat<float> words;
  };
  std::deque<Snapshot> recent;
  int since_best = 0;
  const auto start_time = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    std::mt19937_64 shuffle_rng(Mix(o.seed, 1000000007ull + epoch));
    for (int i = count - 1; i > 0; --i) {  // Fisher-Yates, the same on every platform
      std::swap(order[i], order[shuffle_rng() % static_cast<uint64_t>(i + 1)]);
    }
    double epoch_loss = 0;
    const double epoch_rate = o.learning_rate / (1 + o.learning_rate_decay * (epoch - 1));
    for (int first = 0; first < count; first += o.batch_size) {
      const int size = std::min(o.batch_size, count - first);
      Gradients<float> g;
      epoch_loss += neural::BatchGradient<float>(
          size, o.threads, dense_size,
          [&](int i, Gradients<float>* grads) {
            const int s = order[first + i];
            std::mt19937_64 rng(Mix(Mix(o.seed, epoch), s));
            return SentenceGradient(c, encoded[s], train.labels[s],
                                    SparseOffsets(train, first_token, s),
                                    train.token_attributes.data(), o, &rng, grads);
          },
          &g);
      // Mean over the batch, then clip the global norm.
      const float scale = 1.0f / static_cast<float>(size);
      double norm2 = 0;
      for (float& x : g.dense) {
        x *= scale;
        norm2 += static_cast<double>(x) * x;
      }
      for (auto& [id, v] : g.word_vectors) {
        v *= scale;
        norm2 += static_cast<double>(v.squaredNorm());
      }
      MergeSparse(&g.sparse);
      for (auto& [f, x] : g.sparse) {
        x *= scale;
        norm2 += static_cast<double>(x) * x;
      }
      if (o.clip > 0 && std::sqrt(norm2) > o.clip) {
        const float shrink = static_cast<float>(o.clip / std::sqrt(norm2));
        for (float& x : g.dense) x *= shrink;
        for (auto& [id, v] : g.word_vectors) v *= shrink;
        for (auto& [f, x] : g.sparse) x *= shrink;
      }
      // The L2 gradient of each step, 2 sparse_l2 w / sentences (after clipping: it is not
      // noise), for this step and the steps since the feature last moved.
      ++updates;
      const float l2_step = static_cast<float>(2 * o.sparse_l2 / count);
      for (auto& [f, x] : g.sparse) {
        x += l2_step * static_cast<float>(updates - sparse_last_step[f]) * c.sparse[f];
        sparse_last_step[f] = updates;
      }
      if (o.optimizer == NeuralTrainOptions::Optimizer::kSgd) {
        const float lr = static_cast<float>(epoch_rate);
        for (int64_t i = 0; i < dense_size; ++i) dense_param(i) -= lr * g.dense[i];
        for (const auto& [id, v] : g.word_vectors) c.encoder.word_embeddings().col(id) -= lr * v;
        for (const auto& [f, x] : g.sparse) c.sparse[f] -= lr * x;
        continue;
      }
      ++dense_adam.step;
      const double correction =
          std::sqrt(1 - std::pow(beta2, dense_adam.step)) / (1 - std::pow(beta1, dense_adam.step));
      const float lr = static_cast<float>(epoch_rate * correction);
      const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2);
      const float eps = static_cast<float>(adam_eps);
      for (int64_t i = 0; i < dense_size; ++i) {
        float& m = dense_adam.m[i];
        float& v = dense_adam.v[i];
        m = b1 * m + (1 - b1) * g.dense[i];
        v = b2 * v + (1 - b2) * g.dense[i] * g.dense[i];
        dense_param(i) -= lr * m / (std::sqrt(v) + eps);
      }
      // Lazy Adam on the word embeddings: only the columns the batch touched move.
      for (const auto& [id, grad] : g.word_vectors) {
        auto m = words_m.col(id);
        auto v = words_v.col(id);
        m = b1 * m + (1 - b1) * grad;
        v = b2 * v + (1 - b2) * grad.cwiseProduct(grad);
        c.encoder.word_embeddings().col(id).array() -= lr * m.array() / (v.array().sqrt() + eps);
      }
      // Lazy Adam on the sparse features the batch touched, at their own step
      // (NeuralTrainOptions::sparse_learning_rate_scale; 1 beat 10 on EWT dev, docs/neural.md).
      const float sparse_lr = lr * static_cast<float>(o.sparse_learning_rate_scale);
      for (const auto& [f, x] : g.sparse) {
        float& m = sparse_adam.m[f];
        float& v = sparse_adam.v[f];
        m = b1 * m + (1 - b1) * x;
        v = b2 * v + (1 - b2) * x * x;
        c.sparse[f] -= sparse_lr * m / (std::sqrt(v) + eps);
      }
    }
    NeuralProgress p;
    p.epoch = epoch;
    p.loss = epoch_loss;
    const bool averaging = o.average_epochs > 1 && dev != nullptr && !dev->tokens.empty();
    std::optional<NeuralChain> averaged;
    if (averaging) {
      if (static_cast<int>(recent.size()) == o.average_epochs) recent.pop_front();
      recent.push_back({c.encoder.params(), c.chain, c.sparse, c.encoder.word_embeddings()});
      if (recent.size() > 1) {
        // Summed oldest first, so the mean does not depend on anything but the snapshots.
        averaged.emplace(c);
        const auto mean = [&](auto member, auto& out) {
          out = recent.front().*member;
          for (size_t k = 1; k < recent.size(); ++k) {
            for (size_t i = 0; i < out.size(); ++i) out[i] += (recent[k].*member)[i];
          }
          for (size_t i = 0; i < out.size(); ++i) out[i] /= static_cast<float>(recent.size());
        };
        mean(&Snapshot::params, averaged->encoder.params());
        mean(&Snapshot::chain, averaged->chain);
        mean(&Snapshot::sparse, averaged->sparse);
        Mat<float>& words = averaged->encoder.word_embeddings();
        words = recent.front().words;
        for (size_t k = 1; k < recent.size(); ++k) words += recent[k].words;
        words /= static_cast<float>(recent.size());
      }
    }
    if (dev != nullptr && !dev->tokens.empty()) {
      p.raw_dev_accuracy = NeuralAccuracy(c, *dev, o.mask, o.threads);
      p.dev_accuracy = p.raw_dev_accuracy;
      if (averaged.has_value()) {
        p.averaged_dev_accuracy = NeuralAccuracy(*averaged, *dev, o.mask, o.threads);
        p.dev_accuracy = std::max(p.dev_accuracy, p.averaged_dev_accuracy);
      }
    }
    p.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
    if (progress) {
      if (absl::Status s = progress(p); !s.ok()) return s;
    }
    if (p.dev_accuracy < 0) {
      best = c;
      continue;
    }
    if (p.dev_accuracy > best_dev) {
      best_dev = p.dev_accuracy;
      const bool use_average = averaged.has_value() && p.averaged_dev_accuracy > p.raw_dev_accuracy;
      best = use_average ? *std::move(averaged) : c;
      since_best = 0;
    } else if (++since_best >= o.patience) {
      break;
    }
  }
  return best;
}

}  // namespace chaintag
