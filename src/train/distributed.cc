#include "train/distributed.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "absl/numeric/int128.h"

namespace chaintag::train_internal {
namespace {

constexpr uint64_t kPositiveHuge = 1, kNegativeHuge = 2, kNan = 4;

}  // namespace

double ExactTotal(absl::Span<const double> values, Communicator* ranks) {
  constexpr double kLimit = 0x1.0p62;
  // Integer parts and fractions (in units of 2^-kExactSumBits) summed apart: both sums are exact
  // for 2^31 values, and fractions keep more bits than a double of magnitude >= 2^-11 has.
  absl::int128 whole_sum = 0, fraction_sum = 0;
  uint64_t flags = 0;
  for (const double x : values) {
    if (std::isnan(x)) {
      flags |= kNan;
    } else if (x >= kLimit) {
      flags |= kPositiveHuge;
    } else if (x <= -kLimit) {
      flags |= kNegativeHuge;
    } else {
      const double whole = std::trunc(x);
      whole_sum += static_cast<int64_t>(whole);
      // |x - whole| < 1 is exact; scaled by 2^64 it is split into two exact 32-bit halves.
      const double scaled_high = std::ldexp(x - whole, 32);
      const double high = std::trunc(scaled_high);
      fraction_sum += absl::int128(static_cast<int64_t>(high)) * (absl::int128(1) << 32) +
                      std::llround(std::ldexp(scaled_high - high, 32));
    }
  }
  if (IsDistributed(ranks)) {
    uint64_t words[5] = {absl::Uint128High64(static_cast<absl::uint128>(whole_sum)),
                         absl::Uint128Low64(static_cast<absl::uint128>(whole_sum)),
                         absl::Uint128High64(static_cast<absl::uint128>(fraction_sum)),
                         absl::Uint128Low64(static_cast<absl::uint128>(fraction_sum)), flags};
    whole_sum = 0;
    fraction_sum = 0;
    flags = 0;
    for (const std::string& part :
         ranks->AllGather(std::string_view(reinterpret_cast<const char*>(words), sizeof(words)))) {
      uint64_t w[5];
      std::memcpy(w, part.data(), sizeof(w));
      whole_sum += static_cast<absl::int128>(absl::MakeUint128(w[0], w[1]));
      fraction_sum += static_cast<absl::int128>(absl::MakeUint128(w[2], w[3]));
      flags |= w[4];
    }
  }
  if ((flags & kNan) != 0 ||
      (flags & (kPositiveHuge | kNegativeHuge)) == (kPositiveHuge | kNegativeHuge)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (flags != 0) {
    return (flags & kPositiveHuge) != 0 ? std::numeric_limits<double>::infinity()
                                        : -std::numeric_limits<double>::infinity();
  }
  // Whole units of the fractions move to the integer sum; the rest is in [0, 1).
  const absl::int128 carry = fraction_sum >> kExactSumBits;
  whole_sum += carry;
  fraction_sum -= carry << kExactSumBits;
  return static_cast<double>(whole_sum) +
         std::ldexp(static_cast<double>(fraction_sum), -kExactSumBits);
}

void SumOverRanks(Communicator* ranks, absl::Span<int64_t> values) {
  if (IsDistributed(ranks)) ranks->SumInt64(values);
}

void SumOverRanks(Communicator* ranks, absl::Span<int32_t> values) {
  if (!IsDistributed(ranks)) return;
  std::vector<int64_t> wide(values.begin(), values.end());
  ranks->SumInt64(absl::MakeSpan(wide));
  for (size_t i = 0; i < wide.size(); ++i) values[i] = static_cast<int32_t>(wide[i]);
}

void OrOverRanks(Communicator* ranks, absl::Span<char> flags) {
  if (!IsDistributed(ranks)) return;
  std::vector<uint64_t> bits((flags.size() + 63) / 64, 0);
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] != 0) bits[i / 64] |= uint64_t{1} << (i % 64);
  }
  ranks->OrBits(absl::MakeSpan(bits));
  for (size_t i = 0; i < flags.size(); ++i) flags[i] = (bits[i / 64] >> (i % 64)) & 1;
}

}  // namespace chaintag::train_internal
