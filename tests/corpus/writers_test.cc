#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using ::chaintag::testing::SharedCorpus;
using ::testing::HasSubstr;
using Strings = std::vector<std::string>;

WriterOptions Writer(CorpusFormat format) {
  WriterOptions options;
  options.format = format;
  return options;
}

std::string Write(const std::vector<Sentence>& sentences, const WriterOptions& options,
                  const std::vector<std::string>& predicted = {}) {
  std::ostringstream out;
  for (const Sentence& s : sentences) {
    absl::Status status = WriteSentence(out, s, predicted, options);
    EXPECT_TRUE(status.ok()) << status;
  }
  return out.str();
}

// The data a reader produces (provenance excluded: line numbers legitimately change).
void ExpectSameData(const std::vector<Sentence>& a, const std::vector<Sentence>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].columns, b[i].columns) << "sentence " << i;
    ASSERT_EQ(a[i].labels, b[i].labels) << "sentence " << i;
    ASSERT_EQ(a[i].comments, b[i].comments) << "sentence " << i;
    ASSERT_EQ(a[i].conllu.has_value(), b[i].conllu.has_value());
    if (a[i].conllu) {
      ASSERT_EQ(a[i].conllu->word_fields, b[i].conllu->word_fields) << "sentence " << i;
      ASSERT_EQ(a[i].conllu->other_lines, b[i].conllu->other_lines) << "sentence " << i;
    }
  }
}

TEST(WriteConllTest, WritesColumnsGoldThenPredicted) {
  auto in = ReadAll("a DT B-NP\nb NN I-NP\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(Write(*in, Writer(CorpusFormat::kConll)), "a DT B-NP\nb NN I-NP\n\n");
  EXPECT_EQ(Write(*in, Writer(CorpusFormat::kConll), {"B-NP", "B-NP"}),
            "a DT B-NP B-NP\nb NN I-NP B-NP\n\n");
}

TEST(WriteConllTest, UsesTabsWhenAFieldHoldsASpace) {
  auto in = ReadAll("New York\tNNP\nis\tVBZ\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  const std::string text = Write(*in, Writer(CorpusFormat::kConll));
  EXPECT_EQ(text, "New York\tNNP\nis VBZ\n\n");
  auto back = ReadAll(text, Options(CorpusFormat::kConll));
  ASSERT_TRUE(back.ok());
  ExpectSameData(*in, *back);
}

TEST(WriteConllTest, RejectsPredictedOfWrongLength) {
  auto in = ReadAll("a DT\nb NN\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  std::ostringstream out;
  absl::Status status = WriteSentence(out, (*in)[0], {"X"}, Writer(CorpusFormat::kConll));
  EXPECT_THAT(std::string(status.message()), HasSubstr("expected 2 predicted labels, found 1"));
}

TEST(WriteConlluTest, LosslessWithExtrasAndPredictedGoesToChosenField) {
  const std::string text =
      "# text = Don't\n"
      "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
      "1\tDo\tdo\tAUX\tVBP\t_\t0\troot\t_\t_\n"
      "2\tn't\tnot\tPART\tRB\t_\t1\tadvmod\t_\tSpaceAfter=No\n"
      "2.1\tx\tx\tX\tX\t_\t_\t_\t1:dep\t_\n\n";
  auto in = ReadAll(text, Options(CorpusFormat::kConllu));
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(Write(*in, Writer(CorpusFormat::kConllu)), text);
  WriterOptions upos = Writer(CorpusFormat::kConllu);
  upos.conllu_label = "upos";
  const std::string predicted = Write(*in, upos, {"VERB", "ADV"});
  EXPECT_THAT(predicted, HasSubstr("1\tDo\tdo\tVERB\tVBP\t"));
  EXPECT_THAT(predicted, HasSubstr("2\tn't\tnot\tADV\tRB\t"));
}

TEST(WriteConlluTest, BuildsFieldsFromColumnsWithoutExtras) {
  auto in = ReadAll("a DT\nb NN\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(Write(*in, Writer(CorpusFormat::kConllu)),
            "1\ta\t_\t_\tDT\t_\t_\t_\t_\t_\n2\tb\t_\t_\tNN\t_\t_\t_\t_\t_\n\n");
}

TEST(WriteTaggedTest, EscapesSlashOnlyWithSlashSeparator) {
  auto in = ReadAll("1/2 CD\nand_or CC\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(in.ok());
  WriterOptions slash = Writer(CorpusFormat::kTagged);
  slash.tagged_separator = '/';
  const std::string text = Write(*in, slash);
  EXPECT_EQ(text, "1\\/2/CD and_or/CC\n");
  EXPECT_EQ(Write(*in, Writer(CorpusFormat::kTagged)), "1/2_CD and_or_CC\n");
  ReaderOptions read = Options(CorpusFormat::kTagged);
  read.tagged_separator = '/';
  auto back = ReadAll(text, read);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)[0].columns, (*in)[0].columns);
  EXPECT_EQ((*back)[0].labels, (*in)[0].labels);
}

TEST(WriteTaggedTest, NeedsLabels) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.label_column = 0;
  auto in = ReadAll("a\nb\n", options);
  ASSERT_TRUE(in.ok());
  std::ostringstream out;
  EXPECT_FALSE(WriteSentence(out, (*in)[0], {}, Writer(CorpusFormat::kTagged)).ok());
}

// Round trips over the shared corpora: read -> write -> read gives identical sentence data.
std::vector<Sentence> ReadShared(const std::vector<std::string>& files,
                                 const ReaderOptions& options) {
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(SharedCorpus(f));
  auto got = ReadCorpus(paths, options);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? *std::move(got) : std::vector<Sentence>();
}

void RoundTrip(const std::vector<Sentence>& original, CorpusFormat out_format,
               const ReaderOptions& reread) {
  WriterOptions writer = Writer(out_format);
  writer.tagged_separator = reread.tagged_separator;
  writer.conllu_label = reread.conllu_label;
  auto back = ReadAll(Write(original, writer), reread);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameData(original, *back);
}

#define SKIP_WITHOUT_SHARED_CORPORA()                                          \
  if (!std::filesystem::exists(SharedCorpus(""))) {                            \
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA; \
  }

TEST(RoundTripTest, Conll2000) {
  SKIP_WITHOUT_SHARED_CORPORA();
  const auto original = ReadShared({"conll2000/train.txt"}, Options(CorpusFormat::kConll));
  ASSERT_FALSE(original.empty());
  RoundTrip(original, CorpusFormat::kConll, Options(CorpusFormat::kConll));
}

TEST(RoundTripTest, EwtConllu) {
  SKIP_WITHOUT_SHARED_CORPORA();
  const auto original =
      ReadShared({"ud-english-ewt/en_ewt-ud-train.conllu"}, Options(CorpusFormat::kConllu));
  ASSERT_FALSE(original.empty());
  RoundTrip(original, CorpusFormat::kConllu, Options(CorpusFormat::kConllu));
  // UPOS labels on the (smaller) dev split.
  ReaderOptions upos = Options(CorpusFormat::kConllu);
  upos.conllu_label = "upos";
  const auto dev = ReadShared({"ud-english-ewt/en_ewt-ud-dev.conllu"}, upos);
  ASSERT_FALSE(dev.empty());
  RoundTrip(dev, CorpusFormat::kConllu, upos);
}

std::vector<std::string> PtbFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SharedCorpus("ptb-sample"))) {
    if (entry.path().extension() == ".mrg") {
      files.push_back("ptb-sample/" + entry.path().filename().string());
    }
  }
  return files;
}

TEST(RoundTripTest, PtbAsConllAndTagged) {
  SKIP_WITHOUT_SHARED_CORPORA();
  const auto pos = ReadShared(PtbFiles(), Options(CorpusFormat::kPtb));
  ASSERT_FALSE(pos.empty());
  RoundTrip(pos, CorpusFormat::kConll, Options(CorpusFormat::kConll));
  ReaderOptions tagged = Options(CorpusFormat::kTagged);
  RoundTrip(pos, CorpusFormat::kTagged, tagged);
  tagged.tagged_separator = '/';
  RoundTrip(pos, CorpusFormat::kTagged, tagged);
  ReaderOptions chunks = Options(CorpusFormat::kPtb);
  chunks.np_chunks = true;
  const auto np = ReadShared(PtbFiles(), chunks);
  ASSERT_FALSE(np.empty());
  RoundTrip(np, CorpusFormat::kConll, Options(CorpusFormat::kConll));
}

}  // namespace
}  // namespace chaintag
