// The ICU-based UTF-8 helpers against a direct transcription of Unicode Table 3-7 on random bytes.
#include "utf8.h"

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace chaintag {
namespace {

// Reference: length of the well-formed sequence at p[0..n), 0 if ill-formed (*bad = maximal
// subpart), -1 if a well-formed prefix is cut off (Unicode Table 3-7, Section 3.9).
int ReferenceLength(const unsigned char* p, size_t n, int* bad) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  int need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  for (int i = 1; i < need; ++i) {
    if (static_cast<size_t>(i) >= n) return -1;
    const unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
    if (p[i] < l || p[i] > h) {
      *bad = i;
      return 0;
    }
  }
  return need;
}

std::string RandomBytes(std::mt19937& rng, int n) {
  // Mostly lead and continuation bytes, so every branch of the table is hit.
  const unsigned char interesting[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F,
                                       0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                       0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
  std::string s;
  for (int i = 0; i < n; ++i)
    s.push_back(static_cast<char>(interesting[rng() % sizeof interesting]));
  return s;
}

TEST(Utf8Test, SequenceLengthAndFindInvalidMatchTheTable) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 200000; ++trial) {
    const std::string s = RandomBytes(rng, 1 + trial % 6);
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    int bad_ref = -7, bad = -7;
    const int want = ReferenceLength(p, s.size(), &bad_ref);
    ASSERT_EQ(utf8::SequenceLength(p, s.size(), &bad), want) << trial;
    if (want == 0) {
      ASSERT_EQ(bad, bad_ref) << trial;
    }
    // FindInvalid: the first offset where the reference fails (truncation counts) or a NUL.
    int64_t expect = -1;
    for (size_t i = 0; i < s.size();) {
      int b = 0;
      if (p[i] == 0) {
        expect = static_cast<int64_t>(i);
        break;
      }
      const int len = ReferenceLength(p + i, s.size() - i, &b);
      if (len <= 0) {
        expect = static_cast<int64_t>(i);
        break;
      }
      i += len;
    }
    bool is_nul = false, ascii = false;
    ASSERT_EQ(utf8::FindInvalid(s, &is_nul, &ascii), expect) << trial;
  }
}

TEST(Utf8Test, DecodeAndNfc) {
  int len = 0;
  EXPECT_EQ(utf8::Decode("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 1, &len), U'\u00E9');
  EXPECT_EQ(len, 2);
  EXPECT_EQ(utf8::Decode("\xE2\x82\xAC", 0, &len), U'\u20AC');
  EXPECT_EQ(len, 3);
  EXPECT_EQ(utf8::Decode("\xF0\x9F\x98\x80", 0, &len), U'\U0001F600');
  EXPECT_EQ(len, 4);
  std::string out;
  ASSERT_TRUE(utf8::ToNfc("e\xCC\x81", &out).ok());  // e + combining acute -> U+00E9
  EXPECT_EQ(out, "\xC3\xA9");
  ASSERT_TRUE(utf8::ToNfc("plain", &out).ok());
  EXPECT_EQ(out, "plain");
}

}  // namespace
}  // namespace chaintag
