#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "corpus/test_util.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using ::chaintag::testing::SharedCorpus;
using ::chaintag::testing::TempDir;
using Strings = std::vector<std::string>;

TEST(ConllReaderTest, ReadsColumnsLabelsAndLines) {
  auto got = ReadAll("-DOCSTART- -X- O\n\nThe DT B-NP\ncat NN I-NP\n\n\nsat VBD B-VP\n",
                     Options(CorpusFormat::kConll));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  const Sentence& s = (*got)[0];
  EXPECT_EQ(s.num_columns(), 2);
  EXPECT_EQ(s.columns[0], (Strings{"The", "cat"}));
  EXPECT_EQ(s.columns[1], (Strings{"DT", "NN"}));
  EXPECT_EQ(s.labels, (Strings{"B-NP", "I-NP"}));
  EXPECT_EQ(s.token_lines, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(s.file, "test.txt");
  EXPECT_EQ((*got)[1].labels, (Strings{"B-VP"}));
  EXPECT_EQ((*got)[1].token_lines, (std::vector<int64_t>{7}));
}

TEST(ConllReaderTest, LabelColumnPositiveNegativeAndNone) {
  const std::string text = "a b c\nd e f\n\n";
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.label_column = 2;
  auto got = ReadAll(text, options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].labels, (Strings{"b", "e"}));
  EXPECT_EQ((*got)[0].columns, (std::vector<Strings>{{"a", "d"}, {"c", "f"}}));
  options.label_column = -3;
  got = ReadAll(text, options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].labels, (Strings{"a", "d"}));
  EXPECT_EQ((*got)[0].word(0), "b");
  options.label_column = 0;
  got = ReadAll(text, options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_FALSE((*got)[0].has_labels());
  EXPECT_EQ((*got)[0].num_columns(), 3);
}

TEST(ConllReaderTest, TabsKeepSpacesInsideFields) {
  auto got = ReadAll("New York\tNNP\nis\tVBZ\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].columns[0], (Strings{"New York", "is"}));
  EXPECT_EQ((*got)[0].labels, (Strings{"NNP", "VBZ"}));
}

TEST(ConllReaderTest, DocstartEndsASentence) {
  auto got = ReadAll("a X\n-DOCSTART- -X- O\nb Y\n", Options(CorpusFormat::kConll));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[1].word(0), "b");
}

TEST(ConlluReaderTest, KeepsCommentsMultiwordAndEmptyNodes) {
  const std::string text =
      "# sent_id = 1\n# text = Don't go\n"
      "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
      "1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n"
      "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_\n"
      "2.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t0:root\t_\n"
      "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n\n";
  ReaderOptions options = Options(CorpusFormat::kConllu);
  options.conllu_label = "upos";
  auto got = ReadAll(text, options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1u);
  const Sentence& s = (*got)[0];
  EXPECT_EQ(s.columns, (std::vector<Strings>{{"Do", "n't", "go"}}));
  EXPECT_EQ(s.labels, (Strings{"AUX", "PART", "VERB"}));
  EXPECT_EQ(s.comments, (Strings{"# sent_id = 1", "# text = Don't go"}));
  EXPECT_EQ(s.token_lines, (std::vector<int64_t>{4, 5, 7}));
  ASSERT_TRUE(s.conllu.has_value());
  ASSERT_EQ(s.conllu->other_lines.size(), 2u);
  EXPECT_EQ(s.conllu->other_lines[0].first, 0);
  EXPECT_EQ(s.conllu->other_lines[1].first, 2);
  EXPECT_EQ(s.conllu->other_lines[1].second.substr(0, 8), "2.1\tgone");
  ASSERT_EQ(s.conllu->word_fields.size(), 3u);
  EXPECT_EQ(s.conllu->word_fields[1][2], "not");
  EXPECT_EQ(s.conllu->word_fields[1][7], "advmod");
  options.conllu_label = "xpos";
  got = ReadAll(text, options);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].labels, (Strings{"VBP", "RB", "VB"}));
}

TEST(ConlluReaderTest, RejectsUnknownLabelField) {
  ReaderOptions options = Options(CorpusFormat::kConllu);
  options.conllu_label = "deprel";
  auto got = ReadAll("1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n", options);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("deprel"), std::string::npos);
}

TEST(ConlluReaderTest, RejectsOutOfOrderWordId) {
  auto got = ReadAll("1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n3\tb\t_\t_\t_\t_\t_\t_\t_\t_\n",
                     Options(CorpusFormat::kConllu));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("test.txt:2: expected word ID 2, found \"3\""),
            std::string::npos)
      << got.status();
}

TEST(TaggedReaderTest, LastSeparatorWinsAndSlashesUnescape) {
  ReaderOptions options = Options(CorpusFormat::kTagged);
  auto got = ReadAll("New_York_NNP is_VBZ\n\n  big_JJ  \n", options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].columns[0], (Strings{"New_York", "is"}));
  EXPECT_EQ((*got)[0].labels, (Strings{"NNP", "VBZ"}));
  EXPECT_EQ((*got)[1].token_lines, (std::vector<int64_t>{3}));
  options.tagged_separator = '/';
  got = ReadAll("1\\/2/CD and/or/CC\n", options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].columns[0], (Strings{"1/2", "and/or"}));
  EXPECT_EQ((*got)[0].labels, (Strings{"CD", "CC"}));
}

TEST(TaggedReaderTest, RejectsTokenWithoutTag) {
  auto got = ReadAll("a_DT cat\n", Options(CorpusFormat::kTagged));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("test.txt:1: expected word_TAG tokens, found \"cat\""),
            std::string::npos)
      << got.status();
  EXPECT_FALSE(ReadAll("_DT\n", Options(CorpusFormat::kTagged)).ok());
  EXPECT_FALSE(ReadAll("a_\n", Options(CorpusFormat::kTagged)).ok());
}

TEST(ReaderTest, EmptyInputIsAnErrorUnlessAllowed) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  auto got = ReadAll("\n\n-DOCSTART- -X- O\n\n", options);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "test.txt: no sentences found (empty input)");
  options.allow_empty = true;
  got = ReadAll("", options);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
}

TEST(OpenSentenceReaderTest, ReadsGzipTransparentlyAndNamesTheFile) {
  // Fixture made with: printf 'a DT\nb NN\n\nc VB\n' | gzip -n -9
  const std::string path = std::string(CHAINTAG_FIXTURES_DIR) + "/corpus/small.conll.gz";
  auto sentences = ReadCorpus({path}, Options(CorpusFormat::kConll));
  ASSERT_TRUE(sentences.ok()) << sentences.status();
  ASSERT_EQ(sentences->size(), 2u);
  EXPECT_EQ((*sentences)[0].file, path);
  EXPECT_EQ((*sentences)[1].word(0), "c");
}

TEST(OpenSentenceReaderTest, CorruptGzipIsAnErrorNotACrash) {
  TempDir dir;
  const std::string path = dir.path() + "/bad.conll.gz";
  std::ofstream(path) << "\x1f\x8b this is not gzip data at all, just text\n";
  auto sentences = ReadCorpus({path}, Options(CorpusFormat::kConll));
  ASSERT_FALSE(sentences.ok());
  EXPECT_NE(sentences.status().message().find(path), std::string::npos) << sentences.status();
}

TEST(ReadCorpusTest, ConcatenatesFilesAndReportsMissingOnes) {
  TempDir dir;
  std::ofstream(dir.path() + "/a.txt") << "x A\n";
  std::ofstream(dir.path() + "/b.txt") << "y B\n\nz C\n";
  auto all = ReadCorpus({dir.path() + "/a.txt", dir.path() + "/b.txt"},
                        Options(CorpusFormat::kConll));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 3u);
  auto missing = ReadCorpus({dir.path() + "/nope.txt"}, Options(CorpusFormat::kConll));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.txt"), std::string::npos);
}

// Sentence and token totals of the shared corpora, as documented in their README.
struct CorpusCount {
  std::vector<std::string> files;
  CorpusFormat format;
  int64_t sentences;
  int64_t tokens;
};

void ExpectCounts(const CorpusCount& c) {
  if (!std::filesystem::exists(SharedCorpus(""))) {
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA;
  }
  int64_t sentences = 0, tokens = 0;
  for (const std::string& file : c.files) {
    auto reader = OpenSentenceReader(SharedCorpus(file), Options(c.format));
    ASSERT_TRUE(reader.ok()) << reader.status();
    while (true) {
      auto next = (*reader)->Next();
      ASSERT_TRUE(next.ok()) << next.status();
      if (!next->has_value()) break;
      ++sentences;
      tokens += (*next)->size();
      ASSERT_EQ(static_cast<int>((*next)->labels.size()), (*next)->size());
    }
  }
  EXPECT_EQ(sentences, c.sentences);
  EXPECT_EQ(tokens, c.tokens);
}

TEST(SharedCorporaTest, Conll2000TrainCounts) {
  ExpectCounts({{"conll2000/train.txt"}, CorpusFormat::kConll, 8936, 211727});
}

TEST(SharedCorporaTest, EwtTrainCounts) {
  ExpectCounts(
      {{"ud-english-ewt/en_ewt-ud-train.conllu"}, CorpusFormat::kConllu, 12544, 204577});
}

TEST(SharedCorporaTest, DevSplitCounts) {
  ExpectCounts({{"conll2000/dev.txt"}, CorpusFormat::kConll, 1844, 44352});
  ExpectCounts({{"ud-english-ewt/en_ewt-ud-dev.conllu"}, CorpusFormat::kConllu, 2001, 25147});
}

TEST(SharedCorporaTest, PtbSampleCounts) {
  std::vector<std::string> files;
  for (int i = 1; i <= 99; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "ptb-sample/wsj_%04d.mrg", i);
    files.push_back(name);
  }
  ExpectCounts({files, CorpusFormat::kPtb, 1921, 46451});
}

}  // namespace
}  // namespace chaintag
