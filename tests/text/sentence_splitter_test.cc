#include <fstream>
#include <string>
#include <vector>

#include "chaintag/text.h"
#include "gtest/gtest.h"
#include "text/tokenizer.h"

namespace chaintag::text_internal {
namespace {

// Sentences of `text` as strings of token forms joined by spaces, joined by " | ".
std::string Split(std::string_view text, bool use_icu, TextOptions options = {}) {
  Tokenizer tokenizer(options);
  SentenceSplitter splitter(&tokenizer.abbreviations());
  std::vector<RawToken> tokens;
  tokenizer.Tokenize(text, &tokens);
  std::vector<uint32_t> ends;
  splitter.Split(text, tokens, use_icu, &ends);
  ends.push_back(static_cast<uint32_t>(tokens.size()));
  std::string out;
  size_t t = 0;
  for (uint32_t e : ends) {
    EXPECT_LT(t, e) << "empty sentence";
    if (!out.empty()) out += " | ";
    for (size_t first = t; t < e; ++t) {
      if (t > first) out += ' ';
      out += tokenizer.Form(text, tokens[t]);
    }
  }
  return out;
}

class SplitterTest : public ::testing::TestWithParam<bool> {};

TEST_P(SplitterTest, AbbreviationsAndNumbersDoNotEndSentences) {
  const bool icu = GetParam();
  EXPECT_EQ(Split("Mr. Smith left. U.S. forces came, e.g. this one. It was 3.5 million.", icu),
            "Mr. Smith left . | U.S. forces came , e.g. this one . | It was 3.5 million .");
  EXPECT_EQ(Split("Ask Dr. Who and J. R. Tolkien.", icu), "Ask Dr. Who and J. R. Tolkien .");
}

TEST_P(SplitterTest, FinalAbbreviationEndsASentenceBeforeASentenceStarter) {
  const bool icu = GetParam();
  EXPECT_EQ(Split("He lives in the U.S. The team works for Acme Inc. It grew.", icu),
            "He lives in the U.S. | The team works for Acme Inc. | It grew .");
  EXPECT_EQ(Split("The U.S. Army and Acme Inc. Ltd grew.", icu),
            "The U.S. Army and Acme Inc. Ltd grew .");
}

TEST_P(SplitterTest, TerminatorsClosersAndContinuations) {
  const bool icu = GetParam();
  EXPECT_EQ(Split("\"Stop.\" Then go! Why? \"Hello!\" she said. Wait... What?", icu),
            "`` Stop . '' | Then go ! | Why ? | `` Hello ! '' she said . | Wait ... | What ?");
  EXPECT_EQ(Split("It works (mostly). Yes: a. b; c.", icu),
            "It works -LRB- mostly -RRB- . | Yes : a . b ; c .");
  EXPECT_EQ(Split("Go!, he said. x", icu), "Go ! , he said . x");
}

TEST_P(SplitterTest, LowerCaseContinues) {
  EXPECT_EQ(Split("He left at 5 p.m. today. see you.", GetParam()),
            "He left at 5 p.m. today . see you .");
}

INSTANTIATE_TEST_SUITE_P(RulesAndIcu, SplitterTest, ::testing::Bool());

TEST(SplitterIcuTest, NonAsciiTerminators) {
  EXPECT_EQ(Split("\u79c1\u306f\u5b66\u751f\u3067\u3059\u3002\u306f\u3044\uff01OK", true),
            "\u79c1 \u306f \u5b66\u751f \u3067\u3059 \u3002 | \u306f\u3044 \uff01 | OK");
  EXPECT_EQ(Split("Caf\u00e9 closed\u2026 Then rain.", true), "Caf\u00e9 closed ... | Then rain .");
}

TEST(SplitterIcuTest, NewlinesAreNotParagraphSeparators) {
  EXPECT_EQ(Split("A line\nThat continues. caf\u00e9\nEnd.", true),
            "A line That continues . caf\u00e9 End .");
}

// On real web English the rule set finds every boundary ICU finds (so the ASCII fast path loses
// nothing): ICU must add a boundary to no more than 1% of the EWT dev texts.
TEST(SplitterIcuTest, RulesAgreeWithIcuOnEwtDev) {
  std::ifstream in(std::string(CHAINTAG_SHARED_CORPORA) + "/ud-english-ewt/en_ewt-ud-dev.conllu");
  if (!in) GTEST_SKIP() << "EWT dev not found under " << CHAINTAG_SHARED_CORPORA;
  std::string line;
  int texts = 0, differ = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# text = ", 0) != 0) continue;
    std::string text = line.substr(9);
    bool ascii = true;
    for (unsigned char c : text) ascii &= c < 0x80;
    if (!ascii) continue;
    ++texts;
    std::string rules = Split(text, false), icu = Split(text, true);
    if (rules != icu) {
      ++differ;
      if (differ <= 5) ADD_FAILURE() << "rules: " << rules << "\nicu:   " << icu;
    }
  }
  ASSERT_GT(texts, 1000);
  EXPECT_LE(differ * 100, texts) << differ << " of " << texts;
}

}  // namespace
}  // namespace chaintag::text_internal
