// Helpers shared by the corpus tests.
#ifndef CHAINTAG_TESTS_SUPPORT_CORPUS_UTIL_H_
#define CHAINTAG_TESTS_SUPPORT_CORPUS_UTIL_H_

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/corpus.h"

namespace chaintag::testing {

// Reads every sentence of `text`; the first error is returned.
inline absl::StatusOr<std::vector<Sentence>> ReadAll(const std::string& text,
                                                     const ReaderOptions& options,
                                                     const std::string& name = "test.txt") {
  std::istringstream in(text);
  std::unique_ptr<SentenceReader> reader = MakeSentenceReader(in, name, options);
  std::vector<Sentence> out;
  while (true) {
    absl::StatusOr<std::optional<Sentence>> next = reader->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    out.push_back(std::move(**next));
  }
  return out;
}

inline ReaderOptions Options(CorpusFormat format) {
  ReaderOptions options;
  options.format = format;
  return options;
}

inline std::string SharedCorpus(const std::string& relative) {
  std::string path = CHAINTAG_SHARED_CORPORA;
  path.push_back('/');
  path.append(relative);
  return path;
}

inline std::string Message(const absl::Status& status) { return std::string(status.message()); }

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string templ =
        (std::filesystem::temp_directory_path() / "chaintag-corpus-XXXXXX").string();
    path_ = mkdtemp(templ.data()) ? templ : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_CORPUS_UTIL_H_
