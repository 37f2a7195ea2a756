#include "corpus/line_reader.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag::corpus_internal {
namespace {

using ::testing::HasSubstr;

// Reads `text` to the end or the first error, through a stream and straight from memory, and
// expects both readers to give the same lines, line numbers and error.
struct ReadResult {
  std::vector<std::string> lines;
  std::vector<int64_t> numbers;
  absl::Status error;
};

ReadResult ReadBoth(const std::string& text, int64_t max) {
  auto read = [&](LineReader& reader) {
    ReadResult r;
    std::string_view line;
    while (true) {
      absl::StatusOr<bool> got = reader.Next(&line);
      if (!got.ok()) {
        r.error = got.status();
        EXPECT_EQ(reader.Next(&line).status(), r.error) << "errors are sticky";
        break;
      }
      if (!*got) break;
      r.lines.emplace_back(line);
      r.numbers.push_back(reader.line_number());
    }
    return r;
  };
  std::istringstream in(text);
  LineReader from_stream(in, "f", max);
  LineReader from_memory(std::string_view(text), "f", max);
  ReadResult stream = read(from_stream);
  ReadResult memory = read(from_memory);
  EXPECT_EQ(memory.lines, stream.lines);
  EXPECT_EQ(memory.numbers, stream.numbers);
  EXPECT_EQ(memory.error, stream.error);
  return stream;
}

std::vector<std::string> Lines(const std::string& text, int64_t max = 1 << 20) {
  ReadResult r = ReadBoth(text, max);
  EXPECT_TRUE(r.error.ok()) << r.error;
  return r.lines;
}

// Issue 18, item 12.
absl::Status ErrorOf(const std::string& text, int64_t max = 1 << 20) {
  return ReadBoth(text, max).error;
}

TEST(LineReaderTest, SkipsALeadingByteOrderMarkOnly) {
  EXPECT_EQ(Lines("\xEF\xBB\xBFword X\nb\n"), (std::vector<std::string>{"word X", "b"}));
  EXPECT_EQ(Lines("\xEF\xBB\xBF"), (std::vector<std::string>{""}));
  // Anywhere else U+FEFF is text.
  EXPECT_EQ(Lines("a\n\xEF\xBB\xBF"
                  "b\n"),
            (std::vector<std::string>{"a",
                                      "\xEF\xBB\xBF"
                                      "b"}));
}

TEST(LineReaderTest, RefusesBareCarriageReturns) {
  EXPECT_EQ(ErrorOf("a X\rb Y\r\rc Z\r").message(),
            "f:1: expected LF or CRLF line endings, found a bare CR (old Mac line endings) at byte "
            "offset 3 in line \"a X\\x0Db Y\\x0D\\x0Dc Z\"");
  EXPECT_EQ(ErrorOf("a\nb\rc\n").message(),
            "f:2: expected LF or CRLF line endings, found a bare CR (old Mac line endings) at byte "
            "offset 1 in line \"b\\x0Dc\"");
  EXPECT_FALSE(ErrorOf("a\r\r\n").ok());
  // A CR-only file longer than the line limit says why it is one line.
  EXPECT_EQ(ErrorOf(std::string(50, 'a') + "\r" + std::string(50, 'b') + "\r", 64).message(),
            "f:1: expected LF or CRLF line endings, found a bare CR (old Mac line endings)");
  // CRLF stays fine, also at the end of input without a final LF.
  EXPECT_TRUE(ErrorOf("a\r\nb\r\n\r\nc\r").ok());
}

TEST(LineReaderTest, SplitsLinesAndStripsCarriageReturns) {
  EXPECT_EQ(Lines("a b\r\nc\n\nd"), (std::vector<std::string>{"a b", "c", "", "d"}));
  EXPECT_EQ(Lines(""), std::vector<std::string>{});
}

TEST(LineReaderTest, LinesLongerThanOneBlockArriveWhole) {
  const std::string long_line(200000, 'x');
  EXPECT_EQ(Lines(long_line + "\nshort\n"), (std::vector<std::string>{long_line, "short"}));
}

TEST(LineReaderTest, NormalisesToNfc) {
  // "e" + COMBINING ACUTE ACCENT composes to U+00E9.
  EXPECT_EQ(Lines("caf\x65\xCC\x81 ok\n"), std::vector<std::string>{"caf\xC3\xA9 ok"});
  // Already-NFC non-ASCII text passes unchanged.
  EXPECT_EQ(Lines("na\xC3\xAFve\n"), std::vector<std::string>{"na\xC3\xAFve"});
}

TEST(LineReaderTest, CountsLines) {
  std::istringstream in("a\nb\nc\n");
  LineReader reader(in, "f", 100);
  std::string_view line;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(*reader.Next(&line));
    EXPECT_EQ(reader.line_number(), i);
  }
  EXPECT_FALSE(*reader.Next(&line));
}

TEST(LineReaderTest, RejectsLineOverLimitAndStaysFailed) {
  std::istringstream in("ok\n" + std::string(50, 'y') + "\n");
  LineReader reader(in, "f", 10);
  std::string_view line;
  ASSERT_TRUE(*reader.Next(&line));
  absl::StatusOr<bool> got = reader.Next(&line);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("f:2: expected a line of at most 10 bytes"),
            std::string::npos)
      << got.status();
  EXPECT_FALSE(reader.Next(&line).ok());
}

TEST(LineReaderTest, MemoryAndStreamReadersAgreeOnBadBytes) {
  EXPECT_FALSE(ErrorOf(std::string("ok\nnul\0byte\n", 12)).ok());
  EXPECT_FALSE(ErrorOf("ok\n\xC3(\n").ok());
  EXPECT_FALSE(ErrorOf(std::string(30, 'y'), 10).ok());
  EXPECT_EQ(Lines("\xEF\xBB\xBF\xEF\xBB\xBFx\r\n\ncaf\x65\xCC\x81"),
            (std::vector<std::string>{"\xEF\xBB\xBFx", "", "caf\xC3\xA9"}));
}

// The memory reader skips the checks on runs of plain ASCII; a run may end anywhere in a line.
TEST(LineReaderTest, PlainRunsAndSpecialBytesAgreeWithTheStreamReader) {
  const std::string plain = "the quick brown fox\tjumps\n";
  EXPECT_EQ(Lines(plain + "caf\x65\xCC\x81 over\n" + plain + "x\r\n" + plain).size(), 5u);
  EXPECT_EQ(Lines(plain + plain + "caf\x65\xCC\x81")[2], "caf\xC3\xA9");
  EXPECT_THAT(std::string(ErrorOf(plain + plain + "a\rb\n" + plain).message()),
              HasSubstr("f:3: expected LF or CRLF line endings, found a bare CR"));
  EXPECT_THAT(
      std::string(ErrorOf(plain + "\xC3\xA9\n" + plain + std::string("a\0b\n", 4)).message()),
      HasSubstr("f:4: expected text, found a NUL byte"));
  EXPECT_THAT(std::string(ErrorOf("ab\ncd\n" + std::string(11, 'z') + "\n", 10).message()),
              HasSubstr("f:3: expected a line of at most 10 bytes"));
}

TEST(LineReaderTest, AcceptsLineExactlyAtLimit) {
  EXPECT_EQ(Lines("abcde\r\n", 5), std::vector<std::string>{"abcde"});
}

TEST(FindInvalidUtf8Test, AcceptsWellFormedSequences) {
  bool nul = false, ascii = false;
  EXPECT_EQ(FindInvalidUtf8("plain", &nul, &ascii), -1);
  EXPECT_TRUE(ascii);
  // 2-, 3- and 4-byte sequences: é, €, U+10FFFF.
  EXPECT_EQ(FindInvalidUtf8("\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF", &nul, &ascii), -1);
  EXPECT_FALSE(ascii);
}

TEST(FindInvalidUtf8Test, FindsOffsetOfFirstBadByte) {
  bool nul = false, ascii = false;
  EXPECT_EQ(FindInvalidUtf8("ab\xFF", &nul, &ascii), 2);
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF", &nul, &ascii), 0);            // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("x\xED\xA0\x80", &nul, &ascii), 1);       // surrogate
  EXPECT_EQ(FindInvalidUtf8("xy\xF4\x90\x80\x80", &nul, &ascii), 2);  // > U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xE2\x82", &nul, &ascii), 0);            // truncated
  EXPECT_FALSE(nul);
  EXPECT_EQ(FindInvalidUtf8(std::string_view("ab\0c", 4), &nul, &ascii), 2);
  EXPECT_TRUE(nul);
}

TEST(QuoteLineTest, EscapesNonPrintableBytesAndTruncates) {
  EXPECT_EQ(QuoteLine("a\xFF\tb"), "\"a\\xFF\\x09b\"");
  const std::string quoted = QuoteLine(std::string(200, 'z'));
  EXPECT_EQ(quoted.size(), 80u + 2 + 3);
}

}  // namespace
}  // namespace chaintag::corpus_internal
