#include "features/brown_clusters.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "chaintag/clusters.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag::features {
namespace {

using ::testing::HasSubstr;

// A random graph over n words, rank-ordered by count like the real one (frequent words first).
BigramGraph RandomGraph(int n, int bigrams, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::pair<int, int>, int64_t>> list;
  for (int i = 0; i < bigrams; ++i) {
    // Squared uniforms favour low ranks, as a Zipf-like text would.
    auto pick = [&] {
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      return std::min(n - 1, static_cast<int>(u * u * n));
    };
    list.push_back({{pick(), pick()}, 1 + static_cast<int64_t>(rng() % 3)});
  }
  return GraphFromBigrams(n, list);
}

// The loss of merging s and t by definition: AMI now minus AMI with t's words moved into s.
double BruteForceLoss(const BigramGraph& graph, const std::vector<int>& slots, int s, int t) {
  std::vector<int> merged = slots;
  for (int& c : merged) {
    if (c == t) c = s;
  }
  return AverageMutualInformation(graph, slots) - AverageMutualInformation(graph, merged);
}

void ExpectLossesMatchBruteForce(const BigramGraph& graph, const BrownClusterer& clusterer,
                                 const std::string& when) {
  const std::vector<int> active = clusterer.ActiveSlots();
  for (size_t i = 0; i < active.size(); ++i) {
    for (size_t j = i + 1; j < active.size(); ++j) {
      const double expected = BruteForceLoss(graph, clusterer.slot_of_word(), active[i], active[j]);
      ASSERT_NEAR(clusterer.Loss(active[i], active[j]), expected, 1e-9)
          << when << ": slots " << active[i] << ", " << active[j];
    }
  }
}

TEST(BrownClustererTest, IncrementalLossesMatchBruteForceAverageMutualInformation) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const int n = 8 + static_cast<int>(seed % 5);
    const int clusters = 2 + static_cast<int>(seed % 3);
    const BigramGraph graph = RandomGraph(n, 40, seed);
    BrownClusterer clusterer(graph, clusters, /*threads=*/1);
    int step = 0;
    while (clusterer.AddNextWord()) {
      ExpectLossesMatchBruteForce(graph, clusterer, "after adding word " + std::to_string(step));
      if (clusterer.num_active() > clusters) {
        // The merge chosen has the least brute-force loss.
        double least = INFINITY;
        const std::vector<int> active = clusterer.ActiveSlots();
        for (size_t i = 0; i < active.size(); ++i) {
          for (size_t j = i + 1; j < active.size(); ++j) {
            least = std::min(least,
                             BruteForceLoss(graph, clusterer.slot_of_word(), active[i], active[j]));
          }
        }
        const std::vector<int> before = clusterer.slot_of_word();
        const auto [s, t] = clusterer.MergeBest();
        EXPECT_NEAR(BruteForceLoss(graph, before, s, t), least, 1e-9) << "seed " << seed;
        ExpectLossesMatchBruteForce(graph, clusterer, "after a merge");
      }
      ++step;
      if (HasFatalFailure()) return;
    }
    while (clusterer.num_active() > 1) {
      clusterer.MergeBest();
      ExpectLossesMatchBruteForce(graph, clusterer, "while building the hierarchy");
      if (HasFatalFailure()) return;
    }
  }
}

TEST(BrownClustererTest, AverageMutualInformationOfOneClusterIsZero) {
  const BigramGraph graph = RandomGraph(6, 30, 99);
  EXPECT_NEAR(AverageMutualInformation(graph, std::vector<int>(6, 0)), 0, 1e-12);
}

std::string Cluster(const std::vector<std::string>& sentences, int clusters, int threads = 1) {
  BrownCorpus corpus;
  for (const std::string& s : sentences) {
    std::vector<std::string> tokens = absl::StrSplit(s, ' ');
    EXPECT_TRUE(corpus.AddSentence(absl::MakeConstSpan(tokens)).ok());
  }
  BrownOptions options;
  options.clusters = clusters;
  options.threads = threads;
  absl::StatusOr<WordClusters> result = BrownCluster(corpus, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->Serialize() : "";
}

TEST(BrownClusterTest, WordsOfOneClassShareAPathOnATinyCorpus) {
  // Determiners, nouns and verbs in every combination: each class has identical contexts.
  std::vector<std::string> sentences;
  for (std::string det : {"the", "a", "this"}) {
    for (std::string noun : {"cat", "dog", "bird"}) {
      for (std::string verb : {"runs", "sleeps", "eats"}) {
        sentences.push_back(det + " " + noun + " " + verb);
      }
    }
  }
  sentences.push_back("the cat runs");  // uneven counts, so no word ties another
  sentences.push_back("a dog runs");
  absl::StatusOr<WordClusters> clusters = WordClusters::Parse(Cluster(sentences, 3), "tiny");
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  EXPECT_EQ(clusters->num_words(), 9);
  EXPECT_EQ(clusters->num_clusters(), 3);
  for (const auto& group : std::vector<std::vector<std::string>>{
           {"the", "a", "this"}, {"cat", "dog", "bird"}, {"runs", "sleeps", "eats"}}) {
    for (const std::string& word : group) {
      EXPECT_EQ(clusters->Lookup(word), clusters->Lookup(group[0])) << word;
    }
  }
  EXPECT_NE(clusters->Lookup("the"), clusters->Lookup("cat"));
  EXPECT_NE(clusters->Lookup("cat"), clusters->Lookup("runs"));
  EXPECT_NE(clusters->Lookup("the"), clusters->Lookup("runs"));
  // Three leaves under one root: one path of one bit and two of two bits.
  std::multiset<size_t> lengths;
  for (const char* w : {"the", "cat", "runs"}) lengths.insert(clusters->Lookup(w).size());
  EXPECT_EQ(lengths, (std::multiset<size_t>{1, 2, 2}));
  EXPECT_EQ(clusters->Lookup("unicorn"), WordClusters::kAbsent);
}

TEST(BrownClusterTest, OutputIsTheSameForAnyThreadCount) {
  std::mt19937 rng(7);
  std::vector<std::string> sentences;
  for (int i = 0; i < 600; ++i) {
    std::string s;
    const int len = 3 + static_cast<int>(rng() % 8);
    for (int k = 0; k < len; ++k) {
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      s += (k ? " w" : "w") + std::to_string(static_cast<int>(u * u * 220));
    }
    sentences.push_back(s);
  }
  const std::string one = Cluster(sentences, 70, 1);
  EXPECT_EQ(Cluster(sentences, 70, 3), one);
  EXPECT_EQ(Cluster(sentences, 70, 1), one);
  absl::StatusOr<WordClusters> parsed = WordClusters::Parse(one, "random");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->num_clusters(), 70);
}

TEST(BrownClusterTest, FewerWordsThanClustersGiveEachWordItsOwnLeaf) {
  absl::StatusOr<WordClusters> clusters =
      WordClusters::Parse(Cluster({"a b c", "c b a", "a a b"}, 10), "small");
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  EXPECT_EQ(clusters->num_clusters(), 3);
}

TEST(BrownClusterTest, MinCountLeavesOutRareWordsAndErrorsWhenNoneRemain) {
  BrownCorpus corpus;
  std::vector<std::string> s1 = {"a", "b", "a"}, s2 = {"a", "c"};
  ASSERT_TRUE(corpus.AddSentence(absl::MakeConstSpan(s1)).ok());
  ASSERT_TRUE(corpus.AddSentence(absl::MakeConstSpan(s2)).ok());
  BrownOptions options;
  options.clusters = 4;
  options.min_count = 2;
  absl::StatusOr<WordClusters> clusters = BrownCluster(corpus, options);
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  EXPECT_EQ(clusters->num_words(), 1);
  EXPECT_EQ(clusters->Serialize(), "\ta\t3\n");
  options.min_count = 4;
  clusters = BrownCluster(corpus, options);
  ASSERT_FALSE(clusters.ok());
  EXPECT_THAT(clusters.status().message(), HasSubstr("at least one word seen 4 times"));
  options.min_count = 1;
  options.clusters = BrownOptions::kMaxClusters + 1;
  EXPECT_FALSE(BrownCluster(corpus, options).ok());
}

TEST(BrownCorpusTest, RefusesTokensAPathsFileCannotHold) {
  BrownCorpus corpus;
  std::vector<std::string> bad = {"a", "b\tc"};
  absl::Status s = corpus.AddSentence(absl::MakeConstSpan(bad));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("without tabs"));
}

TEST(BrownCorpusTest, RawTextGoesThroughTheTokeniserAndLinesAreSentences) {
  const std::string path = ::testing::TempDir() + "/brown_raw.txt";
  std::ofstream(path) << "Hello, world.\nIt's fine\n";
  BrownCorpus raw;
  ASSERT_TRUE(raw.AddTextFile(path, /*pretokenized=*/false).ok());
  EXPECT_EQ(raw.tokens(), 4 + 3);  // Hello , world .  It 's fine
  BrownCorpus pre;
  ASSERT_TRUE(pre.AddTextFile(path, /*pretokenized=*/true).ok());
  EXPECT_EQ(pre.tokens(), 2 + 2);
  const absl::Status missing = pre.AddTextFile(path + ".missing", true);
  EXPECT_FALSE(missing.ok());
  std::filesystem::remove(path);
}

TEST(WordClustersTest, PathsFileRoundTripsAndLooksUpWords) {
  const std::string text = "0\tthe\t10\n0\ta\t7\n10\tcat\t3\n110\tdog\t3\n111\truns\t2\n";
  absl::StatusOr<WordClusters> clusters = WordClusters::Parse(text, "paths");
  ASSERT_TRUE(clusters.ok()) << clusters.status();
  EXPECT_EQ(clusters->Serialize(), text);
  EXPECT_EQ(clusters->Lookup("dog"), "110");
  EXPECT_EQ(clusters->Lookup("Dog"), WordClusters::kAbsent);
  EXPECT_EQ(clusters->num_clusters(), 4);
  // Another tool's order and a missing count load too; the canonical order sorts by path.
  absl::StatusOr<WordClusters> other = WordClusters::Parse("111\truns\n0\tthe\t10\n", "x");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->Serialize(), "0\tthe\t10\n111\truns\t0\n");
}

TEST(WordClustersTest, BadLinesNameFileAndLine) {
  auto error = [](std::string_view text) {
    absl::StatusOr<WordClusters> c = WordClusters::Parse(text, "bad.paths");
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : std::string(c.status().message());
  };
  EXPECT_THAT(error("0\ta\t1\n01x\tb\t2\n"), HasSubstr("bad.paths:2: expected a bit string"));
  EXPECT_THAT(error("0 a 1\n"), HasSubstr("bad.paths:1: expected BITSTRING<TAB>WORD<TAB>COUNT"));
  EXPECT_THAT(error("0\ta\tmany\n"), HasSubstr("bad.paths:1: expected a count"));
  EXPECT_THAT(error("0\ta\t1\n1\ta\t2\n"), HasSubstr("bad.paths:2: expected each word once"));
  EXPECT_THAT(error("\n\n"), HasSubstr("found none"));
}

// Parses of one text at the same time (the models of a pipeline loading at once) all succeed with
// the same clustering, and a bad text fails in every thread, not only the first.
TEST(WordClustersTest, ConcurrentParsesOfOneTextAgree) {
  std::string text;
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&text, i % 2 ? "0" : "10", "\tw", i, "\t1\n");
  const std::string bad = text + "2\tx\t1\n";
  std::vector<std::string> serialized(4), errors(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<WordClusters> good = WordClusters::Parse(text, "shared");
      serialized[t] = good.ok() ? good->Serialize() + std::string(good->Lookup("w7")) : "";
      absl::StatusOr<WordClusters> broken = WordClusters::Parse(bad, "broken");
      errors[t] = broken.ok() ? "" : std::string(broken.status().message());
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<WordClusters> alone = WordClusters::Parse(text, "alone");
  ASSERT_TRUE(alone.ok()) << alone.status();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(serialized[t], alone->Serialize() + "0") << t;
    EXPECT_THAT(errors[t], HasSubstr("broken:2001: expected a bit string")) << t;
  }
}

}  // namespace
}  // namespace chaintag::features
