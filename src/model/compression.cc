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

// What went wrong, in words (Boost's exception text is "gzip error" or "zlib error").
std::string GzipErrorText(const io::gzip_error& e) {
  switch (e.error()) {
    case io::gzip::zlib_error:
      return absl::StrCat("invalid compressed data, zlib code ", e.zlib_error_code());
    case io::gzip::bad_crc:
      return "CRC mismatch";
    case io::gzip::bad_length:
      return "length mismatch";
    case io::gzip::bad_header:
      return "bad gzip header";
    case io::gzip::bad_footer:
      return "bad gzip footer";
    case io::gzip::bad_method:
      return "unknown compression method";
    default:
      return absl::StrCat("gzip error ", e.error());
  }
}

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
    uint64_t check_at = header_bytes;  // 0 once every check has run
    char buffer[1 << 16];
    while (in) {
      // What a check wants to see is read on its own, so nothing more is inflated before it runs.
      const size_t want =
          check_at == 0
              ? sizeof(buffer)
              : static_cast<size_t>(std::min<uint64_t>(sizeof(buffer), check_at - out.size()));
      in.read(buffer, static_cast<std::streamsize>(want));
      out.append(buffer, static_cast<size_t>(in.gcount()));
      if (!source_error.ok()) return source_error;
      if (check_at != 0 && (out.size() >= check_at || !in)) {
        if (in.bad()) break;
        absl::StatusOr<HeaderVerdict> verdict = check(out);
        if (!verdict.ok()) return verdict.status();
        limit = std::min(limit, verdict->max_bytes);
        check_at = verdict->check_again_at > out.size() && in ? verdict->check_again_at : 0;
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
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(name, ": out of memory decompressing the gzip-compressed model after ",
                     out.size(), " bytes"));
  } catch (const io::gzip_error& e) {
    if (!source_error.ok()) return source_error;
    return absl::DataLossError(
        absl::StrCat(name, ": corrupt gzip-compressed model (", GzipErrorText(e), ")"));
  } catch (const std::exception&) {
    if (!source_error.ok()) return source_error;
    return absl::DataLossError(absl::StrCat(name, ": corrupt gzip-compressed model (read error)"));
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
      source, name, 0,
      [&](std::string_view) -> absl::StatusOr<HeaderVerdict> { return HeaderVerdict{max_bytes}; },
      max_bytes);
}

}  // namespace chaintag::model_file
