// The binary model file: writer, bounds-checked reader, validation and load-time self-tests.
// Layout in docs/model-format.md.
#include "model/model_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "boost/crc.hpp"
#include "chaintag/model.h"
#include "corpus/line_reader.h"
#include "model/compression.h"
#include "neural/encoder.h"
#include "neural/serialize.h"
#include "string_view_compat.h"
#include "unicode/uchar.h"
#include "unicode/utf8.h"
#include "worker_threads.h"

namespace chaintag {
namespace model_file {
namespace {

void PutU32At(std::string* out, size_t pos, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*out)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutU64At(std::string* out, size_t pos, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*out)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint32_t GetU32At(std::string_view in, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(in[pos + i])} << (8 * i);
  return v;
}
uint64_t GetU64At(std::string_view in, size_t pos) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in[pos + i])} << (8 * i);
  return v;
}

}  // namespace

const char* SectionName(uint32_t id) {
  switch (id) {
    case kLabels:
      return "labels";
    case kTemplates:
      return "templates";
    case kAttributes:
      return "attributes";
    case kParameters:
      return "parameters";
    case kTransitionMask:
      return "transition mask";
    case kMetadata:
      return "metadata";
    case kSelfTests:
      return "self-tests";
    case kLexicon:
      return "lexicon";
    case kInputOptions:
      return "input options";
    case kLatentStates:
      return "latent states";
    case kFamily:
      return "family";
    case kSecondOrder:
      return "second order";
    case kNeural:
      return "neural";
    case kClusters:
      return "clusters";
    case kLexicon2:
      return "second lexicon";
    default:
      return "unknown";
  }
}

namespace {

uint32_t Crc32cPortable(std::string_view data) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CHAINTAG_CRC32C_SSE42 1
// The SSE4.2 crc32 instruction computes the same reflected CRC-32C, 8 bytes at a time: checking a
// model's sections was a quarter of a one-sentence `tag` run with the table-driven version.
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(std::string_view data) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t size = data.size();
  uint64_t crc = 0xFFFFFFFFu;
  for (; size >= 8; p += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = __builtin_ia32_crc32di(crc, word);
  }
  uint32_t c = static_cast<uint32_t>(crc);
  for (; size > 0; ++p, --size) c = __builtin_ia32_crc32qi(c, *p);
  return c ^ 0xFFFFFFFFu;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view data) {
  // CRC-32C (Castagnoli), reflected, as in iSCSI and ext4.
#ifdef CHAINTAG_CRC32C_SSE42
  static const bool sse42 = __builtin_cpu_supports("sse4.2");
  if (sse42) return Crc32cSse42(data);
#endif
  return Crc32cPortable(data);
}

uint32_t Crc32cForTesting(std::string_view data, bool portable) {
  return portable ? Crc32cPortable(data) : Crc32c(data);
}

absl::Status CheckMagicAndVersion(std::string_view bytes, const std::string& name) {
  const uint64_t size = bytes.size();
  if (size < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    if (size < kMagic.size() && kMagic.substr(0, size) == bytes) {
      return absl::DataLossError(absl::StrCat(name, ": truncated model file: expected at least ",
                                              kFixedHeaderBytes, " header bytes, found ", size));
    }
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a chaintag model (bad magic)"));
  }
  if (size < 12) {
    return absl::DataLossError(absl::StrCat(name, ": truncated model file: expected at least ",
                                            kFixedHeaderBytes, " header bytes, found ", size));
  }
  const uint32_t version = GetU32At(bytes, 8);
  if (version >= 1 && version < kFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": made by an older chaintag (model format ", version,
                     "); retrain it with tools/train-models.sh"));
  }
  if (version < kFormatVersion || version > kMaxFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, ": model format version ", version,
        " is not supported (this chaintag reads versions ", kFormatVersion, " to ",
        kMaxFormatVersion,
        version > kMaxFormatVersion ? "; the model was written by a newer chaintag)" : ")"));
  }
  if (size < kFixedHeaderBytes) {
    return absl::DataLossError(absl::StrCat(name, ": truncated model file: expected at least ",
                                            kFixedHeaderBytes, " header bytes, found ", size));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CheckHeader(std::string_view prefix, const std::string& name) {
  if (absl::Status s = CheckMagicAndVersion(prefix, name); !s.ok()) return s;
  const uint64_t declared_size = GetU64At(prefix, 16);
  if (declared_size > kMaxModelBytes) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": expected a model of at most ",
                                                   kMaxModelBytes, " bytes, the header declares ",
                                                   declared_size, " bytes"));
  }
  return declared_size;
}

absl::Status SizeMismatch(const std::string& name, uint64_t declared_size, uint64_t size) {
  return absl::DataLossError(absl::StrCat(name, ": expected ", declared_size,
                                          " bytes (size recorded in the header), found ", size,
                                          size < declared_size ? " (truncated file)" : ""));
}

absl::Status CheckModelString(std::string_view text, StringRule rule, std::string_view what,
                              const std::string& name) {
  const std::string_view requirement =
      rule == StringRule::kName   ? "without whitespace or control characters"
      : rule == StringRule::kCell ? "without tabs, line breaks or control characters"
      : rule == StringRule::kLine ? "without line breaks or control characters"
                                  : "without control characters other than tab and line feed";
  if (rule == StringRule::kName && text.empty()) {
    return absl::DataLossError(
        absl::StrCat(name, ": expected ", ToAbsl(what), " to be non-empty, found \"\""));
  }
  bool is_nul = false, all_ascii = true;
  const int64_t bad = corpus_internal::FindInvalidUtf8(text, &is_nul, &all_ascii);
  if (bad >= 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: expected %s to be UTF-8 text %s, found %s at byte offset %d in %s", name, ToAbsl(what),
        ToAbsl(requirement),
        is_nul ? std::string("a NUL byte")
               : absl::StrFormat("invalid byte 0x%02X", static_cast<unsigned char>(text[bad])),
        bad, corpus_internal::QuoteLine(text)));
  }
  const auto* data = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t length = static_cast<int32_t>(std::min<size_t>(text.size(), INT32_MAX));
  int32_t i = 0;
  while (i < length) {
    const int32_t begin = i;
    UChar32 c;
    U8_NEXT(data, i, length, c);
    bool refused = false;
    if (c == '\t') {
      refused = rule == StringRule::kName || rule == StringRule::kCell;
    } else if (c == '\n') {
      refused = rule != StringRule::kText;
    } else if (c == '\r') {
      // A template file with CRLF line ends is stored as written.
      refused = rule != StringRule::kText || i >= length || data[i] != '\n';
    } else if (c < 0x20 || (c >= 0x7F && c < 0xA0)) {
      refused = true;
    } else if (rule == StringRule::kName) {
      refused = u_isUWhiteSpace(c);
    }
    if (refused) {
      const std::string found = c == ' '    ? std::string("a space")
                                : c == '\t' ? std::string("a tab")
                                : c == '\n' ? std::string("a line feed")
                                : c == '\r' ? std::string("a carriage return")
                                            : absl::StrFormat("U+%04X", static_cast<uint32_t>(c));
      return absl::DataLossError(absl::StrFormat(
          "%s: expected %s to be UTF-8 text %s, found %s at byte offset %d in %s", name,
          ToAbsl(what), ToAbsl(requirement), found, begin, corpus_internal::QuoteLine(text)));
    }
  }
  return absl::OkStatus();
}

uint64_t AlignedOffset(uint64_t offset) {
  return (offset + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

uint64_t HeaderAndTableBytes(std::string_view prefix) {
  if (prefix.size() < kFixedHeaderBytes) return 0;
  const uint32_t count = GetU32At(prefix, 12);
  if (count == 0 || count > kMaxSections) return 0;
  return kFixedHeaderBytes + uint64_t{count} * kSectionEntryBytes + 4;
}

absl::StatusOr<std::vector<SectionEntry>> ReadSectionTable(std::string_view bytes,
                                                           const std::string& name,
                                                           std::optional<uint64_t> file_size) {
  const uint64_t size = file_size.value_or(bytes.size());
  if (absl::Status s = CheckMagicAndVersion(bytes, name); !s.ok()) return s;
  const uint32_t count = GetU32At(bytes, 12);
  const uint64_t declared_size = GetU64At(bytes, 16);
  if (declared_size != size) return SizeMismatch(name, declared_size, size);
  if (count == 0 || count > kMaxSections) {
    return absl::DataLossError(
        absl::StrCat(name, ": expected 1 to ", kMaxSections, " sections, header says ", count));
  }
  const uint64_t table_end = kFixedHeaderBytes + uint64_t{count} * kSectionEntryBytes;
  const uint64_t header_end = table_end + 4;
  if (header_end > bytes.size()) {
    return absl::DataLossError(absl::StrCat(name, ": expected a ", header_end,
                                            "-byte header and section table, file has ", size,
                                            " bytes"));
  }
  const uint32_t stored_crc = GetU32At(bytes, table_end);
  const uint32_t computed_crc = Crc32c(bytes.substr(0, table_end));
  if (stored_crc != computed_crc) {
    return absl::DataLossError(absl::StrCat(name, ": header checksum mismatch (stored ", stored_crc,
                                            ", computed ", computed_crc, "): the file is corrupt"));
  }
  std::vector<SectionEntry> entries(count);
  uint64_t end = header_end;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t pos = kFixedHeaderBytes + size_t{i} * kSectionEntryBytes;
    SectionEntry& e = entries[i];
    e.id = GetU32At(bytes, pos);
    e.checksum = GetU32At(bytes, pos + 4);
    e.offset = GetU64At(bytes, pos + 8);
    e.length = GetU64At(bytes, pos + 16);
    // Written this way so a huge offset or length cannot overflow the comparison.
    if (e.offset < header_end || e.offset > size || e.length > size - e.offset) {
      return absl::DataLossError(
          absl::StrCat(name, ": section ", i, " (", SectionName(e.id), ") spans bytes [", e.offset,
                       ", +", e.length, "), expected it inside [", header_end, ", ", size, ")"));
    }
    // In table order, each where the previous one ends rounded up to the alignment: no byte of
    // the file is outside the checksums but zero padding (FromBytes checks it is zero).
    if (e.offset != AlignedOffset(end)) {
      return absl::DataLossError(
          absl::StrCat(name, ": section ", i, " (", SectionName(e.id), ") starts at byte ",
                       e.offset, ", expected ", AlignedOffset(end), " (where the ",
                       i == 0 ? "section table" : "previous section",
                       " ends, rounded up to a multiple of ", kSectionAlignment, ")"));
    }
    end = e.offset + e.length;
  }
  // So a size the header overstates is caught here, not after reading (or inflating) that much.
  if (end != size) {
    return absl::DataLossError(absl::StrCat(name, ": expected the sections to end at byte ", size,
                                            " (the size recorded in the header), they end at ",
                                            end));
  }
  return entries;
}

absl::Status RecomputeChecksums(std::string* bytes) {
  // The version or checksums may be what a test changed, so only the magic is required here.
  if (bytes->size() < kFixedHeaderBytes || bytes->compare(0, kMagic.size(), kMagic) != 0) {
    return absl::InvalidArgumentError("RecomputeChecksums: not a chaintag model image");
  }
  const uint32_t count = GetU32At(*bytes, 12);
  const uint64_t table_end = kFixedHeaderBytes + uint64_t{count} * kSectionEntryBytes;
  if (count == 0 || count > kMaxSections || table_end + 4 > bytes->size()) {
    return absl::InvalidArgumentError("RecomputeChecksums: malformed section table");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const size_t pos = kFixedHeaderBytes + size_t{i} * kSectionEntryBytes;
    const uint64_t offset = GetU64At(*bytes, pos + 8);
    const uint64_t length = GetU64At(*bytes, pos + 16);
    if (offset > bytes->size() || length > bytes->size() - offset) {
      return absl::InvalidArgumentError("RecomputeChecksums: section outside the image");
    }
    PutU32At(bytes, pos + 4, Crc32c(std::string_view(*bytes).substr(offset, length)));
  }
  PutU32At(bytes, table_end, Crc32c(std::string_view(*bytes).substr(0, table_end)));
  return absl::OkStatus();
}

}  // namespace model_file

namespace {

using model_file::SectionEntry;

// Little-endian encoder for section payloads.
class ByteWriter {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void F32(double v) { U32(std::bit_cast<uint32_t>(static_cast<float>(v))); }
  void Bytes(std::string_view s) { out_.append(s); }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Bounds-checked little-endian decoder for one section; every read checks the remaining bytes
// and every count is checked against them before anything is allocated.
class ByteReader {
 public:
  ByteReader(std::string_view data, const std::string& name, uint32_t section)
      : data_(data), name_(name), section_(section) {}

  absl::Status Error(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(name_, ": section '", model_file::SectionName(section_),
                                            "' at byte ", pos_, ": ", what));
  }
  // The check inline, the message out of line: loading calls this twice per attribute.
  ABSL_ATTRIBUTE_ALWAYS_INLINE absl::Status Need(uint64_t n, absl::string_view what) const {
    if (n <= remaining()) [[likely]]
      return absl::OkStatus();
    return NotEnough(n, what);
  }
  [[gnu::noinline]] absl::Status NotEnough(uint64_t n, absl::string_view what) const {
    return Error(absl::StrCat("expected ", n, " bytes for ", what, ", found ", remaining()));
  }
  uint64_t remaining() const { return data_.size() - pos_; }

  absl::Status U8(uint8_t* v, absl::string_view what) {
    if (absl::Status s = Need(1, what); !s.ok()) return s;
    *v = static_cast<uint8_t>(data_[pos_++]);
    return absl::OkStatus();
  }
  ABSL_ATTRIBUTE_ALWAYS_INLINE absl::Status U32(uint32_t* v, absl::string_view what) {
    if (absl::Status s = Need(4, what); !s.ok()) return s;
    *v = 0;
    for (int i = 0; i < 4; ++i)
      *v |= uint32_t{static_cast<unsigned char>(data_[pos_ + i])} << (8 * i);
    pos_ += 4;
    return absl::OkStatus();
  }
  absl::Status U64(uint64_t* v, absl::string_view what) {
    if (absl::Status s = Need(8, what); !s.ok()) return s;
    *v = 0;
    for (int i = 0; i < 8; ++i)
      *v |= uint64_t{static_cast<unsigned char>(data_[pos_ + i])} << (8 * i);
    pos_ += 8;
    return absl::OkStatus();
  }
  absl::Status I32(int32_t* v, absl::string_view what) {
    uint32_t u = 0;
    if (absl::Status s = U32(&u, what); !s.ok()) return s;
    *v = static_cast<int32_t>(u);
    return absl::OkStatus();
  }
  absl::Status F32(double* v, absl::string_view what) {
    uint32_t u = 0;
    if (absl::Status s = U32(&u, what); !s.ok()) return s;
    *v = static_cast<double>(std::bit_cast<float>(u));
    return absl::OkStatus();
  }
  // Arrays of little-endian 32-bit values: one bounds check for the whole run.
  absl::Status I32Array(absl::Span<int32_t> out, absl::string_view what) {
    if (absl::Status s = Need(uint64_t{out.size()} * 4, what); !s.ok()) return s;
    const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
    for (size_t i = 0; i < out.size(); ++i, p += 4) {
      out[i] = static_cast<int32_t>(uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
                                    uint32_t{p[3]} << 24);
    }
    pos_ += out.size() * 4;
    return absl::OkStatus();
  }
  absl::Status F32Array(absl::Span<double> out, absl::string_view what) {
    if (absl::Status s = Need(uint64_t{out.size()} * 4, what); !s.ok()) return s;
    const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
    for (size_t i = 0; i < out.size(); ++i, p += 4) {
      const uint32_t u =
          uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
      out[i] = static_cast<double>(std::bit_cast<float>(u));
    }
    pos_ += out.size() * 4;
    return absl::OkStatus();
  }
  // `n` bytes in place (little-endian values the caller decodes), after one bounds check.
  absl::Status Bytes(uint64_t n, const unsigned char** v, absl::string_view what) {
    if (absl::Status s = Need(n, what); !s.ok()) return s;
    *v = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
    pos_ += n;
    return absl::OkStatus();
  }
  absl::Status String(std::string* v, absl::string_view what) {
    std::string_view view;
    if (absl::Status s = StringView(&view, what); !s.ok()) return s;
    v->assign(view);
    return absl::OkStatus();
  }
  // The same without a copy: a view into the section, valid while the file image is.
  ABSL_ATTRIBUTE_ALWAYS_INLINE absl::Status StringView(std::string_view* v,
                                                       absl::string_view what) {
    uint32_t n = 0;
    if (absl::Status s = U32(&n, what); !s.ok()) return s;
    if (absl::Status s = Need(n, what); !s.ok()) return s;
    *v = std::string_view(data_.data() + pos_, n);  // Need checked the bounds
    pos_ += n;
    return absl::OkStatus();
  }
  // A count of items each at least `min_item_bytes` long: rejected before allocation when the
  // section cannot possibly hold that many.
  absl::Status Count(uint32_t* n, uint64_t min_item_bytes, absl::string_view what) {
    if (absl::Status s = U32(n, what); !s.ok()) return s;
    if (uint64_t{*n} * min_item_bytes > remaining()) {
      return Error(absl::StrCat("count ", *n, " of ", what, " needs at least ",
                                uint64_t{*n} * min_item_bytes, " bytes, section has ", remaining(),
                                " left"));
    }
    return absl::OkStatus();
  }
  absl::Status Finish() const {
    if (remaining() == 0) return absl::OkStatus();
    return Error(
        absl::StrCat("expected the end of the section, found ", remaining(), " more bytes"));
  }

 private:
  std::string_view data_;
  uint64_t pos_ = 0;
  const std::string& name_;
  uint32_t section_;
};

#define CHAINTAG_RETURN_IF_ERROR(expr)                 \
  do {                                                 \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

absl::Status ReadStrings(ByteReader& r, absl::string_view what, std::vector<std::string>* out) {
  uint32_t n = 0;
  CHAINTAG_RETURN_IF_ERROR(r.Count(&n, 4, what));
  out->resize(n);
  for (uint32_t i = 0; i < n; ++i) CHAINTAG_RETURN_IF_ERROR(r.String(&(*out)[i], what));
  return absl::OkStatus();
}

absl::Status ReadFlags(ByteReader& r, uint64_t expected, absl::string_view what,
                       std::vector<char>* out) {
  uint64_t n = 0;
  CHAINTAG_RETURN_IF_ERROR(r.U64(&n, what));
  if (n != 0 && n != expected) {
    return r.Error(absl::StrCat("expected 0 or ", expected, " entries of ", what, ", found ", n));
  }
  CHAINTAG_RETURN_IF_ERROR(r.Need(n, what));
  out->resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t v = 0;
    CHAINTAG_RETURN_IF_ERROR(r.U8(&v, what));
    if (v > 1) return r.Error(absl::StrCat("expected 0 or 1 in ", what, ", found ", int{v}));
    (*out)[i] = static_cast<char>(v);
  }
  return absl::OkStatus();
}

// Printable ASCII passes every rule but a name's non-emptiness: most attributes and cells take
// this scan alone, and a description for the message is built only for the others.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool PrintableAscii(std::string_view text) {
  // Eight bytes at a time: a byte is outside 0x20..0x7E iff (b - 0x20) or (b + 1) sets its top
  // bit, or b itself has it (the usual "has a byte less than" word tricks, Hacker's Delight 6-1).
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if ((w | (w - 0x20 * kOnes) | (w + kOnes)) & kHigh) return false;
  }
  for (; i < text.size(); ++i) {
    if (text[i] < 0x20 || text[i] > 0x7E) return false;
  }
  return true;
}

// Attribute `id` (0-based) of a model: the kLine rule (PrintableAscii passes it inline).
[[gnu::noinline]] absl::Status CheckAttributeNameSlow(std::string_view text, int id,
                                                      const std::string& name) {
  return model_file::CheckModelString(text, model_file::StringRule::kLine,
                                      absl::StrCat("attribute ", id + 1), name);
}
ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status CheckAttributeName(std::string_view text, int id,
                                                                    const std::string& name) {
  if (PrintableAscii(text)) [[likely]]
    return absl::OkStatus();
  return CheckAttributeNameSlow(text, id, name);
}

// Every string besides the labels: a CRC-valid file may still carry text that breaks the
// writers or `info --json` (issue 18). The loader checks attribute names as it reads them.
absl::Status CheckStrings(const Model& model, const std::string& name, bool attributes_checked) {
  using model_file::CheckModelString;
  using model_file::StringRule;
  CHAINTAG_RETURN_IF_ERROR(
      CheckModelString(model.spec().text(), StringRule::kText, "the template text", name));
  for (int a = 0; !attributes_checked && a < model.attributes().size(); ++a) {
    CHAINTAG_RETURN_IF_ERROR(CheckAttributeName(model.attributes().name_view(a), a, name));
  }
  for (size_t i = 0; i < model.metadata().size(); ++i) {
    const auto& [key, value] = model.metadata()[i];
    CHAINTAG_RETURN_IF_ERROR(
        CheckModelString(key, StringRule::kName, absl::StrCat("metadata key ", i + 1), name));
    CHAINTAG_RETURN_IF_ERROR(CheckModelString(value, StringRule::kLine,
                                              absl::StrCat("metadata value '", key, "'"), name));
  }
  // Attribute input keeps each token's tab-separated attribute fields in one cell.
  const StringRule cell_rule = model.input_options().format == CorpusFormat::kAttributes
                                   ? StringRule::kLine
                                   : StringRule::kCell;
  for (size_t k = 0; k < model.self_tests().size(); ++k) {
    for (const std::vector<std::string>& column : model.self_tests()[k].sentence.columns) {
      for (const std::string& cell : column) {
        if (PrintableAscii(cell)) continue;
        CHAINTAG_RETURN_IF_ERROR(
            CheckModelString(cell, cell_rule, absl::StrCat("a cell of self-test ", k + 1), name));
      }
    }
  }
  return absl::OkStatus();
}

// Consistency of a model, in memory (before saving) or just parsed (on load).
// LMBM is a first-order chain over labels (decoded as one). Not inlined: Model::FromBytes,
// where Validate is inlined, must stay small enough for its per-attribute readers to be inlined
// (2.7M more instructions loading en-chunk.model otherwise).
ABSL_ATTRIBUTE_NOINLINE absl::Status CheckFamily(const Model& model, const std::string& name) {
  if (model.family() == ModelFamily::kLmbm && (model.latent() || model.order() != 1)) {
    return absl::DataLossError(absl::StrCat(
        name, ": section 'family': an lmbm model is a first-order chain over labels, found ",
        model.latent() ? "hidden states" : "second-order weights"));
  }
  return absl::OkStatus();
}

absl::Status Validate(const Model& model, const std::string& name,
                      bool attributes_checked = false) {
  const int n = model.num_labels();
  if (n == 0) return absl::DataLossError(absl::StrCat(name, ": expected at least one label"));
  CHAINTAG_RETURN_IF_ERROR(CheckFamily(model, name));
  absl::flat_hash_set<std::string_view> seen;
  for (size_t i = 0; i < model.labels().size(); ++i) {
    const std::string& label = model.labels()[i];
    if (label.empty()) return absl::DataLossError(absl::StrCat(name, ": empty label name"));
    CHAINTAG_RETURN_IF_ERROR(model_file::CheckModelString(label, model_file::StringRule::kName,
                                                          absl::StrCat("label ", i + 1), name));
    if (!seen.insert(label).second) {
      return absl::DataLossError(absl::StrCat(name, ": label '", label, "' appears twice"));
    }
  }
  CHAINTAG_RETURN_IF_ERROR(CheckStrings(model, name, attributes_checked));
  const ModelInputOptions& input = model.input_options();
  if (input.label_column < -ReaderOptions::kMaxLabelColumn ||
      input.label_column > ReaderOptions::kMaxLabelColumn) {
    return absl::DataLossError(absl::StrCat(name, ": input options: label column ",
                                            input.label_column, " is out of range"));
  }
  if (input.conllu_label != "upos" && input.conllu_label != "xpos") {
    return absl::DataLossError(absl::StrCat(name,
                                            ": input options: expected the CoNLL-U label "
                                            "field upos or xpos, found '",
                                            input.conllu_label, "'"));
  }
  const TransitionMask& mask = model.transition_mask();
  if (mask.num_labels != 0) {
    const size_t nn = static_cast<size_t>(n);
    if (mask.num_labels != n || mask.allowed.size() != nn * nn || mask.allowed_start.size() != nn ||
        mask.allowed_end.size() != nn) {
      return absl::DataLossError(absl::StrCat(name, ": transition mask is for ", mask.num_labels,
                                              " labels or has wrong sizes, expected ", n));
    }
  }
  for (size_t k = 0; k < model.self_tests().size(); ++k) {
    const Model::SelfTest& test = model.self_tests()[k];
    if (test.expected.size() != static_cast<size_t>(test.sentence.size())) {
      return absl::DataLossError(absl::StrCat(name, ": self-test ", k + 1, " has ",
                                              test.sentence.size(), " tokens and ",
                                              test.expected.size(), " expected labels"));
    }
    for (const std::string& label : test.expected) {
      if (model.LabelId(label) < 0) {
        return absl::DataLossError(
            absl::StrCat(name, ": self-test ", k + 1, " expects unknown label '", label, "'"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view ModelFamilyName(ModelFamily family) {
  switch (family) {
    case ModelFamily::kLmsbn:
      return "lmsbn";
    case ModelFamily::kLmbm:
      return "lmbm";
    case ModelFamily::kLinearChain:
      break;
  }
  return "linear-chain";
}

namespace model_file {

absl::Status CheckParameters(const ModelParameters& p, int num_labels, int num_attributes,
                             const std::string& name) {
  if (p.num_labels != num_labels) {
    return absl::DataLossError(absl::StrCat(name, ": parameters are for ", p.num_labels,
                                            " labels, expected ", num_labels));
  }
  if (p.attribute_offsets.empty()) {
    return absl::DataLossError(absl::StrCat(name, ": expected attribute offsets (A + 1 entries)"));
  }
  const int num_attr = p.num_attributes();
  if (num_attr != num_attributes) {
    return absl::DataLossError(absl::StrCat(name, ": parameters have ", num_attr,
                                            " attributes, the dictionary has ", num_attributes));
  }
  const int64_t num_features = p.num_state_features();
  if (p.attribute_offsets[0] != 0 || p.attribute_offsets[num_attr] != num_features) {
    return absl::DataLossError(absl::StrCat(name, ": attribute offsets must run from 0 to ",
                                            num_features, ", found ", p.attribute_offsets[0],
                                            " to ", p.attribute_offsets[num_attr]));
  }
  for (int a = 0; a < num_attr; ++a) {
    if (p.attribute_offsets[a + 1] < p.attribute_offsets[a]) {
      return absl::DataLossError(absl::StrCat(name, ": attribute offsets decrease at attribute ", a,
                                              " (", p.attribute_offsets[a], " then ",
                                              p.attribute_offsets[a + 1], ")"));
    }
  }
  for (int64_t f = 0; f < num_features; ++f) {
    if (p.feature_labels[f] < 0 || p.feature_labels[f] >= num_labels) {
      return absl::DataLossError(absl::StrCat(name, ": feature ", f, " has label id ",
                                              p.feature_labels[f], ", expected 0 to ",
                                              num_labels - 1));
    }
  }
  if (static_cast<int64_t>(p.weights.size()) != p.size()) {
    return absl::DataLossError(
        absl::StrCat(name, ": expected ", p.size(), " weights, found ", p.weights.size()));
  }
  for (size_t i = 0; i < p.weights.size(); ++i) {
    if (!std::isfinite(p.weights[i])) {
      return absl::DataLossError(
          absl::StrCat(name, ": weight ", i, " is ", p.weights[i], ", expected a finite number"));
    }
  }
  return absl::OkStatus();
}

}  // namespace model_file

namespace {

absl::Status RunSelfTests(const Model& model, const std::string& name) {
  Tagger tagger(model);
  for (size_t k = 0; k < model.self_tests().size(); ++k) {
    const Model::SelfTest& test = model.self_tests()[k];
    absl::StatusOr<Labeling> best = tagger.Tag(test.sentence);
    if (!best.ok()) {
      return absl::DataLossError(absl::StrCat(name, ": self-test sentence ", k + 1,
                                              " could not be tagged: ", best.status().message()));
    }
    std::vector<std::string> got;
    got.reserve(best->labels.size());
    for (const int y : best->labels) got.push_back(model.labels()[y]);
    if (got != test.expected) {
      return absl::DataLossError(absl::StrCat(
          name, ": self-test sentence ", k + 1, " (", absl::StrJoin(test.sentence.columns[0], " "),
          "): expected labels [", absl::StrJoin(test.expected, " "), "], the model now assigns [",
          absl::StrJoin(got, " "),
          "]; the featurizer or decoder has drifted since this model was trained"));
    }
  }
  return absl::OkStatus();
}

// Decompresses a gzip model file, checking the image header (magic, version, declared size) as
// soon as its first bytes are out and stopping at the declared size.
absl::StatusOr<std::string> GunzipModelImage(const model_file::ByteSource& source,
                                             const std::string& name) {
  namespace mf = model_file;
  uint64_t declared = 0;
  return mf::GunzipStream(
      source, name, mf::kFixedHeaderBytes,
      [&](std::string_view prefix) -> absl::StatusOr<mf::HeaderVerdict> {
        if (mf::IsGzip(prefix)) {
          return absl::DataLossError(absl::StrCat(
              name,
              ": expected a chaintag model inside the gzip stream, found another gzip stream"));
        }
        if (prefix.size() <= mf::kFixedHeaderBytes) {
          absl::StatusOr<uint64_t> size = mf::CheckHeader(prefix, name);
          if (!size.ok()) return size.status();
          declared = *size;
          // Then the section table, before inflating the body: a size the header overstates
          // fails there, not after gigabytes of output.
          const uint64_t table = mf::HeaderAndTableBytes(prefix);
          if (table == 0) return mf::ReadSectionTable(prefix, name, declared).status();
          return mf::HeaderVerdict{declared, table};
        }
        absl::StatusOr<std::vector<mf::SectionEntry>> table =
            mf::ReadSectionTable(prefix, name, declared);
        if (!table.ok()) return table.status();
        return mf::HeaderVerdict{declared, 0};
      },
      mf::kMaxModelBytes);
}

// Closes a file descriptor on scope exit.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads the model file at `path` without trusting it: the header comes first, so a file that is
// not a model (even /dev/zero) costs a few bytes, and nothing past the declared size is read.
absl::StatusOr<Model> LoadFile(const std::string& path) {
  namespace mf = model_file;
  // O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting forever;
  // cleared below, so a writer that is there is read to its end.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open model file: ", std::strerror(errno)));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot stat model file: ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected a model file, found a directory"));
  }
  // A FIFO whose writer is starting gets 10 s to write; one with no writer is refused after it.
  if (S_ISFIFO(st.st_mode)) {
    pollfd ready{fd.get(), POLLIN, 0};
    int polled;
    do {
      polled = ::poll(&ready, 1, 10000);
    } while (polled < 0 && errno == EINTR);
    if (polled == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path,
                       ": a FIFO with no writer: nothing to read after 10 s (start the "
                       "program that writes the model first)"));
    }
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read model file: ", std::strerror(errno)));
  }
  const bool regular = S_ISREG(st.st_mode);
  absl::Status read_error;
  // Reads up to `n` bytes (fewer only at the end of the file).
  auto read_some = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::read(fd.get(), buffer + done, n - done);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        return absl::DataLossError(absl::StrCat(path, ": read error: ", std::strerror(errno)));
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  };
  std::string head(mf::kFixedHeaderBytes, '\0');
  absl::StatusOr<size_t> got = read_some(head.data(), head.size());
  if (!got.ok()) return got.status();
  head.resize(*got);
  if (head.empty() && S_ISFIFO(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": a FIFO with no writer: nothing to read (start the program that writes the model "
        "first)"));
  }
  if (mf::IsGzip(head)) {
    size_t head_pos = 0;
    const mf::ByteSource source = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
      if (head_pos < head.size()) {
        const size_t k = std::min(n, head.size() - head_pos);
        std::memcpy(buffer, head.data() + head_pos, k);
        head_pos += k;
        return k;
      }
      return read_some(buffer, n);
    };
    absl::StatusOr<std::string> image = GunzipModelImage(source, path);
    if (!image.ok()) return image.status();
    return Model::FromBytes(*image, path);
  }
  if (head.size() < mf::kFixedHeaderBytes) return Model::FromBytes(head, path);
  absl::StatusOr<uint64_t> declared = mf::CheckHeader(head, path);
  if (!declared.ok()) return declared.status();
  if (regular && static_cast<uint64_t>(st.st_size) != *declared) {
    return mf::SizeMismatch(path, *declared, static_cast<uint64_t>(st.st_size));
  }
  if (regular) {
    // Read into a 64-byte-aligned buffer, not mapped: a file truncated by another process while
    // mapped would end this one with SIGBUS. One byte more than declared, so a longer file is
    // reported as such; not zero-filled, the read overwrites it.
    const uint64_t want = std::max<uint64_t>(*declared + 1, head.size());
    struct AlignedDelete {
      void operator()(char* p) const { ::operator delete[](p, std::align_val_t{64}); }
    };
    std::unique_ptr<char[], AlignedDelete> buffer(
        static_cast<char*>(::operator new[](want, std::align_val_t{64})));
    std::memcpy(buffer.get(), head.data(), head.size());
    absl::StatusOr<size_t> more = read_some(buffer.get() + head.size(), want - head.size());
    if (!more.ok()) return more.status();
    return Model::FromBytes(std::string_view(buffer.get(), head.size() + *more), path);
  }
  std::string bytes = std::move(head);
  // A pipe or device: the section table first, so an overstated size is refused before the body
  // is read.
  if (const uint64_t table = mf::HeaderAndTableBytes(bytes); table > bytes.size()) {
    const size_t old = bytes.size();
    bytes.resize(std::min<uint64_t>(table, *declared));
    absl::StatusOr<size_t> more = read_some(bytes.data() + old, bytes.size() - old);
    if (!more.ok()) return more.status();
    bytes.resize(old + *more);
    if (bytes.size() == table) {
      absl::StatusOr<std::vector<mf::SectionEntry>> entries =
          mf::ReadSectionTable(bytes, path, *declared);
      if (!entries.ok()) return entries.status();
    }
  }
  if (*declared > bytes.size()) {
    // One byte more than declared, so a longer stream is reported as such.
    const uint64_t want = *declared + 1;
    if (regular) bytes.reserve(want);
    constexpr size_t kChunk = size_t{1} << 20;
    while (bytes.size() < want) {
      const size_t old = bytes.size();
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, want - old));
      bytes.resize(old + n);
      absl::StatusOr<size_t> more = read_some(bytes.data() + old, n);
      if (!more.ok()) return more.status();
      bytes.resize(old + *more);
      if (*more < n) break;
    }
  }
  return Model::FromBytes(bytes, path);
}

}  // namespace

std::string Model::ToBytes() const {
  namespace mf = model_file;
  // Only attributes that own state features are stored; their relative order is kept, so
  // scores are summed in the same order after loading.
  const TaggingScores& t = *tagging_;
  const int num_attr = static_cast<int>(t.ranges.size() / 2);
  std::vector<int> kept;
  kept.reserve(num_attr);
  for (int a = 0; a < num_attr; ++a) {
    if (t.ranges[2 * a + 1] > t.ranges[2 * a]) kept.push_back(a);
  }
  const int64_t num_features = num_state_features();

  std::vector<std::pair<uint32_t, std::string>> sections;
  {
    ByteWriter w;
    w.U32(static_cast<uint32_t>(labels_.size()));
    for (const std::string& label : labels_) w.String(label);
    sections.emplace_back(mf::kLabels, w.Take());
  }
  sections.emplace_back(mf::kTemplates, spec_.text());
  {
    // The kept names' own table (ids 0..kept-1), as loading adopts it.
    AttributeDictionary stored;
    int64_t name_bytes = 0;
    for (const int a : kept)
      name_bytes += a < attributes_.size() ? attributes_.name_view(a).size() : 0;
    stored.Reserve(static_cast<int>(kept.size()), name_bytes);
    for (const int a : kept) {
      stored.Insert(a < attributes_.size() ? attributes_.name_view(a) : std::string_view());
    }
    ByteWriter w;
    w.U64(kept.size());
    w.U64(stored.stored_slots().size());
    w.U64(stored.stored_arena().size());
    for (const uint64_t slot : stored.stored_slots()) w.U64(slot);
    w.Bytes(stored.stored_arena());
    sections.emplace_back(mf::kAttributes, w.Take());
  }
  {
    ByteWriter w;
    w.U32(static_cast<uint32_t>(num_states()));
    w.U32(static_cast<uint32_t>(kept.size()));
    w.U64(static_cast<uint64_t>(num_features));
    w.I32(0);
    for (const int a : kept) w.I32(t.ranges[2 * a + 1]);
    if (kept.size() % 2 == 0) w.I32(0);  // so the entries start at a multiple of 8
    for (const TaggingScores::Entry& e : t.entries) {
      w.I32(e.label);
      w.F32(e.weight);
    }
    for (const double weight : chain_weights_) w.F32(weight);
    sections.emplace_back(mf::kParameters, w.Take());
  }
  if (order() == 2) {
    // Only second-order models carry it, so first-order files are unchanged.
    ByteWriter w;
    for (const double weight : t.trigram) w.F32(weight);
    sections.emplace_back(mf::kSecondOrder, w.Take());
  }
  {
    ByteWriter w;
    w.U32(static_cast<uint32_t>(mask_.num_labels));
    for (const std::vector<char>* flags :
         {&mask_.allowed, &mask_.allowed_start, &mask_.allowed_end}) {
      w.U64(flags->size());
      for (const char c : *flags) w.U8(c ? 1 : 0);
    }
    sections.emplace_back(mf::kTransitionMask, w.Take());
  }
  {
    ByteWriter w;
    w.U32(static_cast<uint32_t>(metadata_.size()));
    for (const auto& [key, value] : metadata_) {
      w.String(key);
      w.String(value);
    }
    sections.emplace_back(mf::kMetadata, w.Take());
  }
  {
    ByteWriter w;
    w.U32(static_cast<uint32_t>(self_tests_.size()));
    for (const SelfTest& test : self_tests_) {
      w.U32(static_cast<uint32_t>(test.sentence.size()));
      w.U32(static_cast<uint32_t>(test.sentence.num_columns()));
      for (const std::vector<std::string>& column : test.sentence.columns) {
        for (const std::string& cell : column) w.String(cell);
      }
      for (const std::string& label : test.expected) w.String(label);
    }
    sections.emplace_back(mf::kSelfTests, w.Take());
  }
  if (spec_.lexicon() != nullptr) {
    sections.emplace_back(mf::kLexicon, spec_.lexicon()->Serialize());
  }
  if (spec_.clusters() != nullptr) {
    sections.emplace_back(mf::kClusters, spec_.clusters()->Serialize());
  }
  if (spec_.lexicon2() != nullptr) {
    sections.emplace_back(mf::kLexicon2, spec_.lexicon2()->Serialize());
  }
  // Linear chains write no family section, so their files stay as they were.
  if (family_ != ModelFamily::kLinearChain) {
    sections.emplace_back(mf::kFamily, std::string(ModelFamilyName(family_)));
  }
  {
    ByteWriter w;
    w.String(std::string(CorpusFormatName(input_options_.format)));
    w.I32(input_options_.label_column);
    w.String(input_options_.conllu_label);
    w.U8(input_options_.np_chunks ? 1 : 0);
    sections.emplace_back(mf::kInputOptions, w.Take());
  }
  if (encoder_ != nullptr) sections.emplace_back(mf::kNeural, neural::SerializeEncoder(*encoder_));
  if (latent()) {
    // Only latent models carry it, so every other model's file is unchanged.
    ByteWriter w;
    w.U32(static_cast<uint32_t>(latent_.num_states()));
    for (const int32_t y : latent_.state_labels()) w.I32(y);
    sections.emplace_back(mf::kLatentStates, w.Take());
  }

  const uint64_t table_end = mf::kFixedHeaderBytes + sections.size() * mf::kSectionEntryBytes;
  const auto aligned = mf::AlignedOffset;
  uint64_t total = table_end + 4;
  for (const auto& section : sections) total = aligned(total) + section.second.size();
  std::string out(table_end + 4, '\0');
  out.reserve(total);
  out.replace(0, mf::kMagic.size(), mf::kMagic);
  mf::PutU32At(&out, 8, mf::kFormatVersion);
  mf::PutU32At(&out, 12, static_cast<uint32_t>(sections.size()));
  mf::PutU64At(&out, 16, total);
  for (size_t i = 0; i < sections.size(); ++i) {
    const size_t pos = mf::kFixedHeaderBytes + i * mf::kSectionEntryBytes;
    out.resize(aligned(out.size()), '\0');  // zero padding, outside every section
    mf::PutU32At(&out, pos, sections[i].first);
    mf::PutU32At(&out, pos + 4, mf::Crc32c(sections[i].second));
    mf::PutU64At(&out, pos + 8, out.size());
    mf::PutU64At(&out, pos + 16, sections[i].second.size());
    out.append(sections[i].second);
  }
  mf::PutU32At(&out, table_end, mf::Crc32c(std::string_view(out).substr(0, table_end)));
  return out;
}

absl::StatusOr<Model> Model::FromBytes(std::string_view bytes, const std::string& name) {
  namespace mf = model_file;
  std::string inflated;
  if (mf::IsGzip(bytes)) {
    size_t pos = 0;
    const mf::ByteSource source = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
      const size_t k = std::min(n, bytes.size() - pos);
      std::memcpy(buffer, bytes.data() + pos, k);
      pos += k;
      return k;
    };
    absl::StatusOr<std::string> image = GunzipModelImage(source, name);
    if (!image.ok()) return image.status();
    inflated = *std::move(image);
    bytes = inflated;
  }
  absl::StatusOr<std::vector<SectionEntry>> table = mf::ReadSectionTable(bytes, name);
  if (!table.ok()) return table.status();
  std::array<const SectionEntry*, mf::kMaxSectionId + 1> found{};
  uint64_t padding_begin = mf::HeaderAndTableBytes(bytes);
  for (const SectionEntry& e : *table) {
    // ReadSectionTable checked the layout; the padding before each section must be zero bytes.
    for (uint64_t i = padding_begin; i < e.offset; ++i) {
      if (bytes[i] != '\0') {
        return absl::DataLossError(
            absl::StrCat(name, ": expected zero padding before section '", mf::SectionName(e.id),
                         "', found byte ", static_cast<int>(static_cast<unsigned char>(bytes[i])),
                         " at offset ", i));
      }
    }
    padding_begin = e.offset + e.length;
    const uint32_t crc = mf::Crc32c(bytes.substr(e.offset, e.length));
    if (crc != e.checksum) {
      return absl::DataLossError(absl::StrCat(name, ": section '", mf::SectionName(e.id),
                                              "' checksum mismatch (stored ", e.checksum,
                                              ", computed ", crc, "): the file is corrupt"));
    }
    // Unknown ids are skipped so a later minor addition does not break older readers.
    if (e.id == 0 || e.id >= found.size()) continue;
    if (found[e.id] != nullptr) {
      return absl::DataLossError(
          absl::StrCat(name, ": section '", mf::SectionName(e.id), "' appears twice"));
    }
    found[e.id] = &e;
  }
  for (uint32_t id = mf::kLabels; id <= mf::kInputOptions; ++id) {
    if (found[id] == nullptr && id != mf::kLexicon) {
      return absl::DataLossError(
          absl::StrCat(name, ": expected a '", mf::SectionName(id), "' section, found none"));
    }
  }
  auto reader = [&](uint32_t id) {
    return ByteReader(bytes.substr(found[id]->offset, found[id]->length), name, id);
  };

  std::vector<std::string> labels;
  {
    ByteReader r = reader(mf::kLabels);
    CHAINTAG_RETURN_IF_ERROR(ReadStrings(r, "labels", &labels));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
  }
  const std::string_view template_text =
      bytes.substr(found[mf::kTemplates]->offset, found[mf::kTemplates]->length);
  FeatureResources resources;
  for (const uint32_t id : {mf::kLexicon, mf::kLexicon2}) {
    if (found[id] == nullptr) continue;
    absl::StatusOr<Lexicon> parsed =
        Lexicon::Parse(bytes.substr(found[id]->offset, found[id]->length),
                       absl::StrCat(name, " (", mf::SectionName(id), " section)"));
    if (!parsed.ok()) {
      return absl::DataLossError(absl::StrCat(name, ": stored ", mf::SectionName(id),
                                              " does not parse: ", parsed.status().message()));
    }
    (id == mf::kLexicon ? resources.lexicon : resources.lexicon2) =
        std::make_shared<const Lexicon>(*std::move(parsed));
  }
  if (found[mf::kClusters] != nullptr) {
    absl::StatusOr<WordClusters> parsed = WordClusters::Parse(
        bytes.substr(found[mf::kClusters]->offset, found[mf::kClusters]->length),
        absl::StrCat(name, " (clusters section)"));
    if (!parsed.ok()) {
      return absl::DataLossError(
          absl::StrCat(name, ": stored clusters do not parse: ", parsed.status().message()));
    }
    resources.clusters = std::make_shared<const WordClusters>(*std::move(parsed));
  }
  // No templates: a model of attribute input (checked with the input options below).
  absl::StatusOr<FeatureSpec> spec = template_text.empty()
                                         ? FeatureSpec::AttributeInput()
                                         : FeatureSpec::Parse(template_text, std::move(resources));
  if (!spec.ok()) {
    return absl::DataLossError(
        absl::StrCat(name, ": stored templates do not parse: ", spec.status().message()));
  }
  AttributeDictionary attributes;
  {
    // The dictionary's own table: adopted as stored, after checks that trust nothing in it.
    ByteReader r = reader(mf::kAttributes);
    uint64_t count = 0, capacity = 0, arena_bytes = 0;
    CHAINTAG_RETURN_IF_ERROR(r.U64(&count, "attribute count"));
    CHAINTAG_RETURN_IF_ERROR(r.U64(&capacity, "table capacity"));
    CHAINTAG_RETURN_IF_ERROR(r.U64(&arena_bytes, "arena size"));
    // Compared without overflow, so nothing is allocated from counts the section cannot hold.
    const uint64_t left = r.remaining();
    if (capacity > left / 8 || arena_bytes > left || 8 * capacity + arena_bytes != left) {
      return r.Error(absl::StrCat(
          "a table of capacity ", capacity, " and an arena of ", arena_bytes, " bytes (", count,
          " attributes) need other than the ", left, " bytes the section has left"));
    }
    const unsigned char *slots = nullptr, *arena = nullptr;
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(8 * capacity, &slots, "table slots"));
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(arena_bytes, &arena, "arena"));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
    const auto view = [](const unsigned char* p, uint64_t n) {
      return std::string_view(reinterpret_cast<const char*>(p), n);
    };
    absl::StatusOr<AttributeDictionary> stored = AttributeDictionary::FromStoredTable(
        count, view(slots, 8 * capacity), view(arena, arena_bytes),
        [&](std::string_view text, int id) { return CheckAttributeName(text, id, name); },
        [&](std::string_view what) {
          return absl::DataLossError(absl::StrCat(name, ": section 'attributes': ", ToAbsl(what)));
        });
    if (!stored.ok()) return stored.status();
    attributes = *std::move(stored);
  }
  LatentLayout latent;
  if (found[mf::kLatentStates] != nullptr) {
    ByteReader r = reader(mf::kLatentStates);
    uint32_t count = 0;
    CHAINTAG_RETURN_IF_ERROR(r.Count(&count, 4, "hidden states"));
    std::vector<int32_t> state_labels(count);
    for (int32_t& y : state_labels) CHAINTAG_RETURN_IF_ERROR(r.I32(&y, "hidden state labels"));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
    absl::StatusOr<LatentLayout> layout =
        LatentLayout::Create(static_cast<int>(labels.size()), std::move(state_labels));
    if (!layout.ok()) return r.Error(std::string(layout.status().message()));
    latent = *std::move(layout);
  }
  // Parameters are over hidden states in a latent model, over labels otherwise.
  const size_t num_states = latent.empty() ? labels.size() : latent.num_states();
  // Read straight into the tagging layout (no ModelParameters copy), with CheckParameters'
  // checks in its order and words.
  Model::TaggingScores state;
  std::vector<double> chain;  // transitions, start, end, then any trigram weights
  int order = 1;
  {
    ByteReader r = reader(mf::kParameters);
    uint32_t n = 0, num_attr = 0;
    uint64_t num_features = 0;
    CHAINTAG_RETURN_IF_ERROR(r.U32(&n, "label count"));
    CHAINTAG_RETURN_IF_ERROR(r.U32(&num_attr, "attribute count"));
    CHAINTAG_RETURN_IF_ERROR(r.U64(&num_features, "feature count"));
    if (n != num_states) {
      return r.Error(absl::StrCat("expected ", num_states,
                                  latent.empty() ? " labels" : " hidden states", ", found ", n));
    }
    if (num_attr != static_cast<uint32_t>(attributes.size())) {
      return r.Error(absl::StrCat("expected ", attributes.size(),
                                  " attributes (the dictionary size), found ", num_attr));
    }
    if (num_features > static_cast<uint64_t>(INT32_MAX)) {
      return r.Error(absl::StrCat("feature count ", num_features, " exceeds ", INT32_MAX));
    }
    // Exact size check first, so nothing is allocated from counts the section cannot hold.
    const uint64_t num_chain = uint64_t{n} * n + 2 * uint64_t{n};
    // The offsets, 4 zero bytes when that puts the (label, weight) entries at a multiple of 8,
    // the entries, then the chain weights.
    const uint64_t pad = num_attr % 2 == 0 ? 4 : 0;
    const uint64_t expected = 4 * (uint64_t{num_attr} + 1) + pad + 8 * num_features + 4 * num_chain;
    if (r.remaining() != expected) {
      return r.Error(absl::StrCat("expected ", expected, " bytes of offsets and weights, found ",
                                  r.remaining()));
    }
    const unsigned char *offsets = nullptr, *padding = nullptr, *entries = nullptr,
                        *weights = nullptr;
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(4 * (uint64_t{num_attr} + 1), &offsets, "attribute offsets"));
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(pad, &padding, "padding"));
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(8 * num_features, &entries, "feature entries"));
    CHAINTAG_RETURN_IF_ERROR(r.Bytes(4 * num_chain, &weights, "weights"));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
    if (pad != 0 && (padding[0] | padding[1] | padding[2] | padding[3]) != 0) {
      return absl::DataLossError(
          absl::StrCat(name, ": section 'parameters': expected zero padding after the offsets"));
    }
    const auto u32_at = [](const unsigned char* p, uint64_t i) {
      p += 4 * i;
      return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    };
    const auto offset = [&](uint64_t a) { return static_cast<int32_t>(u32_at(offsets, a)); };
    if (offset(0) != 0 || offset(num_attr) != static_cast<int64_t>(num_features)) {
      return absl::DataLossError(absl::StrCat(name, ": attribute offsets must run from 0 to ",
                                              num_features, ", found ", offset(0), " to ",
                                              offset(num_attr)));
    }
    state.ranges.resize(2 * uint64_t{num_attr});
    for (uint32_t a = 0; a < num_attr; ++a) {
      const int32_t begin = offset(a), end = offset(a + 1);
      if (end < begin) {
        return absl::DataLossError(absl::StrCat(name, ": attribute offsets decrease at attribute ",
                                                a, " (", begin, " then ", end, ")"));
      }
      state.ranges[2 * a] = begin;
      state.ranges[2 * a + 1] = end;
    }
    // The tagging layout as stored: copied, then one pass checks labels and finiteness.
    static_assert(sizeof(Model::TaggingScores::Entry) == 8);
    using Entry = Model::TaggingScores::Entry;
    if (std::endian::native == std::endian::little &&
        reinterpret_cast<uintptr_t>(entries) % alignof(Entry) == 0) {
      // Copied without zero-filling first (the entries are aligned in an aligned image).
      const auto* stored = reinterpret_cast<const Entry*>(entries);
      state.entries.assign(stored, stored + num_features);
    } else {
      state.entries.resize(num_features);
      for (uint64_t f = 0; f < num_features; ++f) {
        state.entries[f] = {static_cast<int32_t>(u32_at(entries, 2 * f)),
                            std::bit_cast<float>(u32_at(entries, 2 * f + 1))};
      }
    }
    uint64_t bad = num_features;
    for (uint64_t f = 0; f < num_features; ++f) {
      const Model::TaggingScores::Entry& e = state.entries[f];
      // Unsigned: a negative label is out of range too; a finite float's exponent is not all ones.
      if (static_cast<uint32_t>(e.label) >= n ||
          (std::bit_cast<uint32_t>(e.weight) & 0x7F800000u) == 0x7F800000u) [[unlikely]] {
        bad = f;
        break;
      }
    }
    if (bad < num_features) {
      const Model::TaggingScores::Entry& e = state.entries[bad];
      if (static_cast<uint32_t>(e.label) >= n) {
        return absl::DataLossError(absl::StrCat(name, ": feature ", bad, " has label id ", e.label,
                                                ", expected 0 to ", static_cast<int>(n) - 1));
      }
      return absl::DataLossError(
          absl::StrCat(name, ": weight ", bad, " is ", e.weight, ", expected a finite number"));
    }
    chain.resize(num_chain);
    for (uint64_t i = 0; i < num_chain; ++i) {
      chain[i] = static_cast<double>(std::bit_cast<float>(u32_at(weights, i)));
    }
  }
  const auto non_finite = [&](uint64_t i, double w) {
    return absl::DataLossError(
        absl::StrCat(name, ": weight ", i, " is ", w, ", expected a finite number"));
  };
  if (found[mf::kSecondOrder] != nullptr) {
    ByteReader r = reader(mf::kSecondOrder);
    const uint64_t n = num_states;
    if (!latent.empty()) return r.Error("a latent model cannot be second order");
    if (r.remaining() != 4 * (n + 1) * n * n) {
      return r.Error(absl::StrCat("expected ", 4 * (n + 1) * n * n, " bytes of ", (n + 1) * n * n,
                                  " trigram weights for ", n, " labels, found ", r.remaining()));
    }
    order = 2;
    const size_t first = chain.size();
    chain.resize(first + (n + 1) * n * n);
    CHAINTAG_RETURN_IF_ERROR(
        r.F32Array(absl::MakeSpan(chain.data() + first, (n + 1) * n * n), "trigram weights"));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    if (!std::isfinite(chain[i])) return non_finite(state.entries.size() + i, chain[i]);
  }
  TransitionMask mask;
  {
    ByteReader r = reader(mf::kTransitionMask);
    uint32_t n = 0;
    CHAINTAG_RETURN_IF_ERROR(r.U32(&n, "mask label count"));
    if (n != 0 && n != labels.size()) {
      return r.Error(
          absl::StrCat("expected a mask for 0 or ", labels.size(), " labels, found ", n));
    }
    mask.num_labels = static_cast<int>(n);
    CHAINTAG_RETURN_IF_ERROR(ReadFlags(r, uint64_t{n} * n, "allowed transitions", &mask.allowed));
    CHAINTAG_RETURN_IF_ERROR(ReadFlags(r, n, "allowed starts", &mask.allowed_start));
    CHAINTAG_RETURN_IF_ERROR(ReadFlags(r, n, "allowed ends", &mask.allowed_end));
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
  }
  Model model(std::move(labels), *std::move(spec), std::move(attributes), std::move(state),
              std::move(chain), static_cast<int>(num_states), order, std::move(mask),
              std::move(latent));
  if (found[mf::kNeural] != nullptr) {
    absl::StatusOr<neural::Encoder<float>> encoder = neural::ParseEncoder(
        bytes.substr(found[mf::kNeural]->offset, found[mf::kNeural]->length), name);
    if (!encoder.ok()) return encoder.status();
    if (encoder->config().num_labels != model.num_labels() || model.latent() ||
        model.order() != 1 || found[mf::kFamily] != nullptr || model.spec().reads_attributes()) {
      return absl::DataLossError(
          absl::StrCat(name, ": section 'neural': expected an encoder of ", model.num_labels(),
                       " labels under a first-order linear chain that reads words, found ",
                       encoder->config().num_labels, " labels",
                       model.latent() || model.order() != 1 || found[mf::kFamily] != nullptr ||
                               model.spec().reads_attributes()
                           ? " in another kind of model"
                           : ""));
    }
    model.encoder_ = std::make_shared<const neural::Encoder<float>>(*std::move(encoder));
  }
  if (found[mf::kFamily] != nullptr) {
    const std::string_view family =
        bytes.substr(found[mf::kFamily]->offset, found[mf::kFamily]->length);
    if (family == "lmsbn") {
      model.family_ = ModelFamily::kLmsbn;
    } else if (family == "lmbm") {
      model.family_ = ModelFamily::kLmbm;  // a first-order chain (CheckFamily): decoded as one
    } else {
      return absl::DataLossError(absl::StrCat(
          name, ": section 'family': expected the model family 'lmsbn' or 'lmbm', found '",
          ToAbsl(family.substr(0, 32)), "' (written by a newer chaintag?)"));
    }
  }
  if (model.family_ != ModelFamily::kLmsbn && model.spec().num_history_templates() > 0) {
    return absl::DataLossError(absl::StrCat(
        name, ": label-history templates in a model without the 'lmsbn' family section"));
  }
  {
    ByteReader r = reader(mf::kInputOptions);
    std::string format;
    CHAINTAG_RETURN_IF_ERROR(r.String(&format, "input format"));
    absl::StatusOr<CorpusFormat> parsed = ParseCorpusFormat(format);
    if (!parsed.ok()) return r.Error(absl::StrCat("unknown input format '", format, "'"));
    model.input_options_.format = *parsed;
    CHAINTAG_RETURN_IF_ERROR(r.I32(&model.input_options_.label_column, "label column"));
    CHAINTAG_RETURN_IF_ERROR(r.String(&model.input_options_.conllu_label, "CoNLL-U label field"));
    uint8_t np_chunks = 0;
    CHAINTAG_RETURN_IF_ERROR(r.U8(&np_chunks, "NP chunks flag"));
    if (np_chunks > 1)
      return r.Error(absl::StrCat("expected 0 or 1 for NP chunks, found ", int{np_chunks}));
    model.input_options_.np_chunks = np_chunks == 1;
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
  }
  {
    ByteReader r = reader(mf::kMetadata);
    uint32_t count = 0;
    CHAINTAG_RETURN_IF_ERROR(r.Count(&count, 8, "metadata entries"));
    for (uint32_t i = 0; i < count; ++i) {
      std::string key, value;
      CHAINTAG_RETURN_IF_ERROR(r.String(&key, "metadata key"));
      CHAINTAG_RETURN_IF_ERROR(r.String(&value, "metadata value"));
      model.metadata_.emplace_back(std::move(key), std::move(value));
    }
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
  }
  {
    ByteReader r = reader(mf::kSelfTests);
    uint32_t count = 0;
    CHAINTAG_RETURN_IF_ERROR(r.Count(&count, 8, "self-test sentences"));
    std::vector<SelfTest> tests(count);
    for (SelfTest& test : tests) {
      uint32_t m = 0, columns = 0;
      CHAINTAG_RETURN_IF_ERROR(r.U32(&m, "self-test token count"));
      CHAINTAG_RETURN_IF_ERROR(r.U32(&columns, "self-test column count"));
      if (columns == 0) return r.Error("expected at least one self-test column, found 0");
      // Every cell and label is at least a 4-byte length.
      const uint64_t cells_fit = r.remaining() / 4;
      if (m > cells_fit || columns > cells_fit || (uint64_t{columns} + 1) * m > cells_fit) {
        return r.Error(absl::StrCat("self-test of ", m, " tokens x ", columns,
                                    " columns does not fit in the ", r.remaining(), " bytes left"));
      }
      test.sentence.columns.assign(columns, std::vector<std::string>(m));
      for (std::vector<std::string>& column : test.sentence.columns) {
        for (std::string& cell : column)
          CHAINTAG_RETURN_IF_ERROR(r.String(&cell, "self-test cell"));
      }
      test.expected.resize(m);
      for (std::string& label : test.expected) {
        CHAINTAG_RETURN_IF_ERROR(r.String(&label, "self-test label"));
      }
    }
    CHAINTAG_RETURN_IF_ERROR(r.Finish());
    model.self_tests_ = std::move(tests);
  }
  if (model.spec_.reads_attributes() !=
      (model.input_options_.format == CorpusFormat::kAttributes)) {
    return absl::DataLossError(absl::StrCat(
        name, model.spec_.reads_attributes()
                  ? ": stored templates do not parse: expected at least one unigram template, "
                    "found none"
                  : ": expected no templates in a model of attribute input, found some"));
  }
  if (model.spec_.reads_attributes()) {
    // Attribute models store no templates; their self-tests keep the attribute fields as text.
    for (size_t k = 0; k < model.self_tests_.size(); ++k) {
      Sentence& sentence = model.self_tests_[k].sentence;
      if (sentence.num_columns() != 1) {
        return absl::DataLossError(absl::StrCat(name, ": expected one column in self-test ", k + 1,
                                                " of a model of attribute input, found ",
                                                sentence.num_columns()));
      }
      if (absl::Status s = ParseAttributeColumn(&sentence); !s.ok()) {
        return absl::DataLossError(absl::StrCat(name, ": self-test ", k + 1, ": ", s.message()));
      }
    }
  }
  CHAINTAG_RETURN_IF_ERROR(Validate(model, name, /*attributes_checked=*/true));
  CHAINTAG_RETURN_IF_ERROR(RunSelfTests(model, name));
  return model;
}

absl::StatusOr<Model> Model::Load(const std::string& path) {
  // Boost, the standard library and allocation may throw; no exception leaves the module.
  try {
    return LoadFile(path);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": out of memory while loading the model"));
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": cannot read the model: ", e.what()));
  }
}

absl::StatusOr<std::vector<Model>> Model::LoadAll(const std::vector<std::string>& paths) {
  std::vector<absl::StatusOr<Model>> loaded(paths.size(), absl::UnknownError("not loaded"));
  std::atomic<size_t> next{0};
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  RunOnThreads(static_cast<int>(std::min(paths.size(), cores)), [&](int) {
    for (size_t i = next++; i < paths.size(); i = next++) loaded[i] = Load(paths[i]);
  });
  std::vector<Model> models;
  models.reserve(paths.size());
  for (absl::StatusOr<Model>& model : loaded) {
    if (!model.ok()) return model.status();
    models.push_back(*std::move(model));
  }
  return models;
}

absl::Status Model::Save(const std::string& path, ModelFileCompression compression) const {
  CHAINTAG_RETURN_IF_ERROR(Validate(*this, path));
  const std::string bytes =
      compression == ModelFileCompression::kGzip ? model_file::Gzip(ToBytes()) : ToBytes();
  // Temporary name then rename (AtomicOutputFile), so a failure never leaves half a model.
  AtomicOutputFile file;
  CHAINTAG_RETURN_IF_ERROR(file.Open(path));
  file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return file.Commit();
}

#undef CHAINTAG_RETURN_IF_ERROR

}  // namespace chaintag
