// Runs the built `chaintag` binary through bash and captures its exit status and output.
#ifndef CHAINTAG_TESTS_SUPPORT_CLI_TEST_UTIL_H_
#define CHAINTAG_TESTS_SUPPORT_CLI_TEST_UTIL_H_

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace chaintag::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh temporary directory, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "chaintag-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `chaintag <args>` with bash (so pipes, printf and globs in `args` work). `prefix` runs
// before the binary, e.g. "printf 'x\\n' | ".
inline RunResult RunChaintag(const std::string& args, const std::string& prefix = "") {
  TempDir dir;
  const auto out = dir.path() / "out";
  const auto err = dir.path() / "err";
  const std::string command = prefix + "'" + std::string(CHAINTAG_BINARY) + "' " + args + " >'" +
                              out.string() + "' 2>'" + err.string() + "'";
  std::string script = "cd '" + std::string(CHAINTAG_SOURCE_DIR) + "' && " + command;
  std::string quoted;
  for (char c : script) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  const int status = std::system(("bash -c '" + quoted + "'").c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadAll(out);
  r.err = ReadAll(err);
  return r;
}

// Fails the test for every file in `dir` (a failed command must leave no partial output).
inline void ExpectEmptyDirectory(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ADD_FAILURE() << "left behind: " << entry.path();
  }
}

// The numbers of every `"key": NUMBER` in `text` (e.g. the scores of JSONL output), in order.
inline std::vector<double> JsonNumbers(const std::string& text, const std::string& key) {
  std::vector<double> out;
  const std::string needle = "\"" + key + "\": ";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const char* begin = text.c_str() + at + needle.size();
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end != begin) out.push_back(v);
  }
  return out;
}

inline bool HaveSharedCorpora() { return std::filesystem::exists(CHAINTAG_SHARED_CORPORA); }

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_CLI_TEST_UTIL_H_
