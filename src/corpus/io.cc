// File helpers: transparent gzip input, writability checks, atomic output files.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "boost/iostreams/filter/gzip.hpp"
#include "boost/iostreams/filtering_stream.hpp"
#include "chaintag/corpus.h"

namespace chaintag {
namespace {

namespace io = boost::iostreams;

std::string ErrnoText(int err) { return std::strerror(err); }

// Checks that `path` names a readable regular file (or something stream-like, e.g. a FIFO).
absl::Status CheckReadable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open: ", ErrnoText(err)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected a file, found a directory"));
  }
  if (::access(path.c_str(), R_OK) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for reading: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

// An istream over standard input that does not own std::cin's buffer.
class StdinStream : public std::istream {
 public:
  StdinStream() : std::istream(std::cin.rdbuf()) {}
};

// Decompresses a gzip stream it owns (file or standard input).
class GzipStream : public io::filtering_istream {
 public:
  explicit GzipStream(std::unique_ptr<std::istream> base) : base_(std::move(base)) {
    push(io::gzip_decompressor());
    push(*base_);
  }
  ~GzipStream() override {
    // Boost may throw from close() on corrupt data; a destructor must not.
    try {
      reset();
    } catch (...) {
    }
  }

 private:
  std::unique_ptr<std::istream> base_;
};

// Gzip is recognised by its magic bytes (RFC 1952: 1f 8b), whatever the name, standard input too.
absl::StatusOr<std::unique_ptr<std::istream>> MaybeGunzip(std::unique_ptr<std::istream> in,
                                                          const std::string& name) {
  const int first = in->peek();
  if (first != 0x1f) return in;
  in->get();
  const int second = in->peek();
  in->unget();
  if (second != 0x8b || !*in) {
    in->clear();
    return in;
  }
  try {
    return std::unique_ptr<std::istream>(std::make_unique<GzipStream>(std::move(in)));
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(name, ": cannot open gzip stream: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<std::istream>> OpenInputStream(const std::string& path) {
  if (path == "-") return MaybeGunzip(std::make_unique<StdinStream>(), "<stdin>");
  if (absl::Status s = CheckReadable(path); !s.ok()) return s;
  auto in = std::make_unique<std::ifstream>(path, std::ios::in | std::ios::binary);
  if (!in->is_open()) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for reading: ", ErrnoText(errno)));
  }
  return MaybeGunzip(std::move(in), path);
}

absl::Status CheckWritable(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("expected an output path, found \"\"");
  if (path == "-") return absl::OkStatus();
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expected a file to write, found a directory"));
    }
    if (::access(path.c_str(), W_OK) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write: ", ErrnoText(errno)));
    }
  }
  // The rename in AtomicOutputFile needs a writable directory even when the file exists.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir.push_back('.');
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot write: directory ", dir, " does not exist"));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write: directory ", dir, ": ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

namespace {

// Temporary files not yet committed, for RemoveTemporaryFiles() in a signal handler: a fixed
// table of heap copies of the names, claimed and released by atomic exchanges (no locks, no
// allocation in the handler).
constexpr int kMaxTemporaryFiles = 256;
std::atomic<char*> temporary_files[kMaxTemporaryFiles];

void RegisterTemporaryFile(const std::string& path) {
  char* copy = ::strdup(path.c_str());
  if (copy == nullptr) return;
  for (auto& slot : temporary_files) {
    char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy)) return;
  }
  std::free(copy);  // table full: the destructor still removes the file on a normal exit
}

void UnregisterTemporaryFile(const std::string& path) {
  for (auto& slot : temporary_files) {
    char* name = slot.load();
    if (name != nullptr && path == name && slot.compare_exchange_strong(name, nullptr)) {
      std::free(name);
      return;
    }
  }
}

}  // namespace

void RemoveTemporaryFiles() {
  for (auto& slot : temporary_files) {
    if (char* name = slot.exchange(nullptr); name != nullptr) ::unlink(name);
  }
}

AtomicOutputFile::AtomicOutputFile() = default;

AtomicOutputFile::~AtomicOutputFile() {
  if (!committed_ && !temp_path_.empty()) {
    out_.reset();
    ::unlink(temp_path_.c_str());
    UnregisterTemporaryFile(temp_path_);
  }
}

absl::Status AtomicOutputFile::Open(const std::string& path) {
  if (out_ != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": AtomicOutputFile already open"));
  }
  if (path == "-") {
    return absl::InvalidArgumentError("expected a file name for atomic output, found \"-\"");
  }
  if (absl::Status s = CheckWritable(path); !s.ok()) return s;
  std::string name = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot create temporary file: ", ErrnoText(errno)));
  }
  // mkstemp makes the file 0600; output files should be readable like any other.
  ::fchmod(fd, 0644);
  ::close(fd);
  path_ = path;
  temp_path_ = name;
  committed_ = false;
  RegisterTemporaryFile(temp_path_);
  auto out =
      std::make_unique<std::ofstream>(name, std::ios::out | std::ios::binary | std::ios::trunc);
  if (!out->is_open()) {
    ::unlink(name.c_str());
    temp_path_.clear();
    return absl::PermissionDeniedError(absl::StrCat(name, ": cannot open for writing"));
  }
  out_ = std::move(out);
  return absl::OkStatus();
}

std::ostream& AtomicOutputFile::stream() { return *out_; }

absl::Status AtomicOutputFile::Commit() {
  if (out_ == nullptr || committed_) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_, ": Commit() without a successful Open()"));
  }
  auto* file = static_cast<std::ofstream*>(out_.get());
  file->flush();
  const bool write_ok = file->good();
  file->close();
  if (!write_ok || file->fail()) {
    return absl::DataLossError(
        absl::StrCat(temp_path_, ": write failed (disk full?); ", path_, " left unchanged"));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot rename ", temp_path_, " to ", path_, ": ", ErrnoText(errno)));
  }
  committed_ = true;
  UnregisterTemporaryFile(temp_path_);
  out_.reset();
  return absl::OkStatus();
}

}  // namespace chaintag
