// chaintag info [--top K] [--json] MODEL
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "chaintag/model.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/model_info.h"
#include "model/compression.h"

namespace chaintag::cli {

int RunInfo(const std::vector<std::string>& args) {
  const std::string cmd = "info";
  po::options_description options("info options");
  options.add_options()("top", po::value<int>()->default_value(20),
                        "number of top-weighted features to list")("json", po::bool_switch(),
                                                                   "print one JSON object");
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[--top K] [--json] MODEL", options, args, &vm); rc >= 0) return rc;
  if (!vm.count("files") || vm["files"].as<std::vector<std::string>>().size() != 1) {
    return UsageError(cmd, "expected exactly one model file");
  }
  const std::string path = vm["files"].as<std::vector<std::string>>()[0];
  const int top = vm["top"].as<int>();
  if (top < 0) return UsageError(cmd, "--top must be >= 0");
  auto model = Model::Load(path);
  if (!model.ok()) return Fail(cmd, model.status());

  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  const bool gzip = IsGzipModelFile(path);
  const ModelInfo info = DescribeModel(*model, top);
  const ModelInputOptions& input = info.input;
  const std::vector<WeightedFeature>& features = info.top_features;
  if (vm["json"].as<bool>()) {
    std::cout << ModelInfoJson(*model, path, top) << "\n";
  } else {
    std::cout << "model          " << path << "\n"
              << "file size      " << (ec ? 0 : file_size) << " bytes"
              << (gzip ? " (gzip-compressed)" : "") << "\n"
              << "labels         " << info.labels.size() << ":";
    for (const std::string& label : info.labels) std::cout << " " << label;
    std::cout << "\n"
              << "family         " << info.family;
    if (!info.family_description.empty()) std::cout << " (" << info.family_description << ")";
    if (info.history_templates.has_value()) {
      std::cout << "\n"
                << "history        " << info.num_history_templates << " templates:";
      for (const std::string& line : *info.history_templates) std::cout << " " << line;
    }
    std::cout << "\n";
    if (info.hidden_states.has_value()) {
      std::cout << "hidden states  " << info.num_hidden_states << " (latent-dynamic model):";
      for (const auto& [label, states] : *info.hidden_states)
        std::cout << " " << label << "=" << states;
      std::cout << "\n";
    }
    if (info.order == 2) std::cout << "label order    2 (label-trigram weights)\n";
    std::cout << "input columns  " << info.input_columns << "\n"
              << "attributes     " << info.attributes << "\n"
              << "state features " << info.state_features << "\n"
              << "self-tests     " << info.self_tests << " sentences (passed on load)\n";
    if (info.lexicon) {
      std::cout << "lexicon        " << info.lexicon->words << " words, " << info.lexicon->classes
                << " class sets\n";
    }
    if (info.lexicon2) {
      std::cout << "lexicon 2      " << info.lexicon2->words << " words, " << info.lexicon2->classes
                << " class sets\n";
    }
    if (info.clusters) {
      std::cout << "clusters       " << info.clusters->words << " words, " << info.clusters->classes
                << " clusters\n";
    }
    // How `tag` reads input for this model unless told otherwise.
    std::cout << "input          " << CorpusFormatName(input.format);
    if (input.format == CorpusFormat::kConll) std::cout << ", label column " << input.label_column;
    if (input.format == CorpusFormat::kConllu) std::cout << ", label field " << input.conllu_label;
    if (input.np_chunks) std::cout << ", NP chunks";
    std::cout << "\n\n"
              << "metadata\n";
    for (const auto& [key, value] : info.metadata) {
      std::cout << "  " << std::left << std::setw(20) << key << " " << value << "\n";
    }
    std::cout << "\ntemplates\n" << info.templates;
    if (!info.templates.empty() && info.templates.back() != '\n') std::cout << "\n";
    if (!features.empty()) {
      std::cout << "\ntop " << features.size() << " state features by |weight|\n";
      for (const WeightedFeature& f : features) {
        std::cout << "  " << std::right << std::setw(10) << std::fixed << std::setprecision(4)
                  << f.weight << "  " << std::left << std::setw(8) << f.label << " " << f.attribute
                  << "\n";
      }
    }
  }
  return FinishStdout(cmd);
}

}  // namespace chaintag::cli
