// chaintag eval [--format F] --gold-column N --pred-column N FILE...
// chaintag eval -m MODEL [--format F] FILE...
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/eval.h"
#include "chaintag/model.h"
#include "cli/cli.h"
#include "cli/commands.h"

namespace chaintag::cli {

namespace {

// Resolves a 1-based (negative: from the end) column number against `num_columns`.
absl::StatusOr<int> ResolveColumn(const Sentence& sentence, int column, const std::string& flag) {
  const int n = sentence.num_columns();
  const int index = column > 0 ? column - 1 : n + column;
  if (column == 0 || index < 0 || index >= n) {
    return absl::InvalidArgumentError(absl::StrCat(
        sentence.file, ":", sentence.token_lines.empty() ? 0 : sentence.token_lines[0], ": ", flag,
        " ", column, " is beyond the ", n, " columns present"));
  }
  return index;
}

}  // namespace

int RunEval(const std::vector<std::string>& args) {
  const std::string cmd = "eval";
  po::options_description options("eval options");
  options.add_options()
      ("model,m", po::value<std::string>(), "tag the files with MODEL and score against their gold labels")
      ("gold-column", po::value<int>(), "1-based column of the gold labels (negative: from the end)")
      ("pred-column", po::value<int>(), "1-based column of the predicted labels (negative: from the end)")
      ("json", po::bool_switch(), "print one JSON object");
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "(-m MODEL | --gold-column N --pred-column N) [options] FILE...", options,
                           args, &vm);
      rc >= 0) {
    return rc;
  }
  const bool with_model = vm.count("model") > 0;
  const bool with_columns = vm.count("gold-column") || vm.count("pred-column");
  if (with_model == with_columns) {
    return UsageError(cmd, "give either -m MODEL or both --gold-column and --pred-column");
  }
  if (with_columns && !(vm.count("gold-column") && vm.count("pred-column"))) {
    return UsageError(cmd, "--gold-column and --pred-column go together");
  }
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));

  std::optional<Model> model;
  std::optional<Tagger> tagger;
  if (with_model) {
    auto loaded = Model::Load(vm["model"].as<std::string>());
    if (!loaded.ok()) return Fail(cmd, loaded.status());
    model.emplace(std::move(*loaded));
    tagger.emplace(*model);
  } else {
    if (reader_options->format != CorpusFormat::kConll) {
      return UsageError(cmd, "--gold-column/--pred-column read conll files");
    }
    reader_options->label_column = 0;  // every column is data; the two named ones are compared
  }

  Evaluator evaluator;
  std::vector<std::string> predicted;
  absl::Status read = ForEachSentence(files, *reader_options, [&](Sentence&& sentence) -> absl::Status {
    if (with_model) {
      if (!sentence.has_labels()) {
        return absl::InvalidArgumentError(absl::StrCat(sentence.file, ":", sentence.token_lines.empty() ? 0 : sentence.token_lines[0],
                                                       ": expected gold labels to score against, found none"));
      }
      auto labeling = tagger->Tag(sentence);
      if (!labeling.ok()) return labeling.status();
      predicted.clear();
      for (int y : labeling->labels) predicted.push_back(model->labels()[y]);
      return evaluator.Add(sentence.labels, predicted);
    }
    auto gold = ResolveColumn(sentence, vm["gold-column"].as<int>(), "--gold-column");
    if (!gold.ok()) return gold.status();
    auto pred = ResolveColumn(sentence, vm["pred-column"].as<int>(), "--pred-column");
    if (!pred.ok()) return pred.status();
    return evaluator.Add(sentence.columns[*gold], sentence.columns[*pred]);
  });
  if (!read.ok()) return Fail(cmd, read);
  EvalReport report = evaluator.Report();
  if (report.sentences == 0) return Fail(cmd, absl::InvalidArgumentError("no sentences found in the input"));
  std::cout << (vm["json"].as<bool>() ? FormatEvalReportJson(report) : FormatEvalReport(report));
  std::cout.flush();
  return std::cout ? kExitOk : kExitError;
}

}  // namespace chaintag::cli
