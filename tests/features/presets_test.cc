#include <memory>
#include <string>

#include "chaintag/features.h"
#include "features/template.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

std::shared_ptr<const Lexicon> OneWordLexicon() {
  absl::StatusOr<Lexicon> lexicon = Lexicon::Parse("run\tn v\n", "test.lex");
  EXPECT_TRUE(lexicon.ok()) << lexicon.status();
  return std::make_shared<const Lexicon>(*lexicon);
}

FeatureResources LexiconAndClusters() {
  absl::StatusOr<WordClusters> clusters = WordClusters::Parse("0\tthe\t2\n1\trun\t1\n", "p");
  EXPECT_TRUE(clusters.ok()) << clusters.status();
  return {OneWordLexicon(), nullptr, std::make_shared<const WordClusters>(*clusters)};
}

TEST(PresetTest, AllPresetsParseAndRoundTripThroughText) {
  ASSERT_EQ(FeatureSpec::PresetNames().size(), 10u);
  for (const std::string& name : FeatureSpec::PresetNames()) {
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset(name, LexiconAndClusters());
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    // History presets (LMSBN) replace the label bigram by history templates.
    const bool history = name.ends_with("-history");
    EXPECT_EQ(spec->has_label_bigram(), !history) << name;
    EXPECT_EQ(spec->num_history_templates() > 0, history) << name;
    EXPECT_EQ(spec->uses_lexicon(), name.find("lexicon") != std::string::npos) << name;
    // Given clusters, every preset reads them (those without cluster() add their task's set).
    EXPECT_TRUE(spec->uses_clusters()) << name;
    // Models store the text (and the lexicon and clusters) and re-parse it at load.
    absl::StatusOr<FeatureSpec> again = FeatureSpec::Parse(
        spec->text(), FeatureResources{spec->lexicon(), spec->lexicon2(), spec->clusters()});
    ASSERT_TRUE(again.ok()) << name;
    EXPECT_EQ(again->num_templates(), spec->num_templates()) << name;
    EXPECT_EQ(again->num_history_templates(), spec->num_history_templates()) << name;
  }
}

TEST(PresetTest, ChunkConllIsTheCrfppTemplate) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->num_templates(), 19);
  EXPECT_EQ(spec->num_input_columns(), 2);
  std::vector<std::string> names;
  for (const auto& t : spec->impl().templates) names.push_back(t.name);
  EXPECT_THAT(names, ::testing::ElementsAre("U00", "U01", "U02", "U03", "U04", "U05", "U06", "U10",
                                            "U11", "U12", "U13", "U14", "U15", "U16", "U17", "U18",
                                            "U20", "U21", "U22"));
}

TEST(PresetTest, InputColumns) {
  EXPECT_EQ(FeatureSpec::Preset("chunk")->num_input_columns(), 2);
  EXPECT_EQ(FeatureSpec::Preset("np")->num_input_columns(), 2);
  EXPECT_EQ(FeatureSpec::Preset("pos")->num_input_columns(), 1);  // words only
  // `chunk` extends the CRF++ set.
  EXPECT_GT(FeatureSpec::Preset("chunk")->num_templates(), 19);
  EXPECT_GT(FeatureSpec::Preset("pos")->num_templates(), 19);
  // pos-lexicon is pos plus templates that read the lexicon.
  absl::StatusOr<FeatureSpec> lex = FeatureSpec::Preset("pos-lexicon", OneWordLexicon());
  ASSERT_TRUE(lex.ok()) << lex.status();
  EXPECT_EQ(lex->num_input_columns(), 1);
  EXPECT_GT(lex->num_templates(), FeatureSpec::Preset("pos")->num_templates());
  EXPECT_THAT(lex->text(),
              ::testing::StartsWith(FeatureSpec::Preset("pos")->text().substr(0, 200)));
}

TEST(PresetTest, NerReadsWordsAndPos) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("ner");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->num_input_columns(), 2);
  EXPECT_EQ(spec->num_templates(), 36);
  EXPECT_FALSE(spec->uses_lexicon());
}

TEST(PresetTest, PosLexiconNeedsALexicon) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("pos-lexicon");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), ::testing::HasSubstr("lex() reads a word-class lexicon"));
}

TEST(PresetTest, PosClustersNeedsClusters) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("pos-clusters");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              ::testing::HasSubstr("cluster() reads word clusters, but none were given"));
}

TEST(PresetTest, PresetsAddTheirClusterTemplatesWhenClustersAreGiven) {
  FeatureResources clusters;
  clusters.clusters = LexiconAndClusters().clusters;
  // train --preset pos --clusters FILE trains pos-clusters.
  absl::StatusOr<FeatureSpec> pos = FeatureSpec::Preset("pos", clusters);
  absl::StatusOr<FeatureSpec> pos_clusters = FeatureSpec::Preset("pos-clusters", clusters);
  ASSERT_TRUE(pos.ok()) << pos.status();
  ASSERT_TRUE(pos_clusters.ok()) << pos_clusters.status();
  EXPECT_EQ(pos->text(), pos_clusters->text());
  EXPECT_FALSE(FeatureSpec::Preset("pos")->uses_clusters());
  // Other tasks get the word-window set, with the word's class conjoined with its POS tag.
  for (const char* name : {"chunk-conll", "chunk", "np", "ner", "chunk-history"}) {
    absl::StatusOr<FeatureSpec> plain = FeatureSpec::Preset(name);
    absl::StatusOr<FeatureSpec> with = FeatureSpec::Preset(name, clusters);
    ASSERT_TRUE(plain.ok() && with.ok()) << name;
    EXPECT_FALSE(plain->uses_clusters()) << name;
    EXPECT_TRUE(with->uses_clusters()) << name;
    EXPECT_EQ(with->num_templates(), plain->num_templates() + 9) << name;
    EXPECT_EQ(with->num_history_templates(), plain->num_history_templates()) << name;
    EXPECT_EQ(with->has_label_bigram(), plain->has_label_bigram()) << name;
    EXPECT_THAT(with->text(), ::testing::HasSubstr("U78:cluster(%x[0,0],6)/%x[0,1]\n")) << name;
  }
}

TEST(PresetTest, UnknownPresetNamesTheChoices) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("srl");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "feature preset: expected one of chunk-conll, chunk, np, pos, pos-lexicon, "
            "pos-clusters, pos-lexicon-clusters, ner, chunk-history, pos-history; found 'srl'");
}

TEST(PresetTest, HistoryPresetsKeepTheObservationTemplatesOfTheirBase) {
  absl::StatusOr<FeatureSpec> chunk = FeatureSpec::Preset("chunk");
  absl::StatusOr<FeatureSpec> chunk_history = FeatureSpec::Preset("chunk-history");
  ASSERT_TRUE(chunk.ok() && chunk_history.ok());
  EXPECT_EQ(chunk_history->num_templates(), chunk->num_templates());
  EXPECT_EQ(chunk_history->num_history_templates(), 15);
  absl::StatusOr<FeatureSpec> pos = FeatureSpec::Preset("pos");
  absl::StatusOr<FeatureSpec> pos_history = FeatureSpec::Preset("pos-history");
  ASSERT_TRUE(pos.ok() && pos_history.ok());
  EXPECT_EQ(pos_history->num_templates(), pos->num_templates());
  EXPECT_EQ(pos_history->num_history_templates(), 10);
}

}  // namespace
}  // namespace chaintag
