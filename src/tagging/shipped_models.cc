// Where the shipped models are: $CHAINTAG_MODELS, caller-given directories, or beside the binary.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/tagging.h"

namespace chaintag {

const std::vector<std::string>& DefaultModelFiles() {
  static const auto* files = new std::vector<std::string>{"en-pos.model", "en-chunk.model"};
  return *files;
}

const std::vector<std::string>& AccurateModelFiles() {
  static const auto* files = new std::vector<std::string>{"en-pos-nn.model", "en-chunk-nn.model"};
  return *files;
}

absl::StatusOr<std::string> ShippedModelPath(const std::string& file,
                                             const std::vector<std::string>& extra_dirs) {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("CHAINTAG_MODELS"); env != nullptr && *env != '\0')
    dirs.emplace_back(env);
  for (const std::string& dir : extra_dirs) dirs.emplace_back(dir);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / "share" / "chaintag" / "models");
    dirs.push_back(exe.parent_path().parent_path() / "share" / "chaintag" / "models");
  }
  std::vector<std::string> tried;
  for (const auto& dir : dirs) {
    if (std::filesystem::is_regular_file(dir / file, ec)) return (dir / file).string();
    tried.push_back(dir.string());
  }
  return absl::NotFoundError(absl::StrCat(
      "cannot find the shipped model ", file, " (looked in ", absl::StrJoin(tried, ", "),
      "); give -m MODEL or set CHAINTAG_MODELS to its directory"));
}

absl::StatusOr<std::vector<std::string>> PipelineModelPaths(const std::vector<std::string>& given,
                                                            bool accurate) {
  if (!given.empty()) return given;
  std::vector<std::string> paths;
  for (const std::string& name : accurate ? AccurateModelFiles() : DefaultModelFiles()) {
    auto path = ShippedModelPath(name);
    if (!path.ok()) return path.status();
    paths.push_back(*std::move(path));
  }
  return paths;
}

}  // namespace chaintag
