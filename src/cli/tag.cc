// chaintag tag [-m MODEL ...] [--format F] [--output-format F] [decoding options] FILE...|-
//
// The input format is --format, else the files' extension (.conll, .conllu, .mrg, ...; .gz
// stripped), else attributes for a model trained on them, else raw UTF-8 text (sentence splitting
// and Penn Treebank tokenisation). Models form a pipeline: the first model reads the
// input's columns; every later model reads the word column followed by the labels predicted by the
// models before it (a POS model, then a chunk model that reads the predicted POS as its column 2).
// Constraints, k-best and diverse k-best apply to the last model. Sentences are tagged in batches
// by --threads workers and written in input order, so the output does not depend on the thread
// count.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/text.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/ranks.h"
#include "cli/tag_output.h"
#include "cli/tag_ranks.h"
#include "corpus/line_reader.h"
#include "tagging/request_table.h"

namespace chaintag::cli {

namespace {

// Reads --exclude FILE line by line, one line per input sentence (ParseExclusionLine): UTF-8,
// LF or CRLF line ends, lines no longer than the corpus readers accept.
class ExcludeReader {
 public:
  absl::Status Open(const std::string& path, int64_t max_line_bytes) {
    path_ = path;
    auto in = OpenInputStream(path);
    if (!in.ok()) return in.status();
    in_ = std::move(*in);
    lines_ = std::make_unique<corpus_internal::LineReader>(*in_, path, max_line_bytes);
    return absl::OkStatus();
  }
  bool active() const { return lines_ != nullptr; }
  absl::Status Next(TagResult* r) {
    std::string_view line;
    auto got = lines_->Next(&line);
    if (!got.ok()) return got.status();
    if (!*got) {
      return absl::InvalidArgumentError(
          absl::StrCat(Location(path_, lines_->line_number() + 1),
                       ": expected a line of excluded labelings for sentence ",
                       lines_->line_number() + 1, ", found the end of the file"));
    }
    r->exclude_line = lines_->line_number();
    auto labelings = ParseExclusionLine(line);
    if (!labelings.ok()) {
      const absl::string_view message = labelings.status().message();
      return lines_->Error(std::string_view(message.data(), message.size()));
    }
    r->excluded = std::move(*labelings);
    return absl::OkStatus();
  }
  // After the last sentence: the file must hold no further non-empty line.
  absl::Status Finish() {
    std::string_view line;
    while (true) {
      auto got = lines_->Next(&line);
      if (!got.ok()) return got.status();
      if (!*got) return absl::OkStatus();
      if (line.find_first_not_of(" \t") != std::string_view::npos) {
        return lines_->Error(
            "expected one line per input sentence, found a line after the last sentence");
      }
    }
  }

 private:
  std::string path_;
  std::unique_ptr<std::istream> in_;
  std::unique_ptr<corpus_internal::LineReader> lines_;
};

// Where `-o DIR` writes the output for `input`.
std::string OutputPathFor(const std::string& dir, const std::string& input, OutputFormat format) {
  return (std::filesystem::path(dir) /
          (std::filesystem::path(input).filename().string() + OutputExtension(format)))
      .string();
}

// Two paths name the same file (existing ones by inode, others by their normalised absolute
// path).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
  const auto na = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  const auto nb = std::filesystem::weakly_canonical(b, ec);
  return !ec && na == nb;
}

// Refuses, before anything is written, outputs that collide with each other or with a file the
// command reads (the inputs, models, --exclude, --collective-train). With -o DIR, outputs[i] is
// the output of the i-th input file.
absl::Status CheckOutputs(const std::vector<std::string>& outputs,
                          const std::vector<std::string>& files,
                          const std::vector<InputFile>& read) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (SameFile(outputs[i], outputs[j])) {
        return absl::InvalidArgumentError(absl::StrCat("inputs '", files[j], "' and '", files[i],
                                                       "' would both be written to '", outputs[i],
                                                       "'; tag them into different directories"));
      }
    }
    if (absl::Status s = CheckOutputIsNotAnInput(outputs[i], read); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Outputs: one stream, or one file per input in an existing directory; checked before any work.
absl::Status CheckTagOutputs(const po::variables_map& vm, const std::vector<std::string>& files,
                             OutputFormat format, const std::vector<std::string>& model_paths) {
  const std::string output_path = vm["output"].as<std::string>();
  std::error_code ec;
  const bool output_dir = output_path != "-" && std::filesystem::is_directory(output_path, ec);
  std::vector<std::string> outputs;
  if (output_dir) {
    for (const std::string& f : files) {
      if (f == "-") {
        return absl::InvalidArgumentError("-o DIR needs named input files, not standard input");
      }
      outputs.push_back(OutputPathFor(output_path, f, format));
    }
  } else if (output_path != "-") {
    outputs.push_back(output_path);
  }
  std::vector<InputFile> read = FilesRead(vm, {"exclude", "collective-train"});
  for (const std::string& path : model_paths) read.push_back({path, "model"});
  return CheckOutputs(outputs, files, read);
}

// The inputs' corpus format: --format, else every input's extension (.gz stripped), which must
// all agree (and then set `reader_options`); none: no corpus extension, so the first model
// decides (attributes or raw text).
absl::StatusOr<std::optional<CorpusFormat>> InputFormatOf(const po::variables_map& vm,
                                                          const std::vector<std::string>& files,
                                                          ReaderOptions* reader_options) {
  if (vm.count("format")) return reader_options->format;
  const std::optional<CorpusFormat> first = CorpusFormatFromExtension(files.front());
  for (const std::string& f : files) {
    const std::optional<CorpusFormat> format = CorpusFormatFromExtension(f);
    if (format == first) continue;
    auto name = [](const std::string& file, std::optional<CorpusFormat> format) {
      return absl::StrCat(
          file, " (", format ? std::string(CorpusFormatName(*format)) : "no corpus extension", ")");
    };
    return absl::InvalidArgumentError(
        absl::StrCat("inputs in different formats: ", name(files.front(), first), " and ",
                     name(f, format), "; give --format or tag them apart"));
  }
  if (first) reader_options->format = *first;
  return first;
}

// A progress line on stderr, only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(int64_t total_bytes) : enabled_(isatty(2) != 0), total_bytes_(total_bytes) {}
  void Update(int64_t bytes, int64_t sentences, int64_t tokens, bool final = false) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::string line = absl::StrCat("\r", sentences, " sentences, ", tokens, " tokens");
    if (seconds > 0)
      absl::StrAppend(&line, ", ", static_cast<int64_t>(tokens / seconds), " tokens/s");
    if (total_bytes_ > 0) {
      absl::StrAppend(&line, ", ", bytes >> 20, "/", total_bytes_ >> 20, " MB");
      if (bytes > 0 && seconds > 0) {
        absl::StrAppend(&line, ", ETA ",
                        static_cast<int64_t>(seconds * (total_bytes_ - bytes) / bytes), " s");
      }
    }
    std::cerr << line << "   " << (final ? "\n" : "") << std::flush;
  }

 private:
  bool enabled_;
  int64_t total_bytes_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_;
};

// Totals over the documents of a collective run, for one line on stderr.
class CollectiveSummary {
 public:
  void Add(const DocumentReport& d) {
    if (!d.warning.empty()) {
      if (d.index != last_fallback_) ++fallback_;
      last_fallback_ = d.index;
      return;
    }
    ++documents_;
    sizes_.insert(sizes_.end(), d.clique_sizes.begin(), d.clique_sizes.end());
    iterations_ += d.iterations;
    max_iterations_ = std::max(max_iterations_, d.iterations);
    converged_ += d.converged;
    changed_ += d.changed_tokens;
    plain_ += d.plain_objective;
    objective_ += d.objective;
  }
  std::string Line() {
    std::sort(sizes_.begin(), sizes_.end());
    const int median = sizes_.empty() ? 0 : sizes_[(sizes_.size() - 1) / 2];
    const int largest = sizes_.empty() ? 0 : sizes_.back();
    return absl::StrCat(
        documents_, " documents jointly (", fallback_, " sentence by sentence), ", sizes_.size(),
        " cliques (median size ", median, ", largest ", largest, "), iterations mean ",
        documents_ ? static_cast<double>(iterations_) / documents_ : 0.0, " max ", max_iterations_,
        ", converged ", converged_, "/", documents_, ", tokens changed ", changed_,
        ", joint objective ", plain_, " -> ", objective_);
  }

 private:
  int64_t documents_ = 0, fallback_ = 0, last_fallback_ = -1;
  std::vector<int> sizes_;
  int64_t iterations_ = 0;
  int max_iterations_ = 0;
  int64_t converged_ = 0, changed_ = 0;
  double plain_ = 0, objective_ = 0;
};

// The decoding and collective options, made from the request table (tagging/request_table.h).
void AddRequestOptions(po::options_description* decoding, po::options_description* collective) {
  for (const RequestField& f : RequestFields()) {
    if (!f.on(kCliSurface)) continue;
    po::options_description* group = f.group == "collective" ? collective : decoding;
    const std::string option(f.option), help(f.help), fallback = f.DefaultText();
    if (f.type == RequestFieldType::kBool) {
      group->add_options()(option.c_str(), po::bool_switch(), help.c_str());
    } else if (f.type == RequestFieldType::kCounts) {
      group->add_options()(option.c_str(), po::value<std::vector<std::string>>(), help.c_str());
    } else if (fallback.empty()) {
      group->add_options()(option.c_str(), po::value<std::string>(), help.c_str());
    } else {
      group->add_options()(option.c_str(), po::value<std::string>()->default_value(fallback),
                           help.c_str());
    }
  }
}

// The request for the last model from the options the user gave (the table's defaults stand for
// the rest). --collective-train is read in `collective_format`, else in the model's stored format.
// An error is a usage error unless `read_error` is set (reading the --collective-train corpus).
absl::StatusOr<DecodeRequest> RequestFrom(const po::variables_map& vm, const Model& last,
                                          const ReaderOptions& reader,
                                          std::optional<CorpusFormat> collective_format,
                                          bool* read_error) {
  RequestBuilder builder(last, kCliSurface);
  for (const RequestField& f : RequestFields()) {
    const std::string option(f.option);
    if (!f.on(kCliSurface) || !vm.count(option) || vm[option].defaulted()) continue;
    absl::Status s;
    if (f.type == RequestFieldType::kBool) {
      if (vm[option].as<bool>()) s = builder.Set(f.name, true);
    } else if (f.type == RequestFieldType::kCounts) {
      s = builder.Set(f.name, vm[option].as<std::vector<std::string>>());
    } else if (f.type == RequestFieldType::kLabelings) {
      s = builder.Set(f.name, Labelings());  // the file gives them per sentence
    } else {
      s = builder.SetText(f.name, vm[option].as<std::string>());
    }
    if (!s.ok()) return s;
  }
  return builder.Build(reader, read_error, collective_format);
}

// Reads every input (raw text or a corpus), tags it in batches and writes the outputs.
int TagInputs(const std::string& cmd, const std::vector<std::string>& files,
              const std::string& output_path, OutputFormat output_format, bool raw_text,
              const TextOptions& text_options, const ReaderOptions& reader_options,
              const std::vector<const Model*>& model_ptrs, const DecodeRequest& request,
              int threads, const std::string& exclude_file, ExcludeReader* exclude,
              Communicator* ranks) {
  // Outputs: one stream, or one file per input in an existing directory (RunTag checked them).
  std::error_code ec;
  bool output_dir = output_path != "-" && std::filesystem::is_directory(output_path, ec);
  // Over MPI ranks: rank r tags byte range r of every file into a temporary file of its own
  // (PartFile), and rank 0 receives the parts in order and writes the outputs at the end.
  const bool distributed = IsDistributed(ranks);
  const int rank = distributed ? ranks->rank() : 0;
  const int num_ranks = distributed ? ranks->size() : 1;
  if (distributed) {
    // Only rank 0 writes, so what it sees decides (the others need not see the output at all).
    int64_t is_dir = rank == 0 && output_dir ? 1 : 0;
    ranks->SumInt64(absl::MakeSpan(&is_dir, 1));
    output_dir = is_dir != 0;
  }
  if (distributed) {
    if (raw_text) {
      return UsageError(cmd,
                        "tagging over MPI ranks reads corpus files (--format): raw text offsets "
                        "count from the start of the file, which a byte range does not see");
    }
    if (output_path == "-") {
      return UsageError(cmd,
                        "tagging over MPI ranks needs -o FILE or -o DIR (rank 0 writes the "
                        "outputs)");
    }
    if (request.exclusions || request.collective.has_value()) {
      return UsageError(cmd, "--exclude and --collective read whole inputs; tag in one process");
    }
  }
  std::vector<int64_t> sentences_per_file(files.size(), 0);
  int64_t total_bytes = 0;
  for (const std::string& f : files) {
    if (f != "-" && std::filesystem::is_regular_file(f, ec))
      total_bytes += std::filesystem::file_size(f, ec);
  }

  TagWriter writer(model_ptrs, output_format, raw_text, request.Constrained(), reader_options,
                   request.marginals_min);
  std::unique_ptr<Output> out;
  std::ostream* sink = nullptr;  // out's stream, or this rank's part over MPI ranks
  CollectiveSummary summary;
  BatchTagger tagger(
      model_ptrs, request, threads,
      [&](const TagResult& r) {
        if (r.document != nullptr && r.document_first) summary.Add(*r.document);
        return writer.Write(r, *sink);
      },
      exclude_file);
  Progress progress(total_bytes);
  int64_t bytes_done = 0;
  auto add = [&](Sentence&& s) -> absl::Status {
    TagResult r;
    r.sentence = std::move(s);
    if (exclude->active()) {
      if (absl::Status st = exclude->Next(&r); !st.ok()) return st;
    }
    return tagger.Add(std::move(r));
  };
  auto open_output = [&](const std::string& input) -> absl::Status {
    std::string path = output_path;
    if (output_dir) path = OutputPathFor(output_path, input, output_format);
    auto opened = Output::Open(path);
    if (!opened.ok()) return opened.status();
    out = std::move(*opened);
    sink = &out->stream();
    return absl::OkStatus();
  };
  // Over MPI ranks: the bytes of part (input, rank) at [input * num_ranks + rank].
  std::unique_ptr<PartFile> part;
  std::vector<int64_t> part_bytes(files.size() * num_ranks, 0);
  int64_t part_written = 0;
  if (distributed) {
    absl::StatusOr<std::unique_ptr<PartFile>> created = PartFile::Create();
    if (!created.ok()) return Fail(cmd, created.status());
    part = *std::move(created);
    sink = &part->stream();
  }

  TextSegmenter segmenter(text_options);
  std::vector<Sentence> segmented;
  std::vector<char> buffer(1 << 16);
  int64_t input_sentences = 0;
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const std::string& file = files[fi];
    if (!distributed && (fi == 0 || output_dir)) {
      if (absl::Status s = open_output(file); !s.ok()) return Fail(cmd, s);
    }
    int64_t file_sentences = 0;
    if (raw_text) {
      auto in = OpenInputStream(file);
      if (!in.ok()) return Fail(cmd, in.status());
      segmenter.Reset(file == "-" ? "<stdin>" : file);
      bool done = false;
      while (!done) {
        (*in)->read(buffer.data(), buffer.size());
        const std::streamsize got = (*in)->gcount();
        if ((*in)->bad()) return Fail(cmd, absl::DataLossError(absl::StrCat(file, ": read error")));
        segmented.clear();
        absl::Status s = got > 0 ? segmenter.Feed(std::string_view(buffer.data(), got), &segmented)
                                 : absl::OkStatus();
        if (s.ok() && got < static_cast<std::streamsize>(buffer.size())) {
          s = segmenter.Finish(&segmented);
          done = true;
        }
        for (const std::string& w : segmenter.TakeWarnings())
          std::cerr << "chaintag tag: warning: " << w << "\n";
        if (!s.ok()) return Fail(cmd, s);
        for (Sentence& sentence : segmented) {
          // One raw-text file is one document.
          if (file_sentences == 0) sentence.new_document = true;
          ++file_sentences;
          if (absl::Status st = add(std::move(sentence)); !st.ok()) return Fail(cmd, st);
        }
        progress.Update(bytes_done + segmenter.bytes_consumed(), tagger.sentences(),
                        tagger.tokens());
      }
      bytes_done += segmenter.bytes_consumed();
    } else {
      ByteRange range;
      if (distributed) {
        absl::StatusOr<ByteRange> mine =
            RangeOfRank(file, static_cast<int>(fi), reader_options.format, rank, num_ranks);
        if (!mine.ok()) return Fail(cmd, mine.status());
        range = *mine;
      }
      absl::Status read = ForEachSentenceInRange(
          file, range, reader_options,
          [&](Sentence&& sentence) {
            // A file starts a document.
            if (file_sentences == 0 && range.begin == 0) sentence.new_document = true;
            ++file_sentences;
            absl::Status st = add(std::move(sentence));
            progress.Update(0, tagger.sentences(), tagger.tokens());
            return st;
          },
          [&](const std::string& w) { std::cerr << "chaintag tag: warning: " << w << "\n"; });
      if (!read.ok()) return Fail(cmd, read);
    }
    input_sentences += file_sentences;
    sentences_per_file[fi] = file_sentences;
    if (distributed) {
      if (absl::Status s = tagger.Flush(); !s.ok()) return Fail(cmd, s);
      absl::StatusOr<int64_t> written = part->Written();
      if (!written.ok()) return Fail(cmd, written.status());
      part_bytes[fi * num_ranks + rank] = *written - part_written;
      part_written = *written;
      continue;
    }
    if (output_dir || fi + 1 == files.size()) {
      if (absl::Status s = tagger.Flush(); !s.ok()) return Fail(cmd, s);
      if (output_dir && file_sentences == 0) {
        return Fail(cmd, absl::InvalidArgumentError(
                             absl::StrCat(file, ": no sentences found (empty input)")));
      }
      if (!output_dir && input_sentences == 0) {
        return Fail(cmd,
                    absl::InvalidArgumentError("no sentences found in the input (empty input)"));
      }
      if (exclude->active() && fi + 1 == files.size()) {
        if (absl::Status s = exclude->Finish(); !s.ok()) return Fail(cmd, s);
      }
      if (absl::Status s = out->Commit(); !s.ok()) return Fail(cmd, s);
    }
  }
  if (distributed) {
    // Every part is written once all ranks are here; the counts are the whole inputs'.
    ranks->SumInt64(absl::MakeSpan(sentences_per_file));
    ranks->SumInt64(absl::MakeSpan(part_bytes));
    for (size_t fi = 0; fi < files.size(); ++fi) {
      if (sentences_per_file[fi] == 0 && (output_dir || fi + 1 == files.size())) {
        return Fail(cmd, absl::InvalidArgumentError(
                             absl::StrCat(output_dir ? files[fi] : std::string("the input"),
                                          ": no sentences found (empty input)")));
      }
    }
    for (size_t fi = 0; fi < files.size(); ++fi) {
      if (rank == 0 && (fi == 0 || output_dir)) {
        if (absl::Status s = open_output(files[fi]); !s.ok()) return Fail(cmd, s);
      }
      for (int r = 0; r < num_ranks; ++r) {
        if (absl::Status s = SendPartToRoot(ranks, r, part_bytes[fi * num_ranks + r], part.get(),
                                            rank == 0 ? &out->stream() : nullptr);
            !s.ok()) {
          return Fail(cmd, s);
        }
      }
      if (rank == 0 && (output_dir || fi + 1 == files.size())) {
        if (absl::Status s = out->Commit(); !s.ok()) return Fail(cmd, s);
      }
    }
  }
  progress.Update(bytes_done, tagger.sentences(), tagger.tokens(), /*final=*/true);
  if (request.collective.has_value()) {
    std::cerr << "chaintag tag: collective: " << summary.Line() << "\n";
    if (tagger.fallback_documents() > 0) {
      std::cerr << "chaintag tag: warning: " << tagger.fallback_documents()
                << " document(s) exceeded --collective-max-sentences or --collective-max-tokens "
                   "and were tagged sentence by sentence\n";
    }
  }
  if (tagger.too_large() > 0) {
    std::cerr << "chaintag tag: warning: " << tagger.too_large()
              << " sentence(s) exceeded a decoding limit: status too_large, with the reason in the "
                 "output\n";
  }
  return kExitOk;
}

}  // namespace

int RunTag(const std::vector<std::string>& args) {
  const std::string cmd = "tag";
  po::options_description options("tag options");
  options.add_options()(
      "model,m", po::value<std::vector<std::string>>(),
      "model file; repeat for a pipeline (default: the shipped en-pos then en-chunk)")(
      "accurate", po::bool_switch(),
      "without -m: the accurate pipeline, en-pos-nn then en-chunk-nn (neural, slower)")(
      "output-format", po::value<std::string>()->default_value("conll"),
      "conll, conllu, tagged, chunks or jsonl")(
      "threads", po::value<int>()->default_value(1),
      "tagging threads (0 = all cores, at most 4 per core); the output does not depend on it")(
      "output,o", po::value<std::string>()->default_value("-"),
      "output file, or an existing directory for one output per input")(
      "mpi", po::bool_switch(),
      "tag over MPI ranks even when no MPI launcher is detected (mpirun is detected without it; "
      "see docs/distributed.md)");
  po::options_description decoding("decoding options (apply to the last model)");
  po::options_description collective(
      "collective tagging (documents: -DOCSTART- lines in CoNLL, "
      "'# newdoc' in CoNLL-U, one raw-text file = one document)");
  AddRequestOptions(&decoding, &collective);
  po::options_description text("raw text options");
  text.add_options()("on-invalid", po::value<std::string>()->default_value("error"),
                     "invalid UTF-8 in raw text: error or replace (U+FFFD)")(
      "max-sentence-tokens", po::value<int>()->default_value(1000),
      "longer sentences (raw text or corpus input) are split, with a warning")(
      "no-ptb-brackets", po::bool_switch(),
      "raw text: keep brackets as they are instead of -LRB- -RRB- ...");
  options.add(decoding).add(collective).add(text);
  AddReaderOptions(&options, /*with_label_column=*/false, /*with_sentence_limit=*/false,
                   "from the extension, .gz stripped: .conll, .conllu, .mrg/.tree/.ptb, "
                   ".pos/.tagged; else attributes for a model trained on attributes; else raw "
                   "text");
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[-m MODEL ...] [options] FILE...|-", options, args, &vm); rc >= 0)
    return rc;

  auto output_format = ParseOutputFormat(vm["output-format"].as<std::string>());
  if (!output_format.ok()) return UsageError(cmd, std::string(output_format.status().message()));
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));
  auto input_format = InputFormatOf(vm, files, &*reader_options);
  if (!input_format.ok()) return UsageError(cmd, std::string(input_format.status().message()));
  bool raw_text = !input_format->has_value();
  reader_options->label_column = 0;  // keep every column; the models read the ones they need
  auto threads = ThreadsFrom(cmd, vm["threads"].as<int>());
  if (!threads.ok()) return UsageError(cmd, std::string(threads.status().message()));

  TextOptions text_options;
  {
    auto policy = ParseInvalidUtf8Policy(vm["on-invalid"].as<std::string>());
    if (!policy.ok()) return UsageError(cmd, std::string(policy.status().message()));
    text_options.on_invalid = *policy;
    text_options.max_sentence_tokens = vm["max-sentence-tokens"].as<int>();
    if (text_options.max_sentence_tokens < 1)
      return UsageError(cmd, "--max-sentence-tokens must be >= 1");
    text_options.ptb_brackets = !vm["no-ptb-brackets"].as<bool>();
    text_options.max_line_bytes = reader_options->max_line_bytes;
    reader_options->max_sentence_tokens = text_options.max_sentence_tokens;
    reader_options->split_long_sentences = true;
  }

  if (vm["accurate"].as<bool>() && vm.count("model"))
    return UsageError(cmd, "--accurate chooses the shipped models; it cannot be given with -m");
  auto found = PipelineModelPaths(
      vm.count("model") ? vm["model"].as<std::vector<std::string>>() : std::vector<std::string>(),
      vm["accurate"].as<bool>());
  if (!found.ok()) return Fail(cmd, found.status());
  const std::vector<std::string> model_paths = *std::move(found);
  if (absl::Status s = CheckTagOutputs(vm, files, *output_format, model_paths); !s.ok())
    return UsageError(cmd, std::string(s.message()));
  PrepareHeapForModels(*threads);
  auto models = Model::LoadAll(model_paths);
  if (!models.ok()) return Fail(cmd, models.status());
  std::vector<const Model*> model_ptrs;
  for (const Model& model : *models) model_ptrs.push_back(&model);
  const Model& last_model = *model_ptrs.back();
  // Input is read the way the first model was trained (CoNLL-U label field, NP chunks from
  // trees) unless --label or --np-chunks say otherwise.
  const ModelInputOptions& trained = model_ptrs.front()->input_options();
  if (raw_text && trained.format == CorpusFormat::kAttributes) {
    // A model trained on attributes reads attribute files, not text.
    raw_text = false;
    reader_options->format = CorpusFormat::kAttributes;
  }
  if (vm["label"].defaulted()) reader_options->conllu_label = trained.conllu_label;
  if (vm["np-chunks"].defaulted()) reader_options->np_chunks = trained.np_chunks;

  if (vm.count("forced-column") && raw_text)
    return UsageError(cmd, "--forced-column needs corpus input (--format)");
  // --collective-train is read with --format, else its own extension, else the model's format.
  std::optional<CorpusFormat> collective_format;
  if (vm.count("format")) {
    collective_format = reader_options->format;
  } else if (vm.count("collective-train")) {
    collective_format = CorpusFormatFromExtension(vm["collective-train"].as<std::string>());
  }
  bool read_error = false;
  auto request = RequestFrom(vm, last_model, *reader_options, collective_format, &read_error);
  if (!request.ok() && read_error) return Fail(cmd, request.status());
  if (!request.ok()) return UsageError(cmd, std::string(request.status().message()));
  // Probabilities are computed where the output shows them.
  request->probability &= *output_format == OutputFormat::kJsonl || request->Constrained();
  if (request->marginals && *output_format != OutputFormat::kJsonl)
    return UsageError(cmd, "--marginals needs --output-format jsonl");
  const std::string exclude_file = request->exclusions ? vm["exclude"].as<std::string>() : "";
  ExcludeReader exclude;
  if (request->exclusions) {
    if (absl::Status s = exclude.Open(exclude_file, reader_options->max_line_bytes); !s.ok())
      return Fail(cmd, s);
  }
  absl::StatusOr<Communicator*> ranks = Ranks(vm["mpi"].as<bool>());
  if (!ranks.ok()) return UsageError(cmd, std::string(ranks.status().message()));
  return TagInputs(cmd, files, vm["output"].as<std::string>(), *output_format, raw_text,
                   text_options, *reader_options, model_ptrs, *request, *threads, exclude_file,
                   &exclude, *ranks);
}

}  // namespace chaintag::cli
