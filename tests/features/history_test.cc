#include <string>
#include <vector>

#include "chaintag/features.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

Sentence Make(const std::vector<std::string>& words, const std::vector<std::string>& pos) {
  Sentence s;
  s.columns = {words, pos};
  return s;
}

// All history attribute strings of position t given `labels` (names) for 0..t-1.
std::vector<std::string> AttributesAt(HistoryFeaturizer& hf, const Sentence& s, int t,
                                      const std::vector<std::string>& labels) {
  hf.Prepare(s);
  std::vector<int> ids;
  HistoryFeaturizer::State state = hf.Initial();
  for (int i = 0; i < t; ++i) {
    ids.push_back(hf.InternLabel(labels[i]));
    hf.Advance(ids.back(), &state);
  }
  std::vector<std::string> out;
  hf.ForEachAttribute(t, ids, state, [&](std::string_view a) { out.emplace_back(a); });
  return out;
}

TEST(HistoryTemplateTest, ParsesHistoryReferencesApartFromObservationTemplates) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(
      "U00:%x[0,0]\nH00:%y[-1]/%x[0,1]\nH01:%h[chunk]/%h[chunklen]\nH02:%h[count:VB*]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->num_templates(), 1);
  EXPECT_EQ(spec->num_history_templates(), 3);
  Featurizer f(*spec);
  Sentence s = Make({"a", "b"}, {"X", "Y"});
  // The observation featurizer sees only U00.
  EXPECT_EQ(f.Attributes(s, 1), std::vector<std::string>{"U00:b"});
}

TEST(HistoryTemplateTest, BadHistoryReferencesNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : {
           Case{"H:%y[0]", "template line 1: expected a label offset -1 .. -8 in %y[-k]"},
           Case{"H:%y[-9]", "template line 1: expected a label offset -1 .. -8 in %y[-k]"},
           Case{"H:%h[foo]", "template line 1: expected a history function"},
           Case{"H:%h[count]", "template line 1: expected %h[count:ARG] with a non-empty ARG"},
           Case{"H:%h[chunk:NP]", "template line 1: expected %h[chunk] without an argument"},
           Case{"H:%h[chunk", "template line 1: expected ']' closing the history reference"},
           Case{"H:%y[-1]%y[-2]%y[-3]%y[-4]%y[-5]%y[-6]%y[-7]",
                "template line 1: expected at most 6 history references in one template, found 7"},
       }) {
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(c.text);
    ASSERT_FALSE(spec.ok()) << c.text;
    EXPECT_TRUE(std::string(spec.status().message()).starts_with(c.error))
        << c.text << ": " << spec.status().message();
  }
}

TEST(HistoryFeaturizerTest, PreviousLabelsAndConjunctionsWithCells) {
  absl::StatusOr<FeatureSpec> spec =
      FeatureSpec::Parse("H0:%y[-1]\nH1:%y[-2]/%y[-1]/lower(%x[0,0])\nH2:%x[1,1]/%y[-1]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  HistoryFeaturizer hf(*spec);
  Sentence s = Make({"The", "Cat", "sat"}, {"DT", "NN", "VBD"});
  EXPECT_EQ(AttributesAt(hf, s, 0, {}),
            (std::vector<std::string>{"%bias", "H0:_B-1", "H1:_B-2/_B-1/the", "H2:NN/_B-1"}));
  EXPECT_EQ(AttributesAt(hf, s, 2, {"B-NP", "I-NP"}),
            (std::vector<std::string>{"%bias", "H0:I-NP", "H1:B-NP/I-NP/sat", "H2:_B+1/I-NP"}));
}

TEST(HistoryFeaturizerTest, ChunkStateCountsAndSameWord) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(
      "C:%h[chunk]/%h[chunklen]/%h[prevchunk]\nN:%h[chunks:NP]/%h[count:B-*]/%h[count:O]\n"
      "S:%h[same]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  HistoryFeaturizer hf(*spec);
  const std::vector<std::string> words = {"a", "b", "c", "a", "d", "e", "f", "a", "g"};
  Sentence s = Make(words, std::vector<std::string>(words.size(), "X"));
  const std::vector<std::string> labels = {"B-NP", "I-NP", "B-VP", "I-VP", "I-VP",
                                           "I-VP", "I-VP", "O",    "B-NP"};
  auto at = [&](int t) { return AttributesAt(hf, s, t, labels); };
  EXPECT_EQ(at(0), (std::vector<std::string>{"%bias", "C:-/0/-", "N:0/0/0", "S:-"}));
  EXPECT_EQ(at(2), (std::vector<std::string>{"%bias", "C:NP/2/-", "N:1/1/0", "S:-"}));
  // Position 3 repeats word "a", which got B-NP at 0.
  EXPECT_EQ(at(3), (std::vector<std::string>{"%bias", "C:VP/1/NP", "N:1/2/0", "S:B-NP"}));
  // The chunk length is capped at 4; "a" last got I-VP (at 3).
  EXPECT_EQ(at(7), (std::vector<std::string>{"%bias", "C:VP/4/NP", "N:1/2/0", "S:I-VP"}));
  // After O nothing is open.
  EXPECT_EQ(at(8), (std::vector<std::string>{"%bias", "C:-/0/VP", "N:1/2/1", "S:-"}));
  // Counts are capped at 3.
  const std::vector<std::string> many = {"B-NP", "B-NP", "B-NP", "B-NP", "B-NP"};
  Sentence s5 = Make({"a", "b", "c", "d", "e"}, {"X", "X", "X", "X", "X"});
  EXPECT_EQ(AttributesAt(hf, s5, 4, many)[2], "N:3/3/0");
}

TEST(HistoryFeaturizerTest, IdsComeFromTheDictionaryAndAreCached) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("H0:%y[-1]/%x[0,0]\nH1:%y[-2]\n");
  ASSERT_TRUE(spec.ok());
  HistoryFeaturizer hf(*spec);
  hf.SetLabels({"A", "B"});
  AttributeDictionary dict;
  dict.Insert("H0:B/y");
  dict.Insert("%bias");
  dict.Insert("H1:_B-1");
  Sentence s = Make({"x", "y"}, {"-", "-"});
  hf.Prepare(s);
  HistoryFeaturizer::State state = hf.Initial();
  hf.Advance(1, &state);
  for (int round = 0; round < 2; ++round) {
    std::vector<int32_t> ids;
    hf.FindIds(1, std::vector<int>{1}, state, dict, &ids);
    EXPECT_EQ(ids, (std::vector<int32_t>{1, 0, 2}));
  }
  std::vector<int32_t> ids;
  HistoryFeaturizer::State a = hf.Initial();
  hf.Advance(0, &a);
  hf.FindIds(1, std::vector<int>{0}, a, dict, &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 2}));  // H0:A/y is not in the dictionary
}

}  // namespace
}  // namespace chaintag
