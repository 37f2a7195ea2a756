// Builds small synthetic training corpora: one word column, labels from a tiny grammar written by
// each test, token t of sentence i on line i * 10 + t + 1 of a file named "toy".
#ifndef CHAINTAG_TESTS_SUPPORT_TOY_CORPUS_H_
#define CHAINTAG_TESTS_SUPPORT_TOY_CORPUS_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/corpus.h"

namespace chaintag::testing {

class ToyCorpusBuilder {
 public:
  explicit ToyCorpusBuilder(uint64_t seed) : rng_(seed) {}
  // The next draw of the generator (every draw, Pick's included, advances it by one).
  uint64_t Random() { return rng_(); }
  const std::string& Pick(const std::vector<std::string>& words) {
    return words[rng_() % words.size()];
  }
  // Starts a new sentence; Add appends tokens to it.
  void Begin() {
    corpus_.emplace_back();
    corpus_.back().columns.resize(1);
    corpus_.back().file = "toy";
  }
  void Add(const std::string& word, const std::string& label) {
    Sentence& s = corpus_.back();
    s.columns[0].push_back(word);
    s.labels.push_back(label);
    s.token_lines.push_back(static_cast<int64_t>(corpus_.size() - 1) * 10 + s.size());
  }
  std::vector<Sentence> Take() { return std::move(corpus_); }

 private:
  std::mt19937_64 rng_;
  std::vector<Sentence> corpus_;
};

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_TOY_CORPUS_H_
