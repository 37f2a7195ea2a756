#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/text.h"
#include "gtest/gtest.h"
#include "unicode/unistr.h"

namespace chaintag {
namespace {

std::string Join(const Sentence& s) {
  std::string out;
  for (const std::string& w : s.columns[0]) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::vector<std::string> Lines(const std::vector<Sentence>& sentences) {
  std::vector<std::string> out;
  for (const Sentence& s : sentences) out.push_back(Join(s));
  return out;
}

std::vector<std::string> Segment(std::string_view text, TextOptions options = {}) {
  auto result = SegmentText(text, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? Lines(*result) : std::vector<std::string>{};
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TextSegmenterTest, ExampleFromTheIssue) {
  auto result = SegmentText("I can't believe it's not butter. Mr. Smith paid $3.50 for 2 books.\n",
                            {}, "ex.txt");
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2);
  EXPECT_EQ(Join((*result)[0]), "I ca n't believe it 's not butter .");
  EXPECT_EQ(Join((*result)[1]), "Mr. Smith paid $ 3.50 for 2 books .");
  EXPECT_EQ((*result)[1].file, "ex.txt");
  ASSERT_EQ((*result)[1].num_columns(), 1);
  EXPECT_EQ((*result)[1].offsets.size(), 9);
  EXPECT_EQ((*result)[1].token_lines.size(), 9);
}

// tests/fixtures/text/tricky_en.txt -> tricky_en.expected: one sentence per line, tokens
// separated by single spaces.
TEST(TextSegmenterTest, TrickyEnglishFixture) {
  const std::string dir = std::string(CHAINTAG_FIXTURES_DIR) + "/text/";
  const std::string text = ReadFile(dir + "tricky_en.txt");
  const std::string expected_text = ReadFile(dir + "tricky_en.expected");
  ASSERT_FALSE(text.empty());
  std::vector<std::string> expected;
  std::istringstream lines(expected_text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) expected.push_back(line);
  }
  EXPECT_EQ(Segment(text), expected);
  TextOptions icu;
  icu.always_use_icu = true;
  EXPECT_EQ(Segment(text, icu), expected);
}

// Every token's offsets select, in the original text's code points, what the token was made
// from; lines count newlines before the token.
TEST(TextSegmenterTest, OffsetsAndLinesPointAtTheOriginalText) {
  const std::string dir = std::string(CHAINTAG_FIXTURES_DIR) + "/text/";
  const std::string text =
      ReadFile(dir + "tricky_en.txt") + "Cafe\u0301 \u201cquoted\u201d (x) it\u2019s done.\n";
  auto result = SegmentText(text);
  ASSERT_TRUE(result.ok()) << result.status();
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(text);
  std::vector<UChar32> cps;
  std::vector<int> line_of;
  int line = 1;
  for (int32_t i = 0; i < u.length(); i = u.moveIndex32(i, 1)) {
    cps.push_back(u.char32At(i));
    line_of.push_back(line);
    if (cps.back() == '\n') ++line;
  }
  auto slice = [&](int64_t b, int64_t e) {
    std::string s;
    for (int64_t i = b; i < e; ++i) icu::UnicodeString(cps[i]).toUTF8String(s);
    return s;
  };
  int checked = 0;
  int64_t prev_begin = -1;
  for (const Sentence& s : *result) {
    for (int t = 0; t < s.size(); ++t) {
      auto [b, e] = s.offsets[t];
      ASSERT_LE(0, b);
      ASSERT_LT(b, e);
      ASSERT_LE(e, static_cast<int64_t>(cps.size()));
      EXPECT_GE(b, prev_begin);
      prev_begin = b;
      EXPECT_EQ(s.token_lines[t], line_of[b]) << s.word(t);
      const std::string original = slice(b, e), form = s.word(t);
      if (form == "``") {
        EXPECT_TRUE(original == "\"" || original == "\u201c") << original;
      } else if (form == "''") {
        EXPECT_TRUE(original == "\"" || original == "\u201d") << original;
      } else if (form == "`") {
        EXPECT_TRUE(original == "'" || original == "\u2018") << original;
      } else if (form.size() == 5 && form[0] == '-') {
        const std::string brackets = "(LRB)RRB[LSB]RSB{LCB}RCB";
        EXPECT_EQ(brackets.find(original + form.substr(1, 3)) % 4, 0) << original << form;
      } else if (form == "...") {
        EXPECT_TRUE(original == "..." || original == "\u2026") << original;
      } else if (form == "n't" || form == "'s" || form == "'m" || form == "'") {
        EXPECT_TRUE(original == form || original.find("\u2019") != std::string::npos) << original;
      } else if (form == "Caf\u00e9") {
        EXPECT_EQ(original, "Cafe\u0301");  // NFC form, original offsets (5 code points)
      } else if (form == "." && original != ".") {
        EXPECT_EQ(original.back(), '.');  // PTB period after a final abbreviation
      } else {
        EXPECT_EQ(original, form);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

TEST(TextSegmenterTest, ParagraphsAndNewlines) {
  EXPECT_EQ(Segment("A line\nthat continues\nAnd more\n\nnew paragraph\n \t\nlast"),
            (std::vector<std::string>{"A line that continues And more", "new paragraph", "last"}));
  EXPECT_EQ(Segment("\n\n  \n"), std::vector<std::string>{});
  EXPECT_EQ(Segment("Windows\r\nlines.\r\n\r\nNext"),
            (std::vector<std::string>{"Windows lines .", "Next"}));
}

TEST(TextSegmenterTest, ChunkedFeedingAtEverySplitPointGivesTheSameResult) {
  const std::string text =
      "\u201cCaf\u00e9\u201d isn\u2019t cheap. Mr. Li paid \u20ac3.50\u2026\n\n"
      "\U0001F44D\U0001F3FD ok. \u6771\u4eac\u3067\u3059\u3002 U.S. The end.";
  auto whole = SegmentText(text);
  ASSERT_TRUE(whole.ok());
  for (size_t a = 0; a <= text.size(); ++a) {
    for (size_t b = a; b <= text.size(); b += 7) {
      TextSegmenter segmenter;
      segmenter.Reset("<text>");
      std::vector<Sentence> out;
      ASSERT_TRUE(segmenter.Feed(text.substr(0, a), &out).ok());
      ASSERT_TRUE(segmenter.Feed(text.substr(a, b - a), &out).ok());
      ASSERT_TRUE(segmenter.Feed(text.substr(b), &out).ok());
      ASSERT_TRUE(segmenter.Finish(&out).ok());
      ASSERT_EQ(out.size(), whole->size()) << a << " " << b;
      for (size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].columns, (*whole)[i].columns) << a << " " << b;
        EXPECT_EQ(out[i].offsets, (*whole)[i].offsets) << a << " " << b;
        EXPECT_EQ(out[i].token_lines, (*whole)[i].token_lines) << a << " " << b;
      }
    }
  }
}

TEST(TextSegmenterTest, ByteAtATime) {
  const std::string text = "Dr. \u00c5s said \u201chi\u201d.\n\nOK.";
  TextSegmenter segmenter;
  std::vector<Sentence> out;
  for (char c : text) ASSERT_TRUE(segmenter.Feed(std::string_view(&c, 1), &out).ok());
  // A character is consumed once complete; the text ends with a complete one.
  EXPECT_EQ(segmenter.bytes_consumed(), static_cast<int64_t>(text.size()));
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  EXPECT_EQ(Lines(out), Segment(text));
  EXPECT_EQ(segmenter.bytes_consumed(), 0);  // Finish starts the next document
}

TEST(TextSegmenterTest, InvalidUtf8IsAnErrorWithOffsetAndLine) {
  TextSegmenter segmenter;
  segmenter.Reset("bad.txt");
  std::vector<Sentence> out;
  absl::Status s = segmenter.Feed("ok\nab\xC3(x", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("bad.txt:2:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("byte offset 5"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("0xC3"), std::string::npos) << s.message();
  EXPECT_FALSE(segmenter.Feed("more", &out).ok());  // sticky until Reset
  segmenter.Reset("next.txt");
  EXPECT_TRUE(segmenter.Feed("fine", &out).ok());
}

TEST(TextSegmenterTest, InvalidSequencesAreRejected) {
  // overlong, surrogate, beyond U+10FFFF, lone continuation, truncated at end
  for (std::string bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80", "a\xE2\x82"}) {
    EXPECT_FALSE(SegmentText(bad).ok()) << bad.size();
  }
}

TEST(TextSegmenterTest, ReplaceModeSubstitutesReplacementCharacter) {
  TextOptions options;
  options.on_invalid = InvalidUtf8Policy::kReplace;
  auto r = SegmentText(
      "ab\xFF"
      "cd \xE2\x82 x \xF0\x9F\x91",
      options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1);
  // U+FFFD is a symbol, so it stands apart; it counts as one code point.
  EXPECT_EQ(Join((*r)[0]), "ab \uFFFD cd \uFFFD x \uFFFD");
  EXPECT_EQ((*r)[0].offsets[1], (std::pair<int64_t, int64_t>(2, 3)));
  EXPECT_EQ((*r)[0].offsets[2], (std::pair<int64_t, int64_t>(3, 5)));
  EXPECT_EQ((*r)[0].offsets[3], (std::pair<int64_t, int64_t>(6, 7)));
}

TEST(TextSegmenterTest, OverlongSentenceIsCutWithAWarning) {
  TextOptions options;
  options.max_sentence_tokens = 10;
  std::string text;
  for (int i = 0; i < 25; ++i) absl::StrAppend(&text, "w", i, " ");
  text += "end. Next one.";
  TextSegmenter segmenter(options);
  segmenter.Reset("long.txt");
  std::vector<Sentence> out;
  ASSERT_TRUE(segmenter.Feed(text, &out).ok());
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  ASSERT_EQ(out.size(), 4);
  EXPECT_EQ(out[0].size(), 10);
  EXPECT_EQ(out[1].size(), 10);
  EXPECT_EQ(Join(out[2]), "w20 w21 w22 w23 w24 end .");
  EXPECT_EQ(Join(out[3]), "Next one .");
  EXPECT_EQ(out[1].offsets[0].first, out[0].offsets[9].second + 1);
  ASSERT_EQ(segmenter.warnings().size(), 2);
  EXPECT_EQ(segmenter.warnings()[0].rfind("long.txt:1: ", 0), 0) << segmenter.warnings()[0];
  EXPECT_EQ(segmenter.TakeWarnings().size(), 2);
  EXPECT_TRUE(segmenter.warnings().empty());
}

// A paragraph of megabytes without blank lines is emitted while it streams in, and a sentence
// without any boundary is cut at max_sentence_tokens: nothing waits for Finish.
TEST(TextSegmenterTest, LongParagraphsStreamWithBoundedBuffering) {
  TextSegmenter segmenter;
  std::vector<Sentence> out;
  const std::string sentence = "The quick brown fox jumps over the lazy dog again.\n";
  int64_t fed_tokens = 0, emitted_before_finish = 0, emitted = 0;
  size_t counted = 0;
  for (int i = 0; i < 40000; ++i) {  // ~2 MB, no blank line
    ASSERT_TRUE(segmenter.Feed(sentence, &out).ok());
    fed_tokens += 11;
    for (; counted < out.size(); ++counted) emitted += out[counted].size();
    if (i > 2000) {
      ASSERT_GT(emitted, fed_tokens - 20000) << "buffering grows at " << i;
    }
    emitted_before_finish = emitted;
  }
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  EXPECT_EQ(out.size(), 40000);
  EXPECT_GT(emitted_before_finish, fed_tokens / 2);
  EXPECT_TRUE(segmenter.warnings().empty());

  TextSegmenter unbroken;
  std::vector<Sentence> pieces;
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(unbroken.Feed("word, ", &pieces).ok());
  EXPECT_GE(pieces.size(), 15);  // 40000 tokens cut into pieces of 1000 before Finish
  ASSERT_TRUE(unbroken.Finish(&pieces).ok());
  int64_t total = 0;
  for (const Sentence& s : pieces) {
    EXPECT_LE(s.size(), 1000);
    total += s.size();
  }
  EXPECT_EQ(total, 40000);
  EXPECT_FALSE(unbroken.warnings().empty());
}

TEST(TextSegmenterTest, HugeRunWithoutWhitespaceIsCut) {
  TextOptions options;
  options.max_line_bytes = int64_t{8} << 20;  // the cut applies to lines the limit lets through
  TextSegmenter segmenter(options);
  std::vector<Sentence> out;
  const std::string block(4096, 'x');
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(segmenter.Feed(block, &out).ok());  // 2.4 MB
  EXPECT_FALSE(out.empty());
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  int64_t chars = 0;
  for (const Sentence& s : out) {
    for (const auto& [b, e] : s.offsets) chars += e - b;
  }
  EXPECT_EQ(chars, 600 * 4096);
  EXPECT_FALSE(segmenter.warnings().empty());
}

// Issue 18: a run of exactly 1 MiB without whitespace is not "longer than 1 MiB" (the spurious
// cut warning of 262144 emoji); one character more is.
TEST(TextSegmenterTest, RunOfExactlyOneMebibyteIsNotCut) {
  auto cut_warnings = [](const std::string& text) {
    TextOptions options;
    options.max_sentence_tokens = 1 << 20;  // only the whitespace rule may warn
    options.max_line_bytes = int64_t{8} << 20;
    TextSegmenter segmenter(options);
    std::vector<Sentence> out;
    EXPECT_TRUE(segmenter.Feed(text, &out).ok());
    EXPECT_TRUE(segmenter.Finish(&out).ok());
    int64_t tokens = 0;
    for (const Sentence& s : out) tokens += s.size();
    EXPECT_EQ(tokens, static_cast<int64_t>(text.size() / 4));
    return segmenter.TakeWarnings();
  };
  std::string emoji;
  for (int i = 0; i < 262144; ++i) emoji += "\xF0\x9F\x98\x80";
  ASSERT_EQ(emoji.size(), size_t{1} << 20);
  EXPECT_EQ(cut_warnings(emoji + "\n"), std::vector<std::string>{});
  // The buffer is checked every 64 KiB: a run that reaches the next check is cut.
  std::string more;
  for (int i = 0; i < 16385; ++i) more += "\xF0\x9F\x98\x80";
  EXPECT_EQ(
      cut_warnings(emoji + more + "\n"),
      std::vector<std::string>{"<text>:1: text without whitespace longer than 1048576 bytes cut"});
}

// Issue 18, item 12: a leading byte order mark is not a token; offsets still count it.
TEST(TextSegmenterTest, LeadingByteOrderMarkIsSkipped) {
  const std::string text = "\xEF\xBB\xBFHello world.\n";
  auto result = SegmentText(text);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ(Join((*result)[0]), "Hello world .");
  EXPECT_EQ((*result)[0].offsets[0], (std::pair<int64_t, int64_t>(1, 6)));
  // Fed byte by byte, the mark split across calls, the result is the same.
  TextSegmenter segmenter;
  std::vector<Sentence> out;
  for (char c : text) ASSERT_TRUE(segmenter.Feed(std::string_view(&c, 1), &out).ok());
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].columns, (*result)[0].columns);
  EXPECT_EQ(out[0].offsets, (*result)[0].offsets);
  // Elsewhere U+FEFF (a byte order mark left by concatenating files) separates tokens like a
  // space and is never a token itself (issue 27).
  EXPECT_EQ(Segment("a \xEF\xBB\xBF b"), std::vector<std::string>{"a b"});
  EXPECT_EQ(Segment("a\xEF\xBB\xBF"
                    "b"),
            std::vector<std::string>{"a b"});
}

// Issue 18, item 14: control characters (C0, DEL, C1) separate tokens like spaces and never
// appear in a token. NUL is refused (issue 27 item 9, below).
TEST(TextSegmenterTest, ControlCharactersAreDroppedLikeSpaces) {
  const std::string text = std::string(
                               "a\x02"
                               "b c\x01"
                               "d\x7F"
                               "e\xC2\x85"
                               "f\x1B"
                               "g",
                               14) +
                           " h";
  auto result = SegmentText(text);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ(Join((*result)[0]), "a b c d e f g h");
  // Offsets point at the characters around the dropped controls.
  EXPECT_EQ((*result)[0].offsets[1], (std::pair<int64_t, int64_t>(2, 3)));
  EXPECT_EQ((*result)[0].offsets[5], (std::pair<int64_t, int64_t>(10, 11)));
  // A line holding only controls is blank: it ends the paragraph.
  EXPECT_EQ(Segment("One two\n\x03\x01\nthree four"),
            (std::vector<std::string>{"One two", "three four"}));
  // Text made only of controls has no tokens.
  EXPECT_EQ(Segment(std::string("\x03\x03\x02\n", 4)), std::vector<std::string>{});
}

// Issue 27 item 9: a NUL byte is not text (a binary file, UTF-16): an error naming the line and
// offset, whichever way the bytes are fed, and whatever --on-invalid says.
TEST(TextSegmenterTest, NulByteIsRefusedWithItsLine) {
  const std::string text = std::string("One two.\nthree\0four\n", 20);
  for (InvalidUtf8Policy policy : {InvalidUtf8Policy::kError, InvalidUtf8Policy::kReplace}) {
    TextOptions options;
    options.on_invalid = policy;
    auto result = SegmentText(text, options, "t.txt");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().message(),
              "t.txt:2: expected text, found a NUL byte at byte offset 14");
    TextSegmenter segmenter(options);
    segmenter.Reset("t.txt");
    std::vector<Sentence> out;
    absl::Status s;
    for (char c : text) {
      s = segmenter.Feed(std::string_view(&c, 1), &out);
      if (!s.ok()) break;
    }
    EXPECT_EQ(s.message(), result.status().message());
    EXPECT_EQ(segmenter.Finish(&out).message(), s.message()) << "the error is sticky";
  }
}

// Issue 27 item 9: a line longer than max_line_bytes is refused, as by the corpus readers; a line
// of exactly the limit is accepted, also when the bytes arrive in pieces.
TEST(TextSegmenterTest, LineLongerThanTheLimitIsRefused) {
  TextOptions options;
  options.max_line_bytes = 10;
  EXPECT_TRUE(SegmentText("one two x\nabcdefghij\nshort", options).ok());
  auto result = SegmentText("one\nabcdefghijk\nshort", options, "t.txt");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "t.txt:2: expected a line of at most 10 bytes (--max-line-bytes), found a longer one");
  // The last line, without a final LF, and fed in pieces.
  TextSegmenter segmenter(options);
  std::vector<Sentence> out;
  ASSERT_TRUE(segmenter.Feed("ab\ncdefgh", &out).ok());
  ASSERT_TRUE(segmenter.Feed("ijkl", &out).ok());  // 10 bytes: still fine
  EXPECT_FALSE(segmenter.Feed("m", &out).ok());
  // The default is the corpus readers' 1 MiB.
  EXPECT_EQ(TextOptions().max_line_bytes, int64_t{1} << 20);
}

TEST(TextSegmenterTest, ResetRestartsOffsetsAndLines) {
  TextSegmenter segmenter;
  std::vector<Sentence> out;
  segmenter.Reset("a.txt");
  ASSERT_TRUE(segmenter.Feed("one\ntwo", &out).ok());
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  segmenter.Reset("b.txt");
  ASSERT_TRUE(segmenter.Feed("three", &out).ok());
  ASSERT_TRUE(segmenter.Finish(&out).ok());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out[0].token_lines, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(out[1].file, "b.txt");
  EXPECT_EQ(out[1].offsets[0], (std::pair<int64_t, int64_t>(0, 5)));
  EXPECT_EQ(out[1].token_lines[0], 1);
}

TEST(TextSegmenterTest, ExtraAbbreviationsAndBracketOption) {
  TextOptions options;
  options.extra_abbreviations = {"Zork."};
  options.ptb_brackets = false;
  EXPECT_EQ(Segment("Zork. Ten (or so) came.", options),
            std::vector<std::string>{"Zork. Ten ( or so ) came ."});
  EXPECT_EQ(Segment("Zork. Ten came."), (std::vector<std::string>{"Zork .", "Ten came ."}));
}

}  // namespace
}  // namespace chaintag
