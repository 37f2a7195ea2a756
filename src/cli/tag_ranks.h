// Tagging over MPI ranks (docs/distributed.md): each input file is cut into one byte range per
// rank at sentence boundaries; rank r tags range r of every file into a part file beside the
// output, and rank 0 joins the parts in order, so the output equals one process's.
#ifndef CHAINTAG_CLI_TAG_RANKS_H_
#define CHAINTAG_CLI_TAG_RANKS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
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

// The part of `output` that input `index`'s range `rank` is written to (a hidden file beside it).
std::string PartPath(const std::string& output, int index, int rank);

// Appends parts (index, 0..parts-1) of `output` to `out` and removes them.
absl::Status AppendParts(const std::string& output, int index, int parts, std::ostream& out);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_TAG_RANKS_H_
