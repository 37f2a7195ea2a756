// Shared pieces of the `chaintag` subcommands: exit codes, option parsing, inputs and outputs.
// Only src/cli/ prints and chooses exit codes (0 success, 1 data/runtime error, 2 usage error).
#ifndef CHAINTAG_CLI_CLI_H_
#define CHAINTAG_CLI_CLI_H_

#include <boost/program_options.hpp>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/corpus.h"

namespace chaintag::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

namespace po = boost::program_options;

// A subcommand: name, one-line summary, and its entry point (args exclude the command name).
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

// Parses `args` against `options` (+ positional "files"), handling --help. Returns an exit code
// (>= 0) when the program should stop (help printed, or usage error reported), -1 to continue.
int ParseOrExit(const std::string& command, const std::string& synopsis,
                const po::options_description& options, const std::vector<std::string>& args,
                po::variables_map* vm, bool allow_files = true);

// Prints "chaintag COMMAND: message" to stderr and returns kExitError (kExitUsage, with the
// usage hint, for an option value the data showed to be wrong: option_error.h).
int Fail(const std::string& command, const absl::Status& status);
int UsageError(const std::string& command, const std::string& message);

// Worker threads for --threads N: 0 means every core; more than 4 per core is capped there with
// a warning on stderr. Negative is a usage error.
absl::StatusOr<int> ThreadsFrom(const std::string& command, int requested);

// Prepares the heap for loading models (`tag` only; see cli.cc): large blocks from the heap,
// transparent huge pages on its first 64 MB, and with one tagging thread a single arena, so that
// the threads of Model::LoadAll use that heap too.
void PrepareHeapForModels(int tagging_threads);

// Flushes standard output; on a write error (a full disk, a closed pipe) says so and returns
// kExitError, else kExitOk.
int FinishStdout(const std::string& command);

// Input files from the positional arguments; none means standard input ("-").
std::vector<std::string> InputFiles(const po::variables_map& vm);

// The files a command reads, for CheckOutputIsNotAnInput: the positional inputs (standard input
// when none) and the values of the given `options` (string or list options) that were set.
std::vector<InputFile> FilesRead(const po::variables_map& vm,
                                 std::initializer_list<const char*> options);

// Reader options shared by every command that reads corpora (--format, --label-column, --label,
// --np-chunks, --separator, --max-line-bytes, --max-sentence-tokens). `format_default` says in
// --format's help what is read without it.
void AddReaderOptions(po::options_description* options, bool with_label_column = true,
                      bool with_sentence_limit = true,
                      const std::string& format_default = "from the file extension, else conll");
// Builds ReaderOptions; the format comes from --format, else from the first file's extension.
absl::StatusOr<ReaderOptions> ReaderOptionsFrom(const po::variables_map& vm,
                                                const std::vector<std::string>& files);

// Reads every sentence of `files` in order and calls `fn` on each; stops at the first error
// (a reader's or `fn`'s). The readers' warnings (split sentences) go to `warn` if given.
absl::Status ForEachSentence(const std::vector<std::string>& files, const ReaderOptions& options,
                             const std::function<absl::Status(Sentence&&)>& fn,
                             const std::function<void(const std::string&)>& warn = {});

// Where a command writes: stdout, or `-o FILE` written to a temporary name and renamed on success.
class Output {
 public:
  // `path` empty or "-" means standard output.
  static absl::StatusOr<std::unique_ptr<Output>> Open(const std::string& path);
  std::ostream& stream();
  absl::Status Commit();
  ~Output();

 private:
  Output() = default;
  std::unique_ptr<AtomicOutputFile> file_;
};

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_CLI_H_
