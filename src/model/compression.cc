#include "model/compression.h"

#include <exception>
#include <ios>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "boost/iostreams/copy.hpp"
#include "boost/iostreams/device/array.hpp"
#include "boost/iostreams/device/back_inserter.hpp"
#include "boost/iostreams/filter/gzip.hpp"
#include "boost/iostreams/filtering_stream.hpp"

namespace chaintag::model_file {

namespace io = boost::iostreams;

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

absl::StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& name, uint64_t max_bytes) {
  std::string out;
  try {
    io::filtering_istream in;
    in.push(io::gzip_decompressor());
    in.push(io::array_source(bytes.data(), bytes.size()));
    char buffer[1 << 16];
    while (in) {
      in.read(buffer, sizeof(buffer));
      out.append(buffer, static_cast<size_t>(in.gcount()));
      if (out.size() > max_bytes) {
        return absl::DataLossError(absl::StrCat(name, ": gzip-compressed model expands beyond ",
                                                max_bytes, " bytes"));
      }
    }
    if (in.bad()) {
      return absl::DataLossError(absl::StrCat(name, ": corrupt gzip-compressed model (read error)"));
    }
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(name, ": corrupt gzip-compressed model: ", e.what()));
  }
  return out;
}

}  // namespace chaintag::model_file
