#include "text/tokenizer.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "chaintag/text.h"
#include "gtest/gtest.h"

namespace chaintag::text_internal {
namespace {

std::string Tok(std::string_view text, TextOptions options = {}) {
  Tokenizer tokenizer(options);
  std::vector<RawToken> tokens;
  tokenizer.Tokenize(text, &tokens);
  std::vector<std::string> forms;
  for (const RawToken& t : tokens) forms.push_back(tokenizer.Form(text, t));
  return absl::StrJoin(forms, " ");
}

TEST(TokenizerTest, Contractions) {
  EXPECT_EQ(Tok("can't don't won't"), "ca n't do n't wo n't");
  EXPECT_EQ(Tok("it's John's we'll"), "it 's John 's we 'll");
  EXPECT_EQ(Tok("they're we've I'd I'm"), "they 're we 've I 'd I 'm");
  EXPECT_EQ(Tok("CAN'T It'S"), "CA N'T It 'S");
  EXPECT_EQ(Tok("can\u2019t John\u2019s"), "ca n't John 's");  // curly apostrophe
  EXPECT_EQ(Tok("cannot O'Neil rock'n'roll"), "can not O'Neil rock'n'roll");
  EXPECT_EQ(Tok("John 's n't"), "John 's n't");  // already split
  EXPECT_EQ(Tok("James' car"), "James ' car");
}

TEST(TokenizerTest, Quotes) {
  EXPECT_EQ(Tok("\"Hello,\" she said."), "`` Hello , '' she said .");
  EXPECT_EQ(Tok("\u201cHi\u201d"), "`` Hi ''");
  EXPECT_EQ(Tok("'yes' \u2018no\u2019"), "` yes ' ` no '");
  EXPECT_EQ(Tok("say \" hi \" now"), "say `` hi '' now");
  EXPECT_EQ(Tok("the '90s"), "the '90s");
}

TEST(TokenizerTest, Brackets) {
  EXPECT_EQ(Tok("(a) [b] {c}"), "-LRB- a -RRB- -LSB- b -RSB- -LCB- c -RCB-");
  TextOptions raw;
  raw.ptb_brackets = false;
  EXPECT_EQ(Tok("(a) [b] {c}", raw), "( a ) [ b ] { c }");
  EXPECT_EQ(Tok("word(s)"), "word -LRB- s -RRB-");
}

TEST(TokenizerTest, PunctuationAndEllipses) {
  EXPECT_EQ(Tok("Wait... what\u2026 no -- yes?! ok; fine: done"),
            "Wait ... what ... no -- yes ?! ok ; fine : done");
  EXPECT_EQ(Tok("a--b"), "a -- b");
  EXPECT_EQ(Tok("books."), "books .");
  EXPECT_EQ(Tok("Hi!"), "Hi !");
}

TEST(TokenizerTest, NumbersAndCurrency) {
  EXPECT_EQ(Tok("3.14 1,000 10:30 $3.50 50% -3 1/2"), "3.14 1,000 10:30 $ 3.50 50 % -3 1/2");
  EXPECT_EQ(Tok("\u20ac5 \u00a310"), "\u20ac 5 \u00a3 10");
  EXPECT_EQ(Tok("a,b"), "a , b");
}

TEST(TokenizerTest, AbbreviationsKeepTheirPeriod) {
  EXPECT_EQ(Tok("Mr. U.S. e.g. a.m. Ph.D. J. Fig."), "Mr. U.S. e.g. a.m. Ph.D. J. Fig.");
  EXPECT_EQ(Tok("end. I."), "end . I .");
}

TEST(TokenizerTest, UrlsAndEmail) {
  EXPECT_EQ(Tok("(see https://a.org/x?y=1&z=2)."), "-LRB- see https://a.org/x?y=1&z=2 -RRB- .");
  EXPECT_EQ(Tok("www.example.com, http://x.io"), "www.example.com , http://x.io");
  EXPECT_EQ(Tok("<jo.smith+tag@mail.example.org>."), "< jo.smith+tag@mail.example.org > .");
  EXPECT_EQ(Tok("a@b"), "a @ b");  // no domain: not an address
}

TEST(TokenizerTest, EmoticonsAndSymbolRuns) {
  EXPECT_EQ(Tok("great :) :-( <3. ***** == +"), "great :) :-( <3 . ***** == +");
  EXPECT_EQ(Tok("a:)"), "a : -RRB-");  // only a chunk that starts with one
  EXPECT_EQ(Tok(":Dave"), ": Dave");
}

TEST(TokenizerTest, HyphenationAndSlashes) {
  EXPECT_EQ(Tok("state-of-the-art and/or AT&T"), "state-of-the-art and/or AT&T");
  EXPECT_EQ(Tok("-x"), "- x");
}

TEST(TokenizerTest, Emoji) {
  // thumbs up + skin tone, family ZWJ sequence, flag, keycap-free heart with VS16.
  EXPECT_EQ(Tok("great\U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467 "
                "\U0001F1EB\U0001F1F7\u2764\uFE0F!"),
            "great \U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467 "
            "\U0001F1EB\U0001F1F7 \u2764\uFE0F !");
}

TEST(TokenizerTest, ComplexScriptsUseIcuWordBreaks) {
  std::string out = Tok("\u6771\u4eac\u306f\u65e5\u672c\u3002");  // 東京は日本。
  EXPECT_EQ(out, "\u6771\u4eac \u306f \u65e5\u672c \u3002");
  EXPECT_EQ(Tok("\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22"),
            "\u0e20\u0e32\u0e29\u0e32 \u0e44\u0e17\u0e22");
}

TEST(TokenizerTest, NfcNormalisesForms) {
  // "cafe" + combining acute -> precomposed é; Latin letters with marks stay in the word.
  EXPECT_EQ(Tok("cafe\u0301 na\u00efve"), "caf\u00e9 na\u00efve");
}

TEST(TokenizerTest, UnicodeWhitespaceSeparates) {
  EXPECT_EQ(Tok("a\u00a0b\u3000c\td\r\ne"), "a b c d e");
}

TEST(TokenizerTest, TokensCoverTheirText) {
  const std::string text = "He's (very) \"happy\" at 10:30... OK? Mr. X's e-mail: a@b.cd.";
  Tokenizer tokenizer({});
  std::vector<RawToken> tokens;
  tokenizer.Tokenize(text, &tokens);
  uint32_t prev_end = 0;
  for (const RawToken& t : tokens) {
    EXPECT_LT(t.begin, t.end);
    EXPECT_GE(t.begin, prev_end);
    for (uint32_t i = prev_end; i < t.begin; ++i) EXPECT_EQ(text[i], ' ') << i;
    prev_end = t.end;
  }
  EXPECT_EQ(prev_end, text.size());
}

}  // namespace
}  // namespace chaintag::text_internal
