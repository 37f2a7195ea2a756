// chaintag lexicon [--format F] [--label-column N | --label upos|xpos] [--min-share P]
//                  [--min-count K] [--keep-case] [-o FILE] FILE...
// chaintag lexicon --from-wordnet DIR [-o FILE]
// Writes a tag lexicon (word<TAB>TAG ...) built from labelled corpus files, or a word-class
// lexicon from a WordNet database, for train --lexicon / --lexicon2.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/features.h"
#include "cli/cli.h"
#include "cli/commands.h"

namespace chaintag::cli {

int RunLexicon(const std::vector<std::string>& args) {
  const std::string cmd = "lexicon";
  po::options_description options("lexicon options");
  options.add_options()(
      "min-share", po::value<double>()->default_value(0.1, "0.1"),
      "keep a word's label when it makes up at least this share of the word's occurrences")(
      "min-count", po::value<int64_t>()->default_value(1), "leave out words seen fewer times")(
      "keep-case", po::bool_switch(),
      "key words by their form, not their case folding (for lex(%x[0,0]))")(
      "from-wordnet", po::value<std::string>(),
      "build the lexicon from a WordNet database directory instead (e.g. /usr/share/wordnet, "
      "Debian wordnet-base): parts of speech and inflected forms of each word")(
      "output,o", po::value<std::string>()->default_value("-"),
      "output file (default: standard output)");
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[--format F] [--label-column N] [--min-share P] [-o FILE] FILE...",
                           options, args, &vm);
      rc >= 0) {
    return rc;
  }
  if (absl::Status s = CheckOutputIsNotAnInput(vm["output"].as<std::string>(), FilesRead(vm, {}));
      !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  if (vm.count("from-wordnet")) {
    if (vm.count("files")) {
      return UsageError(cmd, "--from-wordnet reads a WordNet directory, not corpus files");
    }
    absl::StatusOr<Lexicon> lexicon = WordNetLexicon(vm["from-wordnet"].as<std::string>());
    if (!lexicon.ok()) return Fail(cmd, lexicon.status());
    auto out = Output::Open(vm["output"].as<std::string>());
    if (!out.ok()) return Fail(cmd, out.status());
    (*out)->stream() << lexicon->Serialize();
    if (absl::Status s = (*out)->Commit(); !s.ok()) return Fail(cmd, s);
    std::cerr << "chaintag lexicon: " << lexicon->num_words() << " words, "
              << lexicon->num_class_sets() << " class sets, from WordNet\n";
    return kExitOk;
  }
  TagLexiconOptions lexicon_options;
  lexicon_options.min_share = vm["min-share"].as<double>();
  lexicon_options.min_count = vm["min-count"].as<int64_t>();
  lexicon_options.case_fold = !vm["keep-case"].as<bool>();
  if (!(lexicon_options.min_share > 0 && lexicon_options.min_share <= 1)) {
    return UsageError(cmd, absl::StrCat("--min-share: expected a share in (0, 1], found ",
                                        lexicon_options.min_share));
  }
  if (lexicon_options.min_count < 1) {
    return UsageError(
        cmd, absl::StrCat("--min-count: expected at least 1, found ", lexicon_options.min_count));
  }
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));

  auto out = Output::Open(vm["output"].as<std::string>());
  if (!out.ok()) return Fail(cmd, out.status());
  TagLexiconBuilder builder(lexicon_options);
  absl::Status read = ForEachSentence(files, *reader_options,
                                      [&](Sentence&& sentence) { return builder.Add(sentence); });
  if (!read.ok()) return Fail(cmd, read);
  absl::StatusOr<Lexicon> lexicon = builder.Build();
  if (!lexicon.ok()) return Fail(cmd, lexicon.status());
  (*out)->stream() << lexicon->Serialize();
  if (absl::Status s = (*out)->Commit(); !s.ok()) return Fail(cmd, s);
  std::cerr << "chaintag lexicon: " << lexicon->num_words() << " words, "
            << lexicon->num_class_sets() << " class sets, from " << builder.tokens() << " tokens\n";
  return kExitOk;
}

}  // namespace chaintag::cli
