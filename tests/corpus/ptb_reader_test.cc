#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::ReadAll;
using Strings = std::vector<std::string>;

// Reads one tree and returns its sentence (fails the test on error).
Sentence ReadOne(const std::string& tree, bool np_chunks) {
  ReaderOptions options = Options(CorpusFormat::kPtb);
  options.np_chunks = np_chunks;
  auto got = ReadAll(tree, options, "t.mrg");
  EXPECT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got.ok() ? got->size() : 0u, 1u);
  return got.ok() && !got->empty() ? (*got)[0] : Sentence();
}

TEST(PtbReaderTest, WordsAndPosFromPreterminalsAcrossLines) {
  const Sentence s = ReadOne(
      "( (S \n"
      "    (NP-SBJ (NNP Pierre) (NNP Vinken) )\n"
      "    (VP (MD will) \n"
      "      (VP (VB join) (NP (DT the) (NN board) )))\n"
      "    (. .) ))\n",
      false);
  EXPECT_EQ(s.columns,
            (std::vector<Strings>{{"Pierre", "Vinken", "will", "join", "the", "board", "."}}));
  EXPECT_EQ(s.labels, (Strings{"NNP", "NNP", "MD", "VB", "DT", "NN", "."}));
  EXPECT_EQ(s.token_lines, (std::vector<int64_t>{2, 2, 3, 4, 4, 4, 5}));
  EXPECT_EQ(s.file, "t.mrg");
}

TEST(PtbReaderTest, RemovesEmptyElementsAndKeepsBracketTokens) {
  const Sentence s = ReadOne(
      "( (S (NP-SBJ-1 (-NONE- *) ) (VP (VBD said) (-LRB- -LRB-) (NP (-NONE- *T*-2)) "
      "(-RRB- -RRB-) (SBAR (-NONE- 0) (S (-NONE- *T*-1))))))",
      false);
  EXPECT_EQ(s.columns[0], (Strings{"said", "-LRB-", "-RRB-"}));
  EXPECT_EQ(s.labels, (Strings{"VBD", "-LRB-", "-RRB-"}));
}

// The reader keeps its own stack of open brackets (no recursion): a tree nested 200,000 deep
// reads as one sentence, NP chunks included, without exhausting the call stack (issue 27 item 3).
TEST(PtbReaderTest, DeeplyNestedTreeReadsWithoutRecursion) {
  constexpr int kDepth = 200000;
  std::string tree;
  for (int i = 0; i < kDepth; ++i) tree += "(NP ";
  tree += "(NN deep)";
  tree.append(kDepth, ')');
  for (bool np_chunks : {false, true}) {
    const Sentence s = ReadOne(tree + "\n", np_chunks);
    EXPECT_EQ(s.columns[0], (Strings{"deep"}));
    EXPECT_EQ(s.labels, np_chunks ? Strings{"B-NP"} : Strings{"NN"});
  }
}

TEST(PtbReaderTest, SeveralTreesOnOneLineAndTreesOfOnlyEmptyElementsSkipped) {
  ReaderOptions options = Options(CorpusFormat::kPtb);
  auto got = ReadAll("((S (NN a)))((S (-NONE- *)))\n( (S (NN b)) )", options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].word(0), "a");
  EXPECT_EQ((*got)[1].word(0), "b");
  EXPECT_EQ((*got)[1].token_lines[0], 2);
}

TEST(PtbReaderTest, NpChunksPutPosInColumnOne) {
  const Sentence s = ReadOne(
      "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP-LOC (IN on) (NP (DT the) (NN mat))))"
      " (. .)))",
      true);
  EXPECT_EQ(s.num_columns(), 2);
  EXPECT_EQ(s.columns[1], (Strings{"DT", "NN", "VBD", "IN", "DT", "NN", "."}));
  EXPECT_EQ(s.labels, (Strings{"B-NP", "I-NP", "O", "O", "B-NP", "I-NP", "O"}));
}

TEST(PtbReaderTest, NpWithNestedNpIsNotAChunkButItsBaseNpsAre) {
  // (NP (NP chairman) (PP of (NP Elsevier N.V.))): only the innermost NPs are chunks.
  const Sentence s =
      ReadOne("((NP (NP (NN chairman)) (PP (IN of) (NP (NNP Elsevier) (NNP N.V.)))))", true);
  EXPECT_EQ(s.labels, (Strings{"B-NP", "O", "B-NP", "I-NP"}));
}

TEST(PtbReaderTest, PossessiveSplitsIntoOwnerAndHeadChunks) {
  // (NP (NP John 's) big dog): [John 's] [big dog].
  const Sentence s = ReadOne("((NP (NP (NNP John) (POS 's)) (JJ big) (NN dog)))", true);
  EXPECT_EQ(s.labels, (Strings{"B-NP", "I-NP", "B-NP", "I-NP"}));
}

TEST(PtbReaderTest, PossessiveHeadRunStopsAtAPhrase) {
  // The PP after the head is not part of the head chunk; its NP is its own chunk.
  const Sentence s = ReadOne(
      "((NP (NP (DT the) (NN firm) (POS 's)) (ADJP (RB very) (JJ big)) (NN unit) "
      "(PP (IN in) (NP (NNP Ohio)))))",
      true);
  EXPECT_EQ(s.labels, (Strings{"B-NP", "I-NP", "I-NP", "B-NP", "I-NP", "I-NP", "O", "B-NP"}));
}

TEST(PtbReaderTest, CoordinatedNpsAreSeparateChunksCoordinatedNounsAreOne) {
  const Sentence split = ReadOne("((NP (NP (NNS cats)) (CC and) (NP (DT the) (NNS dogs))))", true);
  EXPECT_EQ(split.labels, (Strings{"B-NP", "O", "B-NP", "I-NP"}));
  const Sentence joined = ReadOne("((NP (NNS cats) (CC and) (NNS dogs)))", true);
  EXPECT_EQ(joined.labels, (Strings{"B-NP", "I-NP", "I-NP"}));
}

TEST(PtbReaderTest, NpLeftEmptyByRemovalDoesNotBlockItsParent) {
  // The inner NP holds only an empty element, so the outer NP dominates no surviving NP.
  const Sentence s = ReadOne("((NP (NP (-NONE- *)) (DT the) (NN man)))", true);
  EXPECT_EQ(s.labels, (Strings{"B-NP", "I-NP"}));
}

TEST(PtbReaderTest, FunctionTagsAndIndicesAreStripped) {
  // NP-SBJ-1 and NP=2 are NPs; base-NP detection sees them.
  const Sentence s = ReadOne("((S (NP-SBJ-1 (PRP He)) (VP (VBD saw) (NP=2 (PRP it)))))", true);
  EXPECT_EQ(s.labels, (Strings{"B-NP", "O", "B-NP"}));
}

TEST(PtbReaderTest, AdjacentBaseNpsStartWithB) {
  const Sentence s = ReadOne("((S (VP (VBD gave) (NP (PRP him)) (NP (DT a) (NN book)))))", true);
  EXPECT_EQ(s.labels, (Strings{"O", "B-NP", "B-NP", "I-NP"}));
}

}  // namespace
}  // namespace chaintag

namespace chaintag {
namespace {

TEST(PtbReaderTest, UnescapesSlashAndAsteriskInWords) {
  const Sentence s = ReadOne("((NP (CD 1\\/2) (NNP A\\/B) (SYM \\*)))", false);
  EXPECT_EQ(s.columns[0], (Strings{"1/2", "A/B", "*"}));
}

}  // namespace
}  // namespace chaintag
