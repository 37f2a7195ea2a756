// chaintag convert --from FORMAT --to FORMAT [--np-chunks] FILE...
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli.h"
#include "cli/commands.h"

namespace chaintag::cli {

int RunConvert(const std::vector<std::string>& args) {
  const std::string cmd = "convert";
  po::options_description options("convert options");
  options.add_options()(
      "from", po::value<std::string>(),
      "input format: conll, conllu, ptb, tagged, attributes (default: from the extension)")(
      "to", po::value<std::string>()->required(), "output format: conll, conllu, tagged")(
      "output,o", po::value<std::string>()->default_value("-"),
      "output file (default: standard output)");
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "--from FORMAT --to FORMAT [options] FILE...", options, args, &vm);
      rc >= 0) {
    return rc;
  }
  if (vm.count("format")) return UsageError(cmd, "use --from for the input format");
  if (absl::Status s = CheckOutputIsNotAnInput(vm["output"].as<std::string>(), FilesRead(vm, {}));
      !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));
  if (vm.count("from")) {
    auto format = ParseCorpusFormat(vm["from"].as<std::string>());
    if (!format.ok()) return UsageError(cmd, std::string(format.status().message()));
    reader_options->format = *format;
  }
  WriterOptions writer_options;
  auto to = ParseCorpusFormat(vm["to"].as<std::string>());
  if (!to.ok()) return UsageError(cmd, std::string(to.status().message()));
  if (*to == CorpusFormat::kPtb)
    return UsageError(cmd, "--to ptb is not supported (no tree writer)");
  writer_options.format = *to;
  writer_options.conllu_label = reader_options->conllu_label;
  writer_options.tagged_separator = reader_options->tagged_separator;

  auto out = Output::Open(vm["output"].as<std::string>());
  if (!out.ok()) return Fail(cmd, out.status());
  int64_t sentences = 0;
  absl::Status read = ForEachSentence(files, *reader_options, [&](Sentence&& sentence) {
    ++sentences;
    return WriteSentence((*out)->stream(), sentence, {}, writer_options);
  });
  if (!read.ok()) return Fail(cmd, read);
  if (sentences == 0)
    return Fail(cmd, absl::InvalidArgumentError("no sentences found in the input"));
  if (absl::Status s = (*out)->Commit(); !s.ok()) return Fail(cmd, s);
  return kExitOk;
}

}  // namespace chaintag::cli
