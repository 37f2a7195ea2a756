#include "chaintag/corpus.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

TEST(CorpusFormatTest, ParsesEveryNameAndRoundTripsIt) {
  for (CorpusFormat f :
       {CorpusFormat::kConll, CorpusFormat::kConllu, CorpusFormat::kPtb, CorpusFormat::kTagged}) {
    absl::StatusOr<CorpusFormat> parsed = ParseCorpusFormat(CorpusFormatName(f));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, f);
  }
}

TEST(CorpusFormatTest, RejectsUnknownNameAndSaysWhatIsExpected) {
  absl::StatusOr<CorpusFormat> parsed = ParseCorpusFormat("xml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("conllu"), std::string::npos);
  EXPECT_NE(parsed.status().message().find("xml"), std::string::npos);
}

TEST(CorpusFormatTest, GuessesFromExtensionIgnoringGz) {
  EXPECT_EQ(CorpusFormatFromPath("a/b.conllu"), CorpusFormat::kConllu);
  EXPECT_EQ(CorpusFormatFromPath("a/b.conllu.gz"), CorpusFormat::kConllu);
  EXPECT_EQ(CorpusFormatFromPath("wsj_0001.mrg"), CorpusFormat::kPtb);
  EXPECT_EQ(CorpusFormatFromPath("x.tree"), CorpusFormat::kPtb);
  EXPECT_EQ(CorpusFormatFromPath("x.ptb.gz"), CorpusFormat::kPtb);
  EXPECT_EQ(CorpusFormatFromPath("x.pos"), CorpusFormat::kTagged);
  EXPECT_EQ(CorpusFormatFromPath("x.tagged"), CorpusFormat::kTagged);
  EXPECT_EQ(CorpusFormatFromPath("train.txt"), CorpusFormat::kConll);
  EXPECT_EQ(CorpusFormatFromPath("-"), CorpusFormat::kConll);
}

}  // namespace
}  // namespace chaintag
