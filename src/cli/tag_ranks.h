// Tagging over MPI ranks (docs/distributed.md): each input file is cut into one byte range per
// rank at sentence boundaries; rank r tags range r of every file into an anonymous temporary file
// of its own, and rank 0 receives the parts in order and writes them, so the output equals one
// process's.
#ifndef CHAINTAG_CLI_TAG_RANKS_H_
#define CHAINTAG_CLI_TAG_RANKS_H_

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/communicator.h"
#include "chaintag/corpus.h"

namespace chaintag::cli {

// Bytes [begin, end) of a file; end < 0 means to the end of the file.
struct ByteRange {
  int64_t begin = 0;
  int64_t end = -1;
  bool empty() const { return end >= 0 && end <= begin; }
};

// Range `rank` of `parts` of `file` (file number `index` of the input): cut after a blank line
// (conll, conllu, attributes) or a line end (tagged) at or after each k/parts of its size. Trees
// (ptb), compressed files and standard input are not cut: rank index mod parts reads them whole.
absl::StatusOr<ByteRange> RangeOfRank(const std::string& file, int index, CorpusFormat format,
                                      int rank, int parts);

// Reads the sentences of `range` of `file` in order. Line numbers in errors count from the start
// of the range, whose first byte the file name names ("FILE@BYTE").
absl::Status ForEachSentenceInRange(const std::string& file, const ByteRange& range,
                                    const ReaderOptions& options,
                                    const std::function<absl::Status(Sentence&&)>& fn,
                                    const std::function<void(const std::string&)>& warn);

// What one rank tagged, in a temporary file that is unlinked as soon as it is open (in $TMPDIR,
// local to the rank): nothing is left behind however the process ends, and the output's own
// directory (or /dev for -o /dev/null) never sees it.
class PartFile {
 public:
  static absl::StatusOr<std::unique_ptr<PartFile>> Create();
  std::ostream& stream() { return file_; }
  // Bytes written so far (after a flush); a write error is DataLossError.
  absl::StatusOr<int64_t> Written();
  // Reads the next `n` bytes of what was written (from the start, in order).
  absl::StatusOr<std::string> Read(int64_t n);

 private:
  explicit PartFile(std::string path);
  std::fstream file_;
  std::string path_;
  int64_t read_at_ = 0;
};

// Hands rank `from`'s next `bytes` bytes of `part` to rank 0, which writes them to `out` (null on
// other ranks); every rank calls it with the same `from` and `bytes`.
absl::Status SendPartToRoot(Communicator* ranks, int from, int64_t bytes, PartFile* part,
                            std::ostream* out);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_TAG_RANKS_H_
