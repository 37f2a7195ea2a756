#include "cli/tag_output.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "chaintag/chunks.h"
#include "cli/json.h"

namespace chaintag::cli {

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "conll") return OutputFormat::kConll;
  if (name == "conllu") return OutputFormat::kConllu;
  if (name == "tagged") return OutputFormat::kTagged;
  if (name == "chunks") return OutputFormat::kChunks;
  if (name == "jsonl") return OutputFormat::kJsonl;
  return absl::InvalidArgumentError(absl::StrCat(
      "--output-format: expected conll, conllu, tagged, chunks or jsonl, found '", name, "'"));
}

const char* OutputExtension(OutputFormat format) {
  switch (format) {
    case OutputFormat::kConll:
      return ".conll";
    case OutputFormat::kConllu:
      return ".conllu";
    case OutputFormat::kTagged:
      return ".tagged";
    case OutputFormat::kChunks:
      return ".chunks";
    case OutputFormat::kJsonl:
      return ".jsonl";
  }
  return ".out";
}

TagWriter::TagWriter(const std::vector<const Model*>& models, OutputFormat format, bool raw_text,
                     bool solution_headers, const ReaderOptions& reader, double marginals_min)
    : models_(models),
      format_(format),
      raw_text_(raw_text),
      solution_headers_(solution_headers),
      reader_(reader),
      marginals_min_(marginals_min) {}

std::vector<std::string> TagWriter::Layer(const TagResult& r, size_t k) const {
  std::vector<std::string> labels;
  labels.reserve(r.layer_names[k].size());
  for (std::string_view name : r.layer_names[k]) labels.emplace_back(name);
  return labels;
}

std::vector<std::string> TagWriter::SolutionLabels(const TagResult& r, size_t rank) const {
  std::vector<std::string> labels;
  if (rank >= r.solutions.size()) {
    labels.assign(r.sentence.size(), "_");  // infeasible or too large: no labeling to show
    return labels;
  }
  labels.reserve(r.solutions[rank].names.size());
  for (std::string_view name : r.solutions[rank].names) labels.emplace_back(name);
  return labels;
}

void TagWriter::WriteHeader(const TagResult& r, size_t rank, std::ostream& out) const {
  if (!solution_headers_) return;
  if (r.status != SentenceStatus::kOk) {
    out << "# status " << SentenceStatusName(r.status);
    if (!r.status_reason.empty()) out << ": " << r.status_reason;
    out << '\n';
    return;
  }
  const Solution& s = r.solutions[rank];
  char buf[96];
  if (r.search.cost) {  // the search's cost (e.g. sum of hinge losses), no probability
    std::snprintf(buf, sizeof buf, "# solution %zu score %.6f cost %.6g\n", rank + 1, s.score,
                  s.cost);
  } else {
    std::snprintf(buf, sizeof buf, "# solution %zu score %.6f probability %.6g\n", rank + 1,
                  s.score, s.probability);
  }
  out << buf;
}

absl::Status TagWriter::Write(const TagResult& r, std::ostream& out) const {
  switch (format_) {
    case OutputFormat::kConll:
      return WriteConll(r, out);
    case OutputFormat::kConllu:
      return WriteConllu(r, out);
    case OutputFormat::kTagged:
      return WriteTagged(r, out);
    case OutputFormat::kChunks:
      return WriteChunks(r, out);
    case OutputFormat::kJsonl:
      return WriteJsonl(r, out);
  }
  return absl::InternalError("unknown output format");
}

absl::Status TagWriter::WriteConll(const TagResult& r, std::ostream& out) const {
  const Sentence& s = r.sentence;
  std::vector<std::vector<std::string>> layers;
  for (size_t k = 0; k + 1 < models_.size(); ++k) layers.push_back(Layer(r, k));
  const size_t count = r.solutions.empty() ? 1 : r.solutions.size();
  for (size_t rank = 0; rank < count; ++rank) {
    WriteHeader(r, rank, out);
    const std::vector<std::string> last = SolutionLabels(r, rank);
    for (int t = 0; t < s.size(); ++t) {
      if (raw_text_) {
        // id, form, one column per model, start and end character offsets.
        out << t + 1 << '\t' << s.word(t);
        for (const auto& l : layers) out << '\t' << l[t];
        out << '\t' << last[t];
        if (t < static_cast<int>(s.offsets.size()))
          out << '\t' << s.offsets[t].first << '\t' << s.offsets[t].second;
        out << '\n';
      } else if (s.has_attributes()) {
        // Attribute input (as CRFsuite's tag -r): the gold label if any, then one per model.
        if (s.has_labels()) out << s.labels[t] << ' ';
        for (const auto& l : layers) out << l[t] << ' ';
        out << last[t] << '\n';
      } else {
        // Every input column (and a gold label column), then one column per model.
        for (int c = 0; c < s.num_columns(); ++c) out << (c ? " " : "") << s.columns[c][t];
        if (s.has_labels()) out << ' ' << s.labels[t];
        for (const auto& l : layers) out << ' ' << l[t];
        out << ' ' << last[t] << '\n';
      }
    }
    out << '\n';
  }
  return absl::OkStatus();
}

absl::Status TagWriter::WriteConllu(const TagResult& r, std::ostream& out) const {
  WriterOptions options;
  options.format = CorpusFormat::kConllu;
  options.conllu_label = reader_.conllu_label;
  const size_t count = r.solutions.empty() ? 1 : r.solutions.size();
  for (size_t rank = 0; rank < count; ++rank) {
    Sentence copy = r.sentence;
    if (solution_headers_) {
      std::ostringstream header;
      WriteHeader(r, rank, header);
      std::string line = header.str();
      line.pop_back();
      copy.comments.push_back(line);
    }
    const std::vector<std::string> last = SolutionLabels(r, rank);
    if (models_.size() == 1) {
      if (absl::Status st = WriteSentence(out, copy, last, options); !st.ok()) return st;
      continue;
    }
    // First model's labels go to the POS field; later models' to MISC as Chunk= (Tag3=, ...).
    if (!copy.conllu) {
      copy.conllu.emplace();
      for (int t = 0; t < copy.size(); ++t) {
        copy.conllu->word_fields.push_back(
            {std::to_string(t + 1), copy.word(t), "_", "_", "_", "_", "_", "_", "_", "_"});
      }
    }
    for (size_t k = 1; k < models_.size(); ++k) {
      const std::string key = k == 1 ? "Chunk" : absl::StrCat("Tag", k + 1);
      const std::vector<std::string> labels = k + 1 == models_.size() ? last : Layer(r, k);
      for (int t = 0; t < copy.size(); ++t) {
        std::string& misc = copy.conllu->word_fields[t][9];
        misc = (misc == "_" || misc.empty()) ? absl::StrCat(key, "=", labels[t])
                                             : absl::StrCat(misc, "|", key, "=", labels[t]);
      }
    }
    if (absl::Status st = WriteSentence(out, copy, Layer(r, 0), options); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status TagWriter::WriteTagged(const TagResult& r, std::ostream& out) const {
  // word_TAG with the first model's labels; when the last model has several solutions (k-best,
  // constraints) every model's label is appended: word_POS_CHUNK.
  const char sep = reader_.tagged_separator;
  const size_t count = r.solutions.empty() ? 1 : r.solutions.size();
  for (size_t rank = 0; rank < count; ++rank) {
    WriteHeader(r, rank, out);
    const std::vector<std::string> last = SolutionLabels(r, rank);
    std::vector<std::vector<std::string>> shown;
    if (models_.size() == 1) {
      shown.push_back(last);
    } else {
      shown.push_back(Layer(r, 0));
      if (solution_headers_) {
        for (size_t k = 1; k + 1 < models_.size(); ++k) shown.push_back(Layer(r, k));
        shown.push_back(last);
      }
    }
    for (int t = 0; t < r.sentence.size(); ++t) {
      if (t) out << ' ';
      for (char c : r.sentence.word(t)) {
        if (c == '/' && sep == '/') out << '\\';
        out << c;
      }
      for (const auto& l : shown) out << sep << l[t];
    }
    out << '\n';
  }
  return absl::OkStatus();
}

absl::Status TagWriter::WriteChunks(const TagResult& r, std::ostream& out) const {
  // [NP The/DT old/JJ man/NN] [VP saw/VBD] it/PRP ./.  — chunks of the last model in brackets,
  // each token as word/POS with the first model's tags when the pipeline has more than one model.
  const size_t count = r.solutions.empty() ? 1 : r.solutions.size();
  const bool with_pos = models_.size() > 1;
  const std::vector<std::string> pos = with_pos ? Layer(r, 0) : std::vector<std::string>();
  for (size_t rank = 0; rank < count; ++rank) {
    WriteHeader(r, rank, out);
    const std::vector<std::string> last = SolutionLabels(r, rank);
    const std::vector<Chunk> chunks = ExtractChunks(last);
    size_t next = 0;
    int open_end = -1;
    for (int t = 0; t < r.sentence.size(); ++t) {
      if (t) out << ' ';
      if (next < chunks.size() && chunks[next].begin == t) {
        out << '[' << chunks[next].type << ' ';
        open_end = chunks[next].end;
        ++next;
      }
      out << r.sentence.word(t);
      if (with_pos) out << '/' << pos[t];
      if (t + 1 == open_end) {
        out << ']';
        open_end = -1;
      }
    }
    out << '\n';
  }
  return absl::OkStatus();
}

absl::Status TagWriter::WriteJsonl(const TagResult& r, std::ostream& out) const {
  const Sentence& s = r.sentence;
  auto list = [&](const std::vector<std::string>& items) {
    out << '[';
    for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << JsonString(items[i]);
    out << ']';
  };
  out << "{\"tokens\": ";
  list(s.columns[0]);
  if (!s.offsets.empty()) {
    out << ", \"offsets\": [";
    for (size_t t = 0; t < s.offsets.size(); ++t) {
      out << (t ? ", " : "") << '[' << s.offsets[t].first << ", " << s.offsets[t].second << ']';
    }
    out << ']';
  }
  if (models_.size() > 1) {
    out << ", \"pipeline\": [";
    for (size_t k = 0; k + 1 < models_.size(); ++k) {
      if (k) out << ", ";
      list(Layer(r, k));
    }
    out << ']';
  }
  if (!r.forced.empty()) {
    out << ", \"forced\": ";
    list(r.forced);
  }
  out << ", \"status\": \"" << SentenceStatusName(r.status) << '"';
  if (!r.status_reason.empty()) out << ", \"reason\": " << JsonString(r.status_reason);
  if (!r.solutions.empty()) {
    out << ", \"labels\": ";
    list(SolutionLabels(r, 0));
    out << ", \"score\": " << JsonNumber(r.solutions[0].score);
    // Solutions of a cost-minimising search carry its cost instead of a probability.
    if (r.search.cost) {
      out << ", \"cost\": " << JsonNumber(r.solutions[0].cost);
    } else {
      out << ", \"probability\": " << JsonNumber(r.solutions[0].probability);
    }
  }
  // Branch-and-bound: whether the search proved optimality, and its work.
  if (r.search.optimal.has_value()) {
    out << ", \"optimal\": " << (*r.search.optimal ? "true" : "false")
        << ", \"nodes\": " << r.search.nodes;
  }
  out << ", \"solutions\": [";
  for (size_t rank = 0; rank < r.solutions.size(); ++rank) {
    out << (rank ? ", " : "") << "{\"labels\": ";
    list(SolutionLabels(r, rank));
    out << ", \"score\": " << JsonNumber(r.solutions[rank].score);
    if (r.search.cost) {
      out << ", \"cost\": " << JsonNumber(r.solutions[rank].cost);
    } else {
      out << ", \"probability\": " << JsonNumber(r.solutions[rank].probability);
    }
    out << '}';
  }
  out << ']';
  if (r.score_resolution > 0) out << ", \"score_resolution\": " << JsonNumber(r.score_resolution);
  if (r.search.exact.has_value()) {
    // LDI: certified most probable (k-best: no labeling left out beats the last one).
    out << ", \"exact\": " << (*r.search.exact ? "true" : "false")
        << ", \"hidden_paths\": " << r.search.hidden_paths;
  }
  // Collective tagging: the document, on its first sentence (on every sentence of a document
  // tagged sentence by sentence, with the reason).
  if (r.document != nullptr && r.document_first) {
    const DocumentReport& d = *r.document;
    out << ", \"document\": {\"index\": " << d.index;
    if (!d.warning.empty()) {
      out << ", \"warning\": " << JsonString(d.warning);
    } else {
      std::vector<int> sizes = d.clique_sizes;
      std::sort(sizes.begin(), sizes.end());
      out << ", \"sentences\": " << d.sentences << ", \"tokens\": " << d.tokens
          << ", \"cliques\": " << sizes.size()
          << ", \"median_clique\": " << (sizes.empty() ? 0 : sizes[(sizes.size() - 1) / 2])
          << ", \"largest_clique\": " << (sizes.empty() ? 0 : sizes.back())
          << ", \"iterations\": " << d.iterations
          << ", \"converged\": " << (d.converged ? "true" : "false")
          << ", \"plain_objective\": " << JsonNumber(d.plain_objective)
          << ", \"objective\": " << JsonNumber(d.objective)
          << ", \"changed_tokens\": " << d.changed_tokens;
    }
    out << '}';
  }
  if (!r.marginals.empty()) {
    const std::vector<std::string>& names = *r.label_names;
    const int n = static_cast<int>(names.size());
    out << ", \"marginals\": [";
    for (int t = 0; t < s.size(); ++t) {
      out << (t ? ", " : "") << '{';
      bool first = true;
      for (int y = 0; y < n; ++y) {
        const double p = r.marginals[static_cast<size_t>(t) * n + y];
        if (p < marginals_min_) continue;  // short lines: --marginals-min (default 1e-4)
        out << (first ? "" : ", ") << JsonString(names[y]) << ": " << JsonNumber(p);
        first = false;
      }
      out << '}';
    }
    out << ']';
  }
  out << "}\n";
  return absl::OkStatus();
}

}  // namespace chaintag::cli
