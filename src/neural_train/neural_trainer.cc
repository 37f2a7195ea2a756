// End-to-end training of a neural encoder under a linear chain: chaintag::TrainNeuralChain.
#include "neural_train/neural_trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
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

// The loss of one sentence; its gradient is added to `g` (encoder parameters, then the chain's).
float SentenceGradient(const NeuralChain& c, const neural::EncodedSentence& s,
                       const std::vector<int>& gold, const NeuralTrainOptions& o,
                       std::mt19937_64* rng, Gradients<float>* g) {
  const int n = static_cast<int>(gold.size()), N = c.num_labels;
  if (n == 0) return 0.0f;
  neural::Encoder<float>::Tape tape;
  Mat<float> e;
  c.encoder.Forward(s, rng, &tape, &e);
  Lattice lattice(n, N);
  for (int t = 0; t < n; ++t) {
    for (int y = 0; y < N; ++y) lattice.unary(t, y) = e(y, t);
  }
  for (int a = 0; a < N; ++a) {
    for (int b = 0; b < N; ++b) lattice.transition(a, b) = c.transition(a, b);
    lattice.start(a) = c.start(a);
    lattice.end(a) = c.end(a);
  }
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

absl::Status CheckData(const NeuralData& data, int num_labels, std::string_view what) {
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
      if (y < 0 || y >= num_labels) {
        return absl::InvalidArgumentError(
            absl::StrCat(ToAbsl(what), ": sentence ", s + 1, " has a label out of range"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

void NeuralChain::FillLattice(const neural::EncodedSentence& sentence, Lattice* lattice) const {
  const int n = static_cast<int>(sentence.words.size()), N = num_labels;
  Mat<float> e;
  encoder.Forward(sentence, nullptr, nullptr, &e);
  lattice->Reset(n, N);
  for (int t = 0; t < n; ++t) {
    for (int y = 0; y < N; ++y) lattice->unary(t, y) = e(y, t);
  }
  for (int a = 0; a < N; ++a) {
    for (int b = 0; b < N; ++b) lattice->transition(a, b) = transition(a, b);
    lattice->start(a) = start(a);
    lattice->end(a) = end(a);
  }
}

std::string NeuralChain::ParameterBytes() const {
  std::string out;
  auto put = [&](const float* p, size_t n) {
    out.append(reinterpret_cast<const char*>(p), n * sizeof(float));
  };
  put(encoder.params().data(), encoder.params().size());
  put(encoder.word_embeddings().data(), encoder.word_embeddings().size());
  put(chain.data(), chain.size());
  return out;
}

double NeuralAccuracy(const NeuralChain& chain, const NeuralData& data, int threads) {
  const int count = static_cast<int>(data.tokens.size());
  std::atomic<int> next{0};
  std::atomic<int64_t> right{0}, total{0};
  RunOnThreads(std::max(1, threads), [&](int) {
    Lattice lattice;
    int64_t r = 0, n = 0;
    for (int s = next++; s < count; s = next++) {
      if (data.tokens[s].empty()) continue;
      chain.FillLattice(chain.encoder.Encode(data.tokens[s]), &lattice);
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
    const std::function<void(const NeuralProgress&)>& progress) {
  NeuralTrainOptions o = options;
  o.encoder.num_labels = num_labels;
  if (vectors != nullptr) o.encoder.word_dim = vectors->dim();
  if (absl::Status s = neural::ValidateEncoderConfig(o.encoder); !s.ok()) return s;
  if (o.batch_size < 1 || o.epochs < 1 || o.patience < 1 || !(o.learning_rate > 0) ||
      !(o.clip >= 0) || !(o.cost >= 0) || o.max_vocabulary < 1 || o.min_word_count < 1) {
    return absl::InvalidArgumentError(
        "neural training: expected batch size, epochs, patience, vocabulary size and minimum "
        "word count >= 1, a positive learning rate, and clipping and cost >= 0");
  }
  if (absl::Status s = CheckData(train, num_labels, "training data"); !s.ok()) return s;
  if (dev != nullptr) {
    if (absl::Status s = CheckData(*dev, num_labels, "dev data"); !s.ok()) return s;
  }
  if (train.tokens.empty()) return absl::InvalidArgumentError("no training sentences");

  NeuralChain c;
  c.num_labels = num_labels;
  c.encoder = neural::Encoder<float>(o.encoder, BuildVocabulary(train, o, vectors));
  c.encoder.Initialize(o.seed, vectors);
  c.chain.assign(static_cast<size_t>(num_labels) * (num_labels + 2), 0.0f);
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
  int since_best = 0;
  const auto start_time = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    std::mt19937_64 shuffle_rng(Mix(o.seed, 1000000007ull + epoch));
    for (int i = count - 1; i > 0; --i) {  // Fisher-Yates, the same on every platform
      std::swap(order[i], order[shuffle_rng() % static_cast<uint64_t>(i + 1)]);
    }
    double epoch_loss = 0;
    for (int first = 0; first < count; first += o.batch_size) {
      const int size = std::min(o.batch_size, count - first);
      Gradients<float> g;
      epoch_loss += neural::BatchGradient<float>(
          size, o.threads, dense_size,
          [&](int i, Gradients<float>* grads) {
            const int s = order[first + i];
            std::mt19937_64 rng(Mix(Mix(o.seed, epoch), s));
            return SentenceGradient(c, encoded[s], train.labels[s], o, &rng, grads);
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
      if (o.clip > 0 && std::sqrt(norm2) > o.clip) {
        const float shrink = static_cast<float>(o.clip / std::sqrt(norm2));
        for (float& x : g.dense) x *= shrink;
        for (auto& [id, v] : g.word_vectors) v *= shrink;
      }
      if (o.optimizer == NeuralTrainOptions::Optimizer::kSgd) {
        const float lr = static_cast<float>(o.learning_rate);
        for (int64_t i = 0; i < dense_size; ++i) dense_param(i) -= lr * g.dense[i];
        for (const auto& [id, v] : g.word_vectors) c.encoder.word_embeddings().col(id) -= lr * v;
        continue;
      }
      ++dense_adam.step;
      const double correction =
          std::sqrt(1 - std::pow(beta2, dense_adam.step)) / (1 - std::pow(beta1, dense_adam.step));
      const float lr = static_cast<float>(o.learning_rate * correction);
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
    }
    NeuralProgress p;
    p.epoch = epoch;
    p.loss = epoch_loss;
    if (dev != nullptr && !dev->tokens.empty()) p.dev_accuracy = NeuralAccuracy(c, *dev, o.threads);
    p.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
    if (progress) progress(p);
    if (p.dev_accuracy < 0) {
      best = c;
      continue;
    }
    if (p.dev_accuracy > best_dev) {
      best_dev = p.dev_accuracy;
      best = c;
      since_best = 0;
    } else if (++since_best >= o.patience) {
      break;
    }
  }
  return best;
}

}  // namespace chaintag
