// Skipgram word vectors through fastText's library: chaintag::embeddings::TrainWordVectors.
#include "embeddings/train_word_vectors.h"

#include <fasttext/fasttext.h>

#include <cmath>
#include <exception>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chaintag/corpus.h"
#include "text/text_file.h"

namespace chaintag::embeddings {

namespace {

// Longest input line (a paragraph) read.
constexpr int64_t kMaxLineBytes = int64_t{1} << 24;

absl::Status Range(const char* what, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected ", lo, " to ", hi, ", found ", value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateEmbeddingOptions(const EmbeddingOptions& o) {
  for (absl::Status s : {
           Range("dim", o.dim, 1, neural::WordVectors::kMaxDim),
           Range("epochs", o.epochs, 1, 1000),
           Range("min-count", o.min_count, 1, 1e9),
           Range("minn", o.minn, 0, neural::WordVectors::kMaxNgramLength),
           Range("maxn", o.maxn, 0, neural::WordVectors::kMaxNgramLength),
           Range("window", o.window, 1, 100),
           Range("negatives", o.negatives, 1, 100),
           Range("bucket", static_cast<double>(o.bucket), 1,
                 static_cast<double>(neural::WordVectors::kMaxBuckets)),
           Range("learning-rate", o.learning_rate, 1e-6, 10),
           Range("sampling", o.sampling, 0, 1),
           Range("threads", o.threads, 1, 1024),
       }) {
    if (!s.ok()) return s;
  }
  if ((o.minn == 0) != (o.maxn == 0) || o.minn > o.maxn) {
    return absl::InvalidArgumentError(
        absl::StrCat("minn/maxn: expected 1 <= minn <= maxn, or both 0 for no n-grams, found ",
                     o.minn, " and ", o.maxn));
  }
  return absl::OkStatus();
}

absl::StatusOr<neural::WordVectors> FromFastText(const fasttext::FastText& model) {
  const fasttext::Args args = model.getArgs();
  std::shared_ptr<const fasttext::Dictionary> dict = model.getDictionary();
  std::shared_ptr<const fasttext::DenseMatrix> input = model.getInputMatrix();
  neural::WordVectors::Shape shape;
  shape.dim = args.dim;
  if (args.maxn > 0) {
    shape.minn = args.minn;
    shape.maxn = args.maxn;
    shape.bucket = args.bucket;
  }
  const int32_t n = dict->nwords();
  if (input->cols() != args.dim || input->rows() != int64_t{n} + args.bucket) {
    return absl::InternalError("fastText's input matrix has an unexpected shape");
  }
  std::vector<std::string> words(n);
  std::vector<int64_t> counts = dict->getCounts(fasttext::entry_type::word);
  std::vector<float> word_rows(static_cast<size_t>(n) * args.dim);
  fasttext::Vector vec(args.dim);
  for (int32_t i = 0; i < n; ++i) {
    words[i] = dict->getWord(i);
    model.getWordVector(vec, words[i]);
    std::copy(vec.data(), vec.data() + args.dim, word_rows.begin() + int64_t{i} * args.dim);
  }
  std::vector<float> ngram_rows;
  if (shape.bucket > 0) {
    const float* begin = input->data() + int64_t{n} * args.dim;
    ngram_rows.assign(begin, begin + shape.bucket * args.dim);
  }
  return neural::WordVectors::Create(shape, std::move(words), std::move(counts),
                                     std::move(word_rows), std::move(ngram_rows));
}

absl::StatusOr<neural::WordVectors> TrainWordVectors(
    const std::vector<std::string>& files, bool pretokenized, const EmbeddingOptions& options,
    const std::function<void(std::string_view)>& log) {
  if (absl::Status s = ValidateEmbeddingOptions(options); !s.ok()) return s;
  std::error_code ec;
  const std::filesystem::path dir = options.temp_dir.empty()
                                        ? std::filesystem::temp_directory_path(ec)
                                        : std::filesystem::path(options.temp_dir);
  if (ec) return absl::InternalError(absl::StrCat("no temporary directory: ", ec.message()));
  // Never committed: the destructor (or the CLI's signal handler) removes it.
  AtomicOutputFile tokens_file;
  if (absl::Status s = tokens_file.Open((dir / "chaintag-embeddings-text").string()); !s.ok()) {
    return s;
  }
  std::ostream& out = tokens_file.stream();
  int64_t tokens = 0, sentences = 0;
  for (const std::string& file : files) {
    absl::Status s = text_internal::ForEachTextSentence(
        file, pretokenized, kMaxLineBytes, [&](absl::Span<const std::string_view> sentence) {
          for (size_t i = 0; i < sentence.size(); ++i) {
            // fastText splits words at these bytes; the tokeniser never puts them in a token.
            if (sentence[i].find_first_of(std::string_view(" \t\n\r\v\f\0", 7)) !=
                std::string_view::npos) {
              return absl::InvalidArgumentError("expected tokens without whitespace or NUL bytes");
            }
            if (i > 0) out << ' ';
            out << sentence[i];
          }
          out << '\n';
          tokens += static_cast<int64_t>(sentence.size());
          ++sentences;
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  out.flush();
  if (!out) {
    return absl::DataLossError(
        absl::StrCat(tokens_file.temp_path(), ": could not write the tokenised text"));
  }
  if (log) {
    log(absl::StrFormat("read %d tokens in %d sentences", tokens, sentences));
  }
  if (tokens == 0) return absl::InvalidArgumentError("no tokens in the input to train on");

  fasttext::Args args;
  args.input = tokens_file.temp_path();
  args.model = fasttext::model_name::sg;
  args.loss = fasttext::loss_name::ns;
  args.dim = options.dim;
  args.epoch = options.epochs;
  args.minCount = options.min_count;
  args.minn = options.minn;
  args.maxn = options.maxn;
  args.ws = options.window;
  args.neg = options.negatives;
  args.bucket = static_cast<int>(options.bucket);
  args.lr = options.learning_rate;
  args.t = options.sampling;
  args.seed = options.seed;
  args.thread = options.threads;
  args.verbose = 0;
  fasttext::FastText model;
  int reported = 0;
  try {
    model.train(args, [&](float progress, float loss, double words_per_second, double, int64_t) {
      const int tenth = static_cast<int>(std::floor(progress * 10));
      if (log && tenth > reported && tenth < 10) {
        reported = tenth;
        // fastText publishes its loss only when training ends.
        (void)loss;
        log(absl::StrFormat("%d%% trained, %.0f words/s/thread", tenth * 10, words_per_second));
      }
    });
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("fastText: ", e.what()));
  }
  return FromFastText(model);
}

}  // namespace chaintag::embeddings
