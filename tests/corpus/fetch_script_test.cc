// corpora/fetch.sh: the copying path (run when ../shared/corpora exists) and its checksums.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "chaintag/corpus.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Options;
using ::chaintag::testing::SharedCorpus;
using ::chaintag::testing::TempDir;

std::string Script() { return std::string(CHAINTAG_SOURCE_DIR) + "/corpora/fetch.sh"; }

int RunShell(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FetchScriptTest, CopiesSharedCorporaAndTheyRead) {
  if (!std::filesystem::exists(SharedCorpus(""))) {
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA;
  }
  TempDir dir;
  const std::string dest = dir.path() + "/corpora";
  ASSERT_EQ(RunShell("bash '" + Script() + "' '" + dest + "'"), 0);
  for (const char* f :
       {"conll2000/train.txt", "conll2000/dev.txt", "ud-english-ewt/en_ewt-ud-train.conllu",
        "ud-english-ewt/en_ewt-ud-dev.conllu", "ptb-sample/wsj_0001.mrg",
        "ptb-sample/wsj_0099.mrg"}) {
    EXPECT_EQ(std::filesystem::file_size(dest + "/" + f),
              std::filesystem::file_size(SharedCorpus(f)))
        << f;
  }
  auto copied = ReadCorpus({dest + "/conll2000/train.txt"}, Options(CorpusFormat::kConll));
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(copied->size(), 8936u);
}

TEST(FetchScriptTest, ChecksumMismatchFails) {
  if (!std::filesystem::exists(SharedCorpus(""))) {
    GTEST_SKIP() << "shared corpora not found at " << CHAINTAG_SHARED_CORPORA;
  }
  TempDir dir;
  const std::string fake = dir.path() + "/shared";
  // Symlinks to the shared files, except one tampered real file.
  const std::filesystem::path shared = SharedCorpus("");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(shared)) {
    const std::filesystem::path target =
        std::filesystem::path(fake) / std::filesystem::relative(entry.path(), shared);
    if (entry.is_directory()) {
      std::filesystem::create_directories(target);
    } else {
      std::filesystem::create_directories(target.parent_path());
      std::filesystem::create_symlink(entry.path(), target);
    }
  }
  std::filesystem::remove(fake + "/conll2000/dev.txt");
  std::filesystem::copy_file(SharedCorpus("conll2000/dev.txt"), fake + "/conll2000/dev.txt");
  std::filesystem::permissions(fake + "/conll2000/dev.txt", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::ofstream(fake + "/conll2000/dev.txt", std::ios::app) << "tampered X\n";
  EXPECT_EQ(RunShell("CHAINTAG_SHARED_CORPORA_DIR='" + fake + "' bash '" + Script() + "' '" +
                     dir.path() + "/out'"),
            1);
}

TEST(FetchScriptTest, UsageErrorWithoutDestination) {
  EXPECT_EQ(RunShell("bash '" + Script() + "'"), 2);
}

}  // namespace
}  // namespace chaintag
