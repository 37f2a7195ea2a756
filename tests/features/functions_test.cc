#include "features/functions.h"

#include <string>

#include "gtest/gtest.h"

namespace chaintag::features {
namespace {

std::string Apply(std::string_view name, std::string_view value) {
  std::optional<CellFunction> f = CellFunctionFromName(name);
  EXPECT_TRUE(f.has_value()) << name;
  std::string out = "prefix:";  // functions append, never overwrite
  if (f.has_value()) ApplyCellFunction(*f, value, &out);
  EXPECT_EQ(out.substr(0, 7), "prefix:");
  return out.substr(7);
}

TEST(CellFunctionTest, NamesRoundTrip) {
  for (std::string_view name :
       {"lower", "pre1", "pre2", "pre3", "pre4", "suf1", "suf2", "suf3", "suf4", "shape",
        "shortshape", "hasdigit", "hashyphen", "hasupper", "allcaps"}) {
    std::optional<CellFunction> f = CellFunctionFromName(name);
    ASSERT_TRUE(f.has_value()) << name;
    EXPECT_EQ(CellFunctionName(*f), name);
    EXPECT_NE(CellFunctionNameList().find(name), std::string_view::npos) << name;
  }
  EXPECT_FALSE(CellFunctionFromName("upper").has_value());
  EXPECT_FALSE(CellFunctionFromName("suf5").has_value());
  EXPECT_FALSE(CellFunctionFromName("").has_value());
}

TEST(CellFunctionTest, LowerAscii) {
  EXPECT_EQ(Apply("lower", "Hello-World42"), "hello-world42");
  EXPECT_EQ(Apply("lower", ""), "");
  EXPECT_EQ(Apply("lower", "abc"), "abc");
}

TEST(CellFunctionTest, LowerUsesUnicodeCaseFolding) {
  EXPECT_EQ(Apply("lower", "Ärger"), "ärger");
  EXPECT_EQ(Apply("lower", "ÉCOLE"), "école");
  EXPECT_EQ(Apply("lower", "ΣΟΦΙΑ"), "σοφια");
  // Case folding, not lowercasing: sharp s folds to "ss".
  EXPECT_EQ(Apply("lower", "Straße"), "strasse");
}

TEST(CellFunctionTest, PrefixesByCodePoint) {
  EXPECT_EQ(Apply("pre1", "walking"), "w");
  EXPECT_EQ(Apply("pre3", "walking"), "wal");
  EXPECT_EQ(Apply("pre4", "walking"), "walk");
  EXPECT_EQ(Apply("pre2", "Ärger"), "Är");
  EXPECT_EQ(Apply("pre1", "Ärger"), "Ä");
  EXPECT_EQ(Apply("pre2", "日本語"), "日本");
  // Shorter words give the whole word.
  EXPECT_EQ(Apply("pre4", "ab"), "ab");
  EXPECT_EQ(Apply("pre4", ""), "");
}

TEST(CellFunctionTest, SuffixesByCodePoint) {
  EXPECT_EQ(Apply("suf1", "walking"), "g");
  EXPECT_EQ(Apply("suf3", "walking"), "ing");
  EXPECT_EQ(Apply("suf4", "walking"), "king");
  EXPECT_EQ(Apply("suf2", "café"), "fé");
  EXPECT_EQ(Apply("suf1", "café"), "é");
  EXPECT_EQ(Apply("suf3", "Ärger"), "ger");
  EXPECT_EQ(Apply("suf4", "Ärger"), "rger");
  EXPECT_EQ(Apply("suf4", "Ärg"), "Ärg");
  EXPECT_EQ(Apply("suf2", "😀😁😂"), "😁😂");
}

TEST(CellFunctionTest, Shape) {
  EXPECT_EQ(Apply("shape", "Xerox-12"), "Xxxxx-dd");
  EXPECT_EQ(Apply("shape", "U.S."), "X.X.");
  EXPECT_EQ(Apply("shape", "1,000"), "d,ddd");
  EXPECT_EQ(Apply("shape", "Ärger"), "Xxxxx");
  EXPECT_EQ(Apply("shape", "naïve"), "xxxxx");
  EXPECT_EQ(Apply("shape", "٣"), "d");      // Arabic-Indic digit three
  EXPECT_EQ(Apply("shape", "a€b"), "x€x");  // other characters are kept
  EXPECT_EQ(Apply("shape", ""), "");
}

TEST(CellFunctionTest, ShortShapeCollapsesRuns) {
  EXPECT_EQ(Apply("shortshape", "Xerox-12"), "Xx-d");
  EXPECT_EQ(Apply("shortshape", "McDonald"), "XxXx");
  EXPECT_EQ(Apply("shortshape", "1,000.50"), "d,d.d");
  EXPECT_EQ(Apply("shortshape", "..."), ".");
  EXPECT_EQ(Apply("shortshape", "ÄÖÜber"), "Xx");
  EXPECT_EQ(Apply("shortshape", "€€a"), "€x");
}

TEST(CellFunctionTest, BooleanFlags) {
  EXPECT_EQ(Apply("hasdigit", "abc1"), "1");
  EXPECT_EQ(Apply("hasdigit", "abc"), "0");
  EXPECT_EQ(Apply("hashyphen", "well-known"), "1");
  EXPECT_EQ(Apply("hashyphen", "wellknown"), "0");
  EXPECT_EQ(Apply("hasupper", "iPhone"), "1");
  EXPECT_EQ(Apply("hasupper", "iphone"), "0");
  EXPECT_EQ(Apply("hasupper", "ärger"), "0");
  EXPECT_EQ(Apply("hasupper", "Ärger"), "1");
  EXPECT_EQ(Apply("allcaps", "IBM"), "1");
  EXPECT_EQ(Apply("allcaps", "U.S."), "1");
  EXPECT_EQ(Apply("allcaps", "ÄÖÜ"), "1");
  EXPECT_EQ(Apply("allcaps", "IBMs"), "0");
  EXPECT_EQ(Apply("allcaps", "123"), "0");  // needs at least one capital
  EXPECT_EQ(Apply("allcaps", ""), "0");
}

}  // namespace
}  // namespace chaintag::features
