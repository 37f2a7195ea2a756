// Collective tagging through the front door: documents decoded jointly by Pipeline::RunDocument
// (checked against enumeration of every joint labeling of a tiny document), BatchTagger's
// document grouping and size caps, the clique filters and the MAJORITY weight estimate.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chaintag/tagging.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/tiny_model.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;
using testing_model::BuildTinyModel;
using testing_model::MakeSentence;

std::vector<Sentence> TinyDocument() {
  return {MakeSentence({"The", "cat", "sat"}, {"DT", "NN", "VBD"}),
          MakeSentence({"the", "big", "cat"}, {"DT", "JJ", "NN"}),
          MakeSentence({"A", "cat", "barked"}, {"DT", "NN", "VBD"})};
}

DecodeRequest CollectiveRequest(CollectivePotentialKind kind, CollectiveKey key, double c) {
  DecodeRequest request;
  CollectiveOptions options;
  options.potential = kind;
  options.key = key;
  options.c = c;
  request.collective = options;
  return request;
}

// The joint objective from its definition, with cliques over the given key's repeated words.
class DirectObjective {
 public:
  DirectObjective(const Model& model, const std::vector<Sentence>& doc,
                  const CollectiveOptions& options)
      : m_(model.num_labels()), options_(options) {
    Tagger tagger(model);
    std::vector<std::string> keys;
    for (const Sentence& s : doc) {
      EXPECT_TRUE(tagger.BuildLattice(s, &lattices_.emplace_back()).ok());
      for (int t = 0; t < s.size(); ++t) keys.push_back(CollectiveWordKey(s.word(t), options.key));
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      std::vector<int> group;
      for (size_t j = 0; j < keys.size(); ++j) {
        if (keys[j] == keys[i]) group.push_back(static_cast<int>(j));
      }
      if (group.size() >= 2 && group[0] == static_cast<int>(i)) groups_.push_back(group);
    }
  }
  // `flat`: the labels of every token of the document in order.
  double operator()(const std::vector<int>& flat) const {
    double total = 0;
    size_t k = 0;
    for (const Lattice& lattice : lattices_) {
      std::vector<int> y(flat.begin() + k, flat.begin() + k + lattice.size());
      k += lattice.size();
      total += lattice.Score(y);
    }
    for (const std::vector<int>& group : groups_) {
      std::vector<int> counts(m_, 0);
      for (int i : group) ++counts[flat[i]];
      const int n = static_cast<int>(group.size());
      if (options_.potential == CollectivePotentialKind::kPotts) {
        for (int c : counts) total += options_.c / n * c * c;
      } else {
        int a = 0;
        for (int y = 1; y < m_; ++y) a = counts[y] > counts[a] ? y : a;
        for (int y = 0; y < m_; ++y) {
          total += options_.c * options_.majority_weights[a * m_ + y] * counts[y];
        }
      }
    }
    return total;
  }
  size_t cliques() const { return groups_.size(); }

 private:
  int m_;
  CollectiveOptions options_;
  std::vector<Lattice> lattices_;
  std::vector<std::vector<int>> groups_;
};

TEST(CollectiveTaggingTest, DocumentObjectiveMatchesEnumeration) {
  const Model model = BuildTinyModel();
  const int m = model.num_labels();
  const std::vector<Sentence> doc = TinyDocument();
  for (CollectiveKey key : {CollectiveKey::kForm, CollectiveKey::kLower}) {
    for (double c : {0.5, 2.0, 8.0}) {
      for (CollectivePotentialKind kind :
           {CollectivePotentialKind::kPotts, CollectivePotentialKind::kMajority}) {
        DecodeRequest request = CollectiveRequest(kind, key, c);
        if (kind == CollectivePotentialKind::kMajority) {
          request.collective->majority_weights.assign(m * m, -1.0);
          for (int a = 0; a < m; ++a) request.collective->majority_weights[a * m + a] = 0.0;
        }
        ASSERT_TRUE(CheckCollectiveRequest(model, request).ok());
        Pipeline pipeline({&model}, request);
        std::vector<TagResult> results(doc.size());
        for (size_t s = 0; s < doc.size(); ++s) results[s].sentence = doc[s];
        DocumentReport report;
        pipeline.RunDocument(absl::MakeSpan(results), &report);
        std::vector<std::vector<int>> labels;
        for (const TagResult& r : results) {
          ASSERT_TRUE(r.error.ok()) << r.error;
          ASSERT_EQ(r.solutions.size(), 1u);
          labels.push_back(r.solutions[0].labels);
        }
        // "cat" x3 (and "The"/"the" with the lower key).
        EXPECT_EQ(report.clique_sizes.size(), key == CollectiveKey::kForm ? 1u : 2u);
        EXPECT_EQ(report.sentences, 3);
        EXPECT_EQ(report.tokens, 9);
        const DirectObjective objective(model, doc, *request.collective);
        std::vector<int> flat;
        for (const auto& y : labels) flat.insert(flat.end(), y.begin(), y.end());
        EXPECT_EQ(objective.cliques(), report.clique_sizes.size());
        EXPECT_NEAR(report.objective, objective(flat), 1e-6);
        EXPECT_GE(report.objective, report.plain_objective - 1e-9);
        double best = kNegInf;
        testing_model::ForEachLabeling(
            9, m, [&](const std::vector<int>& y) { best = std::max(best, objective(y)); });
        EXPECT_LE(report.objective, best + 1e-6);
        if (c >= 8.0 && kind == CollectivePotentialKind::kPotts) {
          // A strong Potts clique makes every "cat" agree.
          EXPECT_EQ(labels[0][1], labels[1][2]);
          EXPECT_EQ(labels[0][1], labels[2][1]);
        }
      }
    }
  }
}

TEST(CollectiveTaggingTest, BatchTaggerGroupsDocumentsAndCapsThem) {
  const Model model = BuildTinyModel();
  DecodeRequest request =
      CollectiveRequest(CollectivePotentialKind::kPotts, CollectiveKey::kForm, 1.0);
  request.collective->max_document_sentences = 3;
  std::vector<TagResult> seen;
  BatchTagger tagger(
      {&model}, request, 2,
      [&](const TagResult& r) {
        seen.push_back(r);
        return absl::OkStatus();
      },
      "", 2);
  // Document 0: 3 sentences; document 1: 4 sentences (over the cap); document 2: 1 sentence.
  const int sizes[] = {3, 4, 1};
  for (int d = 0; d < 3; ++d) {
    for (int i = 0; i < sizes[d]; ++i) {
      TagResult r;
      r.sentence = TinyDocument()[i % 3];
      r.sentence.new_document = i == 0;
      ASSERT_TRUE(tagger.Add(std::move(r)).ok());
    }
  }
  ASSERT_TRUE(tagger.Flush().ok());
  ASSERT_EQ(seen.size(), 8u);
  EXPECT_EQ(tagger.documents(), 3);
  EXPECT_EQ(tagger.fallback_documents(), 1);
  for (size_t i = 0; i < seen.size(); ++i) {
    ASSERT_NE(seen[i].document, nullptr) << i;
    ASSERT_EQ(seen[i].solutions.size(), 1u);
  }
  EXPECT_EQ(seen[0].document->index, 0);
  EXPECT_TRUE(seen[0].document_first);
  EXPECT_FALSE(seen[1].document_first);
  EXPECT_EQ(seen[0].document->clique_sizes, (std::vector<int>{3}));
  for (int i = 3; i < 7; ++i) {
    EXPECT_EQ(seen[i].document->index, 1);
    EXPECT_TRUE(seen[i].document_first);  // each sentence carries the warning
    EXPECT_THAT(seen[i].document->warning, HasSubstr("sentence by sentence"));
  }
  EXPECT_EQ(seen[7].document->index, 2);
  EXPECT_TRUE(seen[7].document->warning.empty());
}

TEST(CollectiveTaggingTest, WordFiltersAndSeenWords) {
  EXPECT_TRUE(IsCapitalised("Brugge"));
  EXPECT_TRUE(IsCapitalised("Émile"));
  EXPECT_FALSE(IsCapitalised("brugge"));
  EXPECT_FALSE(IsCapitalised("1990"));
  EXPECT_FALSE(IsCapitalised(""));
  EXPECT_EQ(CollectiveWordKey("ÉCOLE", CollectiveKey::kLower), "école");
  EXPECT_EQ(CollectiveWordKey("ÉCOLE", CollectiveKey::kForm), "ÉCOLE");
  const Model model = BuildTinyModel();
  auto seen = SeenWordTest::ForModel(model);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_TRUE(seen->Seen("cat"));
  EXPECT_TRUE(seen->Seen("The"));
  EXPECT_FALSE(seen->Seen("zebra"));
  // Unseen-only cliques: "cat" is known, so a document repeating only known words has none.
  DecodeRequest request =
      CollectiveRequest(CollectivePotentialKind::kPotts, CollectiveKey::kForm, 1.0);
  request.collective->unseen_only = true;
  Pipeline pipeline({&model}, request);
  std::vector<TagResult> results(3);
  std::vector<Sentence> doc = TinyDocument();
  doc[2].columns[0][2] = "zebra";
  doc[1].columns[0][1] = "zebra";
  for (size_t s = 0; s < doc.size(); ++s) results[s].sentence = doc[s];
  DocumentReport report;
  pipeline.RunDocument(absl::MakeSpan(results), &report);
  EXPECT_EQ(report.clique_sizes, (std::vector<int>{2}));
}

TEST(CollectiveTaggingTest, RequestChecks) {
  const Model model = BuildTinyModel();
  DecodeRequest request =
      CollectiveRequest(CollectivePotentialKind::kMajority, CollectiveKey::kForm, 1.0);
  EXPECT_THAT(CheckCollectiveRequest(model, request).message(), HasSubstr("weight matrix"));
  request = CollectiveRequest(CollectivePotentialKind::kPotts, CollectiveKey::kForm, 1.0);
  request.kbest = 2;
  EXPECT_THAT(request.Validate().message(), HasSubstr("does not combine"));
  request.kbest = 0;
  request.collective->iterations = 0;
  EXPECT_THAT(request.Validate().message(), HasSubstr("iterations"));
  request.collective->iterations = 3;
  request.collective->c = -1;
  EXPECT_THAT(request.Validate().message(), HasSubstr("lambda"));
  EXPECT_THAT(ParseCollectivePotentialKind("dense").status().message(), HasSubstr("potts"));
  EXPECT_THAT(ParseCollectiveKey("upper").status().message(), HasSubstr("lower"));
}

TEST(CollectiveTaggingTest, MajorityWeightsFromLabelledDocuments) {
  const Model model = BuildTinyModel();
  const int m = model.num_labels();
  const int b = model.LabelId("B-NP"), o = model.LabelId("O");
  CollectiveOptions options;
  MajorityWeightEstimator estimator(model, options);
  // Document 1: "cat" B-NP, B-NP, O (majority B-NP); document 2: "cat" once (no clique).
  Sentence s1 = MakeSentence({"cat", "cat"}, {"NN", "NN"});
  s1.labels = {"B-NP", "B-NP"};
  s1.new_document = true;
  Sentence s2 = MakeSentence({"cat", "sat"}, {"NN", "VBD"});
  s2.labels = {"O", "O"};
  Sentence s3 = MakeSentence({"cat"}, {"NN"});
  s3.labels = {"B-NP"};
  s3.new_document = true;
  ASSERT_TRUE(estimator.Add(s1).ok());
  ASSERT_TRUE(estimator.Add(s2).ok());
  ASSERT_TRUE(estimator.Add(s3).ok());
  auto w = estimator.Finish();
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(estimator.cliques(), 1);
  ASSERT_EQ(w->size(), static_cast<size_t>(m * m));
  // Row B-NP: counts B-NP 2, O 1: W = (c + 1) / 3 - 1.
  EXPECT_NEAR((*w)[b * m + b], 0.0, 1e-12);
  EXPECT_NEAR((*w)[b * m + o], 2.0 / 3.0 - 1.0, 1e-12);
  // Rows without data are flat (0).
  EXPECT_NEAR((*w)[o * m + b], 0.0, 1e-12);
  Sentence bad = MakeSentence({"cat"}, {"NN"});
  bad.labels = {"B-XX"};
  EXPECT_THAT(estimator.Add(bad).message(), HasSubstr("B-XX"));
  MajorityWeightEstimator empty(model, options);
  EXPECT_EQ(empty.Finish().status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace chaintag
