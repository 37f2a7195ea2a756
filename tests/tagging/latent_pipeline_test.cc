// Latent models through the front door: Pipeline dispatches to LDI (k-best), bhp and marginal
// decoding, applies forced labels to hidden states, and refuses what it cannot do exactly.
#include <random>
#include <string>
#include <vector>

#include "chaintag/tagging.h"
#include "chaintag/train.h"
#include "decode/latent.h"
#include "gtest/gtest.h"
#include "support/toy_corpus.h"

namespace chaintag {
namespace {

std::vector<Sentence> Corpus(int sentences, uint64_t seed) {
  const std::vector<std::string> det = {"the", "a"}, adj = {"big", "red"},
                                 noun = {"dog", "cat", "car"}, verb = {"saw", "likes"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), b.Random() % 4 ? "O" : "B-NP");  // some noise: the model is not certain
    b.Add(b.Pick(det), "B-NP");
    b.Add(b.Pick(noun), "I-NP");
  }
  return b.Take();
}

const Model& LatentModel() {
  static const Model* model = [] {
    TrainOptions options;
    options.objective = Objective::kLdcrf;
    options.latent = "2";
    options.max_iterations = 8;  // a soft model: several labelings carry probability
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
    EXPECT_TRUE(spec.ok());
    absl::StatusOr<Model> trained = Train(options, *spec, Corpus(40, 1), nullptr, nullptr);
    EXPECT_TRUE(trained.ok()) << trained.status();
    return new Model(*std::move(trained));
  }();
  return *model;
}

TagResult RunOne(const DecodeRequest& request, const Sentence& s) {
  Pipeline pipeline({&LatentModel()}, request);
  TagResult r;
  r.sentence = s;
  pipeline.Run(&r);
  return r;
}

TEST(LatentPipelineTest, KBestIsLdiOnTheTaggersLattice) {
  const Model& model = LatentModel();
  ASSERT_TRUE(model.latent());
  Tagger tagger(model);
  for (const Sentence& s : Corpus(10, 2)) {
    DecodeRequest request;
    request.kbest = 3;
    request.ldi_max_paths = 5000;
    const TagResult r = RunOne(request, s);
    ASSERT_TRUE(r.error.ok()) << r.error;
    Lattice lattice;
    ASSERT_TRUE(tagger.BuildLattice(s, &lattice).ok());
    LdiOptions options;
    options.k = 3;
    options.max_paths = 5000;
    absl::StatusOr<LatentDecodeResult> ldi = LdiDecode(lattice, model.latent_layout(), options);
    ASSERT_TRUE(ldi.ok());
    ASSERT_EQ(r.solutions.size(), ldi->solutions.size());
    ASSERT_TRUE(r.search.exact.has_value());
    EXPECT_EQ(*r.search.exact, ldi->exact);
    EXPECT_EQ(r.search.hidden_paths, ldi->hidden_paths);
    for (size_t i = 0; i < r.solutions.size(); ++i) {
      EXPECT_EQ(r.solutions[i].labels, ldi->solutions[i].labels);
      EXPECT_EQ(r.solutions[i].probability, ldi->solutions[i].probability);
      EXPECT_EQ(r.solutions[i].rank, static_cast<int>(i) + 1);
      EXPECT_EQ(r.solutions[i].names.size(), s.columns[0].size());
      if (i > 0) {
        EXPECT_LE(r.solutions[i].probability, r.solutions[i - 1].probability);
      }
    }
  }
}

TEST(LatentPipelineTest, BhpMarginalAndForcedLabels) {
  const Model& model = LatentModel();
  Tagger tagger(model);
  const Sentence s = Corpus(1, 3)[0];
  Lattice lattice;
  ASSERT_TRUE(tagger.BuildLattice(s, &lattice).ok());
  DecodeRequest bhp;
  bhp.latent_decoder = LatentDecoder::kBhp;
  const TagResult rb = RunOne(bhp, s);
  ASSERT_EQ(rb.solutions.size(), 1u);
  EXPECT_EQ(rb.solutions[0].labels,
            BestHiddenPathDecode(lattice, model.latent_layout())->solutions[0].labels);
  EXPECT_EQ(rb.search.hidden_paths, 1);
  DecodeRequest marginal;
  marginal.latent_decoder = LatentDecoder::kMarginal;
  marginal.marginals = true;
  const TagResult rm = RunOne(marginal, s);
  ASSERT_EQ(rm.solutions.size(), 1u);
  EXPECT_EQ(rm.solutions[0].labels,
            MarginalLatentDecode(lattice, model.latent_layout())->solutions[0].labels);
  EXPECT_EQ(rm.marginals.size(), s.columns[0].size() * model.num_labels());
  // Forced labels: the last token must be O.
  Sentence forced = s;
  std::vector<std::string> column(s.size(), "_");
  column.back() = "O";
  forced.columns.push_back(column);
  for (LatentDecoder d : {LatentDecoder::kLdi, LatentDecoder::kBhp, LatentDecoder::kMarginal}) {
    DecodeRequest request;
    request.latent_decoder = d;
    request.forced_column = 1;
    const TagResult r = RunOne(request, forced);
    ASSERT_TRUE(r.error.ok()) << r.error;
    ASSERT_EQ(r.solutions.size(), 1u);
    EXPECT_EQ(model.labels()[r.solutions[0].labels.back()], "O");
  }
}

TEST(LatentPipelineTest, RefusesWhatItCannotDoExactly) {
  const Sentence s = Corpus(1, 4)[0];
  DecodeRequest count;
  absl::StatusOr<CountConstraint> c = ParseCountConstraint("B-NP=1..2", LatentModel().labels());
  ASSERT_TRUE(c.ok());
  count.counts.push_back(*c);
  EXPECT_NE(std::string(RunOne(count, s).error.message()).find("--count"), std::string::npos);
  DecodeRequest diverse;
  diverse.diverse = 2;
  EXPECT_NE(std::string(RunOne(diverse, s).error.message()).find("--diverse"), std::string::npos);
  DecodeRequest range;
  range.score_range = true;
  range.score_lower = -10;
  range.score_upper = 10;
  EXPECT_NE(std::string(RunOne(range, s).error.message()).find("--score-range"), std::string::npos);
  DecodeRequest kbest_bhp;
  kbest_bhp.kbest = 2;
  kbest_bhp.latent_decoder = LatentDecoder::kBhp;
  EXPECT_NE(std::string(RunOne(kbest_bhp, s).error.message()).find("--kbest"), std::string::npos);
  DecodeRequest bad;
  bad.ldi_max_paths = 0;
  EXPECT_FALSE(bad.Validate().ok());
  EXPECT_FALSE(ParseLatentDecoder("viterbi").ok());
  EXPECT_TRUE(ParseLatentDecoder("marginal").ok());
}

}  // namespace
}  // namespace chaintag
