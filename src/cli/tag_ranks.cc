#include "cli/tag_ranks.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace chaintag::cli {
namespace {

// The first offset at or after `target` that starts a sentence: just after a blank line (or, with
// one sentence a line, after a line end); the file size when there is none.
absl::StatusOr<int64_t> NextBoundary(std::ifstream& in, const std::string& file, int64_t target,
                                     int64_t size, bool blank_line) {
  if (target <= 0) return 0;
  if (target >= size) return size;
  // Start one or two bytes back so a boundary just before `target` is still seen.
  const int64_t start = std::max<int64_t>(0, target - 2);
  in.clear();
  in.seekg(start);
  std::vector<char> buffer(1 << 16);
  int newlines = 0;  // consecutive line ends, CRs ignored
  int64_t at = start;
  while (at < size) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got <= 0) return absl::DataLossError(absl::StrCat(file, ": read error"));
    for (std::streamsize i = 0; i < got; ++i, ++at) {
      const char c = buffer[i];
      if (c == '\n') {
        ++newlines;
        if (at + 1 >= target && newlines >= (blank_line ? 2 : 1)) return at + 1;
      } else if (c != '\r') {
        newlines = 0;
      }
    }
  }
  return size;
}

// A stream over bytes [begin, end) of a file.
class RangeBuffer : public std::streambuf {
 public:
  RangeBuffer(std::ifstream* in, int64_t remaining) : in_(in), remaining_(remaining) {}

 protected:
  int_type underflow() override {
    if (remaining_ == 0) return traits_type::eof();
    const std::streamsize want = std::min<int64_t>(remaining_, sizeof(buffer_));
    in_->read(buffer_, want);
    const std::streamsize got = in_->gcount();
    if (got <= 0) return traits_type::eof();
    remaining_ -= got;
    setg(buffer_, buffer_, buffer_ + got);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  std::ifstream* in_;
  int64_t remaining_;
  char buffer_[1 << 16];
};

}  // namespace

absl::StatusOr<ByteRange> RangeOfRank(const std::string& file, int index, CorpusFormat format,
                                      int rank, int parts) {
  const bool cuttable = file != "-" && !absl::EndsWith(file, ".gz") && format != CorpusFormat::kPtb;
  if (!cuttable || parts == 1) {
    if (index % parts == rank) return ByteRange{};
    return ByteRange{0, 0};
  }
  std::error_code ec;
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(file, ec));
  if (ec) return absl::NotFoundError(absl::StrCat(file, ": cannot read: ", ec.message()));
  std::ifstream in(file, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(file, ": cannot open"));
  const bool blank_line = format != CorpusFormat::kTagged;
  // Cuts are computed from the start so every rank gets the same, non-decreasing ones.
  int64_t begin = 0, end = 0;
  for (int k = 0; k <= rank; ++k) {
    begin = end;
    absl::StatusOr<int64_t> cut = NextBoundary(in, file, size * (k + 1) / parts, size, blank_line);
    if (!cut.ok()) return cut.status();
    end = std::max(begin, *cut);
  }
  return ByteRange{begin, end};
}

absl::Status ForEachSentenceInRange(const std::string& file, const ByteRange& range,
                                    const ReaderOptions& options,
                                    const std::function<absl::Status(Sentence&&)>& fn,
                                    const std::function<void(const std::string&)>& warn) {
  if (range.empty()) return absl::OkStatus();
  std::unique_ptr<SentenceReader> reader;
  std::ifstream in;
  std::unique_ptr<RangeBuffer> buffer;
  std::unique_ptr<std::istream> stream;
  if (range.begin == 0 && range.end < 0) {
    auto opened = OpenSentenceReader(file, options);
    if (!opened.ok()) return opened.status();
    reader = std::move(*opened);
  } else {
    in.open(file, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat(file, ": cannot open"));
    in.seekg(range.begin);
    buffer = std::make_unique<RangeBuffer>(&in, range.end - range.begin);
    stream = std::make_unique<std::istream>(buffer.get());
    reader = MakeSentenceReader(*stream, absl::StrCat(file, "@", range.begin), options);
  }
  while (true) {
    auto next = reader->Next();
    if (warn) {
      for (const std::string& w : reader->TakeWarnings()) warn(w);
    }
    if (!next.ok()) return next.status();
    if (!next->has_value()) return absl::OkStatus();
    if (absl::Status s = fn(std::move(**next)); !s.ok()) return s;
  }
}

PartFile::PartFile(std::string path) : path_(std::move(path)) {}

absl::StatusOr<std::unique_ptr<PartFile>> PartFile::Create() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) return absl::NotFoundError(absl::StrCat("temporary directory: ", ec.message()));
  std::string path = (dir / "chaintag-tag-part-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot create a temporary file: ", std::strerror(errno)));
  }
  auto part = std::unique_ptr<PartFile>(new PartFile(path));
  part->file_.open(path, std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary);
  // Unlinked at once: the open stream keeps the data until it is closed or the process ends.
  unlink(path.c_str());
  close(fd);
  if (!part->file_) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open"));
  return part;
}

absl::StatusOr<int64_t> PartFile::Written() {
  file_.flush();
  const std::streamoff at = file_.tellp();
  if (!file_ || at < 0) {
    return absl::DataLossError(
        absl::StrCat(path_, ": write error in the temporary file of this rank's output (",
                     std::strerror(errno), "; is $TMPDIR full?)"));
  }
  return static_cast<int64_t>(at);
}

absl::StatusOr<std::string> PartFile::Read(int64_t n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  file_.seekg(read_at_);
  file_.read(bytes.data(), n);
  if (file_.gcount() != n) {
    return absl::DataLossError(absl::StrCat(path_,
                                            ": read error in the temporary file of this "
                                            "rank's output"));
  }
  read_at_ += n;
  return bytes;
}

absl::Status SendPartToRoot(Communicator* ranks, int from, int64_t bytes, PartFile* part,
                            std::ostream* out) {
  constexpr int64_t kChunk = int64_t{4} << 20;
  for (int64_t at = 0; at < bytes; at += kChunk) {
    const int64_t n = std::min(kChunk, bytes - at);
    std::string chunk;
    if (ranks->rank() == from) {
      absl::StatusOr<std::string> read = part->Read(n);
      if (!read.ok()) return read.status();
      chunk = *std::move(read);
    }
    const std::string got = ranks->SendTo(chunk, from, 0);
    if (out != nullptr) out->write(got.data(), static_cast<std::streamsize>(got.size()));
  }
  return absl::OkStatus();
}

}  // namespace chaintag::cli
