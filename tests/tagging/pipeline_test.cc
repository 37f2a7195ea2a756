// Pipeline: the dispatch of a DecodeRequest, checked against brute-force enumeration of every
// labeling on a tiny model; per-sentence statuses for infeasible and over-limit requests.
#include <algorithm>
#include <climits>
#include <random>
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
using testing_model::ForEachLabeling;
using testing_model::MakeSentence;

Sentence Words(int m) {
  const std::vector<std::string> words = {"The", "cat",    "sat",    "A",
                                          "dog", "barked", "loudly", "big"};
  const std::vector<std::string> tags = {"DT", "NN", "VBD", "DT", "NN", "VBD", "RB", "JJ"};
  std::vector<std::string> w, t;
  for (int i = 0; i < m; ++i) {
    w.push_back(words[i % words.size()]);
    t.push_back(tags[i % tags.size()]);
  }
  return MakeSentence(w, t);
}

// Every labeling with a finite score, best first (ties: lexicographic order is stable).
std::vector<std::pair<double, std::vector<int>>> AllLabelings(const Model& model,
                                                              const Sentence& s) {
  Tagger tagger(model);
  Lattice lattice;
  EXPECT_TRUE(tagger.BuildLattice(s, &lattice).ok());
  std::vector<std::pair<double, std::vector<int>>> all;
  ForEachLabeling(s.size(), model.num_labels(), [&](const std::vector<int>& y) {
    const double score = lattice.Score(y);
    if (score != kNegInf) all.emplace_back(score, y);
  });
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  return all;
}

std::vector<std::string> Names(const Model& model, const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int y : ids) names.push_back(model.labels()[y]);
  return names;
}

TagResult RunOne(const Model& model, const DecodeRequest& request, const Sentence& s,
                 const std::vector<std::vector<int>>& excluded = {}) {
  Pipeline pipeline({&model}, request, "excluded.txt");
  TagResult r;
  r.sentence = s;
  for (const auto& e : excluded) r.excluded.push_back(Names(model, e));
  pipeline.Run(&r);
  EXPECT_TRUE(r.error.ok()) << r.error;
  return r;
}

TEST(PipelineTest, ExclusionsMatchBruteForce) {
  std::mt19937 rng(11);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const Model model = BuildTinyModel(seed);
    const Sentence s = Words(2 + seed % 4);
    const auto all = AllLabelings(model, s);
    ASSERT_GE(all.size(), 3u);
    for (int trial = 0; trial < 8; ++trial) {
      // Exclude a random subset biased to the best labelings, sometimes all of them.
      std::vector<std::vector<int>> excluded;
      const bool everything = trial == 7;
      for (size_t i = 0; i < all.size(); ++i) {
        if (everything || std::bernoulli_distribution(i < 4 ? 0.6 : 0.05)(rng)) {
          excluded.push_back(all[i].second);
        }
      }
      DecodeRequest request;
      request.exclusions = true;
      const TagResult r = RunOne(model, request, s, excluded);
      const auto expected = std::find_if(all.begin(), all.end(), [&](const auto& l) {
        return std::find(excluded.begin(), excluded.end(), l.second) == excluded.end();
      });
      if (expected == all.end()) {
        EXPECT_EQ(r.status, SentenceStatus::kInfeasible);
        continue;
      }
      ASSERT_EQ(r.status, SentenceStatus::kOk);
      ASSERT_EQ(r.solutions.size(), 1u);
      EXPECT_DOUBLE_EQ(r.solutions[0].score, expected->first) << "seed " << seed;

      // k-best under the same exclusions: the K best not excluded.
      request.kbest = 3;
      const TagResult k = RunOne(model, request, s, excluded);
      std::vector<double> want;
      for (const auto& l : all) {
        if (want.size() < 3 &&
            std::find(excluded.begin(), excluded.end(), l.second) == excluded.end()) {
          want.push_back(l.first);
        }
      }
      ASSERT_EQ(k.solutions.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(k.solutions[i].score, want[i]);
      for (const Solution& sol : k.solutions) {
        EXPECT_EQ(std::find(excluded.begin(), excluded.end(), sol.labels), excluded.end());
      }
    }
  }
}

TEST(PipelineTest, ManyExclusionsStayLinear) {
  // 60 exclusions would need 2^60 states as Hamming statistics; by k-best they are cheap.
  const Model model = BuildTinyModel(3);
  const Sentence s = Words(6);
  const auto all = AllLabelings(model, s);
  ASSERT_GT(all.size(), 61u);
  std::vector<std::vector<int>> excluded;
  for (int i = 0; i < 60; ++i) excluded.push_back(all[i].second);
  DecodeRequest request;
  request.exclusions = true;
  const TagResult r = RunOne(model, request, s, excluded);
  ASSERT_EQ(r.status, SentenceStatus::kOk);
  EXPECT_DOUBLE_EQ(r.solutions[0].score, all[60].first);
}

TEST(PipelineTest, CountBoundsAreClampedToTheSentence) {
  const Model model = BuildTinyModel(5);
  const Sentence s = Words(5);
  const auto all = AllLabelings(model, s);
  DecodeRequest plain;
  const TagResult best = RunOne(model, plain, s);
  ASSERT_EQ(best.status, SentenceStatus::kOk);

  for (const char* always : {"B-NP=..2147483647", "B-NP=0..1000000", "chunk:NP=..2147483647"}) {
    DecodeRequest request;
    request.counts.push_back(*ParseCountConstraint(always, model.labels()));
    const TagResult r = RunOne(model, request, s);
    ASSERT_EQ(r.status, SentenceStatus::kOk) << always;
    EXPECT_EQ(r.solutions[0].labels, best.solutions[0].labels) << always;
  }
  for (const char* never : {"B-NP=1000000", "O=6..", "chunk:NP=2147483647"}) {
    DecodeRequest request;
    request.counts.push_back(*ParseCountConstraint(never, model.labels()));
    EXPECT_EQ(RunOne(model, request, s).status, SentenceStatus::kInfeasible) << never;
  }
  // A bound equal to the length still constrains: every label O.
  DecodeRequest all_o;
  all_o.counts.push_back(*ParseCountConstraint("O=5", model.labels()));
  const TagResult r = RunOne(model, all_o, s);
  ASSERT_EQ(r.status, SentenceStatus::kOk);
  EXPECT_EQ(Names(model, r.solutions[0].labels), std::vector<std::string>(5, "O"));
}

TEST(PipelineTest, OverLimitRequestsGetTooLargeAndTheNextSentenceGoesOn) {
  const Model model = BuildTinyModel(2);
  DecodeRequest request;
  request.kbest = 400000;
  request.max_memory_bytes = int64_t{4} << 20;
  Pipeline pipeline({&model}, request);
  TagResult big;
  big.sentence = Words(14);  // 3^14 labelings, far more than 4 MB of paths
  pipeline.Run(&big);
  ASSERT_TRUE(big.error.ok()) << big.error;
  EXPECT_EQ(big.status, SentenceStatus::kTooLarge);
  EXPECT_THAT(big.status_reason, HasSubstr("k-best needs more than 4 MB"));
  EXPECT_TRUE(big.solutions.empty());
  TagResult small;
  small.sentence = Words(3);  // every labeling fits
  pipeline.Run(&small);
  ASSERT_EQ(small.status, SentenceStatus::kOk);
  EXPECT_EQ(small.solutions.size(), AllLabelings(model, small.sentence).size());

  DecodeRequest diverse;
  diverse.diverse = 50;
  diverse.min_distance = 3;
  const TagResult d = RunOne(model, diverse, Words(8));
  EXPECT_EQ(d.status, SentenceStatus::kTooLarge);
  EXPECT_THAT(d.status_reason, HasSubstr("diverse k-best of 50 labelings at distance 3"));
  // A distance longer than the sentence: only the best labeling qualifies, at no cost.
  diverse.min_distance = 40;
  const TagResult one = RunOne(model, diverse, Words(8));
  ASSERT_EQ(one.status, SentenceStatus::kOk);
  EXPECT_EQ(one.solutions.size(), 1u);
}

TEST(PipelineTest, BadExclusionsAreDataErrors) {
  const Model model = BuildTinyModel(2);
  DecodeRequest request;
  request.exclusions = true;
  Pipeline pipeline({&model}, request, "ex.txt");
  TagResult r;
  r.sentence = Words(3);
  r.exclude_line = 7;
  r.excluded = {{"O", "O"}};
  pipeline.Run(&r);
  EXPECT_THAT(std::string(r.error.message()),
              HasSubstr("ex.txt:7: expected labelings of 3 labels"));
  TagResult u;
  u.sentence = Words(2);
  u.exclude_line = 2;
  u.excluded = {{"O", "X"}};
  pipeline.Run(&u);
  EXPECT_THAT(std::string(u.error.message()),
              HasSubstr("ex.txt:2: expected a label of the model, found 'X'"));
}

TEST(PipelineTest, ForcedLabelsMatchBruteForceWithEveryRequest) {
  std::mt19937 rng(3);
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const Model model = BuildTinyModel(seed);
    const Sentence s = Words(4);
    const auto all = AllLabelings(model, s);
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<std::string> forced(4, "_");
      for (int t = 0; t < 4; ++t) {
        if (std::bernoulli_distribution(0.4)(rng)) {
          forced[t] = model.labels()[std::uniform_int_distribution<int>(0, 2)(rng)];
        }
      }
      auto agrees = [&](const std::vector<int>& y) {
        for (int t = 0; t < 4; ++t) {
          if (forced[t] != "_" && model.labels()[y[t]] != forced[t]) return false;
        }
        return true;
      };
      std::vector<double> want;
      for (const auto& l : all) {
        if (agrees(l.second) && want.size() < 2) want.push_back(l.first);
      }
      for (int kbest : {0, 2}) {
        DecodeRequest request;
        request.kbest = kbest;
        Pipeline pipeline({&model}, request);
        TagResult r;
        r.sentence = s;
        r.forced = forced;
        pipeline.Run(&r);
        ASSERT_TRUE(r.error.ok()) << r.error;
        if (want.empty()) {
          EXPECT_EQ(r.status, SentenceStatus::kInfeasible);
          continue;
        }
        ASSERT_EQ(r.status, SentenceStatus::kOk);
        const size_t n = kbest == 0 ? 1 : want.size();
        ASSERT_EQ(r.solutions.size(), n);
        for (size_t i = 0; i < n; ++i) {
          EXPECT_DOUBLE_EQ(r.solutions[i].score, want[i]);
          EXPECT_TRUE(agrees(r.solutions[i].labels));
        }
      }
    }
  }
}

TEST(PipelineTest, ForcedColumnIsReadAndCheckedPerSentence) {
  const Model model = BuildTinyModel(4);
  DecodeRequest request;
  request.forced_column = 2;
  Pipeline pipeline({&model}, request);
  TagResult r;
  r.sentence = Words(3);
  r.sentence.columns.push_back({"_", "O", "_"});
  pipeline.Run(&r);
  ASSERT_TRUE(r.error.ok()) << r.error;
  EXPECT_EQ(r.forced, (std::vector<std::string>{"_", "O", "_"}));
  ASSERT_EQ(r.status, SentenceStatus::kOk);
  EXPECT_EQ(model.labels()[r.solutions[0].labels[1]], "O");
  TagResult bad;
  bad.sentence = Words(2);
  bad.sentence.columns.push_back({"_", "NP"});
  pipeline.Run(&bad);
  EXPECT_THAT(std::string(bad.error.message()),
              HasSubstr("tiny.conll:2: expected a label of the model or '_' in the forced-label "
                        "column, found 'NP'"));
  TagResult missing;
  missing.sentence = Words(2);
  pipeline.Run(&missing);
  EXPECT_THAT(std::string(missing.error.message()),
              HasSubstr("expected a forced-label column 3, found 2 columns"));
}

TEST(PipelineTest, ResultsCarryLabelNamesAndRanks) {
  const Model first = BuildTinyModel(3);
  const Model last = BuildTinyModel(4);
  DecodeRequest request;
  request.kbest = 4;
  request.marginals = true;
  Pipeline pipeline({&first, &last}, request);
  TagResult r;
  r.sentence = Words(6);
  pipeline.Run(&r);
  ASSERT_TRUE(r.error.ok()) << r.error;
  ASSERT_EQ(r.layers.size(), 1u);
  ASSERT_EQ(r.layer_names.size(), 1u);
  EXPECT_EQ(std::vector<std::string>(r.layer_names[0].begin(), r.layer_names[0].end()),
            Names(first, r.layers[0]));
  ASSERT_EQ(r.solutions.size(), 4u);
  for (size_t i = 0; i < r.solutions.size(); ++i) {
    const Solution& s = r.solutions[i];
    EXPECT_EQ(s.rank, static_cast<int>(i) + 1);
    EXPECT_EQ(std::vector<std::string>(s.names.begin(), s.names.end()), Names(last, s.labels));
    if (i > 0) {
      EXPECT_LE(s.score, r.solutions[i - 1].score);
    }
  }
  ASSERT_NE(r.label_names, nullptr);
  EXPECT_EQ(*r.label_names, last.labels());
  EXPECT_EQ(r.marginals.size(), static_cast<size_t>(r.sentence.size()) * last.num_labels());
}

TEST(BatchTaggerTest, OutputIsInInputOrderForAnyThreadCount) {
  const Model model = BuildTinyModel(8);
  DecodeRequest request;
  request.kbest = 3;
  std::vector<std::vector<std::vector<int>>> runs;
  for (int threads : {1, 2, 5}) {
    std::vector<std::vector<int>> seen;
    BatchTagger tagger(
        {&model}, request, threads,
        [&](const TagResult& r) {
          for (const Solution& s : r.solutions) seen.push_back(s.labels);
          seen.push_back({static_cast<int>(r.sentence.size())});
          return absl::OkStatus();
        },
        "", /*batch_size=*/7);
    for (int i = 0; i < 40; ++i) {
      TagResult r;
      r.sentence = Words(1 + i % 9);
      ASSERT_TRUE(tagger.Add(std::move(r)).ok());
    }
    ASSERT_TRUE(tagger.Flush().ok());
    EXPECT_EQ(tagger.sentences(), 40);
    runs.push_back(seen);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST(BatchTaggerTest, StopsAtTheFirstDataErrorOrSinkError) {
  const Model model = BuildTinyModel(8);
  DecodeRequest request;
  request.exclusions = true;
  int written = 0;
  BatchTagger tagger({&model}, request, 2, [&](const TagResult&) {
    ++written;
    return absl::OkStatus();
  });
  for (int i = 0; i < 2; ++i) {
    TagResult r;
    r.sentence = Words(3);
    ASSERT_TRUE(tagger.Add(std::move(r)).ok());
  }
  TagResult bad;
  bad.sentence = Words(3);
  bad.excluded = {{"O"}};
  ASSERT_TRUE(tagger.Add(std::move(bad)).ok());
  EXPECT_THAT(std::string(tagger.Flush().message()), HasSubstr("expected labelings of 3 labels"));
  EXPECT_EQ(written, 2);

  DecodeRequest plain;
  int accepted = 0;
  BatchTagger failing({&model}, plain, 1, [&](const TagResult&) {
    return ++accepted == 2 ? absl::DataLossError("disk full") : absl::OkStatus();
  });
  for (int i = 0; i < 3; ++i) {
    TagResult r;
    r.sentence = Words(2);
    ASSERT_TRUE(failing.Add(std::move(r)).ok());
  }
  EXPECT_EQ(failing.Flush().message(), "disk full");
  EXPECT_EQ(accepted, 2);
}

// With several threads a full batch is tagged in the background and passed on when the next one
// is full: an error in a middle batch still stops the stream right there (what came before is
// written, nothing after), from Add or from Flush; a tagger dropped with a batch in flight waits
// for it.
TEST(BatchTaggerTest, BackgroundBatchesStopAtTheErrorAndFinishWhenDropped) {
  const Model model = BuildTinyModel(8);
  DecodeRequest request;
  request.exclusions = true;
  for (int threads : {1, 2, 3}) {
    std::vector<int> written;
    absl::Status status = absl::OkStatus();
    {
      BatchTagger tagger(
          {&model}, request, threads,
          [&](const TagResult& r) {
            written.push_back(r.sentence.size());
            return absl::OkStatus();
          },
          "", /*batch_size=*/4);
      for (int i = 0; i < 30 && status.ok(); ++i) {
        TagResult r;
        r.sentence = Words(1 + i % 5);
        if (i == 13) r.excluded = {{"O"}};  // a labeling of the wrong length: a data error
        status = tagger.Add(std::move(r));
      }
      if (status.ok()) status = tagger.Flush();
    }
    EXPECT_THAT(std::string(status.message()), HasSubstr("expected labelings of")) << threads;
    ASSERT_EQ(written.size(), 13u) << threads;
    for (int i = 0; i < 13; ++i) EXPECT_EQ(written[i], 1 + i % 5) << threads;
  }
  for (int threads : {2, 4}) {
    int seen = 0;
    {
      BatchTagger dropped(
          {&model}, DecodeRequest(), threads,
          [&](const TagResult&) {
            ++seen;
            return absl::OkStatus();
          },
          "", 3);
      for (int i = 0; i < 7; ++i) {
        TagResult r;
        r.sentence = Words(4);
        ASSERT_TRUE(dropped.Add(std::move(r)).ok());
      }
      EXPECT_LE(seen, 6);  // never the unflushed seventh
    }
    EXPECT_LE(seen, 6);
  }
}

}  // namespace
}  // namespace chaintag
