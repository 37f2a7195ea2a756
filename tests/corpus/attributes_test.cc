// The CRFsuite data format reader and writer (--format attributes).
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using ::testing::HasSubstr;
using Strings = std::vector<std::string>;

absl::StatusOr<std::vector<Sentence>> Read(const std::string& text) {
  return ReadAll(text, Options(CorpusFormat::kAttributes));
}

std::string ErrorOf(const std::string& text) {
  auto got = Read(text);
  return got.ok() ? std::string("(no error)") : std::string(got.status().message());
}

TEST(AttributesReaderTest, ReadsLabelsNamesWeightsAndEscapes) {
  auto got = Read("B-NP\tw=He\tlen:0.5\n\n\nO\tw=a\\:b\tx\\\\y:-2\tz\\:1:3e-1\n\n");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  const Sentence& s = (*got)[0];
  EXPECT_EQ(s.labels, (Strings{"B-NP"}));
  EXPECT_EQ(s.attribute_names, (Strings{"w=He", "len"}));
  EXPECT_EQ(s.attribute_values, (std::vector<float>{1.0f, 0.5f}));
  EXPECT_EQ(s.attribute_offsets, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(s.columns[0], (Strings{"w=He\tlen:0.5"}));
  EXPECT_EQ(s.token_lines, (std::vector<int64_t>{1}));
  const Sentence& t = (*got)[1];
  EXPECT_EQ(t.attribute_names, (Strings{"w=a:b", "x\\y", "z:1"}));
  EXPECT_EQ(t.attribute_values, (std::vector<float>{1.0f, -2.0f, 0.3f}));
  EXPECT_EQ(t.token_lines, (std::vector<int64_t>{4}));
}

TEST(AttributesReaderTest, TokensWithoutAttributesAndUnlabelledSentences) {
  auto got = Read("O\nB-X\ta\n\n\ta\n\tb:2\n");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].attribute_offsets, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ((*got)[0].size(), 2);
  EXPECT_FALSE((*got)[1].has_labels());
  EXPECT_EQ((*got)[1].attribute_names, (Strings{"a", "b"}));
  EXPECT_TRUE((*got)[1].has_attributes());
}

TEST(AttributesReaderTest, BadInputNamesFileLineAndExpectation) {
  EXPECT_THAT(ErrorOf("O\ta\n\nO\ta\t\tb\n"),
              HasSubstr("test.txt:3: expected an attribute, found an empty field"));
  EXPECT_THAT(ErrorOf("O\ta\t\n"), HasSubstr("test.txt:1: expected an attribute"));
  EXPECT_THAT(ErrorOf("O\t:2\n"), HasSubstr("test.txt:1: expected an attribute name before ':'"));
  EXPECT_THAT(ErrorOf("O\ta:x\n"),
              HasSubstr("test.txt:1: expected a number as the weight of attribute 'a', found 'x'"));
  EXPECT_THAT(ErrorOf("O\ta:\n"), HasSubstr("test.txt:1: expected a number as the weight"));
  EXPECT_THAT(ErrorOf("O\ta:1:2\n"), HasSubstr("expected a number as the weight"));
  EXPECT_THAT(ErrorOf("O\ta:nan\n"), HasSubstr("test.txt:1: expected a finite weight"));
  EXPECT_THAT(ErrorOf("O\ta:inf\n"), HasSubstr("test.txt:1: expected a finite weight"));
  EXPECT_THAT(ErrorOf("O\ta:-1e300\n"), HasSubstr("test.txt:1: expected a finite weight"));
  EXPECT_THAT(ErrorOf("O\ta:1001\n"), HasSubstr("between -1000 and 1000"));
  EXPECT_THAT(ErrorOf("O\ta\\\n"), HasSubstr("test.txt:1: expected a character after '\\'"));
  EXPECT_THAT(ErrorOf("O\ta\n\tb\n"),
              HasSubstr("test.txt:2: expected a label before the first tab"));
  EXPECT_THAT(ErrorOf("\ta\nO\tb\n"), HasSubstr("test.txt:2: expected no label"));
  EXPECT_THAT(ErrorOf(""), HasSubstr("no sentences found"));
}

TEST(AttributesReaderTest, LongSentencesAreSplitOrRefused) {
  ReaderOptions options = Options(CorpusFormat::kAttributes);
  options.max_sentence_tokens = 2;
  auto refused = ReadAll("O\ta\nO\tb\nO\tc\n", options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("test.txt:3: expected at most 2"));
  options.split_long_sentences = true;
  auto split = ReadAll("O\ta\nO\tb\nO\tc\n", options);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 2u);
  EXPECT_EQ((*split)[1].attribute_names, (Strings{"c"}));
  EXPECT_EQ((*split)[1].token_lines, (std::vector<int64_t>{3}));
}

TEST(AttributesReaderTest, WriterAndFormatRoundTrip) {
  const std::string text = "B\\:X\tw=a\\:b\tx\\\\y:-2\tlen:0.25\nO\n\n";
  auto got = Read(text);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].labels, (Strings{"B:X", "O"}));
  std::ostringstream out;
  WriterOptions options;
  options.format = CorpusFormat::kAttributes;
  ASSERT_TRUE(WriteSentence(out, (*got)[0], {}, options).ok());
  EXPECT_EQ(out.str(), text);
  std::ostringstream predicted;
  ASSERT_TRUE(WriteSentence(predicted, (*got)[0], {"P", "Q"}, options).ok());
  EXPECT_EQ(predicted.str(), "P\tw=a\\:b\tx\\\\y:-2\tlen:0.25\nQ\n\n");

  Sentence built;
  std::vector<std::string> fields;
  for (const auto& [name, weight] : std::vector<std::pair<std::string, float>>{
           {"w=a:b", 1.0f}, {"x\\y", -2.0f}, {"z", 0.1f}, {"q", 1e-7f}}) {
    fields.push_back(FormatAttributeField(name, weight));
  }
  EXPECT_EQ(fields[0], "w=a\\:b");
  EXPECT_EQ(fields[1], "x\\\\y:-2");
  ASSERT_TRUE(AppendAttributeToken(absl::StrJoin(fields, "\t"), "f", 1, &built).ok());
  EXPECT_EQ(built.attribute_names, (Strings{"w=a:b", "x\\y", "z", "q"}));
  EXPECT_EQ(built.attribute_values, (std::vector<float>{1.0f, -2.0f, 0.1f, 1e-7f}));
  Sentence reparsed;
  reparsed.columns = built.columns;
  ASSERT_TRUE(ParseAttributeColumn(&reparsed).ok());
  EXPECT_EQ(reparsed.attribute_names, built.attribute_names);
  EXPECT_EQ(reparsed.attribute_values, built.attribute_values);
  EXPECT_EQ(reparsed.attribute_offsets, built.attribute_offsets);
}

TEST(AttributesReaderTest, FormatName) {
  EXPECT_EQ(*ParseCorpusFormat("attributes"), CorpusFormat::kAttributes);
  EXPECT_EQ(CorpusFormatName(CorpusFormat::kAttributes), "attributes");
}

}  // namespace
}  // namespace chaintag
