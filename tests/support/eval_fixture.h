// Reads conlleval-style fixtures ("token ... gold predicted" lines, blank line between sentences).
#ifndef CHAINTAG_TESTS_SUPPORT_EVAL_FIXTURE_H_
#define CHAINTAG_TESTS_SUPPORT_EVAL_FIXTURE_H_

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chaintag/eval.h"
#include "gtest/gtest.h"

namespace chaintag::testing {

struct FixtureSentence {
  std::vector<std::string> gold, predicted;
};

inline std::vector<FixtureSentence> ReadEvalFixture(const std::string& name) {
  const std::string path = std::string(CHAINTAG_FIXTURES_DIR) + "/eval/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<FixtureSentence> sentences(1);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> parts;
    for (std::string f; fields >> f;) parts.push_back(f);
    if (parts.empty()) {
      if (!sentences.back().gold.empty()) sentences.emplace_back();
      continue;
    }
    EXPECT_GE(parts.size(), 3u) << path << ": " << line;
    sentences.back().gold.push_back(parts[parts.size() - 2]);
    sentences.back().predicted.push_back(parts.back());
  }
  if (sentences.back().gold.empty()) sentences.pop_back();
  return sentences;
}

inline EvalReport EvaluateFixture(const std::string& name) {
  Evaluator evaluator;
  for (const FixtureSentence& s : ReadEvalFixture(name)) {
    EXPECT_TRUE(evaluator.Add(s.gold, s.predicted).ok());
  }
  return evaluator.Report();
}

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_EVAL_FIXTURE_H_
