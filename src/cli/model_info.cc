#include "cli/model_info.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/json.h"
#include "model/compression.h"

namespace chaintag::cli {

std::string ModelInfoJson(const Model& model, const std::string& path, int top) {
  std::ostringstream out;
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  char magic[2] = {0, 0};
  const bool gzip = std::ifstream(path, std::ios::binary).read(magic, 2) &&
                    model_file::IsGzip(std::string_view(magic, 2));
  const ModelInputOptions& input = model.input_options();
  const std::vector<WeightedFeature> features = TopFeatures(model, top);
  out << "{\"file\": " << JsonString(path) << ", \"bytes\": " << (ec ? 0 : file_size)
      << ", \"gzip\": " << (gzip ? "true" : "false") << ", \"labels\": [";
  for (int i = 0; i < model.num_labels(); ++i) {
    out << (i ? ", " : "") << JsonString(model.labels()[i]);
  }
  out << "], \"family\": " << JsonString(std::string(ModelFamilyName(model.family())));
  if (model.family() == ModelFamily::kLmsbn) {
    out << ", \"history_templates\": [";
    const std::vector<std::string> history = model.spec().HistoryTemplateLines();
    for (size_t i = 0; i < history.size(); ++i) {
      out << (i ? ", " : "") << JsonString(history[i]);
    }
    out << "]";
  }
  if (model.latent()) {
    // Hidden states per label, in label order (label y owns a contiguous block of them).
    out << ", \"hidden_states\": {";
    for (int i = 0; i < model.num_labels(); ++i) {
      out << (i ? ", " : "") << JsonString(model.labels()[i]) << ": "
          << model.latent_layout().states_of(i);
    }
    out << "}";
  }
  out << ", \"order\": " << model.order() << ", \"attributes\": " << model.attributes().size()
      << ", \"state_features\": " << model.num_state_features()
      << ", \"input_columns\": " << model.spec().num_input_columns() << ", \"lexicon_words\": "
      << (model.spec().lexicon() ? model.spec().lexicon()->num_words() : 0)
      << ", \"lexicon2_words\": "
      << (model.spec().lexicon2() ? model.spec().lexicon2()->num_words() : 0)
      << ", \"cluster_words\": "
      << (model.spec().clusters() ? model.spec().clusters()->num_words() : 0)
      << ", \"templates\": " << JsonString(model.spec().text())
      << ", \"input\": {\"format\": " << JsonString(std::string(CorpusFormatName(input.format)))
      << ", \"label_column\": " << input.label_column
      << ", \"conllu_label\": " << JsonString(input.conllu_label)
      << ", \"np_chunks\": " << (input.np_chunks ? "true" : "false") << "}, \"metadata\": {";
  bool first = true;
  for (const auto& [key, value] : model.metadata()) {
    out << (first ? "" : ", ") << JsonString(key) << ": " << JsonString(value);
    first = false;
  }
  out << "}, \"top_features\": [";
  for (size_t i = 0; i < features.size(); ++i) {
    out << (i ? ", " : "") << "{\"attribute\": " << JsonString(features[i].attribute)
        << ", \"label\": " << JsonString(features[i].label)
        << ", \"weight\": " << JsonNumber(features[i].weight) << "}";
  }
  out << "]}";
  return out.str();
}

}  // namespace chaintag::cli
