// chaintag stats [--format F] [--json] FILE...
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/json.h"

namespace chaintag::cli {

namespace {

void PrintJson(const CorpusStats& stats, std::ostream& out) {
  out << "{\"sentences\": " << stats.sentences << ", \"tokens\": " << stats.tokens
      << ", \"types\": " << stats.types << ", \"labels\": {";
  for (size_t i = 0; i < stats.labels.size(); ++i) {
    out << (i ? ", " : "") << JsonString(stats.labels[i].first) << ": " << stats.labels[i].second;
  }
  out << "}, \"length_histogram\": {";
  for (size_t i = 0; i < stats.length_histogram.size(); ++i) {
    out << (i ? ", " : "") << "\"" << stats.length_histogram[i].first
        << "\": " << stats.length_histogram[i].second;
  }
  out << "}}\n";
}

void PrintText(const CorpusStats& stats, std::ostream& out) {
  out << "sentences  " << stats.sentences << "\n"
      << "tokens     " << stats.tokens << "\n"
      << "types      " << stats.types << "\n";
  if (stats.sentences > 0) {
    out << "mean length " << std::fixed << std::setprecision(2)
        << static_cast<double>(stats.tokens) / stats.sentences << "\n";
  }
  if (!stats.labels.empty()) {
    out << "\nlabels (" << stats.labels.size() << ")\n";
    for (const auto& [label, count] : stats.labels) {
      out << "  " << std::left << std::setw(12) << label << std::right << std::setw(10) << count
          << std::setw(9) << std::fixed << std::setprecision(2)
          << 100.0 * count / std::max<int64_t>(1, stats.tokens) << "%\n";
    }
  }
  out << "\nsentence length (tokens)\n";
  for (size_t i = 0; i < stats.length_histogram.size(); ++i) {
    const auto& [low, count] = stats.length_histogram[i];
    const std::string range =
        absl::StrCat(low, "-", low + CorpusStatsAccumulator::kLengthBucket - 1);
    out << "  " << std::left << std::setw(10) << range << std::right << std::setw(10) << count
        << "\n";
  }
}

}  // namespace

int RunStats(const std::vector<std::string>& args) {
  const std::string cmd = "stats";
  po::options_description options("stats options");
  options.add_options()("json", po::bool_switch(), "print one JSON object");
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[--format F] [--json] FILE...", options, args, &vm); rc >= 0)
    return rc;
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));

  CorpusStatsAccumulator accumulator;
  absl::Status read = ForEachSentence(files, *reader_options, [&](Sentence&& sentence) {
    accumulator.Add(sentence);
    return absl::OkStatus();
  });
  if (!read.ok()) return Fail(cmd, read);
  CorpusStats stats = accumulator.Finish();
  if (stats.sentences == 0)
    return Fail(cmd, absl::InvalidArgumentError("no sentences found in the input"));
  if (vm["json"].as<bool>()) {
    PrintJson(stats, std::cout);
  } else {
    PrintText(stats, std::cout);
  }
  return FinishStdout(cmd);
}

}  // namespace chaintag::cli
