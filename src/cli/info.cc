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

  if (vm["json"].as<bool>()) {
    std::cout << ModelInfoJson(*model, path, top) << "\n";
    return FinishStdout(cmd);
  }
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  char magic[2] = {0, 0};
  const bool gzip = std::ifstream(path, std::ios::binary).read(magic, 2) &&
                    model_file::IsGzip(std::string_view(magic, 2));
  const ModelInputOptions& input = model->input_options();
  const std::vector<WeightedFeature> features = TopFeatures(*model, top);
  {
    std::cout << "model          " << path << "\n"
              << "file size      " << (ec ? 0 : file_size) << " bytes"
              << (gzip ? " (gzip-compressed)" : "") << "\n"
              << "labels         " << model->num_labels() << ":";
    for (const std::string& label : model->labels()) std::cout << " " << label;
    std::cout << "\n"
              << "family         " << ModelFamilyName(model->family());
    if (model->family() == ModelFamily::kLmsbn) {
      std::cout << " (left-to-right large-margin model over the whole label history, decoded by "
                   "branch-and-bound)\n"
                << "history        " << model->spec().num_history_templates() << " templates:";
      for (const std::string& line : model->spec().HistoryTemplateLines()) std::cout << " " << line;
    }
    std::cout << "\n";
    if (model->latent()) {
      std::cout << "hidden states  " << model->num_states() << " (latent-dynamic model):";
      for (int i = 0; i < model->num_labels(); ++i) {
        std::cout << " " << model->labels()[i] << "=" << model->latent_layout().states_of(i);
      }
      std::cout << "\n";
    }
    if (model->order() == 2) std::cout << "label order    2 (label-trigram weights)\n";
    std::cout << "input columns  " << model->spec().num_input_columns() << "\n"
              << "attributes     " << model->attributes().size() << "\n"
              << "state features " << model->num_state_features() << "\n"
              << "self-tests     " << model->self_tests().size() << " sentences (passed on load)\n";
    if (const auto& lexicon = model->spec().lexicon(); lexicon != nullptr) {
      std::cout << "lexicon        " << lexicon->num_words() << " words, "
                << lexicon->num_class_sets() << " class sets\n";
    }
    if (const auto& lexicon = model->spec().lexicon2(); lexicon != nullptr) {
      std::cout << "lexicon 2      " << lexicon->num_words() << " words, "
                << lexicon->num_class_sets() << " class sets\n";
    }
    if (const auto& clusters = model->spec().clusters(); clusters != nullptr) {
      std::cout << "clusters       " << clusters->num_words() << " words, "
                << clusters->num_clusters() << " clusters\n";
    }
    // How `tag` reads input for this model unless told otherwise.
    std::cout << "input          " << CorpusFormatName(input.format);
    if (input.format == CorpusFormat::kConll) std::cout << ", label column " << input.label_column;
    if (input.format == CorpusFormat::kConllu) std::cout << ", label field " << input.conllu_label;
    if (input.np_chunks) std::cout << ", NP chunks";
    std::cout << "\n\n"
              << "metadata\n";
    for (const auto& [key, value] : model->metadata()) {
      std::cout << "  " << std::left << std::setw(20) << key << " " << value << "\n";
    }
    std::cout << "\ntemplates\n" << model->spec().text();
    if (!model->spec().text().empty() && model->spec().text().back() != '\n') std::cout << "\n";
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
