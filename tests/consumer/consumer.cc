// Tags one sentence with the installed POS and chunk models, asking for exactly two NP chunks.
#include <iostream>

#include "chaintag/tagging.h"

int main(int argc, char** argv) {
  if (argc != 3) return std::cerr << "usage: consumer POS.model CHUNK.model\n", 2;
  auto pos = chaintag::Model::Load(argv[1]);
  auto chunk = chaintag::Model::Load(argv[2]);
  if (!pos.ok() || !chunk.ok()) return std::cerr << pos.status() << chunk.status() << "\n", 1;
  chaintag::DecodeRequest request;
  request.counts.push_back(*chaintag::ParseCountConstraint("chunk:NP=2", chunk->labels()));
  chaintag::Pipeline pipeline({&*pos, &*chunk}, request);
  chaintag::TagResult r;
  r.sentence.columns = {{"The", "old", "man", "saw", "the", "dog", "."}};
  pipeline.Run(&r);
  if (!r.error.ok() || r.solutions.empty()) return std::cerr << "no labeling\n", 1;
  for (int t = 0; t < r.sentence.size(); ++t) {
    std::cout << r.sentence.word(t) << '/' << r.layer_names[0][t] << '/' << r.solutions[0].names[t]
              << (t + 1 < r.sentence.size() ? " " : "\n");
  }
}
