#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

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
  EXPECT_FALSE((*got)[0].new_document);
  EXPECT_TRUE((*got)[1].new_document);
}

TEST(ConllReaderTest, DocstartMarksTheNextSentenceOnly) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.max_sentence_tokens = 2;
  options.split_long_sentences = true;
  auto got =
      ReadAll("-DOCSTART- -X- O\n\na X\nb X\nc X\n\nd X\n\n-DOCSTART- -X- O\n\ne X\n", options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 4u);
  std::vector<bool> starts;
  for (const Sentence& s : *got) starts.push_back(s.new_document);
  // "a b" opens the first document, its split-off piece "c" and "d" do not, "e" opens the next.
  EXPECT_EQ(starts, (std::vector<bool>{true, false, false, true}));
}

TEST(ConlluReaderTest, NewdocCommentOpensADocument) {
  const std::string word = "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n";
  auto got = ReadAll("# newdoc id = d1\n# sent_id = 1\n" + word + "\n# sent_id = 2\n" + word +
                         "\n# newdoc\n" + word + "\n# newdocument = x\n" + word + "\n",
                     Options(CorpusFormat::kConllu));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 4u);
  EXPECT_TRUE((*got)[0].new_document);
  EXPECT_FALSE((*got)[1].new_document);
  EXPECT_TRUE((*got)[2].new_document);
  EXPECT_FALSE((*got)[3].new_document);
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
  auto all =
      ReadCorpus({dir.path() + "/a.txt", dir.path() + "/b.txt"}, Options(CorpusFormat::kConll));
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

// Issue 18, item 12: a leading byte order mark is skipped by every format.
TEST(ReaderTest, EveryFormatSkipsALeadingByteOrderMark) {
  const std::string bom = "\xEF\xBB\xBF";
  const struct {
    CorpusFormat format;
    std::string text;
  } cases[] = {
      {CorpusFormat::kConll, "He PRP\nran VBD\n"},
      {CorpusFormat::kConllu,
       "1\tHe\the\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
       "2\tran\trun\tVERB\tVBD\t_\t0\troot\t_\t_\n"},
      {CorpusFormat::kPtb, "(S (NP (PRP He)) (VP (VBD ran)))\n"},
      {CorpusFormat::kTagged, "He_PRP ran_VBD\n"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<Sentence>> plain = ReadAll(c.text, Options(c.format));
    absl::StatusOr<std::vector<Sentence>> marked =
        ReadAll(absl::StrCat(bom, c.text), Options(c.format));
    ASSERT_TRUE(plain.ok()) << plain.status();
    ASSERT_TRUE(marked.ok()) << CorpusFormatName(c.format) << ": " << marked.status();
    ASSERT_EQ(marked->size(), 1u);
    EXPECT_EQ((*marked)[0].columns, (*plain)[0].columns) << CorpusFormatName(c.format);
    EXPECT_EQ((*marked)[0].word(0), "He");
    EXPECT_EQ((*marked)[0].labels, (*plain)[0].labels);
  }
}

// Issue 18, item 12: CR-only line ends are refused in every format, CRLF files read like LF ones.
TEST(ReaderTest, EveryFormatRefusesBareCrAndReadsCrlf) {
  const struct {
    CorpusFormat format;
    std::string text;
  } cases[] = {
      {CorpusFormat::kConll, "He PRP\nran VBD\n\nOK UH\n"},
      {CorpusFormat::kConllu,
       "# c\n1\tHe\the\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
       "2\tran\trun\tVERB\tVBD\t_\t0\troot\t_\t_\n"},
      {CorpusFormat::kPtb, "(S (NP (PRP He))\n (VP (VBD ran)))\n"},
      {CorpusFormat::kTagged, "He_PRP ran_VBD\nOK_UH\n"},
  };
  for (const auto& c : cases) {
    std::string cr = c.text, crlf;
    for (char& ch : cr) ch = ch == '\n' ? '\r' : ch;
    for (char ch : c.text) {
      if (ch == '\n') crlf.push_back('\r');
      crlf.push_back(ch);
    }
    absl::StatusOr<std::vector<Sentence>> bad = ReadAll(cr, Options(c.format), "mac.txt");
    ASSERT_FALSE(bad.ok()) << CorpusFormatName(c.format);
    EXPECT_NE(bad.status().message().find(
                  "mac.txt:1: expected LF or CRLF line endings, found a bare CR (old Mac line "
                  "endings)"),
              std::string::npos)
        << bad.status();
    absl::StatusOr<std::vector<Sentence>> plain = ReadAll(c.text, Options(c.format));
    absl::StatusOr<std::vector<Sentence>> windows = ReadAll(crlf, Options(c.format));
    ASSERT_TRUE(windows.ok()) << windows.status();
    ASSERT_EQ(windows->size(), plain->size());
    for (size_t k = 0; k < plain->size(); ++k) {
      EXPECT_EQ((*windows)[k].columns, (*plain)[k].columns);
      EXPECT_EQ((*windows)[k].labels, (*plain)[k].labels);
    }
  }
}

// Issue 18, item 4: sentences longer than max_sentence_tokens are refused, or split with a
// warning, in every format that can split; PTB trees are always refused.
std::string LongSentence(CorpusFormat format, int tokens) {
  std::string text;
  if (format == CorpusFormat::kPtb) text = "(S";
  for (int t = 1; t <= tokens; ++t) {
    switch (format) {
      case CorpusFormat::kConll:
        absl::StrAppend(&text, "w", t, " T", t, "\n");
        break;
      case CorpusFormat::kConllu:
        absl::StrAppend(&text, t, "\tw", t, "\t_\tX\tT", t, "\t_\t0\tdep\t_\t_\n");
        break;
      case CorpusFormat::kPtb:
        absl::StrAppend(&text, "\n (NN w", t, ")");
        break;
      case CorpusFormat::kTagged:
        absl::StrAppend(&text, t > 1 ? " " : "", "w", t, "_T", t);
        break;
      case CorpusFormat::kAttributes:  // not a format with sentences of words; unused here
        break;
    }
  }
  text += format == CorpusFormat::kPtb ? ")\n" : "\n";
  return text;
}

int LineOfToken(CorpusFormat format, int t) {
  return format == CorpusFormat::kTagged ? 1 : format == CorpusFormat::kPtb ? t + 1 : t;
}

TEST(ReaderTest, LongSentencesAreRefusedByDefault) {
  EXPECT_EQ(ReaderOptions().max_sentence_tokens, 10000);
  EXPECT_FALSE(ReaderOptions().split_long_sentences);
  for (CorpusFormat format :
       {CorpusFormat::kConll, CorpusFormat::kConllu, CorpusFormat::kPtb, CorpusFormat::kTagged}) {
    ReaderOptions options = Options(format);
    options.max_sentence_tokens = 4;
    EXPECT_TRUE(ReadAll(LongSentence(format, 4), options).ok()) << CorpusFormatName(format);
    absl::StatusOr<std::vector<Sentence>> got = ReadAll(LongSentence(format, 7), options, "long");
    ASSERT_FALSE(got.ok()) << CorpusFormatName(format);
    const std::string expected = absl::StrCat(
        "long:", LineOfToken(format, 5),
        ": expected at most 4 tokens in a sentence (--max-sentence-tokens), found more");
    EXPECT_EQ(std::string(got.status().message()).substr(0, expected.size()), expected)
        << got.status();
  }
}

TEST(ReaderTest, LongSentencesAreSplitWithAWarning) {
  for (CorpusFormat format :
       {CorpusFormat::kConll, CorpusFormat::kConllu, CorpusFormat::kTagged, CorpusFormat::kPtb}) {
    ReaderOptions options = Options(format);
    options.max_sentence_tokens = 4;
    options.split_long_sentences = true;
    // Two long sentences and a short one.
    const std::string text = absl::StrCat(LongSentence(format, 9), "\n", LongSentence(format, 8),
                                          "\n", LongSentence(format, 2));
    std::istringstream in(text);
    std::unique_ptr<SentenceReader> reader = MakeSentenceReader(in, "long", options);
    std::vector<Sentence> got;
    std::vector<std::string> warnings;
    absl::Status status;
    while (true) {
      absl::StatusOr<std::optional<Sentence>> next = reader->Next();
      for (std::string& w : reader->TakeWarnings()) warnings.push_back(std::move(w));
      if (!next.ok()) {
        status = next.status();
        break;
      }
      if (!next->has_value()) break;
      EXPECT_LE((*next)->size(), 4);
      got.push_back(std::move(**next));
    }
    if (format == CorpusFormat::kPtb) {
      EXPECT_NE(
          status.message().find("long:6: expected at most 4 tokens in a sentence "
                                "(--max-sentence-tokens), found more (a tree is never split)"),
          std::string::npos)
          << status;
      continue;
    }
    ASSERT_TRUE(status.ok()) << CorpusFormatName(format) << ": " << status;
    std::vector<int> sizes;
    for (const Sentence& s : got) sizes.push_back(s.size());
    EXPECT_EQ(sizes, (std::vector<int>{4, 4, 1, 4, 4, 2})) << CorpusFormatName(format);
    EXPECT_EQ(got[0].word(0), "w1");
    EXPECT_EQ(got[1].word(0), "w5");
    EXPECT_EQ(got[2].word(0), "w9");
    EXPECT_EQ(got[2].labels, Strings{"T9"});
    EXPECT_EQ(got[4].labels, (Strings{"T5", "T6", "T7", "T8"}));
    const int second = format == CorpusFormat::kTagged ? 3 : 12;  // first line of sentence 2
    if (format != CorpusFormat::kTagged) {
      EXPECT_EQ(got[1].token_lines[0], 5);
      EXPECT_EQ(got[2].token_lines[0], 9);
    }
    const bool tagged = format == CorpusFormat::kTagged;
    auto warning = [](int line) {
      return absl::StrCat("long:", line, ": a sentence longer than 4 tokens was split");
    };
    EXPECT_EQ(warnings, (Strings{warning(tagged ? 1 : 5), warning(tagged ? 1 : 9),
                                 warning(tagged ? second : second + 4)}))
        << CorpusFormatName(format);
    if (format == CorpusFormat::kConllu) {
      // The pieces keep their word IDs, so writing them back keeps the original lines.
      EXPECT_EQ(got[1].conllu->word_fields[0][0], "5");
    }
  }
}

TEST(ReadCorpusTest, PassesSplitWarningsOn) {
  TempDir dir;
  const std::string path = dir.path() + "/long.conll";
  std::ofstream(path) << LongSentence(CorpusFormat::kConll, 6);
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.max_sentence_tokens = 4;
  options.split_long_sentences = true;
  std::vector<std::string> warnings;
  absl::StatusOr<std::vector<Sentence>> got = ReadCorpus({path}, options, &warnings);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 2u);
  EXPECT_EQ(warnings, Strings{path + ":5: a sentence longer than 4 tokens was split"});
}

TEST(ReaderTest, OptionsAreValidated) {
  ReaderOptions options = Options(CorpusFormat::kConll);
  options.max_sentence_tokens = 0;
  absl::StatusOr<std::vector<Sentence>> got = ReadAll("a B\n", options, "o");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "o: expected max_sentence_tokens >= 1, found 0");
  options = Options(CorpusFormat::kConll);
  for (int column : {1001, -1001, INT32_MIN, INT32_MAX}) {
    options.label_column = column;
    got = ReadAll("a B\n", options, "o");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(),
              absl::StrCat("o: expected a label column from -1000 to 1000 (--label-column), found ",
                           column));
  }
  options.label_column = -1000;
  got = ReadAll("a B\n", options, "o");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "o:1: expected at least 1000 columns for label column -1000 (counted from the end), "
            "found 2");
}

TEST(SharedCorporaTest, Conll2000TrainCounts) {
  ExpectCounts({{"conll2000/train.txt"}, CorpusFormat::kConll, 8936, 211727});
}

TEST(SharedCorporaTest, EwtTrainCounts) {
  ExpectCounts({{"ud-english-ewt/en_ewt-ud-train.conllu"}, CorpusFormat::kConllu, 12544, 204577});
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
