// Latent models: hidden-state layout in the model file (optional section), tagging lattices over
// hidden states with the label mask expanded, LDI as the Tagger's decoder.
#include <random>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "decode/latent.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"
#include "model/model_file.h"
#include "support/model_sections.h"
#include "support/tiny_model.h"
#include "train/model_builder.h"

namespace chaintag {
namespace {

namespace mf = model_file;
using testing_model::TinyCorpus;

// B-NP, I-NP, O with 2, 3 and 2 hidden states and random weights over the 7 states.
absl::StatusOr<Model> BuildTinyLatentModel(uint32_t seed, bool self_tests, ModelFamily family) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(testing_model::kTinyTemplates);
  EXPECT_TRUE(spec.ok());
  absl::StatusOr<LatentLayout> layout = LatentLayout::FromCounts({2, 3, 2});
  EXPECT_TRUE(layout.ok());
  const int h = layout->num_states();
  Featurizer featurizer(*spec);
  AttributeDictionary dict;
  for (const Sentence& s : TinyCorpus()) {
    featurizer.ForEachAttribute(s, [&](int, std::string_view a) { dict.Insert(a); });
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> weight(-2.0, 2.0);
  ModelParameters p;
  p.num_labels = h;
  p.attribute_offsets.push_back(0);
  for (int a = 0; a < dict.size(); ++a) {
    for (int s = 0; s < h; ++s) {
      p.feature_labels.push_back(s);
      p.weights.push_back(weight(rng));
    }
    p.attribute_offsets.push_back(static_cast<int32_t>(p.feature_labels.size()));
  }
  for (int i = 0; i < h * h + 2 * h; ++i) p.weights.push_back(weight(rng));
  TransitionMask mask;
  mask.num_labels = 3;
  mask.allowed.assign(9, 1);
  mask.allowed[2 * 3 + 1] = 0;  // O -> I-NP
  mask.allowed_start = {1, 0, 1};
  mask.allowed_end = {1, 1, 1};
  ModelBuilder builder({"B-NP", "I-NP", "O"}, *spec, dict, p, mask);
  builder.SetLatentLayout(*layout);
  builder.SetFamily(family);
  if (self_tests) builder.SetSelfTestSentences(TinyCorpus());
  return std::move(builder).Build();
}

Model TinyLatentModel(uint32_t seed = 3, bool self_tests = true,
                      ModelFamily family = ModelFamily::kLinearChain) {
  absl::StatusOr<Model> model = BuildTinyLatentModel(seed, self_tests, family);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

TEST(LatentModelTest, TaggerScoresHiddenStatesWithTheExpandedMask) {
  const Model model = TinyLatentModel();
  ASSERT_TRUE(model.latent());
  EXPECT_EQ(model.num_labels(), 3);
  EXPECT_EQ(model.num_states(), 7);
  const ModelParameters params = model.Parameters();
  EXPECT_EQ(params.num_labels, 7);
  Featurizer featurizer(model.spec());
  Tagger tagger(model);
  for (const Sentence& s : TinyCorpus()) {
    Lattice lattice, expected;
    ASSERT_TRUE(tagger.BuildLattice(s, &lattice).ok());
    FeaturizedSentence f;
    featurizer.Featurize(s, model.attributes(), &f);
    params.Score(f, params.weights, &expected);
    ApplyTransitionMask(ExpandTransitionMask(model.transition_mask(), model.latent_layout()),
                        &expected);
    ASSERT_EQ(lattice.num_labels(), 7);
    EXPECT_EQ(lattice.unary_data(), expected.unary_data());
    EXPECT_EQ(lattice.transition_data(), expected.transition_data());
    // I-NP's hidden states (2, 3, 4) cannot follow O's (5, 6).
    EXPECT_EQ(lattice.transition(5, 3), kNegInf);
    EXPECT_EQ(lattice.start(2), kNegInf);
    absl::StatusOr<Labeling> tagged = tagger.Tag(s);
    ASSERT_TRUE(tagged.ok());
    absl::StatusOr<LatentDecodeResult> ldi =
        LdiDecode(lattice, model.latent_layout(), LdiOptions());
    ASSERT_TRUE(ldi.ok());
    EXPECT_EQ(tagged->labels, ldi->solutions[0].labels);
    EXPECT_DOUBLE_EQ(tagged->score, ldi->solutions[0].log_score);
  }
}

// What each kind of model decodes, as callers see it instead of its family.
TEST(LatentModelTest, CapabilitiesFollowTheKindOfModel) {
  const ModelCapabilities chain = testing_model::BuildTinyModel().Capabilities();
  EXPECT_TRUE(chain.counts && chain.score_range && chain.diverse && chain.exclusions &&
              chain.marginals && chain.probabilities && chain.label_lattice && chain.collective &&
              chain.weights);
  EXPECT_FALSE(chain.latent_decoder);
  const ModelCapabilities latent = TinyLatentModel().Capabilities();
  EXPECT_TRUE(latent.kbest && latent.forced_labels && latent.marginals && latent.probabilities &&
              latent.latent_decoder && latent.weights);
  EXPECT_FALSE(latent.counts || latent.score_range || latent.diverse || latent.exclusions ||
               latent.label_lattice || latent.collective);
  ModelBuilder builder = testing_model::TinyModelBuilder();
  builder.SetFamily(ModelFamily::kLmsbn);
  const ModelCapabilities lmsbn = testing_model::Built(std::move(builder)).Capabilities();
  EXPECT_TRUE(lmsbn.kbest && lmsbn.counts && lmsbn.exclusions && lmsbn.forced_labels);
  EXPECT_FALSE(lmsbn.score_range || lmsbn.diverse || lmsbn.marginals || lmsbn.probabilities ||
               lmsbn.label_lattice || lmsbn.collective || lmsbn.weights);
  EXPECT_STREQ(lmsbn.description, "an lmsbn model (branch-and-bound search)");
}

// LMBM is a first-order chain over labels: a file that says so of a latent model is refused.
TEST(LatentModelTest, LmbmFamilyWithHiddenStatesIsRefused) {
  const Model lmsbn = TinyLatentModel(3, false, ModelFamily::kLmsbn);
  const std::string bytes = lmsbn.ToBytes();
  ASSERT_TRUE(Model::FromBytes(bytes, "lmsbn.model").ok());
  absl::StatusOr<Model> lmbm =
      Model::FromBytes(testing_model::ReplaceSection(bytes, mf::kFamily, "lmbm"), "lmbm.model");
  ASSERT_FALSE(lmbm.ok());
  EXPECT_NE(lmbm.status().message().find(
                "lmbm.model: section 'family': an lmbm model is a first-order chain over labels, "
                "found hidden states"),
            std::string::npos)
      << lmbm.status();
}

TEST(LatentModelTest, FileRoundTripKeepsTheLayout) {
  const Model model = TinyLatentModel();
  const std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "mem");
  ASSERT_TRUE(table.ok());
  bool has_layout = false;
  for (const mf::SectionEntry& e : *table) has_layout |= e.id == mf::kLatentStates;
  EXPECT_TRUE(has_layout);
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "mem");  // runs the self-tests
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->latent());
  EXPECT_EQ(loaded->latent_layout().state_labels(), model.latent_layout().state_labels());
  EXPECT_EQ(loaded->ToBytes(), bytes);
  Tagger a(model), b(*loaded);
  for (const Sentence& s : TinyCorpus()) {
    absl::StatusOr<Labeling> x = a.Tag(s), y = b.Tag(s);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->labels, y->labels);
    EXPECT_EQ(x->score, y->score);
  }
}

TEST(LatentModelTest, OtherModelsHaveNoLayoutSection) {
  const Model model = testing_model::BuildTinyModel();
  EXPECT_FALSE(model.latent());
  EXPECT_EQ(model.num_states(), model.num_labels());
  absl::StatusOr<std::vector<mf::SectionEntry>> table =
      mf::ReadSectionTable(model.ToBytes(), "mem");
  ASSERT_TRUE(table.ok());
  for (const mf::SectionEntry& e : *table) EXPECT_NE(e.id, mf::kLatentStates);
}

TEST(LatentModelTest, BadLayoutIsRefusedOnLoad) {
  const Model model = TinyLatentModel(3, false);
  std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "bad.model");
  ASSERT_TRUE(table.ok());
  for (const mf::SectionEntry& e : *table) {
    if (e.id != mf::kLatentStates) continue;
    // State 3 (the middle one of I-NP's 2, 3, 4) becomes O: I-NP's block is split.
    bytes[e.offset + 4 + 4 * 3] = 2;
  }
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "bad.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(std::string(loaded.status().message()).find("bad.model"), std::string::npos);
  EXPECT_NE(std::string(loaded.status().message()).find("contiguous"), std::string::npos)
      << loaded.status();
}

TEST(LatentModelTest, TopFeaturesNameTheHiddenState) {
  const Model model = TinyLatentModel();
  const std::vector<WeightedFeature> top = TopFeatures(model, 5);
  ASSERT_EQ(top.size(), 5u);
  for (const WeightedFeature& f : top) EXPECT_NE(f.label.find('['), std::string::npos);
}

}  // namespace
}  // namespace chaintag
