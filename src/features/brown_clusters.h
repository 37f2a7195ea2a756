// Internal: the bigram graph and the incremental Brown clusterer behind chaintag::BrownCluster,
// exposed for tests (brute-force checks of the loss tables).
#ifndef CHAINTAG_FEATURES_BROWN_CLUSTERS_H_
#define CHAINTAG_FEATURES_BROWN_CLUSTERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/clusters.h"

namespace chaintag::features {

// Words ranked by decreasing count (ties: byte order), with adjacency lists of bigram counts.
struct BigramGraph {
  std::vector<std::string> words;
  std::vector<int64_t> counts;  // unigram counts
  // out: bigrams (w, v) as CSR over w; in: bigrams (u, w) as CSR over w. Sorted by neighbour.
  std::vector<int64_t> out_begin, in_begin;
  std::vector<int32_t> out_word, in_word;
  std::vector<int64_t> out_count, in_count;
  std::vector<int64_t> left_total, right_total;  // sum of out / in counts per word
  int64_t total_bigrams = 0;
  int num_words() const { return static_cast<int>(words.size()); }
};

// Builds the graph of the (at most max_words) most frequent words seen at least min_count times.
BigramGraph BuildBigramGraph(const BrownCorpus& corpus, int64_t min_count, int64_t max_words);
// Test helper: a graph from explicit bigram counts over words 0..n-1 (named "w0", ...), already
// in rank order; counts[w] = max(left_total, right_total).
BigramGraph GraphFromBigrams(int n,
                             const std::vector<std::pair<std::pair<int, int>, int64_t>>& bigrams);

// Average mutual information of adjacent-cluster bigrams, by definition (for tests):
// sum over clusters c, d of p(c,d) log(p(c,d) / (pl(c) pr(d))), where p(c,d) counts bigrams of
// added words only (cluster_of_word[w] < 0: not added), pl and pr are the clusters' words' left
// and right totals over all bigrams, and every probability divides by graph.total_bigrams.
double AverageMutualInformation(const BigramGraph& graph, const std::vector<int>& cluster_of_word);

class BrownClusterer {
 public:
  BrownClusterer(const BigramGraph& graph, int clusters, int threads);
  ~BrownClusterer();

  // Adds the next word (in rank order) as a cluster of its own; false when all are added.
  bool AddNextWord();
  // Merges the active pair of least loss; returns the merged slots (kept, removed).
  std::pair<int, int> MergeBest();
  int num_active() const;
  int words_added() const;
  std::vector<int> ActiveSlots() const;
  // Loss of average mutual information if slots s and t merged (from the incremental tables).
  double Loss(int s, int t) const;
  // Slot of each word (-1 while not added).
  std::vector<int> slot_of_word() const;

  // Runs the whole algorithm and returns each word's bit string.
  std::vector<std::string> Run(const std::function<void(const BrownProgress&)>& progress);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace chaintag::features

#endif  // CHAINTAG_FEATURES_BROWN_CLUSTERS_H_
