#include "cli/model_info.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/json.h"
#include "model/compression.h"

namespace chaintag::cli {

bool IsGzipModelFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  char magic[2] = {0, 0};
  return std::ifstream(path, std::ios::binary).read(magic, 2) &&
         model_file::IsGzip(std::string_view(magic, 2));
}

std::string ModelInfoJson(const Model& model, const std::string& path, int top) {
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  const bool gzip = IsGzipModelFile(path);
  const ModelInfo info = DescribeModel(model, top);
  const ModelInputOptions& input = info.input;
  const std::vector<WeightedFeature>& features = info.top_features;
  std::ostringstream out;
  out << "{\"file\": " << JsonString(path) << ", \"bytes\": " << (ec ? 0 : file_size)
      << ", \"gzip\": " << (gzip ? "true" : "false") << ", \"labels\": [";
  for (size_t i = 0; i < info.labels.size(); ++i)
    out << (i ? ", " : "") << JsonString(info.labels[i]);
  out << "], \"family\": " << JsonString(info.family);
  if (info.history_templates.has_value()) {
    out << ", \"history_templates\": [";
    for (size_t i = 0; i < info.history_templates->size(); ++i)
      out << (i ? ", " : "") << JsonString((*info.history_templates)[i]);
    out << "]";
  }
  if (info.hidden_states.has_value()) {
    // Hidden states per label, in label order (label y owns a contiguous block of them).
    out << ", \"hidden_states\": {";
    for (size_t i = 0; i < info.hidden_states->size(); ++i) {
      const auto& [label, states] = (*info.hidden_states)[i];
      out << (i ? ", " : "") << JsonString(label) << ": " << states;
    }
    out << "}";
  }
  auto words = [](const std::optional<ModelInfo::WordClasses>& w) { return w ? w->words : 0; };
  out << ", \"order\": " << info.order << ", \"attributes\": " << info.attributes
      << ", \"state_features\": " << info.state_features
      << ", \"input_columns\": " << info.input_columns
      << ", \"lexicon_words\": " << words(info.lexicon)
      << ", \"lexicon2_words\": " << words(info.lexicon2)
      << ", \"cluster_words\": " << words(info.clusters)
      << ", \"templates\": " << JsonString(info.templates)
      << ", \"input\": {\"format\": " << JsonString(std::string(CorpusFormatName(input.format)))
      << ", \"label_column\": " << input.label_column
      << ", \"conllu_label\": " << JsonString(input.conllu_label)
      << ", \"np_chunks\": " << (input.np_chunks ? "true" : "false") << "}, \"metadata\": {";
  bool first = true;
  for (const auto& [key, value] : info.metadata) {
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
