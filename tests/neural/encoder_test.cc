// The encoder's layers and the whole encoder against finite differences (in double), the batch
// gradient's independence of the thread count (bytes), and a small run that learns a toy task.
#include "neural/encoder.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "neural/layers.h"
#include "support/toy_task.h"

namespace chaintag::neural {
namespace {

using M = Mat<double>;

M RandomMat(int rows, int cols, std::mt19937_64& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  M m(rows, cols);
  for (int64_t i = 0; i < m.size(); ++i) m.data()[i] = u(rng);
  return m;
}

void RandomParams(const ParameterLayout& layout, std::vector<double>* p, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  p->resize(layout.size());
  for (double& x : *p) x = u(rng);
}

// Central differences of f with respect to every entry of `x`, against `analytic`.
template <typename F>
void ExpectGradient(std::vector<double>* x, const std::vector<double>& analytic, F f,
                    const std::string& what) {
  ASSERT_EQ(x->size(), analytic.size());
  const double eps = 1e-6;
  double worst = 0;
  for (size_t i = 0; i < x->size(); ++i) {
    const double saved = (*x)[i];
    (*x)[i] = saved + eps;
    const double up = f();
    (*x)[i] = saved - eps;
    const double down = f();
    (*x)[i] = saved;
    const double numeric = (up - down) / (2 * eps);
    const double err = std::abs(numeric - analytic[i]) / std::max(1.0, std::abs(numeric));
    worst = std::max(worst, err);
    EXPECT_LT(err, 1e-6) << what << " entry " << i << ": numeric " << numeric << " analytic "
                         << analytic[i];
  }
  ::testing::Test::RecordProperty(what, std::to_string(worst));
}

std::vector<double> Flat(const M& m) { return std::vector<double>(m.data(), m.data() + m.size()); }

TEST(LayerGradientTest, Linear) {
  std::mt19937_64 rng(1);
  ParameterLayout layout;
  Linear linear(&layout, "out", 4, 3);
  std::vector<double> p;
  RandomParams(layout, &p, rng);
  M x = RandomMat(4, 5, rng), gy = RandomMat(3, 5, rng);
  auto loss = [&] {
    M y;
    linear.Forward(layout, p.data(), x, &y);
    return y.cwiseProduct(gy).sum();
  };
  std::vector<double> g(layout.size(), 0.0);
  M dx;
  linear.Backward(layout, p.data(), x, gy, g.data(), &dx);
  ExpectGradient(&p, g, loss, "linear parameters");
  std::vector<double> xv = Flat(x);
  Eigen::Map<M> xm(xv.data(), 4, 5);
  ExpectGradient(
      &xv, Flat(dx),
      [&] {
        x = xm;
        return loss();
      },
      "linear input");
}

void CheckLstm(bool reverse, int n) {
  std::mt19937_64 rng(reverse ? 3 : 2);
  ParameterLayout layout;
  Lstm lstm(&layout, "lstm", 3, 4, reverse);
  std::vector<double> p;
  RandomParams(layout, &p, rng);
  M x = RandomMat(3, n, rng), gh = RandomMat(4, n, rng);
  auto loss = [&] {
    Lstm::Cache<double> cache;
    lstm.Forward(layout, p.data(), x, &cache);
    return cache.h.cwiseProduct(gh).sum();
  };
  Lstm::Cache<double> cache;
  lstm.Forward(layout, p.data(), x, &cache);
  std::vector<double> g(layout.size(), 0.0);
  M dx;
  lstm.Backward(layout, p.data(), x, cache, gh, g.data(), &dx);
  const std::string what =
      std::string(reverse ? "backward" : "forward") + " LSTM, " + std::to_string(n) + " tokens";
  ExpectGradient(&p, g, loss, what + " parameters");
  std::vector<double> xv = Flat(x);
  ExpectGradient(
      &xv, Flat(dx),
      [&] {
        x = Eigen::Map<M>(xv.data(), 3, n);
        return loss();
      },
      what + " input");
}

TEST(LayerGradientTest, LstmBothDirectionsAndLengths) {
  for (int n : {1, 2, 6}) {
    CheckLstm(false, n);
    CheckLstm(true, n);
  }
}

// A character layer (CharCnn or CharBiLstm: `outputs` values per word) against finite
// differences for words of 0, 1 and 5 characters.
template <typename Layer>
void CheckCharLayer(const Layer& layer, const ParameterLayout& layout, int outputs, uint64_t seed,
                    const std::string& what) {
  std::mt19937_64 rng(seed);
  std::vector<double> p;
  RandomParams(layout, &p, rng);
  for (const std::vector<int32_t>& word :
       {std::vector<int32_t>{}, std::vector<int32_t>{4}, std::vector<int32_t>{4, 7, 8, 1, 4}}) {
    Vec<double> gout = RandomMat(outputs, 1, rng).col(0);
    auto loss = [&] {
      typename Layer::template Cache<double> cache;
      Vec<double> out(outputs);
      layer.Forward(layout, p.data(), word, &cache, out.data());
      return out.dot(gout);
    };
    typename Layer::template Cache<double> cache;
    Vec<double> out(outputs);
    layer.Forward(layout, p.data(), word, &cache, out.data());
    std::vector<double> g(layout.size(), 0.0);
    layer.Backward(layout, p.data(), cache, gout.data(), g.data());
    ExpectGradient(&p, g, loss, what + ", " + std::to_string(word.size()) + " characters");
  }
}

TEST(LayerGradientTest, CharCnn) {
  ParameterLayout layout;
  CharCnn cnn(&layout, "char", 9, 3, 5, 3);
  CheckCharLayer(cnn, layout, 5, 4, "char CNN");
}

TEST(LayerGradientTest, CharBiLstm) {
  ParameterLayout layout;
  CharBiLstm lstm(&layout, "char", 9, 3, 4);
  ASSERT_EQ(lstm.outputs(), 8);
  CheckCharLayer(lstm, layout, 8, 5, "char BiLSTM");
}

TEST(LayerTest, CharBiLstmReadsTheWholeWordInBothDirections) {
  // The forward half depends on the last character, the backward half on the first.
  std::mt19937_64 rng(6);
  ParameterLayout layout;
  CharBiLstm lstm(&layout, "char", 9, 3, 2);
  std::vector<float> p(layout.size());
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (float& x : p) x = u(rng);
  CharBiLstm::Cache<float> cache;
  Vec<float> a(4), b(4), c(4);
  lstm.Forward(layout, p.data(), {4, 5, 6}, &cache, a.data());
  lstm.Forward(layout, p.data(), {4, 5, 7}, &cache, b.data());  // last character differs
  lstm.Forward(layout, p.data(), {8, 5, 6}, &cache, c.data());  // first character differs
  EXPECT_NE(a.head(2), b.head(2));
  EXPECT_NE(a.tail(2), b.tail(2));
  EXPECT_NE(a.head(2), c.head(2));
  EXPECT_NE(a.tail(2), c.tail(2));
}

Vocabulary ToyVocabulary() {
  Vocabulary v;
  for (const char* w : {"the", "dog", "runs", "über", "a", "cat", "sleeps", "fast", "."}) {
    v.AddWord(w);
    v.AddChars(w);
  }
  return v;
}

EncoderConfig SmallConfig(int layers) {
  EncoderConfig c;
  c.num_labels = 3;
  c.word_dim = 4;
  c.char_dim = 3;
  c.char_filters = 4;
  c.hidden = 3;
  c.layers = layers;
  c.dropout = 0.25;
  c.word_dropout = 0.2;
  return c;
}

// The whole encoder (dropout masks and word dropout fixed by the seed) against finite
// differences, for every dense parameter and every word-embedding entry of the sentence.
void CheckEncoder(int layers, bool chars, CharEncoder char_encoder = CharEncoder::kCnn) {
  EncoderConfig config = SmallConfig(layers);
  if (!chars) config.char_filters = 0;
  config.char_encoder = char_encoder;
  Encoder<double> enc(config, ToyVocabulary());
  enc.Initialize(7, nullptr);
  const std::vector<std::string> tokens = {"the", "dog", "unseen", "runs", "über", "."};
  const EncodedSentence s = enc.Encode(tokens);
  std::mt19937_64 rng(11);
  const M g_out = RandomMat(3, static_cast<int>(tokens.size()), rng);
  auto loss = [&] {
    std::mt19937_64 dropout_rng(5);
    M e;
    enc.Forward(s, &dropout_rng, nullptr, &e);
    return e.cwiseProduct(g_out).sum();
  };
  std::mt19937_64 dropout_rng(5);
  Encoder<double>::Tape tape;
  M e;
  enc.Forward(s, &dropout_rng, &tape, &e);
  Gradients<double> grads;
  grads.Reset(enc.layout().size());
  enc.Backward(s, tape, g_out, &grads);
  const std::string what = std::to_string(layers) + " layer(s)" +
                           (!chars                                 ? ""
                            : char_encoder == CharEncoder::kBiLstm ? " with a char BiLSTM"
                                                                   : " with chars");
  ExpectGradient(&enc.params(), grads.dense, loss, "encoder, " + what);
  // Word embeddings: the analytic gradient of every column the sentence used (after dropout).
  std::vector<double> analytic(enc.word_embeddings().size(), 0.0);
  for (const auto& [id, v] : grads.word_vectors) {
    for (int d = 0; d < config.word_dim; ++d) analytic[id * config.word_dim + d] = v[d];
  }
  std::vector<double> flat = Flat(enc.word_embeddings());
  ExpectGradient(
      &flat, analytic,
      [&] {
        enc.word_embeddings() =
            Eigen::Map<M>(flat.data(), config.word_dim, enc.word_embeddings().cols());
        return loss();
      },
      "word embeddings, " + what);
}

TEST(EncoderGradientTest, OneAndTwoLayersWithAndWithoutCharacters) {
  CheckEncoder(1, true);
  CheckEncoder(2, true);
  CheckEncoder(1, false);
}

TEST(EncoderGradientTest, CharacterBiLstm) {
  CheckEncoder(1, true, CharEncoder::kBiLstm);
  CheckEncoder(2, true, CharEncoder::kBiLstm);
}

TEST(EncoderTest, CharacterBiLstmConfiguration) {
  EncoderConfig config = SmallConfig(1);
  config.char_encoder = CharEncoder::kBiLstm;
  EXPECT_TRUE(ValidateEncoderConfig(config).ok());
  const int64_t bilstm = Encoder<float>::DenseSize(config, 13);
  config.char_encoder = CharEncoder::kCnn;
  EXPECT_NE(bilstm, Encoder<float>::DenseSize(config, 13));
  config.char_encoder = CharEncoder::kBiLstm;
  config.char_filters = 5;  // not 2 x units
  EXPECT_FALSE(ValidateEncoderConfig(config).ok());
  config.char_encoder = static_cast<CharEncoder>(7);
  config.char_filters = 4;
  EXPECT_FALSE(ValidateEncoderConfig(config).ok());
}

TEST(EncoderTest, FrozenEmbeddingsGetNoGradientAndInferenceIsDeterministic) {
  EncoderConfig config = SmallConfig(1);
  config.fine_tune = false;
  Encoder<float> enc(config, ToyVocabulary());
  enc.Initialize(3, nullptr);
  const EncodedSentence s = enc.Encode({"a", "cat", "sleeps"});
  Mat<float> a, b;
  enc.Forward(s, nullptr, nullptr, &a);
  enc.Forward(s, nullptr, nullptr, &b);
  EXPECT_EQ(a, b);
  std::mt19937_64 rng(1);
  Encoder<float>::Tape tape;
  enc.Forward(s, &rng, &tape, &a);
  Gradients<float> g;
  g.Reset(enc.layout().size());
  enc.Backward(s, tape, Mat<float>::Ones(3, 3), &g);
  EXPECT_TRUE(g.word_vectors.empty());
}

TEST(EncoderTest, VocabularyCharactersAndLongWords) {
  Vocabulary v = ToyVocabulary();
  EXPECT_EQ(v.WordId("dog"), 2);
  EXPECT_EQ(v.WordId("wolf"), 0);
  std::vector<int32_t> ids;
  v.CharIds("üz\xff", 20, &ids);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_GE(ids[0], 4);                  // ü was seen
  EXPECT_EQ(ids[1], CharCnn::kUnknown);  // z was not
  EXPECT_EQ(ids[2], CharCnn::kUnknown);  // an invalid byte
  v.CharIds("thethethethe", 6, &ids);    // first 3 and last 3
  ASSERT_EQ(ids.size(), 6u);
  std::vector<int32_t> the;
  v.CharIds("the", 6, &the);
  EXPECT_EQ(std::vector<int32_t>(ids.begin(), ids.begin() + 3), the);
  EXPECT_EQ(std::vector<int32_t>(ids.begin() + 3, ids.end()), the);
  absl::StatusOr<Vocabulary> back = Vocabulary::FromLists(v.words(), v.chars());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->WordId("über"), v.WordId("über"));
  EXPECT_FALSE(Vocabulary::FromLists({"", "a", "a"}, {}).ok());
  EXPECT_FALSE(Vocabulary::FromLists({"a"}, {}).ok());
  EXPECT_FALSE(Vocabulary::FromLists({""}, {65, 65}).ok());
}

using Toy = NeuralData;
Toy MakeToy(int count, uint64_t seed) { return testing::MakeToyTask(count, seed); }

// Token-level softmax cross-entropy: loss and its gradient with respect to the emissions.
template <typename T>
T SoftmaxLoss(const Mat<T>& e, const std::vector<int>& gold, Mat<T>* d) {
  T loss = 0;
  d->resize(e.rows(), e.cols());
  for (int t = 0; t < e.cols(); ++t) {
    const T m = e.col(t).maxCoeff();
    const Vec<T> p = (e.col(t).array() - m).exp();
    const T z = p.sum();
    loss += std::log(z) + m - e(gold[t], t);
    d->col(t) = p / z;
    (*d)(gold[t], t) -= 1;
  }
  return loss;
}

Vocabulary ToyTaskVocabulary(const Toy& toy) {
  Vocabulary v;
  for (const auto& s : toy.tokens) {
    for (const auto& w : s) {
      v.AddWord(w);
      v.AddChars(w);
    }
  }
  return v;
}

TEST(BatchGradientTest, OneAndTwoThreadsGiveIdenticalBytes) {
  const Toy toy = MakeToy(23, 1);
  EncoderConfig config = SmallConfig(2);
  Encoder<float> enc(config, ToyTaskVocabulary(toy));
  enc.Initialize(9, nullptr);
  std::vector<EncodedSentence> encoded;
  for (const auto& s : toy.tokens) encoded.push_back(enc.Encode(s));
  auto run = [&](int threads, Gradients<float>* g) {
    return BatchGradient<float>(
        static_cast<int>(encoded.size()), threads, enc.layout().size(),
        [&](int i, Gradients<float>* grads) {
          std::mt19937_64 rng(1000 + i);  // per sentence: the same whatever thread runs it
          Encoder<float>::Tape tape;
          Mat<float> e, d;
          enc.Forward(encoded[i], &rng, &tape, &e);
          const float loss = SoftmaxLoss(e, toy.labels[i], &d);
          enc.Backward(encoded[i], tape, d, grads);
          return loss;
        },
        g);
  };
  Gradients<float> one, two, three;
  const float l1 = run(1, &one), l2 = run(2, &two), l3 = run(3, &three);
  EXPECT_EQ(std::memcmp(&l1, &l2, sizeof l1), 0);
  EXPECT_EQ(std::memcmp(&l1, &l3, sizeof l1), 0);
  ASSERT_EQ(one.dense.size(), two.dense.size());
  EXPECT_EQ(std::memcmp(one.dense.data(), two.dense.data(), one.dense.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(one.dense.data(), three.dense.data(), one.dense.size() * sizeof(float)), 0);
  ASSERT_EQ(one.word_vectors.size(), two.word_vectors.size());
  for (const auto& [id, v] : one.word_vectors) {
    ASSERT_TRUE(two.word_vectors.count(id));
    EXPECT_EQ(std::memcmp(v.data(), two.word_vectors.at(id).data(), v.size() * sizeof(float)), 0);
  }
}

TEST(EncoderTest, SgdLearnsAToyTask) {
  const Toy train = MakeToy(200, 2), test = MakeToy(50, 3);
  EncoderConfig config = SmallConfig(1);
  config.word_dim = 8;
  config.hidden = 8;
  config.dropout = 0.1;
  config.word_dropout = 0;
  Encoder<float> enc(config, ToyTaskVocabulary(train));
  enc.Initialize(1, nullptr);
  auto accuracy = [&](const Toy& toy) {
    int right = 0, total = 0;
    for (size_t s = 0; s < toy.tokens.size(); ++s) {
      Mat<float> e;
      enc.Forward(enc.Encode(toy.tokens[s]), nullptr, nullptr, &e);
      for (int t = 0; t < e.cols(); ++t) {
        Eigen::Index best;
        e.col(t).maxCoeff(&best);
        right += best == toy.labels[s][t];
        ++total;
      }
    }
    return static_cast<double>(right) / total;
  };
  const double before = accuracy(test);
  std::vector<EncodedSentence> encoded;
  for (const auto& s : train.tokens) encoded.push_back(enc.Encode(s));
  const float lr = 0.1f;
  for (int epoch = 0; epoch < 20; ++epoch) {
    for (size_t start = 0; start < encoded.size(); start += 10) {
      Gradients<float> g;
      BatchGradient<float>(
          10, 2, enc.layout().size(),
          [&](int i, Gradients<float>* grads) {
            std::mt19937_64 rng(epoch * 100000 + start + i);
            Encoder<float>::Tape tape;
            Mat<float> e, d;
            enc.Forward(encoded[start + i], &rng, &tape, &e);
            const float loss = SoftmaxLoss(e, train.labels[start + i], &d);
            enc.Backward(encoded[start + i], tape, d, grads);
            return loss;
          },
          &g);
      for (size_t k = 0; k < g.dense.size(); ++k) enc.params()[k] -= lr * g.dense[k] / 10;
      for (const auto& [id, v] : g.word_vectors) enc.word_embeddings().col(id) -= lr * v / 10;
    }
  }
  const double after = accuracy(test);
  EXPECT_GT(after, 0.97) << "before " << before;
  EXPECT_GT(after, before + 0.2);
}

}  // namespace
}  // namespace chaintag::neural
