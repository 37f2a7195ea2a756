// Streaming corpus statistics for the `stats` command.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "chaintag/corpus.h"

namespace chaintag {

struct CorpusStatsAccumulator::State {
  int64_t sentences = 0;
  int64_t tokens = 0;
  absl::flat_hash_set<std::string> types;
  absl::flat_hash_map<std::string, int64_t> labels;
  absl::flat_hash_map<int, int64_t> buckets;
};

CorpusStatsAccumulator::CorpusStatsAccumulator() : state_(std::make_unique<State>()) {}
CorpusStatsAccumulator::~CorpusStatsAccumulator() = default;

void CorpusStatsAccumulator::Add(const Sentence& sentence) {
  State& st = *state_;
  const int n = sentence.size();
  ++st.sentences;
  st.tokens += n;
  for (int t = 0; t < n; ++t) st.types.insert(sentence.word(t));
  for (const std::string& label : sentence.labels) ++st.labels[label];
  // Bucket lower bounds 1, 6, 11, ...; an empty sentence counts in bucket 0.
  const int bucket = n == 0 ? 0 : ((n - 1) / kLengthBucket) * kLengthBucket + 1;
  ++st.buckets[bucket];
}

CorpusStats CorpusStatsAccumulator::Finish() const {
  const State& st = *state_;
  CorpusStats stats;
  stats.sentences = st.sentences;
  stats.tokens = st.tokens;
  stats.types = static_cast<int64_t>(st.types.size());
  stats.labels.assign(st.labels.begin(), st.labels.end());
  std::sort(stats.labels.begin(), stats.labels.end());
  stats.length_histogram.assign(st.buckets.begin(), st.buckets.end());
  std::sort(stats.length_histogram.begin(), stats.length_histogram.end());
  return stats;
}

}  // namespace chaintag
