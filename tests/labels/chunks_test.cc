#include "chaintag/chunks.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

TEST(ChunkSchemeTest, ParsesAndNamesEveryScheme) {
  for (ChunkScheme scheme : {ChunkScheme::kIob1, ChunkScheme::kIob2, ChunkScheme::kIobes}) {
    auto parsed = ParseChunkScheme(ChunkSchemeName(scheme));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, scheme);
  }
  EXPECT_EQ(*ParseChunkScheme("IOB2"), ChunkScheme::kIob2);
}

TEST(ChunkSchemeTest, RejectsUnknownSchemeNamingIt) {
  auto parsed = ParseChunkScheme("bilou");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), ::testing::HasSubstr("bilou"));
}

TEST(ChunkTagTest, SplitsPrefixAndType) {
  ChunkTag b = ParseChunkTag("B-NP");
  EXPECT_EQ(b.prefix, 'B');
  EXPECT_EQ(b.type, "NP");
  ChunkTag o = ParseChunkTag("O");
  EXPECT_EQ(o.prefix, 'O');
  EXPECT_EQ(o.type, "");
  ChunkTag hyphen = ParseChunkTag("E-NP-SBJ");
  EXPECT_EQ(hyphen.prefix, 'E');
  EXPECT_EQ(hyphen.type, "NP-SBJ");
  ChunkTag bare = ParseChunkTag("NN");
  EXPECT_EQ(bare.prefix, 'I');
  EXPECT_EQ(bare.type, "NN");
  ChunkTag odd = ParseChunkTag("U-PER");  // not a BIOES prefix: the whole label is the type
  EXPECT_EQ(odd.prefix, 'I');
  EXPECT_EQ(odd.type, "U-PER");
}

TEST(ExtractChunksTest, Iob2) {
  EXPECT_THAT(
      ExtractChunks(Split("B-NP I-NP O B-VP B-NP I-NP B-NP")),
      ElementsAre(Chunk{0, 2, "NP"}, Chunk{3, 4, "VP"}, Chunk{4, 6, "NP"}, Chunk{6, 7, "NP"}));
}

TEST(ExtractChunksTest, Iob1) {
  EXPECT_THAT(ExtractChunks(Split("I-NP I-NP B-NP O I-VP I-PP I-NP")),
              ElementsAre(Chunk{0, 2, "NP"}, Chunk{2, 3, "NP"}, Chunk{4, 5, "VP"},
                          Chunk{5, 6, "PP"}, Chunk{6, 7, "NP"}));
}

TEST(ExtractChunksTest, Iobes) {
  EXPECT_THAT(
      ExtractChunks(Split("S-NP B-VP I-VP E-VP O B-NP E-NP S-NP")),
      ElementsAre(Chunk{0, 1, "NP"}, Chunk{1, 4, "VP"}, Chunk{5, 7, "NP"}, Chunk{7, 8, "NP"}));
  // E followed by B of the same type splits (the IOBES extension of conlleval).
  EXPECT_THAT(ExtractChunks(Split("B-NP E-NP B-NP E-NP")),
              ElementsAre(Chunk{0, 2, "NP"}, Chunk{2, 4, "NP"}));
}

TEST(ExtractChunksTest, IllFormedSequencesAsConlleval) {
  // I-X after O starts a phrase.
  EXPECT_THAT(ExtractChunks(Split("O I-NP I-NP")), ElementsAre(Chunk{1, 3, "NP"}));
  // I-Y after B-X: the type change ends X and starts Y.
  EXPECT_THAT(ExtractChunks(Split("B-NP I-VP O")),
              ElementsAre(Chunk{0, 1, "NP"}, Chunk{1, 2, "VP"}));
  // E after E starts a new phrase; I after E as well.
  EXPECT_THAT(ExtractChunks(Split("B-NP E-NP E-NP I-NP")),
              ElementsAre(Chunk{0, 2, "NP"}, Chunk{2, 3, "NP"}, Chunk{3, 4, "NP"}));
  // E after O starts a one-token phrase.
  EXPECT_THAT(ExtractChunks(Split("B-NP O E-NP")),
              ElementsAre(Chunk{0, 1, "NP"}, Chunk{2, 3, "NP"}));
  // I after S starts a phrase; B-X I-X E-X S-X.
  EXPECT_THAT(
      ExtractChunks(Split("S-NP I-NP B-NP I-NP E-NP S-NP")),
      ElementsAre(Chunk{0, 1, "NP"}, Chunk{1, 2, "NP"}, Chunk{2, 5, "NP"}, Chunk{5, 6, "NP"}));
}

TEST(ExtractChunksTest, BareLabelsAndEmpty) {
  EXPECT_THAT(ExtractChunks(Split("NN NN VB")), ElementsAre(Chunk{0, 2, "NN"}, Chunk{2, 3, "VB"}));
  EXPECT_TRUE(ExtractChunks({}).empty());
  EXPECT_TRUE(ExtractChunks(Split("O O O")).empty());
  EXPECT_THAT(ExtractChunks(Split("B-NP-SBJ I-NP-SBJ")), ElementsAre(Chunk{0, 2, "NP-SBJ"}));
}

TEST(ChunkBoundaryTest, StartsAndEndsOnHandPickedPairs) {
  auto starts = [](const char* a, const char* b) {
    return ChunkStarts(ParseChunkTag(a), ParseChunkTag(b));
  };
  auto ends = [](const char* a, const char* b) {
    return ChunkEnds(ParseChunkTag(a), ParseChunkTag(b));
  };
  EXPECT_TRUE(starts("O", "I-NP"));
  EXPECT_FALSE(starts("B-NP", "I-NP"));
  EXPECT_TRUE(starts("B-NP", "B-NP"));
  EXPECT_TRUE(starts("I-NP", "I-VP"));
  EXPECT_FALSE(starts("I-NP", "O"));
  EXPECT_FALSE(starts("B-NP", "E-NP"));
  EXPECT_TRUE(starts("E-NP", "E-NP"));
  EXPECT_FALSE(ends("B-NP", "I-NP"));
  EXPECT_FALSE(ends("O", "B-NP"));
  EXPECT_TRUE(ends("I-NP", "O"));
  EXPECT_TRUE(ends("I-NP", "B-NP"));
  EXPECT_TRUE(ends("B-NP", "I-VP"));
  EXPECT_FALSE(ends("I-NP", "E-NP"));
  EXPECT_TRUE(ends("E-NP", "I-NP"));
  EXPECT_TRUE(ends("S-NP", "E-NP"));
}

TEST(ChunkBoundaryTest, AStartInsideAPhraseAlwaysEndsIt) {
  // ExtractChunks and the evaluator rely on this: a phrase never restarts without ending.
  const std::vector<std::string> labels = Split("O B-A I-A E-A S-A B-B I-B E-B S-B X");
  for (const std::string& a : labels) {
    for (const std::string& b : labels) {
      const ChunkTag prev = ParseChunkTag(a), cur = ParseChunkTag(b);
      if (prev.prefix != 'O' && ChunkStarts(prev, cur)) {
        EXPECT_TRUE(ChunkEnds(prev, cur)) << a << " -> " << b;
      }
      if (ChunkEnds(prev, cur) && cur.prefix != 'O') {
        EXPECT_TRUE(ChunkStarts(prev, cur)) << a << " -> " << b;
      }
    }
  }
}

TEST(ChunkBoundaryTest, PrefixOverloadsMatchTagOverloads) {
  for (char a : std::string("BIOES")) {
    for (char b : std::string("BIOES")) {
      for (bool same : {false, true}) {
        const ChunkTag prev{a, a == 'O' ? "" : "X"};
        const ChunkTag cur{b, b == 'O' ? "" : (same == (a != 'O') ? "X" : "Y")};
        const bool same_type = prev.type == cur.type;
        EXPECT_EQ(ChunkStarts(a, b, same_type), ChunkStarts(prev, cur)) << a << b << same;
        EXPECT_EQ(ChunkEnds(a, b, same_type), ChunkEnds(prev, cur)) << a << b << same;
      }
    }
  }
}

TEST(ChunkTableTest, MatchesStringFunctionsForEveryPair) {
  const std::vector<std::string> labels = Split("O B-NP I-NP E-NP S-NP B-VP I-VP NN");
  ChunkTable table(labels);
  ASSERT_EQ(table.num_labels(), static_cast<int>(labels.size()));
  for (int p = -1; p < table.num_labels(); ++p) {
    const ChunkTag prev = p < 0 ? ChunkTag() : ParseChunkTag(labels[p]);
    for (int c = -1; c < table.num_labels(); ++c) {
      const ChunkTag cur = c < 0 ? ChunkTag() : ParseChunkTag(labels[c]);
      EXPECT_EQ(table.Starts(p, c), ChunkStarts(prev, cur)) << p << " " << c;
      EXPECT_EQ(table.Ends(p, c), ChunkEnds(prev, cur)) << p << " " << c;
    }
  }
  ASSERT_EQ(table.num_types(), 3);
  EXPECT_EQ(table.type_name(0), "NP");
  EXPECT_EQ(table.type_name(1), "VP");
  EXPECT_EQ(table.type_name(2), "NN");
  EXPECT_EQ(table.TypeOf(-1), -1);
  EXPECT_EQ(table.TypeOf(0), -1);
  EXPECT_EQ(table.TypeOf(3), 0);
  EXPECT_EQ(table.TypeOf(6), 1);
  EXPECT_EQ(table.TypeOf(7), 2);
}

TEST(EncodeChunksTest, HandComputedLabels) {
  const std::vector<Chunk> chunks = {{0, 2, "NP"}, {2, 3, "NP"}, {3, 4, "VP"}, {5, 8, "PP"}};
  EXPECT_EQ(EncodeChunks(chunks, 9, ChunkScheme::kIob1),
            Split("I-NP I-NP B-NP I-VP O I-PP I-PP I-PP O"));
  EXPECT_EQ(EncodeChunks(chunks, 9, ChunkScheme::kIob2),
            Split("B-NP I-NP B-NP B-VP O B-PP I-PP I-PP O"));
  EXPECT_EQ(EncodeChunks(chunks, 9, ChunkScheme::kIobes),
            Split("B-NP E-NP S-NP S-VP O B-PP I-PP E-PP O"));
}

TEST(EncodeChunksTest, RandomChunkingsRoundTripInEveryScheme) {
  std::mt19937 rng(20240607);
  const std::vector<std::string> types = {"NP", "VP", "PP"};
  for (int trial = 0; trial < 500; ++trial) {
    const int length = static_cast<int>(rng() % 12);
    std::vector<Chunk> chunks;
    int t = 0;
    while (t < length) {
      if (rng() % 3 == 0) {
        ++t;  // an outside token
        continue;
      }
      const int len = 1 + static_cast<int>(rng() % 3);
      const int end = std::min(length, t + len);
      chunks.push_back(Chunk{t, end, types[rng() % types.size()]});
      t = end;
    }
    for (ChunkScheme scheme : {ChunkScheme::kIob1, ChunkScheme::kIob2, ChunkScheme::kIobes}) {
      const std::vector<std::string> labels = EncodeChunks(chunks, length, scheme);
      ASSERT_EQ(static_cast<int>(labels.size()), length);
      EXPECT_EQ(ExtractChunks(labels), chunks) << ChunkSchemeName(scheme) << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace chaintag
