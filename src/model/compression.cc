#include "model/compression.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <ios>
#include <optional>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "boost/iostreams/concepts.hpp"
#include "boost/iostreams/copy.hpp"
#include "boost/iostreams/device/array.hpp"
#include "boost/iostreams/device/back_inserter.hpp"
#include "boost/iostreams/filter/gzip.hpp"
#include "boost/iostreams/filtering_stream.hpp"

namespace chaintag::model_file {

namespace io = boost::iostreams;

namespace {

// A Boost source over a ByteSource; the first error is kept (Boost only sees end of input).
class CallbackSource : public io::source {
 public:
  CallbackSource(const ByteSource* source, absl::Status* error) : source_(source), error_(error) {}
  std::streamsize read(char* s, std::streamsize n) {
    if (!error_->ok()) return -1;
    absl::StatusOr<size_t> got = (*source_)(s, static_cast<size_t>(n));
    if (!got.ok()) {
      *error_ = got.status();
      return -1;
    }
    return *got == 0 ? -1 : static_cast<std::streamsize>(*got);
  }

 private:
  const ByteSource* source_;
  absl::Status* error_;
};

}  // namespace

std::string Gzip(std::string_view bytes) {
  std::string out;
  io::gzip_params params(io::gzip::best_compression);
  params.mtime = 0;
  io::filtering_ostream os;
  os.push(io::gzip_compressor(params));
  os.push(io::back_inserter(out));
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  io::close(os);
  return out;
}

absl::StatusOr<std::string> GunzipStream(const ByteSource& source, const std::string& name,
                                         size_t header_bytes, const HeaderCheck& check,
                                         uint64_t max_bytes) {
  std::string out;
  absl::Status source_error;
  try {
    io::filtering_istream in;
    in.push(io::gzip_decompressor());
    in.push(CallbackSource(&source, &source_error));
    uint64_t limit = max_bytes;
    bool checked = false;
    char buffer[1 << 16];
    while (in) {
      // The header is read on its own, so nothing more is inflated before it is checked.
      const size_t want =
          checked ? sizeof(buffer) : std::min(sizeof(buffer), header_bytes - out.size());
      in.read(buffer, static_cast<std::streamsize>(want));
      out.append(buffer, static_cast<size_t>(in.gcount()));
      if (!source_error.ok()) return source_error;
      if (!checked && (out.size() >= header_bytes || !in)) {
        if (in.bad()) break;
        checked = true;
        absl::StatusOr<uint64_t> allowed = check(out);
        if (!allowed.ok()) return allowed.status();
        limit = std::min(limit, *allowed);
      }
      if (out.size() > limit) {
        return absl::DataLossError(
            absl::StrCat(name, ": gzip-compressed model expands beyond ", limit, " bytes",
                         limit < max_bytes ? " (the size its header declares)" : ""));
      }
    }
    if (!source_error.ok()) return source_error;
    if (in.bad()) {
      return absl::DataLossError(
          absl::StrCat(name, ": corrupt gzip-compressed model (read error)"));
    }
  } catch (const std::exception& e) {
    if (!source_error.ok()) return source_error;
    return absl::DataLossError(absl::StrCat(name, ": corrupt gzip-compressed model: ", e.what()));
  }
  return out;
}

absl::StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& name,
                                   uint64_t max_bytes) {
  size_t pos = 0;
  const ByteSource source = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    const size_t k = std::min(n, bytes.size() - pos);
    std::memcpy(buffer, bytes.data() + pos, k);
    pos += k;
    return k;
  };
  return GunzipStream(
      source, name, 0, [&](std::string_view) -> absl::StatusOr<uint64_t> { return max_bytes; },
      max_bytes);
}

}  // namespace chaintag::model_file
