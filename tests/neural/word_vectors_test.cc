// Word vectors: fastText's subword rule reproduced, the file format round trip and its checks,
// and `chaintag embeddings`' training (deterministic with one thread, the project's tokeniser).
#include "neural/word_vectors.h"

#include <fasttext/fasttext.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "embeddings/train_word_vectors.h"
#include "gtest/gtest.h"

namespace chaintag::neural {
namespace {

// A small text with some repetition so the vocabulary survives min-count 1..2.
std::string ToyText() {
  std::mt19937 rng(7);
  const std::vector<std::string> words = {"the", "dog", "dogs", "cat",  "cats",   "runs",
                                          "ran", "a",   "über", "fast", "slowly", "barked"};
  std::string text;
  for (int s = 0; s < 300; ++s) {
    const int len = 3 + static_cast<int>(rng() % 8);
    for (int i = 0; i < len; ++i) {
      if (i > 0) text += ' ';
      text += words[rng() % words.size()];
    }
    text += '\n';
  }
  return text;
}

// A directory of this test program's own for its files and the tokenised copies, removed at
// exit (a static object's destructor) so runs leave nothing in $TMPDIR.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string templ = ::testing::TempDir() + "/chaintag-wv-XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_.empty() ? fallback_ : path_; }

 private:
  std::string path_;
  std::string fallback_ = ::testing::TempDir();
};

const std::string& ScratchDir() {
  static const ScratchDirectory dir;
  return dir.path();
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ScratchDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(WordVectorsTest, OutOfVocabularyVectorsEqualFastTextsOwn) {
  const std::string path = WriteFile("wv_fasttext.txt", ToyText());
  fasttext::Args args;
  args.input = path;
  args.model = fasttext::model_name::sg;
  args.loss = fasttext::loss_name::ns;
  args.dim = 8;
  args.epoch = 1;
  args.minCount = 1;
  args.bucket = 997;
  args.thread = 1;
  args.verbose = 0;
  fasttext::FastText ft;
  ft.train(args);
  absl::StatusOr<WordVectors> v = embeddings::FromFastText(ft);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->dim(), 8);
  EXPECT_EQ(v->shape().bucket, 997);
  fasttext::Vector expected(8);
  std::vector<float> got(8);
  // In the vocabulary, unseen ASCII, unseen with multi-byte code points, one letter, a long word.
  for (const std::string word : {"dogs", "über", "doggo", "üb€rs", "x", "cats-and-dogs-forever"}) {
    ft.getWordVector(expected, word);
    ASSERT_TRUE(v->Lookup(word, absl::MakeSpan(got))) << word;
    for (int d = 0; d < 8; ++d) EXPECT_FLOAT_EQ(got[d], expected[d]) << word << " " << d;
  }
  EXPECT_GE(v->Find("dogs"), 0);
  EXPECT_EQ(v->Find("doggo"), -1);
  std::filesystem::remove(path);
}

TEST(WordVectorsTest, NgramBucketsFollowFastTextsRule) {
  std::vector<int64_t> b;
  NgramBuckets("ab", 1, 2, 1 << 20, &b);
  // "<ab>": n-grams "<a", "a", "ab", "b", "b>" (the lone "<" and ">" are left out).
  EXPECT_EQ(b.size(), 5u);
  b.clear();
  NgramBuckets("é", 1, 1, 1 << 20, &b);  // one code point of two bytes: one unigram
  EXPECT_EQ(b.size(), 1u);
  b.clear();
  NgramBuckets("abc", 0, 0, 0, &b);
  EXPECT_TRUE(b.empty());
}

WordVectors Small() {
  WordVectors::Shape shape{3, 2, 3, 5};
  std::vector<float> rows = {0.5f, -1, 2, 0, 0.25f, 1};
  std::vector<float> ngrams(15);
  for (int i = 0; i < 15; ++i) ngrams[i] = 0.1f * static_cast<float>(i) - 0.7f;
  absl::StatusOr<WordVectors> v = WordVectors::Create(shape, {"dog", "über"}, {4, 1}, rows, ngrams);
  EXPECT_TRUE(v.ok()) << v.status();
  return *std::move(v);
}

TEST(WordVectorsTest, RoundTripsAndRejectsDamagedFiles) {
  const WordVectors v = Small();
  const std::string bytes = v.Serialize();
  absl::StatusOr<WordVectors> back = WordVectors::Parse(bytes, "v.bin");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(back->word(1), "über");
  EXPECT_EQ(back->count(0), 4);
  std::vector<float> a(3), b(3);
  for (std::string w : {"dog", "cat", "übers"}) {
    ASSERT_TRUE(v.Lookup(w, absl::MakeSpan(a)));
    ASSERT_TRUE(back->Lookup(w, absl::MakeSpan(b)));
    EXPECT_EQ(a, b) << w;
  }
  // Every single-byte change, and every truncation, is refused with the file's name.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x5a;
    absl::StatusOr<WordVectors> r = WordVectors::Parse(bad, "v.bin");
    ASSERT_FALSE(r.ok()) << "byte " << i;
    EXPECT_NE(r.status().message().find("v.bin: "), std::string::npos) << r.status();
    r = WordVectors::Parse(std::string_view(bytes).substr(0, i), "v.bin");
    ASSERT_FALSE(r.ok()) << "truncated at " << i;
  }
  EXPECT_FALSE(WordVectors::Parse(bytes + "x", "v.bin").ok());
}

TEST(WordVectorsTest, CreateChecksItsParts) {
  WordVectors::Shape shape{2, 0, 0, 0};
  EXPECT_TRUE(WordVectors::Create(shape, {"a"}, {1}, {1, 2}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {"a", "a"}, {1, 1}, {1, 2, 3, 4}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {"a b"}, {1}, {1, 2}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {""}, {1}, {1, 2}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {"a"}, {0}, {1, 2}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {"a"}, {1}, {1, NAN}, {}).ok());
  EXPECT_FALSE(WordVectors::Create(shape, {"a"}, {1}, {1}, {}).ok());
  EXPECT_FALSE(WordVectors::Create({2, 3, 2, 5}, {"a"}, {1}, {1, 2}, std::vector<float>(10)).ok());
  EXPECT_FALSE(WordVectors::Create({0, 0, 0, 0}, {}, {}, {}, {}).ok());
  // Without n-grams an unknown word has no vector.
  absl::StatusOr<WordVectors> v = WordVectors::Create(shape, {"a"}, {1}, {1, 2}, {});
  std::vector<float> out(2, 9);
  EXPECT_FALSE(v->Lookup("b", absl::MakeSpan(out)));
  EXPECT_EQ(out, std::vector<float>({0, 0}));
}

embeddings::EmbeddingOptions TinyOptions() {
  embeddings::EmbeddingOptions o;
  o.dim = 6;
  o.epochs = 2;
  o.min_count = 2;
  o.bucket = 2000;
  o.temp_dir = ScratchDir();
  return o;
}

TEST(TrainWordVectorsTest, OneThreadIsDeterministicAndReadsGzipThroughTheTokeniser) {
  // Raw text: "barked." is tokenised into "barked" and ".", so "barked." itself is never a word.
  // 40 lines of "The dog barked. A cat ran fast, the dog too.", gzip-compressed.
  const std::string gz = std::string(CHAINTAG_FIXTURES_DIR) + "/neural/toy-text.txt.gz";
  absl::StatusOr<WordVectors> a = embeddings::TrainWordVectors({gz}, false, TinyOptions());
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<WordVectors> b = embeddings::TrainWordVectors({gz}, false, TinyOptions());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->Serialize(), b->Serialize());
  EXPECT_GE(a->Find("dog"), 0);
  EXPECT_GE(a->Find("."), 0);
  EXPECT_EQ(a->Find("barked."), -1);
  // Pretokenised: the line's whitespace-separated fields are the words.
  absl::StatusOr<WordVectors> pre = embeddings::TrainWordVectors({gz}, true, TinyOptions());
  ASSERT_TRUE(pre.ok()) << pre.status();
  EXPECT_GE(pre->Find("barked."), 0);
  // The temporary copy of the text is gone.
  for (const auto& entry : std::filesystem::directory_iterator(ScratchDir())) {
    EXPECT_EQ(entry.path().filename().string().find("chaintag-embeddings-text"), std::string::npos)
        << entry.path();
  }
}

TEST(TrainWordVectorsTest, ErrorsNameTheFileAndOptions) {
  const std::string bad = WriteFile("wv_bad.txt", "fine line\nbad \xff byte\n");
  absl::StatusOr<WordVectors> r = embeddings::TrainWordVectors({bad}, true, TinyOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wv_bad.txt:2"), std::string::npos) << r.status();
  const std::string empty = WriteFile("wv_empty.txt", "\n\n");
  r = embeddings::TrainWordVectors({empty}, true, TinyOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no tokens"), std::string::npos) << r.status();
  r = embeddings::TrainWordVectors({ScratchDir() + "/wv_missing.txt"}, true, TinyOptions());
  EXPECT_FALSE(r.ok());
  embeddings::EmbeddingOptions o = TinyOptions();
  o.minn = 4;
  o.maxn = 3;
  EXPECT_FALSE(embeddings::ValidateEmbeddingOptions(o).ok());
  o = TinyOptions();
  o.dim = 0;
  EXPECT_FALSE(embeddings::ValidateEmbeddingOptions(o).ok());
  std::filesystem::remove(bad);
  std::filesystem::remove(empty);
}

}  // namespace
}  // namespace chaintag::neural
