#include "features/featurizer.h"

#include <cctype>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "chaintag/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Sentence MakeSentence(std::vector<std::vector<std::string>> columns) {
  Sentence s;
  s.columns = std::move(columns);
  s.file = "test.conll";
  for (int t = 0; t < s.size(); ++t) s.token_lines.push_back(10 + t);
  return s;
}

FeatureSpec Spec(std::string_view text) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(text);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : FeatureSpec();
}

TEST(FeaturizerTest, ChunkConllMatchesCrfppAttributes) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
  ASSERT_TRUE(spec.ok());
  Featurizer featurizer(*spec);
  const Sentence s = MakeSentence({{"He", "reckons", "the"}, {"PRP", "VBZ", "DT"}});
  ASSERT_TRUE(featurizer.CheckColumns(s).ok());
  // Expected strings written by hand from CRF++'s expansion rules (_B-k before, _B+k after).
  EXPECT_THAT(featurizer.Attributes(s, 0),
              ElementsAre("U00:_B-2", "U01:_B-1", "U02:He", "U03:reckons", "U04:the", "U05:_B-1/He",
                          "U06:He/reckons", "U10:_B-2", "U11:_B-1", "U12:PRP", "U13:VBZ", "U14:DT",
                          "U15:_B-2/_B-1", "U16:_B-1/PRP", "U17:PRP/VBZ", "U18:VBZ/DT",
                          "U20:_B-2/_B-1/PRP", "U21:_B-1/PRP/VBZ", "U22:PRP/VBZ/DT"));
  EXPECT_THAT(featurizer.Attributes(s, 1),
              ElementsAre("U00:_B-1", "U01:He", "U02:reckons", "U03:the", "U04:_B+1",
                          "U05:He/reckons", "U06:reckons/the", "U10:_B-1", "U11:PRP", "U12:VBZ",
                          "U13:DT", "U14:_B+1", "U15:_B-1/PRP", "U16:PRP/VBZ", "U17:VBZ/DT",
                          "U18:DT/_B+1", "U20:_B-1/PRP/VBZ", "U21:PRP/VBZ/DT", "U22:VBZ/DT/_B+1"));
  EXPECT_THAT(
      featurizer.Attributes(s, 2),
      ElementsAre("U00:He", "U01:reckons", "U02:the", "U03:_B+1", "U04:_B+2", "U05:reckons/the",
                  "U06:the/_B+1", "U10:PRP", "U11:VBZ", "U12:DT", "U13:_B+1", "U14:_B+2",
                  "U15:PRP/VBZ", "U16:VBZ/DT", "U17:DT/_B+1", "U18:_B+1/_B+2", "U20:PRP/VBZ/DT",
                  "U21:VBZ/DT/_B+1", "U22:DT/_B+1/_B+2"));
}

TEST(FeaturizerTest, FunctionsConjunctionsAndMarkers) {
  Featurizer featurizer(
      Spec("A:lower(%x[0,0])/suf2(%x[0,0])\n"
           "C:shortshape(%x[-1,0])/hasupper(%x[0,0])\n"
           "D:pre1(%x[3,0])\n"
           "E:suf3(lower(%x[0,0]))\n"
           "F:[%x[0,0]]\n"));
  const Sentence s = MakeSentence({{"Ärger", "IBM-7"}});
  EXPECT_THAT(featurizer.Attributes(s, 0),
              ElementsAre("A:ärger/er", "C:_B-1/1", "D:_B+2", "E:ger", "F:[Ärger]"));
  EXPECT_THAT(featurizer.Attributes(s, 1),
              ElementsAre("A:ibm-7/-7", "C:Xx/1", "D:_B+3", "E:m-7", "F:[IBM-7]"));
}

TEST(FeaturizerTest, EmptyAndLongValues) {
  Featurizer featurizer(Spec("U00:%x[-1,0]|%x[0,0]|%x[1,0]\nU01:suf2(%x[0,0])\n"));
  const std::string long_word(100, 'q');
  const Sentence s = MakeSentence({{"", long_word, "ab", ""}});
  const std::vector<Sentence> corpus = {s};
  AttributeDictionary dict = BuildAttributeDictionary(featurizer, corpus, 1);
  FeaturizedSentence out;
  featurizer.Featurize(s, dict, &out);
  ASSERT_EQ(out.size(), 4);
  std::vector<std::string> seen;
  for (int t = 0; t < 4; ++t) {
    for (int32_t id : out.at(t)) seen.push_back(dict.name(id));
  }
  EXPECT_THAT(seen,
              ElementsAre("U00:_B-1||" + long_word, "U01:", "U00:|" + long_word + "|ab", "U01:qq",
                          "U00:" + long_word + "|ab|", "U01:ab", "U00:ab||_B+1", "U01:"));
}

TEST(FeaturizerTest, EmptySentence) {
  Featurizer featurizer(Spec("U00:%x[0,0]\n"));
  const Sentence s = MakeSentence({{}});
  AttributeDictionary dict;
  FeaturizedSentence out;
  featurizer.Featurize(s, dict, &out);
  EXPECT_EQ(out.size(), 0);
  int calls = 0;
  featurizer.ForEachAttribute(s, [&](int, std::string_view) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(FeaturizerTest, CheckColumnsReportsMissingColumn) {
  Featurizer featurizer(Spec("U00:%x[0,0]\nU01:%x[0,2]\n"));
  const Sentence s = MakeSentence({{"a", "b"}, {"X", "Y"}});
  absl::Status status = featurizer.CheckColumns(s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(
      status.message(),
      "test.conll:10: expected at least 3 input columns (the feature templates read column 2, "
      "0-based), found 2");
  // Without the check, a missing column reads as empty strings instead of crashing.
  EXPECT_THAT(featurizer.Attributes(s, 0), ElementsAre("U00:a", "U01:"));
  EXPECT_TRUE(featurizer.CheckColumns(MakeSentence({{"a"}, {"X"}, {"Y"}})).ok());
}

TEST(FeaturizerTest, CheckColumnsReportsRaggedColumns) {
  Featurizer featurizer(Spec("U00:%x[0,1]\n"));
  const Sentence s = MakeSentence({{"a", "b"}, {"X"}});
  absl::Status status = featurizer.CheckColumns(s);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("expected 2 values in input column 1, found 1"));
}

TEST(FeaturizerTest, FeaturizeDropsUnknownAttributesAndKeepsTemplateOrder) {
  Featurizer featurizer(Spec("U00:%x[0,0]\nU01:%x[-1,0]\nU02:lower(%x[0,0])\n"));
  const std::vector<Sentence> train = {MakeSentence({{"The", "cat"}})};
  AttributeDictionary dict = BuildAttributeDictionary(featurizer, train, 1);
  // First-occurrence order: position 0 templates, then position 1.
  ASSERT_EQ(dict.size(), 6);
  EXPECT_EQ(dict.name(0), "U00:The");
  EXPECT_EQ(dict.name(1), "U01:_B-1");
  EXPECT_EQ(dict.name(2), "U02:the");
  EXPECT_EQ(dict.name(3), "U00:cat");
  EXPECT_EQ(dict.name(4), "U01:The");
  EXPECT_EQ(dict.name(5), "U02:cat");

  FeaturizedSentence out;
  featurizer.Featurize(MakeSentence({{"the", "dog", "cat"}}), dict, &out);
  ASSERT_EQ(out.size(), 3);
  EXPECT_THAT(out.at(0), ElementsAre(dict.Find("U01:_B-1"), dict.Find("U02:the")));
  EXPECT_THAT(out.at(1), ElementsAre());  // "dog", "the" as previous word and "dog" lowered: unseen
  EXPECT_THAT(out.at(2), ElementsAre(dict.Find("U00:cat"), dict.Find("U02:cat")));
  // Reusing the output gives the same result (buffers are overwritten, not appended to).
  FeaturizedSentence again = out;
  featurizer.Featurize(MakeSentence({{"the", "dog", "cat"}}), dict, &again);
  EXPECT_EQ(again.offsets, out.offsets);
  EXPECT_EQ(again.attributes, out.attributes);
}

// Random sentences (ASCII, Latin-1 letters, CJK, emoji, digits, punctuation): Featurize must
// produce exactly the ids of Attributes() found in the dictionary, in order.
TEST(FeaturizerTest, FeaturizeAgreesWithAttributesOnRandomSentences) {
  absl::StatusOr<FeatureSpec> pos = FeatureSpec::Preset("pos");
  absl::StatusOr<FeatureSpec> chunk = FeatureSpec::Preset("chunk");
  ASSERT_TRUE(pos.ok() && chunk.ok());
  const std::vector<std::string> alphabet = {"a", "B", "z",  "Q", "7", "-", ".", "é",
                                             "Ä", "ß", "日", "😀", "x", "e", "S", "0"};
  std::mt19937 rng(12345);
  auto random_word = [&] {
    std::string w;
    const int len = 1 + static_cast<int>(rng() % 7);
    for (int i = 0; i < len; ++i) w += alphabet[rng() % alphabet.size()];
    return w;
  };
  std::vector<Sentence> corpus;
  for (int i = 0; i < 30; ++i) {
    const int n = 1 + static_cast<int>(rng() % 9);
    std::vector<std::string> words, tags;
    for (int t = 0; t < n; ++t) {
      words.push_back(random_word());
      tags.push_back(rng() % 2 ? "NN" : "VB");
    }
    corpus.push_back(MakeSentence({words, tags}));
  }
  for (const FeatureSpec* spec : {&*pos, &*chunk}) {
    Featurizer featurizer(*spec);
    // Half the corpus builds the dictionary so the other half has unknown attributes.
    const std::vector<Sentence> half(corpus.begin(), corpus.begin() + 15);
    AttributeDictionary dict = BuildAttributeDictionary(featurizer, half, 1);
    FeaturizedSentence out;
    int dropped = 0;
    for (const Sentence& s : corpus) {
      featurizer.Featurize(s, dict, &out);
      ASSERT_EQ(out.size(), s.size());
      for (int t = 0; t < s.size(); ++t) {
        std::vector<int32_t> expected;
        for (const std::string& a : featurizer.Attributes(s, t)) {
          const int id = dict.Find(a);
          if (id >= 0)
            expected.push_back(id);
          else
            ++dropped;
        }
        EXPECT_THAT(out.at(t), ::testing::ElementsAreArray(expected));
      }
    }
    EXPECT_GT(dropped, 0);
  }
}

// The value cache gives the ids of the uncached path: on every preset, with repeated and unknown
// words, sentence edges (markers), a cache small enough to be reset mid-corpus, and sentences
// with a missing column (which take the uncached path).
TEST(FeaturizerTest, ValueCacheGivesUncachedIds) {
  const std::vector<std::string> alphabet = {"a", "B",  "z", "Q", "7", "-", ".", "é", "Ä",
                                             "ß", "日", "😀", "x", "e", "S", "0", "İ"};
  std::mt19937 rng(777);
  std::vector<std::string> vocabulary;
  for (int i = 0; i < 40; ++i) {
    std::string w;
    const int len = static_cast<int>(rng() % 6);  // includes the empty word
    for (int k = 0; k < len; ++k) w += alphabet[rng() % alphabet.size()];
    vocabulary.push_back(w);
  }
  const std::vector<std::string> tags = {"NN", "VB", "DT", "IN", "JJ"};
  std::vector<Sentence> corpus;
  for (int i = 0; i < 60; ++i) {
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<std::string> words, pos;
    for (int t = 0; t < n; ++t) {
      words.push_back(vocabulary[rng() % vocabulary.size()]);
      pos.push_back(tags[rng() % tags.size()]);
    }
    corpus.push_back(MakeSentence({words, pos}));
  }
  corpus.push_back(MakeSentence({{"only", "words"}}));  // missing column 1
  const std::vector<Sentence> half(corpus.begin(), corpus.begin() + 30);
  // A lexicon for pos-lexicon that lists a third of the vocabulary (case-folded ASCII).
  std::string lexicon_text;
  for (size_t i = 0; i < vocabulary.size(); i += 3) {
    std::string w = vocabulary[i];
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!w.empty())
      lexicon_text += w + "\t" + tags[i % tags.size()] + " " + tags[(i / 2) % tags.size()] + "\n";
  }
  absl::StatusOr<Lexicon> lexicon = Lexicon::Parse(lexicon_text, "test.lex");
  ASSERT_TRUE(lexicon.ok()) << lexicon.status();
  const auto shared_lexicon = std::make_shared<const Lexicon>(*lexicon);
  // Clusters for pos-clusters: every other word, paths of 1 to 24 bits.
  std::vector<WordClusters::Entry> entries;
  std::set<std::string> listed;
  for (size_t i = 0; i < vocabulary.size(); i += 2) {
    if (!listed.insert(vocabulary[i]).second) continue;
    std::string path;
    for (size_t b = 0; b <= i % 24; ++b) path += ((i >> (b % 5)) & 1) ? '1' : '0';
    if (!vocabulary[i].empty()) entries.push_back({path, vocabulary[i], 1});
  }
  absl::StatusOr<WordClusters> clusters = WordClusters::FromEntries(entries);
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  const FeatureResources resources{shared_lexicon, nullptr,
                                   std::make_shared<const WordClusters>(*clusters)};
  for (const std::string& preset : FeatureSpec::PresetNames()) {
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset(preset, resources);
    ASSERT_TRUE(spec.ok()) << spec.status();
    Featurizer plain(*spec);
    const AttributeDictionary dict = BuildAttributeDictionary(plain, half, 1);
    for (int max_values : {1 << 15, 13}) {
      Featurizer cached(*spec);
      cached.EnableValueCache(&dict, max_values);
      FeaturizedSentence expected, got;
      for (int pass = 0; pass < 2; ++pass) {  // the second pass hits the cache
        for (size_t i = 0; i < corpus.size(); ++i) {
          plain.Featurize(corpus[i], dict, &expected);
          cached.Featurize(corpus[i], dict, &got);
          EXPECT_EQ(got.offsets, expected.offsets) << preset << " sentence " << i;
          EXPECT_EQ(got.attributes, expected.attributes) << preset << " sentence " << i;
        }
      }
      // Another dictionary is featurized without the cache.
      AttributeDictionary other;
      other.Insert("U00:" + corpus[0].columns[0][0]);
      plain.Featurize(corpus[0], other, &expected);
      cached.Featurize(corpus[0], other, &got);
      EXPECT_EQ(got.attributes, expected.attributes) << preset;
    }
  }
}

}  // namespace
}  // namespace chaintag
