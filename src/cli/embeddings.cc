// chaintag embeddings [options] -o FILE FILE...
// Skipgram word vectors with subword n-grams of unlabeled text (fastText's library), written in
// chaintag's word-vector format (docs/embeddings.md) for the neural encoder.
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "embeddings/train_word_vectors.h"

namespace chaintag::cli {

int RunEmbeddings(const std::vector<std::string>& args) {
  const std::string cmd = "embeddings";
  embeddings::EmbeddingOptions d;
  po::options_description options("embeddings options");
  options.add_options()("output,o", po::value<std::string>(),
                        "word-vector file to write (required)")(
      "pretokenized", po::bool_switch(),
      "input is already tokenised: split lines at whitespace instead of running the tokeniser")(
      "dim", po::value<int>()->default_value(d.dim), "vector dimension")(
      "epochs", po::value<int>()->default_value(d.epochs), "passes over the text")(
      "min-count", po::value<int>()->default_value(d.min_count),
      "words seen fewer times get no vector of their own (their n-grams still learn)")(
      "minn", po::value<int>()->default_value(d.minn),
      "shortest character n-gram (0 with --maxn 0: no n-grams)")(
      "maxn", po::value<int>()->default_value(d.maxn), "longest character n-gram")(
      "window", po::value<int>()->default_value(d.window), "context window (words each side)")(
      "negatives", po::value<int>()->default_value(d.negatives), "negative samples per word")(
      "bucket", po::value<int64_t>()->default_value(d.bucket), "hash rows for the n-grams")(
      "learning-rate", po::value<double>()->default_value(d.learning_rate),
      "initial learning rate (decays linearly to 0)")(
      "sampling", po::value<double>()->default_value(d.sampling),
      "subsampling threshold of frequent words")("seed", po::value<int>()->default_value(d.seed),
                                                 "random seed")(
      "threads", po::value<int>()->default_value(1),
      "training threads (0: every core); only 1 gives the same vectors on every run")(
      "temp-dir", po::value<std::string>()->default_value(""),
      "directory for the tokenised copy of the text (default: $TMPDIR or /tmp)");
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[options] -o FILE FILE...", options, args, &vm); rc >= 0) {
    return rc;
  }
  if (!vm.count("output")) return UsageError(cmd, "-o FILE is required");
  embeddings::EmbeddingOptions o;
  o.dim = vm["dim"].as<int>();
  o.epochs = vm["epochs"].as<int>();
  o.min_count = vm["min-count"].as<int>();
  o.minn = vm["minn"].as<int>();
  o.maxn = vm["maxn"].as<int>();
  o.window = vm["window"].as<int>();
  o.negatives = vm["negatives"].as<int>();
  o.bucket = vm["bucket"].as<int64_t>();
  o.learning_rate = vm["learning-rate"].as<double>();
  o.sampling = vm["sampling"].as<double>();
  o.seed = vm["seed"].as<int>();
  o.temp_dir = vm["temp-dir"].as<std::string>();
  absl::StatusOr<int> threads = ThreadsFrom(cmd, vm["threads"].as<int>());
  if (!threads.ok()) return UsageError(cmd, std::string(threads.status().message()));
  o.threads = *threads;
  if (absl::Status s = embeddings::ValidateEmbeddingOptions(o); !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  const std::string output = vm["output"].as<std::string>();
  if (output == "-") return UsageError(cmd, "-o: expected a file (the format is binary)");
  if (absl::Status s = CheckOutputIsNotAnInput(output, FilesRead(vm, {})); !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  if (absl::Status s = CheckWritable(output); !s.ok()) return Fail(cmd, s);

  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  absl::StatusOr<neural::WordVectors> vectors = embeddings::TrainWordVectors(
      InputFiles(vm), vm["pretokenized"].as<bool>(), o, [&](std::string_view line) {
        std::cerr << absl::StrFormat("chaintag embeddings: %s (%.1fs)\n", line, seconds());
      });
  if (!vectors.ok()) return Fail(cmd, vectors.status());
  auto out = Output::Open(output);
  if (!out.ok()) return Fail(cmd, out.status());
  (*out)->stream() << vectors->Serialize();
  if (absl::Status s = (*out)->Commit(); !s.ok()) return Fail(cmd, s);
  std::cerr << absl::StrFormat(
      "chaintag embeddings: %d words with vectors of %d, %d n-gram rows (%.1fs)\n",
      vectors->num_words(), vectors->dim(), vectors->shape().bucket, seconds());
  return kExitOk;
}

}  // namespace chaintag::cli
