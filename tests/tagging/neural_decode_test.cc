// Neural and hybrid models (train --encoder): the encoder fills the lattice's unaries in
// Tagger::BuildLattice, so constrained decoding works unchanged; checked against brute-force
// enumeration on a tiny trained model. Also the model file's 'neural' section: round trip,
// version, and corrupted sections refused without a crash.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/train.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/model_file.h"
#include "neural/encoder.h"
#include "neural/serialize.h"
#include "support/tiny_model.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;
using testing_model::ForEachLabeling;

uint32_t GetU32(const std::string& bytes, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(bytes[pos + i])} << (8 * i);
  return v;
}
void PutU32(std::string* bytes, size_t pos, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*bytes)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

Sentence Labelled(const std::vector<std::string>& words, const std::vector<std::string>& tags) {
  Sentence s;
  s.columns = {words};
  s.labels = tags;
  s.file = "toy.conll";
  for (size_t t = 0; t < words.size(); ++t) s.token_lines.push_back(static_cast<int64_t>(t) + 1);
  return s;
}

// Proper nouns, determiners, nouns and verbs; "walks" is a noun after a determiner and a verb
// otherwise, so the labels need context.
std::vector<Sentence> ToyCorpus(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::string> names = {"John", "Mary", "Paris", "Anna"};
  const std::vector<std::string> nouns = {"dog", "cat", "walks", "car"};
  const std::vector<std::string> verbs = {"sees", "likes", "walks"};
  std::vector<Sentence> out;
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> w, t;
    auto subject = [&] {
      if (rng() % 2) {
        w.push_back(names[rng() % names.size()]);
        t.push_back("NNP");
      } else {
        w.push_back("the");
        t.push_back("DT");
        w.push_back(nouns[rng() % nouns.size()]);
        t.push_back("NN");
      }
    };
    subject();
    w.push_back(verbs[rng() % verbs.size()]);
    t.push_back("VBZ");
    subject();
    out.push_back(Labelled(w, t));
  }
  return out;
}

TrainOptions SmallOptions(EncoderKind encoder) {
  TrainOptions o;
  o.encoder = encoder;
  o.epochs = 15;
  o.batch_size = 4;
  o.word_dim = 8;
  o.char_filters = 6;
  o.hidden = 8;
  o.threads = 1;
  return o;
}

Model TrainToy(EncoderKind encoder, CharEncoderKind chars = CharEncoderKind::kCnn) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  const std::vector<Sentence> train = ToyCorpus(60, 1), dev = ToyCorpus(20, 2);
  TrainOptions options = SmallOptions(encoder);
  options.char_encoder = chars;
  absl::StatusOr<Model> model = Train(options, *spec, train, &dev, /*observer=*/nullptr);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

const Model& Hybrid() {
  static const Model* model = new Model(TrainToy(EncoderKind::kHybrid));
  return *model;
}
const Model& Neural() {
  static const Model* model = new Model(TrainToy(EncoderKind::kNeural));
  return *model;
}

TEST(NeuralModelTest, TrainedModelsLearnTheToyTask) {
  for (const Model* model : {&Hybrid(), &Neural()}) {
    ASSERT_NE(model->encoder(), nullptr);
    Tagger tagger(*model);
    int right = 0, total = 0;
    for (const Sentence& s : ToyCorpus(30, 3)) {
      absl::StatusOr<Labeling> best = tagger.Tag(s);
      ASSERT_TRUE(best.ok()) << best.status();
      for (int t = 0; t < s.size(); ++t) {
        right += model->labels()[best->labels[t]] == s.labels[t];
        ++total;
      }
    }
    EXPECT_GT(right, 0.95 * total) << model->Metadata("encoder");
  }
  // A neural model keeps no sparse features; a hybrid one does.
  EXPECT_EQ(Neural().num_state_features(), 0);
  EXPECT_GT(Hybrid().num_state_features(), 0);
}

TEST(NeuralModelTest, TheLatticeUnariesAreTheEncoderEmissions) {
  const Model& model = Neural();
  const Sentence s = Labelled({"Mary", "likes", "the", "walks"}, {"NNP", "VBZ", "DT", "NN"});
  Tagger tagger(model);
  Lattice lattice;
  ASSERT_TRUE(tagger.BuildLattice(s, &lattice).ok());
  neural::Mat<float> emissions;
  model.encoder()->Forward(model.encoder()->Encode(s.columns[0]), nullptr, nullptr, &emissions);
  for (int t = 0; t < s.size(); ++t) {
    for (int y = 0; y < model.num_labels(); ++y) {
      EXPECT_EQ(lattice.unary(t, y), static_cast<double>(emissions(y, t)));
    }
  }
}

// The k best labelings with at most `max_nnp` NNP tags, by enumeration of the lattice.
std::vector<double> BruteForce(const Model& model, const Sentence& s, int max_nnp, int k) {
  Tagger tagger(model);
  Lattice lattice;
  EXPECT_TRUE(tagger.BuildLattice(s, &lattice).ok());
  const int nnp = model.LabelId("NNP");
  std::vector<double> scores;
  ForEachLabeling(s.size(), model.num_labels(), [&](const std::vector<int>& y) {
    if (std::count(y.begin(), y.end(), nnp) <= max_nnp) scores.push_back(lattice.Score(y));
  });
  std::sort(scores.rbegin(), scores.rend());
  if (static_cast<int>(scores.size()) > k) scores.resize(k);
  return scores;
}

TEST(NeuralModelTest, CountConstraintAndKBestMatchBruteForce) {
  for (const Model* model : {&Hybrid(), &Neural()}) {
    const int nnp = model->LabelId("NNP");
    ASSERT_GE(nnp, 0);
    for (const Sentence& s : ToyCorpus(8, 4)) {
      for (int max_nnp : {0, 1}) {
        DecodeRequest request;
        absl::StatusOr<CountConstraint> count =
            ParseCountConstraint(absl::StrCat("NNP=..", max_nnp), model->labels());
        ASSERT_TRUE(count.ok()) << count.status();
        request.counts.push_back(*count);
        request.kbest = 3;
        Pipeline pipeline({model}, request);
        TagResult r;
        r.sentence = s;
        r.sentence.labels.clear();
        pipeline.Run(&r);
        ASSERT_TRUE(r.error.ok()) << r.error;
        ASSERT_EQ(r.status, SentenceStatus::kOk);
        const std::vector<double> want = BruteForce(*model, s, max_nnp, 3);
        ASSERT_EQ(r.solutions.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
          EXPECT_NEAR(r.solutions[i].score, want[i], 1e-9 * (1 + std::abs(want[i])));
          EXPECT_LE(std::count(r.solutions[i].labels.begin(), r.solutions[i].labels.end(), nnp),
                    max_nnp);
        }
      }
    }
  }
}

TEST(NeuralModelTest, FileRoundTripKeepsTheEncoder) {
  for (const Model* model : {&Hybrid(), &Neural()}) {
    const std::string bytes = model->ToBytes();
    EXPECT_EQ(GetU32(bytes, 8), model_file::kFormatVersion);
    absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "toy.model");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_NE(loaded->encoder(), nullptr);
    EXPECT_EQ(loaded->ToBytes(), bytes);
    const Sentence s = Labelled({"the", "dog", "walks", "John"}, {"DT", "NN", "VBZ", "NNP"});
    Tagger a(*model), b(*loaded);
    Lattice la, lb;
    ASSERT_TRUE(a.BuildLattice(s, &la).ok());
    ASSERT_TRUE(b.BuildLattice(s, &lb).ok());
    for (int t = 0; t < s.size(); ++t) {
      for (int y = 0; y < model->num_labels(); ++y) EXPECT_EQ(la.unary(t, y), lb.unary(t, y));
    }
  }
}

// The byte range of the 'neural' section in an image.
std::pair<uint64_t, uint64_t> NeuralSection(const std::string& bytes) {
  absl::StatusOr<std::vector<model_file::SectionEntry>> table =
      model_file::ReadSectionTable(bytes, "toy.model");
  EXPECT_TRUE(table.ok());
  for (const auto& e : *table) {
    if (e.id == model_file::kNeural) return {e.offset, e.length};
  }
  ADD_FAILURE() << "no neural section";
  return {0, 0};
}

// A character BiLSTM (train --char-encoder bilstm): learns the toy task, is written as encoder
// section version 4 (3 without int8 embeddings) with the encoder after the configuration, reads
// back to the same bytes and emissions, records the option (CNN models do not), and a stored
// character encoder other than 1 is refused.
TEST(NeuralModelTest, CharacterBiLstmModelsRoundTripAndAreValidated) {
  const Model model = TrainToy(EncoderKind::kHybrid, CharEncoderKind::kBiLstm);
  ASSERT_NE(model.encoder(), nullptr);
  EXPECT_EQ(model.encoder()->config().char_encoder, neural::CharEncoder::kBiLstm);
  EXPECT_EQ(model.encoder()->config().char_filters, 6);
  EXPECT_EQ(model.Metadata("char_encoder"), "bilstm");
  EXPECT_EQ(Hybrid().Metadata("char_encoder"), "");
  Tagger tagger(model);
  int right = 0, total = 0;
  for (const Sentence& s : ToyCorpus(30, 3)) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok()) << best.status();
    for (int t = 0; t < s.size(); ++t) {
      right += model.labels()[best->labels[t]] == s.labels[t];
      ++total;
    }
  }
  EXPECT_GT(right, 0.95 * total);

  const std::string bytes = model.ToBytes();
  const auto [offset, length] = NeuralSection(bytes);
  EXPECT_EQ(GetU32(bytes, offset), neural::kEncoderSectionInt8Chars);
  EXPECT_EQ(GetU32(bytes, offset + 36), 1u);  // after the version and 8 sizes
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "toy.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->ToBytes(), bytes);
  const Sentence s = Labelled({"the", "dog", "walks", "Johnny"}, {"DT", "NN", "VBZ", "NNP"});
  Tagger a(model), b(*loaded);
  Lattice la, lb;
  ASSERT_TRUE(a.BuildLattice(s, &la).ok());
  ASSERT_TRUE(b.BuildLattice(s, &lb).ok());
  for (int t = 0; t < s.size(); ++t) {
    for (int y = 0; y < model.num_labels(); ++y) EXPECT_EQ(la.unary(t, y), lb.unary(t, y));
  }
  neural::Encoder<float> half = *model.encoder();
  half.embedding_scales().clear();
  const std::string v3 = neural::SerializeEncoder(half);
  EXPECT_EQ(GetU32(v3, 0), neural::kEncoderSectionHalfChars);
  absl::StatusOr<neural::Encoder<float>> parsed = neural::ParseEncoder(v3, "toy.model");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(neural::SerializeEncoder(*parsed), v3);
  for (uint32_t kind : {0u, 2u}) {
    std::string bad = bytes;
    PutU32(&bad, offset + 36, kind);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    absl::StatusOr<Model> refused = Model::FromBytes(bad, "toy.model");
    ASSERT_FALSE(refused.ok()) << kind;
    EXPECT_THAT(refused.status().message(), HasSubstr("character encoder"));
  }
  // An odd output size is refused before training.
  TrainOptions odd = SmallOptions(EncoderKind::kNeural);
  odd.char_encoder = CharEncoderKind::kBiLstm;
  odd.char_filters = 7;
  EXPECT_THAT(ValidateTrainOptions(odd).message(), HasSubstr("even"));
}

// Version 2 stores each word's embedding as int8 with its scale (max |value| / 127, so some value
// is +-127); version 1 (float16, written for encoders without scales) is still read, and both
// write back the bytes they were read from.
TEST(NeuralModelTest, EmbeddingsAreInt8AndVersionOneIsStillRead) {
  const neural::Encoder<float>& encoder = *Neural().encoder();
  const neural::Mat<float>& e = encoder.word_embeddings();
  ASSERT_EQ(encoder.embedding_scales().size(), static_cast<size_t>(e.cols()));
  for (Eigen::Index w = 0; w < e.cols(); ++w) {
    const float scale = encoder.embedding_scales()[w];
    ASSERT_GT(scale, 0);
    EXPECT_EQ(scale, e.col(w).cwiseAbs().maxCoeff() / 127.0f) << w;
    for (Eigen::Index d = 0; d < e.rows(); ++d) {
      // q * scale rounded to float: within a few ulps of an integer in -127..127.
      const float q = e(d, w) / scale;
      EXPECT_NEAR(q, std::round(q), 1e-4) << w << " " << d;
      EXPECT_LE(std::abs(std::round(q)), 127);
    }
  }
  const std::string v2 = neural::SerializeEncoder(encoder);
  EXPECT_EQ(GetU32(v2, 0), neural::kEncoderSectionInt8);
  neural::Encoder<float> half = encoder;
  half.embedding_scales().clear();
  const std::string v1 = neural::SerializeEncoder(half);
  EXPECT_EQ(GetU32(v1, 0), neural::kEncoderSectionHalf);
  for (const std::string* section : {&v1, &v2}) {
    const std::string& bytes = *section;
    absl::StatusOr<neural::Encoder<float>> parsed = neural::ParseEncoder(bytes, "toy.model");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(neural::SerializeEncoder(*parsed), bytes);
    EXPECT_EQ(parsed->params(), encoder.params());
    for (Eigen::Index i = 0; i < e.size(); ++i) {
      const float want =
          section == &v2 ? e.data()[i] : static_cast<float>(Eigen::half(e.data()[i]));
      EXPECT_EQ(parsed->word_embeddings().data()[i], want) << i;
    }
  }
}

TEST(NeuralModelTest, CorruptedSectionsAreRefusedWithoutACrash) {
  const std::string good = Neural().ToBytes();
  const auto [offset, length] = NeuralSection(good);
  ASSERT_GT(length, 100u);
  // The section version, then the label count, then the word count: each refused by name.
  for (const auto& [at, message] : std::vector<std::pair<uint64_t, std::string>>{
           {0, "encoder section version"}, {4, "label count"}, {36, "word count"}}) {
    std::string bad = good;
    bad[offset + at] = static_cast<char>(0x7F);
    bad[offset + at + 3] = static_cast<char>(0x7F);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bad, "toy.model");
    ASSERT_FALSE(loaded.ok()) << at;
    EXPECT_THAT(loaded.status().message(), HasSubstr("section 'neural'"));
    EXPECT_THAT(loaded.status().message(), HasSubstr(message));
  }
  // Every byte of the section's head changed in turn (sizes, vocabulary): an error or a model
  // that passes its self-tests, never a crash.
  for (uint64_t at = 0; at < std::min<uint64_t>(length, 400); ++at) {
    std::string bad = good;
    bad[offset + at] = static_cast<char>(bad[offset + at] ^ 0xA5);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    (void)Model::FromBytes(bad, "toy.model");
  }
  // A NaN parameter is refused.
  {
    std::string bad = good;
    // After the parameters: per word a float32 scale and 8 int8 values.
    const uint64_t last_param =
        offset + length - (4 + 8) * Neural().encoder()->vocabulary().num_words() - 4;
    bad[last_param] = 0;
    bad[last_param + 1] = 0;
    bad[last_param + 2] = static_cast<char>(0xC0);
    bad[last_param + 3] = static_cast<char>(0x7F);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bad, "toy.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.status().message(), HasSubstr("finite parameter"));
  }
  // The last word's embedding: a NaN or negative scale, or an int8 value of -128, is refused.
  const uint64_t last_word = offset + length - (4 + 8);
  for (const auto& [at, bytes, message] :
       std::vector<std::tuple<uint64_t, std::string, std::string>>{
           {last_word, std::string("\x00\x00\xC0\x7F", 4), "finite embedding scale"},
           {last_word, std::string("\x00\x00\x80\xBF", 4), "non-negative embedding scale"},
           {last_word + 4 + 3, std::string("\x80", 1), "-127 to 127, found -128"}}) {
    std::string bad = good;
    bad.replace(at, bytes.size(), bytes);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bad, "toy.model");
    ASSERT_FALSE(loaded.ok()) << message;
    EXPECT_THAT(loaded.status().message(), HasSubstr(message));
  }
  // A file claiming version 4 (neural models before the in-place layout) asks for retraining.
  {
    std::string bad = good;
    PutU32(&bad, 8, 4);
    ASSERT_TRUE(model_file::RecomputeChecksums(&bad).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bad, "toy.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.status().message(), HasSubstr("made by an older chaintag (model format 4)"));
  }
}

TEST(NeuralModelTest, SparseFeaturesAreCutToTheCap) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  ASSERT_TRUE(spec.ok());
  const std::vector<Sentence> train = ToyCorpus(30, 1), dev = ToyCorpus(10, 2);
  TrainOptions o = SmallOptions(EncoderKind::kHybrid);
  o.epochs = 2;
  o.max_sparse_features = 5;
  absl::StatusOr<Model> model = Train(o, *spec, train, &dev, nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_LE(model->num_state_features(), 5);
  EXPECT_GT(model->num_state_features(), 0);
  EXPECT_NE(model->Metadata("dev_score_before_feature_cut"), "");
  EXPECT_NE(model->Metadata("dev_score"), "");
}

TEST(NeuralModelTest, OptionsOutsideTheNeuralTrainerAreRefused) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nB\n");
  ASSERT_TRUE(spec.ok());
  const std::vector<Sentence> train = ToyCorpus(5, 1);
  TrainOptions o = SmallOptions(EncoderKind::kNeural);
  o.objective = Objective::kPerceptron;
  EXPECT_THAT(Train(o, *spec, train, nullptr, nullptr).status().message(),
              HasSubstr("crf, softmax-margin or ssvm-margin"));
  o = SmallOptions(EncoderKind::kHybrid);
  o.order = 2;
  EXPECT_FALSE(Train(o, *spec, train, nullptr, nullptr).ok());
  o = SmallOptions(EncoderKind::kNeural);
  o.layers = 3;
  EXPECT_THAT(Train(o, *spec, train, nullptr, nullptr).status().message(), HasSubstr("layers"));
  o = SmallOptions(EncoderKind::kSparse);
  o.embeddings = "vec.bin";
  EXPECT_THAT(Train(o, *spec, train, nullptr, nullptr).status().message(),
              HasSubstr("--encoder neural or hybrid"));
  o = SmallOptions(EncoderKind::kHybrid);
  o.embeddings = "/nonexistent/vec.bin";
  EXPECT_FALSE(Train(o, *spec, train, nullptr, nullptr).ok());
}

}  // namespace
}  // namespace chaintag
