// Fuzzes the feature-template parser (FeatureSpec::Parse) and, for accepted templates, the
// featurizer on a fixed two-column sentence.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "features/featurizer.h"

namespace {

const std::shared_ptr<const chaintag::Lexicon>& FuzzLexicon() {
  static const auto* lexicon =
      new std::shared_ptr<const chaintag::Lexicon>(std::make_shared<chaintag::Lexicon>(
          *chaintag::Lexicon::Parse("The\tDT\nold\tJJ NN\nman\tNN VB\n", "<lexicon>")));
  return *lexicon;
}

chaintag::Sentence FuzzSentence() {
  chaintag::Sentence s;
  s.columns = {{"The", "old", "Man-2", "\xC3\xA9t\xC3\xA9", "."}, {"DT", "JJ", "NN", "FW", "."}};
  s.file = "<fuzz>";
  s.token_lines = {1, 2, 3, 4, 5};
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = chaintag::FeatureSpec::Parse(text, FuzzLexicon());
  (void)chaintag::FeatureSpec::Parse(text);
  if (!spec.ok()) return 0;
  if (spec->text() != text) std::abort();
  // A spec must parse again from its own stored text (models store it verbatim).
  if (!chaintag::FeatureSpec::Parse(spec->text(), FuzzLexicon()).ok()) std::abort();
  static const chaintag::Sentence sentence = FuzzSentence();
  chaintag::Featurizer featurizer(*spec);
  if (!featurizer.CheckColumns(sentence).ok()) return 0;
  size_t total = 0;
  featurizer.ForEachAttribute(sentence, [&](int, std::string_view a) { total += a.size(); });
  (void)featurizer.Attributes(sentence, sentence.size() - 1);
  return 0;
}
