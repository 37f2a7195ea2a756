// Output side of `chaintag tag`: conll, conllu, tagged, chunks and jsonl writers.
#ifndef CHAINTAG_CLI_TAG_OUTPUT_H_
#define CHAINTAG_CLI_TAG_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"

namespace chaintag::cli {

enum class OutputFormat { kConll, kConllu, kTagged, kChunks, kJsonl };
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);
const char* OutputExtension(OutputFormat format);

class TagWriter {
 public:
  // `raw_text`: the input was raw text (conll output then lists id, form, labels, offsets).
  // `solution_headers`: precede every solution with "# solution RANK score S probability P".
  TagWriter(const std::vector<const Model*>& models, OutputFormat format, bool raw_text,
            bool solution_headers, const ReaderOptions& reader, double marginals_min = 1e-4);
  absl::Status Write(const TagResult& r, std::ostream& out) const;

 private:
  // Label names of pipeline layer k (< last) or of a solution of the last model.
  std::vector<std::string> Layer(const TagResult& r, size_t k) const;
  std::vector<std::string> SolutionLabels(const TagResult& r, size_t rank) const;
  void WriteHeader(const TagResult& r, size_t rank, std::ostream& out) const;
  absl::Status WriteConll(const TagResult& r, std::ostream& out) const;
  absl::Status WriteConllu(const TagResult& r, std::ostream& out) const;
  absl::Status WriteTagged(const TagResult& r, std::ostream& out) const;
  absl::Status WriteChunks(const TagResult& r, std::ostream& out) const;
  absl::Status WriteJsonl(const TagResult& r, std::ostream& out) const;

  std::vector<const Model*> models_;
  OutputFormat format_;
  bool raw_text_;
  bool solution_headers_;
  ReaderOptions reader_;
  double marginals_min_;
};

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_TAG_OUTPUT_H_
