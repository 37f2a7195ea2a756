#include "cli/cli.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "option_error.h"

namespace chaintag::cli {

int ParseOrExit(const std::string& command, const std::string& synopsis,
                const po::options_description& options, const std::vector<std::string>& args,
                po::variables_map* vm, bool allow_files) {
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "show this help");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>(), "input files");
  po::options_description parse_set;
  parse_set.add(all).add(hidden);
  po::positional_options_description positional;
  if (allow_files) positional.add("files", -1);
  try {
    po::store(
        po::command_line_parser(args)
            .options(parse_set)
            .positional(positional)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run(),
        *vm);
    if (vm->count("help")) {
      std::cout << "usage: chaintag " << command << " " << synopsis << "\n\n" << all << "\n";
      return kExitOk;
    }
    po::notify(*vm);
  } catch (const po::error& e) {
    return UsageError(command, e.what());
  }
  return -1;
}

int Fail(const std::string& command, const absl::Status& status) {
  if (IsOptionError(status)) return UsageError(command, std::string(status.message()));
  std::cerr << "chaintag " << command << ": " << status.message() << "\n";
  return kExitError;
}

int UsageError(const std::string& command, const std::string& message) {
  std::cerr << "chaintag " << command << ": " << message << "\n"
            << "Run 'chaintag " << command << " --help' for usage.\n";
  return kExitUsage;
}

// Loading the models of a one-sentence `tag` touches about 40 MB of fresh memory, and first-touch
// page faults (one per 4 KB page, 10-20 µs each on a virtual machine) cost more than the parsing.
// So the command keeps large blocks on the heap, where a freed block is reused instead of a fresh
// mapping being faulted in again, and asks for transparent huge pages (one fault per 2 MB) on the
// first 64 MB of heap, which loading fills; where the kernel has them disabled the advice is
// ignored. With one tagging thread it also keeps one arena, so that the helper threads of
// Model::LoadAll allocate from this heap rather than from fresh arenas of their own (with several
// tagging threads, their own arenas keep tagging a few percent faster). The library leaves
// allocation to its users; this is the command's policy, and `tag`'s only: training's peak memory
// grew by 10% with it.
void PrepareHeapForModels(int tagging_threads) {
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  constexpr size_t kHugePage = size_t{2} << 20;
  constexpr size_t kInitialHeap = size_t{64} << 20;
  mallopt(M_MMAP_THRESHOLD, 256 << 20);  // blocks below this come from the heap
  mallopt(M_TRIM_THRESHOLD, 512 << 20);  // free space kept at the heap's top, not unmapped
  mallopt(M_TOP_PAD, 16 << 20);          // grow the heap in 16 MB steps
  if (tagging_threads <= 1) mallopt(M_ARENA_MAX, 1);
  // Allocating and freeing one block grows the heap by kInitialHeap; free keeps it as the heap's
  // top, where the next allocations come from.
  void* block = std::malloc(kInitialHeap);
  if (block == nullptr) return;
  const auto begin = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  const uintptr_t aligned_begin = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t aligned_end = (begin + kInitialHeap) & ~(kHugePage - 1);
  madvise(reinterpret_cast<void*>(aligned_begin), aligned_end - aligned_begin, MADV_HUGEPAGE);
#else
  (void)tagging_threads;
#endif
}

absl::StatusOr<int> ThreadsFrom(const std::string& command, int requested) {
  if (requested < 0) return absl::InvalidArgumentError("--threads must be >= 0");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (requested == 0) return cores;
  const int cap = 4 * cores;
  if (requested > cap) {
    std::cerr << "chaintag " << command << ": warning: --threads " << requested << " capped at "
              << cap << " (4 per core on this machine's " << cores << " cores)\n";
    return cap;
  }
  return requested;
}

int FinishStdout(const std::string& command) {
  std::cout.flush();
  if (std::cout) return kExitOk;
  return Fail(command, absl::DataLossError("error writing to standard output (disk full?)"));
}

std::vector<std::string> InputFiles(const po::variables_map& vm) {
  if (vm.count("files")) return vm["files"].as<std::vector<std::string>>();
  return {"-"};
}

std::vector<InputFile> FilesRead(const po::variables_map& vm,
                                 std::initializer_list<const char*> options) {
  std::vector<InputFile> files;
  for (const std::string& file : InputFiles(vm)) files.push_back({file, ""});
  for (const char* option : options) {
    if (!vm.count(option)) continue;
    const std::string flag = absl::StrCat("--", option);
    const boost::any& value = vm[option].value();
    if (const auto* one = boost::any_cast<std::string>(&value)) {
      files.push_back({*one, flag});
    } else if (const auto* many = boost::any_cast<std::vector<std::string>>(&value)) {
      for (const std::string& file : *many) files.push_back({file, flag});
    }
  }
  return files;
}

void AddReaderOptions(po::options_description* options, bool with_label_column,
                      bool with_sentence_limit, const std::string& format_default) {
  const std::string format_help = absl::StrCat(
      "input format: conll, conllu, ptb, tagged, attributes (default: ", format_default, ")");
  options->add_options()("format", po::value<std::string>(), format_help.c_str())(
      "label", po::value<std::string>()->default_value("xpos"),
      "conllu: label field, upos or xpos")("np-chunks", po::bool_switch(),
                                           "ptb: derive IOB2 base-NP chunk labels from the trees")(
      "separator", po::value<char>()->default_value('_'),
      "tagged: word/tag separator ('_' or '/')")(
      "max-line-bytes", po::value<int64_t>()->default_value(int64_t{1} << 20),
      "longest accepted input line in bytes");
  if (with_sentence_limit) {
    options->add_options()("max-sentence-tokens",
                           po::value<int>()->default_value(ReaderOptions().max_sentence_tokens),
                           "longest accepted corpus sentence in tokens (a longer one is an error)");
  }
  if (with_label_column) {
    options->add_options()("label-column", po::value<int>()->default_value(-1),
                           "conll: 1-based label column, negative counts from the end");
  }
}

absl::StatusOr<ReaderOptions> ReaderOptionsFrom(const po::variables_map& vm,
                                                const std::vector<std::string>& files) {
  ReaderOptions options;
  if (vm.count("format")) {
    auto format = ParseCorpusFormat(vm["format"].as<std::string>());
    if (!format.ok()) return format.status();
    options.format = *format;
  } else if (!files.empty() && files[0] != "-") {
    options.format = CorpusFormatFromPath(files[0]);
  }
  if (vm.count("label")) {
    options.conllu_label = vm["label"].as<std::string>();
    if (options.conllu_label != "upos" && options.conllu_label != "xpos") {
      return absl::InvalidArgumentError(
          absl::StrCat("--label: expected upos or xpos, found '", options.conllu_label, "'"));
    }
  }
  if (vm.count("np-chunks")) options.np_chunks = vm["np-chunks"].as<bool>();
  if (vm.count("separator")) options.tagged_separator = vm["separator"].as<char>();
  if (vm.count("max-line-bytes")) {
    options.max_line_bytes = vm["max-line-bytes"].as<int64_t>();
    if (options.max_line_bytes <= 0) {
      return absl::InvalidArgumentError("--max-line-bytes: expected a positive number");
    }
  }
  if (vm.count("label-column")) options.label_column = vm["label-column"].as<int>();
  if (vm.count("max-sentence-tokens")) {
    options.max_sentence_tokens = vm["max-sentence-tokens"].as<int>();
    if (options.max_sentence_tokens < 1) {
      return absl::InvalidArgumentError("--max-sentence-tokens: expected a positive number");
    }
  }
  return options;
}

absl::Status ForEachSentence(const std::vector<std::string>& files, const ReaderOptions& options,
                             const std::function<absl::Status(Sentence&&)>& fn,
                             const std::function<void(const std::string&)>& warn) {
  for (const std::string& file : files) {
    auto reader = OpenSentenceReader(file, options);
    if (!reader.ok()) return reader.status();
    while (true) {
      auto next = (*reader)->Next();
      if (warn) {
        for (const std::string& w : (*reader)->TakeWarnings()) warn(w);
      }
      if (!next.ok()) return next.status();
      if (!next->has_value()) break;
      if (absl::Status s = fn(std::move(**next)); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Output>> Output::Open(const std::string& path) {
  std::unique_ptr<Output> out(new Output());
  if (!path.empty() && path != "-") {
    out->file_ = std::make_unique<AtomicOutputFile>();
    if (absl::Status s = out->file_->Open(path); !s.ok()) return s;
  }
  return out;
}

std::ostream& Output::stream() { return file_ ? file_->stream() : std::cout; }

absl::Status Output::Commit() {
  if (file_) return file_->Commit();
  std::cout.flush();
  if (!std::cout) return absl::DataLossError("error writing to standard output");
  return absl::OkStatus();
}

Output::~Output() = default;

}  // namespace chaintag::cli
