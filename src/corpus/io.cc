// File helpers: transparent gzip input, writability checks, atomic output files.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
#include <streambuf>
#include <string>
#include <vector>

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

namespace {

// What a path to write names once symbolic links are followed.
enum class OutputKind { kNew, kRegular, kInPlace };

struct ResolvedOutput {
  std::string target;  // the path itself, or the final target of its symbolic links
  OutputKind kind = OutputKind::kNew;
  mode_t mode = 0;  // of an existing target
};

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir.push_back('.');
  return dir;
}

// Follows `path`'s symbolic links by hand (a dangling link's target is where the file will be
// created, which realpath cannot say), as the kernel's limit of 40 links does.
absl::StatusOr<ResolvedOutput> ResolveOutput(const std::string& path) {
  ResolvedOutput r;
  r.target = path;
  for (int links = 0;; ++links) {
    struct stat st;
    if (::lstat(r.target.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT) return r;  // a new file
      return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write: ", ErrnoText(err)));
    }
    if (S_ISLNK(st.st_mode)) {
      if (links == 40) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": cannot write: more than 40 symbolic links"));
      }
      std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
      const ssize_t n = ::readlink(r.target.c_str(), link.data(), link.size());
      if (n < 0 || static_cast<size_t>(n) >= link.size()) {
        return absl::PermissionDeniedError(
            absl::StrCat(path, ": cannot read the symbolic link ", r.target));
      }
      link.resize(static_cast<size_t>(n));
      r.target = link.front() == '/' ? link : DirectoryOf(r.target) + "/" + link;
      continue;
    }
    r.mode = st.st_mode;
    if (S_ISREG(st.st_mode)) {
      r.kind = OutputKind::kRegular;
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
      r.kind = OutputKind::kInPlace;
    } else if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expected a file to write, found a directory"));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": expected a file, character device, FIFO or socket to write, found a ",
          S_ISBLK(st.st_mode) ? "block device" : "special file"));
    }
    return r;
  }
}

absl::Status CheckWritable(const std::string& path, const ResolvedOutput& r) {
  if (r.kind != OutputKind::kNew && ::access(r.target.c_str(), W_OK) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write: ", ErrnoText(errno)));
  }
  if (r.kind == OutputKind::kInPlace) return absl::OkStatus();
  // The rename in AtomicOutputFile needs a writable directory even when the file exists.
  const std::string dir = DirectoryOf(r.target);
  struct stat st;
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

}  // namespace

absl::Status CheckWritable(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("expected an output path, found \"\"");
  if (path == "-") return absl::OkStatus();
  absl::StatusOr<ResolvedOutput> resolved = ResolveOutput(path);
  if (!resolved.ok()) return resolved.status();
  return CheckWritable(path, *resolved);
}

absl::Status CheckOutputIsNotAnInput(const std::string& output,
                                     const std::vector<InputFile>& inputs) {
  struct stat out;
  if (output.empty() || output == "-" || ::stat(output.c_str(), &out) != 0 ||
      !S_ISREG(out.st_mode)) {
    return absl::OkStatus();  // standard output, a new file, a device or a FIFO
  }
  for (const InputFile& input : inputs) {
    struct stat in;
    const int got =
        input.path == "-" ? ::fstat(STDIN_FILENO, &in) : ::stat(input.path.c_str(), &in);
    if (got != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino) continue;
    const std::string what =
        input.path == "-"
            ? "standard input's file"
            : absl::StrCat("the ", input.option.empty() ? "input" : input.option + " file", " '",
                           input.path, "'");
    return absl::InvalidArgumentError(absl::StrCat(
        "the output '", output, "' would overwrite ", what,
        input.path == output ? "" : " (the same file)", "; write the output elsewhere"));
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

// Opens a Unix socket's path for writing: a stream connection to whoever listens on it.
int ConnectUnixSocket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

}  // namespace

void RemoveTemporaryFiles() {
  for (auto& slot : temporary_files) {
    if (char* name = slot.exchange(nullptr); name != nullptr) ::unlink(name);
  }
}

// An output stream buffer over a file descriptor it does not own; remembers the first write
// error's errno.
class AtomicOutputFile::FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  bool Drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

AtomicOutputFile::AtomicOutputFile() = default;

AtomicOutputFile::~AtomicOutputFile() {
  out_.reset();
  buffer_.reset();
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    UnregisterTemporaryFile(temp_path_);
  }
}

absl::Status AtomicOutputFile::Open(const std::string& path) {
  if (out_ != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": AtomicOutputFile already open"));
  }
  if (path.empty()) return absl::InvalidArgumentError("expected an output path, found \"\"");
  if (path == "-") {
    return absl::InvalidArgumentError("expected a file name for atomic output, found \"-\"");
  }
  absl::StatusOr<ResolvedOutput> resolved = ResolveOutput(path);
  if (!resolved.ok()) return resolved.status();
  if (absl::Status s = CheckWritable(path, *resolved); !s.ok()) return s;
  path_ = path;
  target_ = resolved->target;
  committed_ = false;
  if (resolved->kind == OutputKind::kInPlace) {
    // Written in place like a shell redirection: replacing /dev/null or a FIFO with a regular file
    // would destroy it.
    const int fd = S_ISSOCK(resolved->mode)
                       ? ConnectUnixSocket(target_)
                       : ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": cannot open for writing: ", ErrnoText(errno)));
    }
    fd_ = fd;
  } else {
    std::string name = target_ + ".tmp-XXXXXX";
    // A terminating signal between creating and registering the temporary would leave it
    // behind: this thread holds such signals until the name is registered.
    sigset_t terminating, previous;
    sigemptyset(&terminating);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&terminating, sig);
    pthread_sigmask(SIG_BLOCK, &terminating, &previous);
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    const int err = errno;
    if (fd >= 0) RegisterTemporaryFile(name);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": cannot create temporary file: ", ErrnoText(err)));
    }
    // mkstemp makes the file 0600: a new output is readable like any other file, a replaced one
    // keeps its permissions.
    ::fchmod(fd, resolved->kind == OutputKind::kRegular ? (resolved->mode & 0777) : 0644);
    fd_ = fd;
    temp_path_ = name;
  }
  buffer_ = std::make_unique<FdBuffer>(fd_);
  out_ = std::make_unique<std::ostream>(buffer_.get());
  return absl::OkStatus();
}

std::ostream& AtomicOutputFile::stream() { return *out_; }

absl::Status AtomicOutputFile::Commit() {
  if (out_ == nullptr || committed_) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_, ": Commit() without a successful Open()"));
  }
  out_->flush();
  int error = buffer_->error();
  if (error == 0 && !out_->good()) error = EIO;
  // The data reaches the disk before the rename makes it the file (else a crash can leave an
  // empty file under the final name).
  if (error == 0 && !temp_path_.empty() && ::fsync(fd_) != 0) error = errno;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  out_.reset();
  buffer_.reset();
  if (error != 0) {
    if (temp_path_.empty()) {
      return absl::DataLossError(absl::StrCat(path_, ": write failed: ", ErrnoText(error)));
    }
    return absl::DataLossError(absl::StrCat(temp_path_, ": write failed (", ErrnoText(error), "); ",
                                            path_, " left unchanged"));
  }
  if (!temp_path_.empty()) {
    if (std::rename(temp_path_.c_str(), target_.c_str()) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot rename ", temp_path_, " to ", target_, ": ", ErrnoText(errno)));
    }
    UnregisterTemporaryFile(temp_path_);
    // The directory entry too (best effort: some file systems cannot sync a directory).
    const int dir = ::open(DirectoryOf(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace chaintag
