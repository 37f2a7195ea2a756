// Sentences and the streaming corpus readers/writers (CoNLL, CoNLL-U, PTB trees, word_TAG).
#ifndef CHAINTAG_CORPUS_H_
#define CHAINTAG_CORPUS_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace chaintag {

// CoNLL-U material that is not a word but must survive a round trip.
struct ConlluExtras {
  // The ten fields of every word line, in order (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS
  // MISC).
  std::vector<std::vector<std::string>> word_fields;
  // Multiword-token (`3-4`) and empty-node (`5.1`) lines, verbatim, each with the number of
  // words that precede it in the sentence (so it is written back before word `first`).
  std::vector<std::pair<int, std::string>> other_lines;
};

// One sentence. Columns are stored column-major so a pipeline can append a predicted column
// (a POS model's output becomes the next model's input column) without copying tokens.
struct Sentence {
  // Input columns as features see them: columns[c][t]; every column has size() entries.
  // Column 0 is always the word form.
  std::vector<std::vector<std::string>> columns;
  // Gold labels: empty when the input has none, otherwise one per token.
  std::vector<std::string> labels;
  // Sentence-level metadata lines (CoNLL-U comments, verbatim including the leading '#').
  std::vector<std::string> comments;
  // Provenance for error messages: file name ("<stdin>" for standard input) and the 1-based
  // line of every token (for tree and raw-text input, the line where the token starts).
  std::string file;
  std::vector<int64_t> token_lines;
  // Raw text only: [begin, end) character offsets of each token in the original text.
  std::vector<std::pair<int64_t, int64_t>> offsets;
  // CoNLL-U only: the full fields and non-word lines, so writing back is lossless.
  std::optional<ConlluExtras> conllu;
  // Attribute input only (CRFsuite data format, CorpusFormat::kAttributes): the attributes of
  // token t are attribute_names[k] with weight attribute_values[k] for k in
  // [attribute_offsets[t], attribute_offsets[t + 1]). Column 0 then holds each token's attribute
  // fields as written (escaped, tab-separated), so writers and stored self-tests reproduce them.
  std::vector<int32_t> attribute_offsets;
  std::vector<std::string> attribute_names;
  std::vector<float> attribute_values;
  // The sentence opens a document: it follows a CoNLL `-DOCSTART-` line or carries a CoNLL-U
  // `# newdoc` comment (the second piece of a split sentence never does). Collective tagging
  // (`tag --collective`) joins the sentences of one document; the first sentence of every input
  // file also starts one.
  bool new_document = false;

  int size() const { return columns.empty() ? 0 : static_cast<int>(columns[0].size()); }
  int num_columns() const { return static_cast<int>(columns.size()); }
  bool has_labels() const { return !labels.empty(); }
  bool has_attributes() const { return !attribute_offsets.empty(); }
  const std::string& word(int t) const { return columns[0][t]; }
};

// The one way messages name a place in an input: "FILE:LINE" ("<input>" for an empty file name;
// ":LINE" omitted when the line is unknown, i.e. <= 0).
std::string Location(std::string_view file, int64_t line);
// The place of token `token` of a sentence (its first token by default).
std::string Location(const Sentence& sentence, int64_t token = 0);
// InvalidArgumentError("FILE:LINE: message").
absl::Status ErrorAt(std::string_view file, int64_t line, std::string_view message);
absl::Status ErrorAt(const Sentence& sentence, int64_t token, std::string_view message);

// kAttributes is CRFsuite's data format: one token a line, "LABEL<TAB>ATTR<TAB>ATTR:WEIGHT...",
// a blank line between sequences (docs/formats.md).
enum class CorpusFormat { kConll, kConllu, kPtb, kTagged, kAttributes };

// Parses "conll", "conllu", "ptb", "tagged", "attributes".
absl::StatusOr<CorpusFormat> ParseCorpusFormat(std::string_view name);
std::string_view CorpusFormatName(CorpusFormat format);
// The format a file extension names, a trailing ".gz" ignored: ".conll", ".conllu",
// ".mrg"/".tree"/".ptb", ".pos"/".tagged"; nullopt for any other name (".txt", none, "-").
std::optional<CorpusFormat> CorpusFormatFromExtension(std::string_view path);
// CorpusFormatFromExtension, otherwise conll.
CorpusFormat CorpusFormatFromPath(std::string_view path);

// Attribute weights are finite numbers of at most this magnitude (training sums them in fixed
// point).
inline constexpr double kMaxAttributeWeight = 1000.0;

// Parses the attribute fields of one token in CRFsuite's syntax (tab-separated "NAME" or
// "NAME:WEIGHT"; the first unescaped ':' starts the weight; a backslash makes the next character
// literal, so "\:" is a colon and "\\" a backslash) and appends them to `sentence`: names,
// weights (1 when not given) and the next attribute offset; column 0 gets `fields` verbatim.
// Errors read "FILE:LINE: expected ...": an empty attribute, a weight that is not a number, not
// finite or larger than kMaxAttributeWeight in magnitude.
absl::Status AppendAttributeToken(std::string_view fields, std::string_view file, int64_t line,
                                  Sentence* sentence);
// Rebuilds a sentence's attributes from its column 0 (stored self-tests keep only the columns).
absl::Status ParseAttributeColumn(Sentence* sentence);
// One attribute field in the file syntax: the name with ':' and '\' escaped, then ":WEIGHT"
// unless the weight is 1 (shortest text that reads back as the same float).
std::string FormatAttributeField(std::string_view name, float weight);

struct ReaderOptions {
  CorpusFormat format = CorpusFormat::kConll;
  // conll: 1-based label column, negative counts from the end (-1 = last). 0 = no label column:
  // every column is an input column (what `tag` uses on unlabelled or gold-labelled files).
  // Values beyond +-kMaxLabelColumn are refused by the reader.
  int label_column = -1;
  static constexpr int kMaxLabelColumn = 1000;
  // conllu: which field is the label: "upos" or "xpos".
  std::string conllu_label = "xpos";
  // ptb: derive IOB2 base-NP chunk labels; the POS tag becomes input column 1.
  bool np_chunks = false;
  // tagged: separator between word and tag ('_' or '/'); the last one in a token wins.
  char tagged_separator = '_';
  // Longest accepted line, in bytes.
  int64_t max_line_bytes = int64_t{1} << 20;
  // Most tokens a sentence may have (>= 1); the reader never holds more. A longer sentence is an
  // error ("FILE:LINE: expected at most N tokens in a sentence (--max-sentence-tokens), found
  // more") unless `split_long_sentences`, which yields it in pieces of at most N tokens and records
  // a warning ("FILE:LINE: a sentence longer than N tokens was split", see TakeWarnings). PTB trees
  // are never split. A split CoNLL-U sentence keeps its word IDs (the second piece starts at N+1).
  int max_sentence_tokens = 10000;
  bool split_long_sentences = false;
  // When false (the default) a reader whose input holds no sentence returns
  // "FILE: no sentences found (empty input)" from its first Next() instead of std::nullopt.
  bool allow_empty = false;
};

// Reads sentences one at a time, so a corpus larger than memory streams through.
// Input is validated as UTF-8 and NFC-normalised; a leading UTF-8 byte order mark is skipped;
// lines end in LF or CRLF (a bare CR is refused). Errors read "FILE:LINE: expected ..., found ...".
class SentenceReader {
 public:
  virtual ~SentenceReader() = default;
  // Returns the next sentence, std::nullopt at end of input, or an error.
  virtual absl::StatusOr<std::optional<Sentence>> Next() = 0;
  // Messages about input the reader changed ("FILE:LINE: a sentence longer than N tokens was
  // split"), oldest first; taking them clears them. Callers print them after each Next().
  virtual std::vector<std::string> TakeWarnings() { return {}; }
};

// Opens `path` ("-" for standard input); ".gz" files are decompressed transparently.
absl::StatusOr<std::unique_ptr<SentenceReader>> OpenSentenceReader(const std::string& path,
                                                                   const ReaderOptions& options);
// Reads from a stream the caller owns; `name` is used in messages.
std::unique_ptr<SentenceReader> MakeSentenceReader(std::istream& in, std::string name,
                                                   const ReaderOptions& options);
// Reads all sentences of several files (for training); fails on an empty input. The readers'
// warnings (split sentences) are appended to `warnings` when given.
absl::StatusOr<std::vector<Sentence>> ReadCorpus(const std::vector<std::string>& paths,
                                                 const ReaderOptions& options,
                                                 std::vector<std::string>* warnings = nullptr);

struct WriterOptions {
  CorpusFormat format = CorpusFormat::kConll;
  std::string conllu_label = "xpos";
  char tagged_separator = '_';
};

// Writes `sentence` with `predicted` labels (one per token) or, when `predicted` is empty, its
// gold labels if any. conll: one line per token, input columns, then the gold label if present,
// then the predicted label. conllu: writes the label into the UPOS/XPOS field. tagged: word_TAG.
absl::Status WriteSentence(std::ostream& out, const Sentence& sentence,
                           const std::vector<std::string>& predicted, const WriterOptions& options);

// Summary statistics of a corpus (the `stats` command).
struct CorpusStats {
  int64_t sentences = 0;
  int64_t tokens = 0;
  int64_t types = 0;                                      // distinct word forms
  std::vector<std::pair<std::string, int64_t>> labels;    // label -> count, sorted by label
  std::vector<std::pair<int, int64_t>> length_histogram;  // bucket lower bound -> sentences
};

// Accumulates CorpusStats one sentence at a time, so statistics stream like the readers.
// Sentence lengths are bucketed by kLengthBucket: 1-5, 6-10, 11-15, ...
class CorpusStatsAccumulator {
 public:
  static constexpr int kLengthBucket = 5;
  CorpusStatsAccumulator();
  ~CorpusStatsAccumulator();
  CorpusStatsAccumulator(const CorpusStatsAccumulator&) = delete;
  CorpusStatsAccumulator& operator=(const CorpusStatsAccumulator&) = delete;

  void Add(const Sentence& sentence);
  CorpusStats Finish() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Opens `path` for reading: "-" is standard input (not owned); gzip data (recognised by its magic
// bytes, whatever the name) is decompressed transparently. Errors name the file (missing,
// unreadable, a directory). Decompression errors while reading surface as a bad stream (badbit),
// which the readers report with the file name.
absl::StatusOr<std::unique_ptr<std::istream>> OpenInputStream(const std::string& path);

// Returns OK when `path` can be written as AtomicOutputFile writes it: a new or existing regular
// file (its directory, after symbolic links, exists and is writable; the file is writable), or a
// writable character device, FIFO or socket (written in place). Long jobs call it to fail before
// the work rather than after it.
absl::Status CheckWritable(const std::string& path);

// A file a command reads, for CheckOutputIsNotAnInput: its path ("-" is standard input) and the
// option that names it ("" for a positional input file), for the message.
struct InputFile {
  std::string path;
  std::string option;
};

// InvalidArgumentError when writing `output` would overwrite one of `inputs`: both name the same
// regular file (device and inode, through symbolic and hard links; standard input counts by what
// it is redirected from). Devices and FIFOs are written in place, so reading and writing one is
// not a collision. Every command calls it on its output before doing any work.
absl::Status CheckOutputIsNotAnInput(const std::string& output,
                                     const std::vector<InputFile>& inputs);

// Removes the temporary files of every AtomicOutputFile not yet committed or destroyed. Safe to
// call from a signal handler (SIGINT, SIGTERM, SIGHUP, SIGPIPE), so an interrupted command leaves
// no temporary.
void RemoveTemporaryFiles();

// Writes an output file so that a failure never leaves half a file and nothing but the file's
// contents is replaced:
// - a regular file (new or existing) is written under a temporary name (path + ".tmp-XXXXXX",
//   same directory), flushed to disk (fsync) and renamed into place on Commit(); an existing
//   file keeps its permission bits. Without Commit() the destructor removes the temporary file.
// - a symbolic link is followed (up to 40 links): its final target is written as above, with the
//   temporary beside the target, so the link stays a link.
// - a character device (/dev/null, a terminal), FIFO or Unix socket is written in place, never
//   replaced; a block device or a directory is an error.
class AtomicOutputFile {
 public:
  AtomicOutputFile();
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  // Opens the output (creates the temporary file, or opens the device, FIFO or socket; opening a
  // FIFO waits for a reader); "-" is rejected (the caller writes stdout directly).
  absl::Status Open(const std::string& path);
  // Valid after a successful Open() and until Commit().
  std::ostream& stream();
  // Flushes, checks for write errors and closes; a regular file is synced and renamed onto the
  // final path.
  absl::Status Commit();
  // The temporary file; empty when the output is written in place.
  const std::string& temp_path() const { return temp_path_; }
  // The file written: the path given, or the final target of a symbolic link.
  const std::string& target_path() const { return target_; }

 private:
  class FdBuffer;
  std::string path_;
  std::string target_;
  std::string temp_path_;
  int fd_ = -1;
  std::unique_ptr<FdBuffer> buffer_;
  std::unique_ptr<std::ostream> out_;
  bool committed_ = false;
};

}  // namespace chaintag

#endif  // CHAINTAG_CORPUS_H_
