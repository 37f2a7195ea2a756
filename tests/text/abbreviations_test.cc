#include <string>
#include <vector>

#include "chaintag/text.h"
#include "gtest/gtest.h"
#include "text/tokenizer.h"

namespace chaintag::text_internal {
namespace {

TEST(AbbreviationSetTest, BuiltinEntriesAreFoundWithoutPeriod) {
  AbbreviationSet set(/*builtin=*/true, {});
  for (const std::string& a : BuiltinAbbreviations()) {
    EXPECT_TRUE(set.IsAbbreviation(a)) << a;
    EXPECT_EQ(a.back() == '.', false) << "stored without final period: " << a;
  }
  EXPECT_FALSE(set.IsAbbreviation("books"));
  EXPECT_FALSE(set.IsAbbreviation("3"));
}

TEST(AbbreviationSetTest, InitialsAndDottedForms) {
  AbbreviationSet set(/*builtin=*/false, {});
  EXPECT_TRUE(set.IsAbbreviation("J"));
  EXPECT_FALSE(set.IsAbbreviation("I"));  // "So do I." ends a sentence
  EXPECT_FALSE(set.IsAbbreviation("a"));
  EXPECT_TRUE(set.IsAbbreviation("U.S"));
  EXPECT_TRUE(set.IsAbbreviation("Ph.D"));
  EXPECT_FALSE(set.IsAbbreviation("example.com"));
  EXPECT_FALSE(set.IsAbbreviation("3.5"));
  EXPECT_FALSE(set.IsAbbreviation("Mr"));  // builtin list off
  EXPECT_FALSE(set.MayEndSentence("J"));
}

TEST(AbbreviationSetTest, ClassesDecideWhetherASentenceMayEnd) {
  AbbreviationSet set(/*builtin=*/true, {});
  EXPECT_FALSE(set.MayEndSentence("Mr"));
  EXPECT_FALSE(set.MayEndSentence("e.g"));
  EXPECT_TRUE(set.MayEndSentence("etc"));
  EXPECT_TRUE(set.MayEndSentence("U.S"));
  EXPECT_TRUE(set.IsAbbreviation("E.g"));  // lower-case entries match any case
  EXPECT_FALSE(set.IsAbbreviation("MR"));  // capitalised entries match exactly
}

TEST(AbbreviationSetTest, ExtraEntriesNeverEndASentence) {
  AbbreviationSet set(/*builtin=*/true, {"Approx.", "etc", ""});
  EXPECT_TRUE(set.IsAbbreviation("Approx"));
  EXPECT_FALSE(set.MayEndSentence("Approx"));
  EXPECT_FALSE(set.MayEndSentence("etc"));  // moved to the never-final class
}

TEST(AbbreviationSetTest, SentenceStarters) {
  EXPECT_TRUE(AbbreviationSet::IsSentenceStarter("The"));
  EXPECT_FALSE(AbbreviationSet::IsSentenceStarter("the"));
  EXPECT_FALSE(AbbreviationSet::IsSentenceStarter("Army"));
}

TEST(ParseInvalidUtf8PolicyTest, Names) {
  EXPECT_EQ(*ParseInvalidUtf8Policy("error"), InvalidUtf8Policy::kError);
  EXPECT_EQ(*ParseInvalidUtf8Policy("replace"), InvalidUtf8Policy::kReplace);
  auto bad = ParseInvalidUtf8Policy("ignore");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ignore"), std::string::npos);
}

}  // namespace
}  // namespace chaintag::text_internal
